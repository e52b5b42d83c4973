"""Int8 variants of a served split graph (minirag/word_table.py), for scripts/encoder_speed.py and
scripts/eval.py --graph: the measurements behind docs/models.md#int8-weights-measured-not-used.

    python scripts/int8_variants.py MODEL_DIR CACHE_DIR OUT_DIR VARIANT [VARIANT ...] [--calibration INDEX.db]

VARIANT is one of (needs the dev dependency `onnx`; node names as scripts/e5_small exports them):
  all            quantize_dynamic(per_channel=True) of every MatMul with a weight initializer
  no-ffn-out     the same, less the feed-forward output MatMuls (their input is GELU's output)
  keep-ffn-out:L,L,...  the same, less the feed-forward output MatMuls of the layers listed
  no-first-last  the same, less every MatMul of the first and last layers
  ffn            only the feed-forward MatMuls
  smooth:ALPHA   SmoothQuant on the feed-forward output MatMuls (GELU's output divided per channel by
                 s = max|x|^ALPHA / max|w|^(1-ALPHA), measured on 150 chunks of --calibration, the
                 weight rows multiplied by s), then `all`
  nbits8:BLOCK   MatMulNBits, 8-bit symmetric blocks of BLOCK along K, accuracy_level 4 (int8 compute)
Prints the path of each graph written.
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

SKIPS = {
    "all": lambda name: False,
    "no-ffn-out": lambda name: "_fo_" in name,
    "no-first-last": lambda name: name.split("_")[0] in ("L0", "L11"),
    "ffn": lambda name: "_fi_" not in name and "_fo_" not in name,
}


def weight_matmuls(model) -> list:
    initializers = {i.name for i in model.graph.initializer}
    return [n for n in model.graph.node if n.op_type == "MatMul" and n.input[1] in initializers]


def make(split: Path, variant: str, out: Path, encoder=None, calibration: list[str] | None = None) -> Path:
    import onnx
    from onnxruntime.quantization import QuantType, quantize_dynamic

    target = out / f"{variant.replace(':', '-')}.onnx"
    model = onnx.load(str(split))
    kind, _, arg = variant.partition(":")
    if kind == "nbits8":
        _nbits(model, int(arg))
        onnx.save(model, str(target))
        return target
    skip = SKIPS.get(kind)
    if kind == "keep-ffn-out":
        layers = {f"L{layer}" for layer in arg.split(",")}
        skip = lambda name: "_fo_" in name and name.split("_")[0] in layers  # noqa: E731
    if kind == "smooth":
        _smooth(model, float(arg), encoder, calibration or [], split)
        skip = SKIPS["all"]
    if skip is None:
        raise SystemExit(f"unknown variant {variant!r}")
    source = out / f"{target.stem}.float.onnx"
    onnx.save(model, str(source))
    weights = {n.name for n in weight_matmuls(model)}
    excluded = [n.name for n in model.graph.node if n.op_type == "MatMul" and (n.name not in weights or skip(n.name))]
    quantize_dynamic(str(source), str(target), per_channel=True, weight_type=QuantType.QInt8,
                     op_types_to_quantize=["MatMul"], nodes_to_exclude=excluded)
    source.unlink()
    return target


def _nbits(model, block: int) -> None:
    from onnx import helper, numpy_helper

    initializers = {i.name: i for i in model.graph.initializer}
    nodes = []
    for node in model.graph.node:
        if node not in weight_matmuls(model):
            nodes.append(node)
            continue
        weights = numpy_helper.to_array(initializers[node.input[1]]).astype(np.float32)  # [K, N]
        k, n = weights.shape
        blocks = -(-k // block)
        padded = np.zeros((blocks * block, n), np.float32)
        padded[:k] = weights
        grouped = padded.T.reshape(n, blocks, block)
        scale = np.abs(grouped).max(axis=2) / 127.0
        scale[scale == 0] = 1.0
        quantized = (np.clip(np.round(grouped / scale[..., None]), -128, 127) + 128).astype(np.uint8)
        name = node.input[1]
        model.graph.initializer.extend([numpy_helper.from_array(quantized, f"{name}_nbits"),
                                        numpy_helper.from_array(scale.astype(np.float32).reshape(-1), f"{name}_nbits_scale")])
        nodes.append(helper.make_node("MatMulNBits", [node.input[0], f"{name}_nbits", f"{name}_nbits_scale"],
                                      list(node.output), name=f"{node.name}_nbits", domain="com.microsoft",
                                      K=k, N=n, bits=8, block_size=block, accuracy_level=4))
    del model.graph.node[:]
    model.graph.node.extend(nodes)
    used = {i for n in model.graph.node for i in n.input}
    kept = [i for i in model.graph.initializer if i.name in used]
    del model.graph.initializer[:]
    model.graph.initializer.extend(kept)
    model.opset_import.append(helper.make_opsetid("com.microsoft", 1))


def _smooth(model, alpha: float, encoder, texts: list[str], split: Path) -> None:
    import onnx
    import onnxruntime as ort
    from onnx import TensorProto, helper, numpy_helper

    targets = [n for n in weight_matmuls(model) if SKIPS["no-ffn-out"](n.name)]
    inputs = [n.input[0] for n in targets]
    probe = onnx.load(str(split))
    probe.graph.output.extend(helper.make_tensor_value_info(name, TensorProto.FLOAT, None) for name in inputs)
    session = ort.InferenceSession(probe.SerializeToString(), providers=["CPUExecutionProvider"])
    largest = [None] * len(inputs)
    for feeds in _feeds(encoder, texts):
        for i, value in enumerate(session.run(inputs, feeds)):
            seen = np.abs(value).reshape(-1, value.shape[-1]).max(axis=0)
            largest[i] = seen if largest[i] is None else np.maximum(largest[i], seen)
    initializers = {i.name: i for i in model.graph.initializer}
    nodes = []
    for node in model.graph.node:
        if node in targets:
            x_max = np.maximum(largest[targets.index(node)], 1e-5)
            weights = numpy_helper.to_array(initializers[node.input[1]]).astype(np.float32)
            s = (x_max ** alpha / np.maximum(np.abs(weights).max(axis=1), 1e-5) ** (1 - alpha)).astype(np.float32)
            initializers[node.input[1]].CopyFrom(numpy_helper.from_array(weights * s[:, None], node.input[1]))
            model.graph.initializer.append(numpy_helper.from_array((1 / s).astype(np.float32), f"{node.name}_smooth"))
            nodes.append(helper.make_node("Mul", [node.input[0], f"{node.name}_smooth"], [f"{node.input[0]}_smoothed"],
                                          name=f"{node.name}_smooth_mul"))
            node.input[0] = f"{node.input[0]}_smoothed"
        nodes.append(node)
    del model.graph.node[:]
    model.graph.node.extend(nodes)


def _feeds(encoder, texts: list[str]):
    """The split graph's inputs for `texts` as documents, batched as the encoder batches them."""
    prefix, limit = encoder.spec.document_prefix, encoder.max_length
    ids = [e.ids[: limit - 1] + e.ids[-1:] if len(e.ids) > limit else e.ids
           for e in encoder._tokenizer.encode_batch([prefix + t for t in texts])]  # noqa: SLF001
    for batch in encoder._batches(sorted(range(len(ids)), key=lambda i: len(ids[i])), ids):  # noqa: SLF001
        rows = [ids[i] for i in batch]
        input_ids = np.zeros((len(rows), max(map(len, rows))), dtype=np.int64)
        mask = np.zeros_like(input_ids)
        for r, row in enumerate(rows):
            input_ids[r, : len(row)], mask[r, : len(row)] = row, 1
        feeds = {"input_ids": input_ids, "attention_mask": mask,
                 encoder._split.embeds_input: encoder._table[input_ids].astype(np.float32)}  # noqa: SLF001
        if "token_type_ids" in encoder._inputs:  # noqa: SLF001
            feeds["token_type_ids"] = np.zeros_like(input_ids)
        yield feeds


