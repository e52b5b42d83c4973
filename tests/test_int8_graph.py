"""Documents and queries embedded with the split graph's int8 form (minirag/int8_graph.py): the real tiny ONNX
model, split and quantized into a real cache directory, stays within cosine 0.999 of the float graph."""

from __future__ import annotations

import numpy as np
import pytest

from minirag import int8_graph, word_table
from minirag.encoder import Encoder
from minirag.models import resolve

TEXTS = ["Sea otters hold hands while they sleep.", "otters", "Wie stelle ich den Drucker ein?",
         "a longer passage about rivers, otters and the fish they eat " * 8]


@pytest.fixture
def tiny_files(tiny_model_dir, tmp_path):
    return resolve("unused", tiny_model_dir, tmp_path / "no-hub")


def test_documents_and_queries_are_embedded_with_int8_products_within_cosine_0999(tiny_files, tiny_encoder,
                                                                                tmp_path, monkeypatch):
    served = Encoder(tiny_files, cache_dir=tmp_path / "cache")
    with monkeypatch.context() as patched:
        patched.setattr(int8_graph, "session", lambda *args: None)
        float_split = Encoder(tiny_files, cache_dir=tmp_path / "cache")
    for embed in ("embed_documents", "embed_queries"):
        ours = getattr(served, embed)(TEXTS)
        assert not np.allclose(ours, getattr(float_split, embed)(TEXTS), atol=1e-6)  # the int8 graph ran
        assert np.sum(ours * getattr(tiny_encoder, embed)(TEXTS), axis=1).min() >= 0.999


def test_a_chunk_vector_does_not_depend_on_its_batch(tiny_files, tmp_path):
    """Each token's input is quantized with its own scale: no other chunk moves it."""
    served = Encoder(tiny_files, cache_dir=tmp_path / "cache")
    alone = served.embed_documents(TEXTS[:1])
    together = served.embed_documents([TEXTS[0], "ZZZZ " * 30 + "1234567890 " * 20])
    assert np.allclose(alone[0], together[0], atol=1e-6)


def test_the_int8_graph_is_cached_and_reused(tiny_files, tmp_path):
    split = word_table.cached(tiny_files.onnx_path, tmp_path)
    assert split is not None
    older = split.onnx_path.parent / f"int8-{int8_graph.FORMAT - 1}.onnx"
    older.write_bytes(b"an older format's graph")
    first = int8_graph.cached(split.onnx_path)
    assert first is not None and first.is_file() and first.parent == split.onnx_path.parent  # goes with the split
    assert not list(first.parent.glob("*.partial")) and not older.exists()
    stamp = first.stat().st_mtime_ns
    assert int8_graph.cached(split.onnx_path) == first
    assert first.stat().st_mtime_ns == stamp  # not made again


def test_a_graph_without_weight_products_keeps_the_float_graph(tmp_path):
    from onnx import TensorProto, helper, save

    nodes = [helper.make_node("MatMul", ["a", "b"], ["y"])]  # no weight initializer
    graph = helper.make_graph(
        nodes, "g", [helper.make_tensor_value_info(n, TensorProto.FLOAT, [2, 2]) for n in ("a", "b")],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 2])])
    save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), str(tmp_path / "model.onnx"))
    assert int8_graph.cached(tmp_path / "model.onnx") is None


