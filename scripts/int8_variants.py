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
  skip:REGEX     `all` less the MatMuls whose node name matches REGEX (re.search), e.g. skip:_fo_|^L11_
  only:REGEX     only the MatMuls whose node name matches REGEX
  tok/VARIANT    VARIANT's MatMuls (one of the above but smooth and nbits8), built by hand instead of by
                 quantize_dynamic: weights int8 per output column, symmetric; each activation row (token)
                 quantized to int8 with its own scale (max |x| / 127), so a token's outliers set only its
                 own scale and a chunk's vector no longer depends on the chunks batched with it
With --reduce-range, quantize_dynamic's weights are 7-bit.
Prints the path of each graph written.
"""

from __future__ import annotations

import argparse
import random
import re
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


GELU_SHIFT = 0.17  # GELU's least value is -0.16997


def weight_matmuls(model) -> list:
    initializers = {i.name for i in model.graph.initializer}
    return [n for n in model.graph.node if n.op_type == "MatMul" and n.input[1] in initializers]


def make(split: Path, variant: str, out: Path, encoder=None, calibration: list[str] | None = None,
         reduce_range: bool = False) -> Path:
    import onnx
    from onnxruntime.quantization import QuantType, quantize_dynamic

    target = out / f"{re.sub(r'[^A-Za-z0-9_.,-]+', '-', variant.replace('+', 'p'))}{'-rr' if reduce_range else ''}.onnx"
    model = onnx.load(str(split))
    per_token, shifted = variant.startswith(("tok/", "tok+/")), variant.startswith("tok+/")
    kind, _, arg = variant.removeprefix("tok/").removeprefix("tok+/").partition(":")
    if kind == "nbits8":
        _nbits(model, int(arg))
        onnx.save(model, str(target))
        return target
    skip = SKIPS.get(kind)
    if kind == "keep-ffn-out":
        layers = {f"L{layer}" for layer in arg.split(",")}
        skip = lambda name: "_fo_" in name and name.split("_")[0] in layers  # noqa: E731
    if kind == "skip":
        skip = lambda name: re.search(arg, name) is not None  # noqa: E731
    if kind == "only":
        skip = lambda name: re.search(arg, name) is None  # noqa: E731
    if kind == "smooth":
        _smooth(model, float(arg), encoder, calibration or [], split)
        skip = SKIPS["all"]
    if skip is None:
        raise SystemExit(f"unknown variant {variant!r}")
    if per_token:
        _per_token(model, [n for n in weight_matmuls(model) if not skip(n.name)], shifted)
        onnx.save(model, str(target))
        return target
    source = out / f"{target.stem}.float.onnx"
    onnx.save(model, str(source))
    weights = {n.name for n in weight_matmuls(model)}
    excluded = [n.name for n in model.graph.node if n.op_type == "MatMul" and (n.name not in weights or skip(n.name))]
    quantize_dynamic(str(source), str(target), per_channel=True, weight_type=QuantType.QInt8,
                     op_types_to_quantize=["MatMul"], nodes_to_exclude=excluded, reduce_range=reduce_range)
    source.unlink()
    return target


def _per_token(model, targets: list, shifted: bool = False) -> None:
    """Replace each MatMul of `targets` by an integer product: its weight int8 per output column, its
    input per row (the last axis's max |x| / 127, one scale per token) as uint8 around 128 (ORT's
    int8 x int8 kernel is 20x slower than its uint8 x int8 one), the int32 product scaled back.
    `shifted`: a feed-forward output's input (GELU's output, never below -0.16998) is quantized
    as x + 0.17 over 0..255 instead (twice the steps), 0.17 x the weights' column sums subtracted after.
    The rows are quantized as a [tokens, K] matrix by one QuantizeLinear per axis 0, and the product
    scaled per column by MatMulIntegerToFloat, then per row by a Mul (the fewest passes found)."""
    from onnx import helper, numpy_helper

    initializers = {i.name: i for i in model.graph.initializer}
    consts = {"tok_inv127": np.array(1 / 127, np.float32), "tok_inv255": np.array(1 / 255, np.float32),
              "tok_eps": np.array(1e-8, np.float32), "tok_shift": np.array(GELU_SHIFT, np.float32),
              "tok_one": np.array(1, np.float32), "tok_rows": np.array([-1, 0], np.int64)}
    model.graph.initializer.extend(numpy_helper.from_array(v, k) for k, v in consts.items())
    quantized_inputs: dict[str, tuple[str, str, str]] = {}
    nodes = []
    for node in model.graph.node:
        if node not in targets:
            nodes.append(node)
            continue
        x = node.input[0]
        shift = shifted and "_fo_" in node.name
        k = numpy_helper.to_array(initializers[node.input[1]]).shape[0]
        if x not in quantized_inputs:
            p = f"{x}_tok"
            model.graph.initializer.append(numpy_helper.from_array(np.array([-1, k], np.int64), f"{p}_shape2"))
            if shift:
                nodes += [helper.make_node("Add", [x, "tok_shift"], [f"{p}_pos"], name=f"{p}_pos"),
                          helper.make_node("Reshape", [f"{p}_pos", f"{p}_shape2"], [f"{p}_2d"], name=f"{p}_2d"),
                          helper.make_node("ReduceMax", [f"{p}_2d"], [f"{p}_max"], name=f"{p}_max", axes=[1], keepdims=0)]
                zero_value, inverse = 0, "tok_inv255"
            else:
                nodes += [helper.make_node("Reshape", [x, f"{p}_shape2"], [f"{p}_2d"], name=f"{p}_2d"),
                          helper.make_node("Abs", [f"{p}_2d"], [f"{p}_abs"], name=f"{p}_abs"),
                          helper.make_node("ReduceMax", [f"{p}_abs"], [f"{p}_max"], name=f"{p}_max", axes=[1], keepdims=0)]
                zero_value, inverse = 128, "tok_inv127"
            nodes += [helper.make_node("Max", [f"{p}_max", "tok_eps"], [f"{p}_max1"], name=f"{p}_max1"),
                      helper.make_node("Mul", [f"{p}_max1", inverse], [f"{p}_scale"], name=f"{p}_scale"),
                      helper.make_node("Shape", [f"{p}_scale"], [f"{p}_n"], name=f"{p}_n"),
                      helper.make_node("ConstantOfShape", [f"{p}_n"], [f"{p}_zero"], name=f"{p}_zero",
                                       value=numpy_helper.from_array(np.array([zero_value], np.uint8))),
                      helper.make_node("QuantizeLinear", [f"{p}_2d", f"{p}_scale", f"{p}_zero"], [f"{p}_q"],
                                       name=f"{p}_q", axis=0),
                      helper.make_node("Unsqueeze", [f"{p}_scale", "tok_axis1"], [f"{p}_rowscale"], name=f"{p}_rowscale"),
                      helper.make_node("Shape", [x], [f"{p}_shape"], name=f"{p}_shape")]
            quantized_inputs[x] = (f"{p}_q", f"{p}_rowscale", f"{p}_shape")
        xq, xscale, xshape = quantized_inputs[x]
        weights = numpy_helper.to_array(initializers[node.input[1]]).astype(np.float32)  # [K, N]
        wscale = np.maximum(np.abs(weights).max(axis=0), 1e-12) / 127
        wq = np.clip(np.round(weights / wscale), -127, 127).astype(np.int8)
        w, y = node.input[1], node.output[0]
        model.graph.initializer.extend([numpy_helper.from_array(wq, f"{w}_q"),
                                        numpy_helper.from_array(wscale.astype(np.float32), f"{w}_scale"),
                                        numpy_helper.from_array(np.array(128 if not shift else 0, np.uint8), f"{w}_azero")])
        inputs = [xq, f"{w}_q", "tok_one", f"{w}_scale", f"{w}_azero", ""]
        if shift:
            offset = -GELU_SHIFT * (wq.astype(np.float32) * wscale).sum(axis=0)
            model.graph.initializer.append(numpy_helper.from_array(offset.astype(np.float32), f"{w}_offset"))
        nodes += [helper.make_node("MatMulIntegerToFloat", inputs, [f"{y}_w"], name=f"{node.name}_int", domain="com.microsoft"),
                  helper.make_node("Mul", [f"{y}_w", xscale], [f"{y}_x" if not shift else f"{y}_s"], name=f"{node.name}_x")]
        if shift:
            nodes.append(helper.make_node("Add", [f"{y}_s", f"{w}_offset"], [f"{y}_x"], name=f"{node.name}_offset"))
        out_shape = f"{y}_shape"
        model.graph.initializer.append(numpy_helper.from_array(np.array([wq.shape[1]], np.int64), f"{y}_n"))
        nodes += [helper.make_node("Slice", [xshape, "tok_s0", "tok_s2"], [f"{y}_lead"], name=f"{node.name}_lead"),
                  helper.make_node("Concat", [f"{y}_lead", f"{y}_n"], [out_shape], name=f"{node.name}_shape", axis=0),
                  helper.make_node("Reshape", [f"{y}_x", out_shape], [y], name=f"{node.name}_3d")]
    model.graph.initializer.extend([numpy_helper.from_array(np.array([1], np.int64), "tok_axis1"),
                                    numpy_helper.from_array(np.array([0], np.int64), "tok_s0"),
                                    numpy_helper.from_array(np.array([2], np.int64), "tok_s2")])
    del model.graph.node[:]
    model.graph.node.extend(nodes)
    if not any(o.domain == "com.microsoft" for o in model.opset_import):
        model.opset_import.append(helper.make_opsetid("com.microsoft", 1))
    used = {i for n in model.graph.node for i in n.input}
    kept = [i for i in model.graph.initializer if i.name in used]
    del model.graph.initializer[:]
    model.graph.initializer.extend(kept)


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
    parser.add_argument("--reduce-range", action="store_true", help="7-bit weights in quantize_dynamic")
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
        print(make(encoder._split.onnx_path, variant, args.out, encoder, texts, args.reduce_range), flush=True)  # noqa: SLF001
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