def calibration_texts(index: Path, count: int = 150) -> list[str]:
    from minirag.store import connection

    conn = connection.connect(index, read_only=True)
    texts = [r[0] for r in conn.execute("SELECT text FROM chunks")]
    conn.close()
    return random.Random(11).sample(texts, min(count, len(texts)))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("model", type=Path)
    parser.add_argument("cache_dir", type=Path)
    parser.add_argument("out", type=Path)
    parser.add_argument("variants", nargs="+")
    parser.add_argument("--calibration", type=Path, help="an index whose chunks calibrate smooth:ALPHA")
    args = parser.parse_args()

    from minirag.encoder import Encoder
    from minirag.models import resolve

    encoder = Encoder(resolve("unused", args.model, args.cache_dir), cache_dir=args.cache_dir)
    if encoder._split is None:  # noqa: SLF001
        raise SystemExit(f"{args.model}: no split graph")
    texts = calibration_texts(args.calibration) if args.calibration else None
    if texts is None and any(v.startswith("smooth:") for v in args.variants):
        parser.error("smooth:ALPHA needs --calibration")
    args.out.mkdir(parents=True, exist_ok=True)
    for variant in args.variants:
        print(make(encoder._split.onnx_path, variant, args.out, encoder, texts), flush=True)  # noqa: SLF001
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