def test_value_projections_stay_float_and_gelu_inputs_are_shifted(tmp_path):
    """The attention's value product keeps float weights; a product fed by GELU is quantized over
    x + 0.17 (its offset added back); the others become integer products."""
    from onnx import TensorProto, helper, load, numpy_helper, save

    rng = np.random.default_rng(3)
    weights = [numpy_helper.from_array(rng.standard_normal((8, 8)).astype(np.float32), n)
               for n in ("wq", "wv", "wi", "wo")]
    nodes = [helper.make_node("MatMul", ["x", "wq"], ["q"]),
             helper.make_node("Softmax", ["q"], ["p"]),
             helper.make_node("MatMul", ["x", "wv"], ["v"]),
             helper.make_node("Transpose", ["v"], ["vt"], perm=[0, 2, 1]),
             helper.make_node("MatMul", ["p", "vt"], ["ctx"]),
             helper.make_node("MatMul", ["ctx", "wi"], ["h"]),
             helper.make_node("Div", ["h", "sqrt2"], ["h0"]),
             helper.make_node("Erf", ["h0"], ["h1"]),
             helper.make_node("Add", ["h1", "one"], ["h2"]),
             helper.make_node("Mul", ["h", "h2"], ["h3"]),
             helper.make_node("Mul", ["h3", "half"], ["gelu"]),
             helper.make_node("MatMul", ["gelu", "wo"], ["y"])]
    constants = [numpy_helper.from_array(np.array(v, np.float32), n)
                 for n, v in (("sqrt2", np.sqrt(2)), ("one", 1.0), ("half", 0.5))]
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["b", 8, 8])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["b", 8, 8])],
                              [*weights, *constants])
    save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), str(tmp_path / "model.onnx"))
    path = int8_graph.cached(tmp_path / "model.onnx")
    assert path is not None
    model = load(str(path))
    float_products = [n.input[1] for n in model.graph.node if n.op_type == "MatMul"]
    assert float_products == ["wv", "vt"]  # the value projection, and the attention's own product
    assert sum(n.op_type == "MatMulIntegerToFloat" for n in model.graph.node) == 3
    assert "wo_i8offset" in {i.name for i in model.graph.initializer}

    import onnxruntime as ort

    x = {"x": rng.standard_normal((3, 8, 8)).astype(np.float32)}
    want = ort.InferenceSession(str(tmp_path / "model.onnx"), providers=["CPUExecutionProvider"]).run(None, x)[0]
    got = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"]).run(None, x)[0]
    cosine = np.sum(want * got, axis=-1) / np.linalg.norm(want, axis=-1) / np.linalg.norm(got, axis=-1)
    assert cosine.min() >= 0.995


def test_a_graph_the_rewrite_fails_on_is_served_by_the_float_graph(tiny_files, tmp_path, monkeypatch):
    def broken(model):
        raise TypeError("an unexpected graph")

    with monkeypatch.context() as patched:
        patched.setattr(int8_graph, "session", lambda *args: None)
        float_split = Encoder(tiny_files, cache_dir=tmp_path / "cache")
    monkeypatch.setattr(int8_graph, "quantize_graph", broken)
    served = Encoder(tiny_files, cache_dir=tmp_path / "cache")
    assert np.array_equal(served.embed_queries(TEXTS), float_split.embed_queries(TEXTS))
    assert not list((tmp_path / "cache").rglob("int8-*"))  # nothing half-written left behind


def test_the_weights_keep_seven_bits_where_the_integer_kernel_saturates(tmp_path, monkeypatch):
    """x86 without VNNI adds two uint8 x int8 products in 16 bits: 255 x 127 x 2 overflows, so there
    the weights stay within 63, in a graph of its own name (a cache moved to another CPU is not
    reused), and the products still follow the float ones."""
    from onnx import TensorProto, helper, load, numpy_helper, save

    rng = np.random.default_rng(5)
    w = numpy_helper.from_array(rng.standard_normal((64, 16)).astype(np.float32), "w")
    graph = helper.make_graph([helper.make_node("MatMul", ["x", "w"], ["y"])], "g",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["b", 64])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["b", 16])], [w])
    save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), str(tmp_path / "model.onnx"))
    monkeypatch.setattr(int8_graph, "weight_limit", lambda: 63)
    path = int8_graph.cached(tmp_path / "model.onnx")
    assert path is not None and path.name == f"int8-{int8_graph.FORMAT}-w63.onnx"
    quantized = numpy_helper.to_array(next(t for t in load(str(path)).graph.initializer if t.name == "w_i8"))
    assert np.abs(quantized.astype(int)).max() == 63

    import onnxruntime as ort

    x = {"x": (rng.standard_normal((8, 64)) * 4).astype(np.float32)}
    want = ort.InferenceSession(str(tmp_path / "model.onnx"), providers=["CPUExecutionProvider"]).run(None, x)[0]
    got = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"]).run(None, x)[0]
    cosine = np.sum(want * got, axis=-1) / np.linalg.norm(want, axis=-1) / np.linalg.norm(got, axis=-1)
    assert cosine.min() >= 0.999

