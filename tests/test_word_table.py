"""The word-embedding table split out of the graph (minirag/word_table.py): the real tiny ONNX
model, split into a real cache directory, embeds as the plain model does."""

from __future__ import annotations

import logging
import sys
from pathlib import Path

import numpy as np
import pytest

from minirag import word_table
from minirag.encoder import Encoder
from minirag.models import resolve

TEXTS = ["Sea otters hold hands while they sleep.", "otters", "Wie stelle ich den Drucker ein?",
         "a longer passage about rivers, otters and the fish they eat " * 8]


@pytest.fixture
def tiny_files(tiny_model_dir, tmp_path):
    return resolve("unused", tiny_model_dir, tmp_path / "no-hub")


def test_split_encoder_embeds_as_the_plain_model(tiny_files, tiny_encoder, tmp_path):
    split = Encoder(tiny_files, cache_dir=tmp_path / "cache")
    assert split._table is not None  # the graph's Gather is gone: rows come from the table
    for embed in ("embed_documents", "embed_queries"):
        ours, plain = getattr(split, embed)(TEXTS), getattr(tiny_encoder, embed)(TEXTS)
        assert np.sum(ours * plain, axis=1).min() >= 0.999


def test_split_files_are_cached_and_reused(tiny_files, tmp_path):
    first = word_table.cached(tiny_files.onnx_path, tmp_path)
    assert first is not None and not first.keeps_input_ids  # the tiny graph reads input_ids only there
    table = first.table()
    assert table.dtype == np.float16 and table.shape == (30522, 32)
    assert not list(first.onnx_path.parent.glob("*.partial"))
    stamp = first.onnx_path.stat().st_mtime_ns
    assert word_table.cached(tiny_files.onnx_path, tmp_path) == first
    assert first.onnx_path.stat().st_mtime_ns == stamp  # not made again


def test_rows_are_read_from_the_file_without_mapping_it(tiny_files, tmp_path):
    """A mapped table's touched pages would stay resident in a serving process: rows are read."""
    split = word_table.cached(tiny_files.onnx_path, tmp_path)
    assert split is not None
    rows = split.table()
    whole = np.load(split.table_path)
    ids = np.array([[0, 101, 30521, 101], [7, 7, 2000, 0]], dtype=np.int64)
    got = rows[ids]
    assert got.shape == (2, 4, 32) and got.dtype == np.float16
    assert np.array_equal(got, whole[ids])
    assert rows[np.zeros((1, 0), dtype=np.int64)].shape == (1, 0, 32)
    with pytest.raises(IndexError):
        rows[np.array([30522])]
    maps = Path("/proc/self/maps")
    if maps.exists():
        assert str(split.table_path) not in maps.read_text()


def test_a_graph_of_another_shape_keeps_the_plain_model(tmp_path):
    from onnx import TensorProto, helper, numpy_helper, save

    table = numpy_helper.from_array(np.ones((10, 4), dtype=np.float32), "table")
    nodes = [helper.make_node("Identity", ["table"], ["copied"]),  # the table is no initializer
             helper.make_node("Gather", ["copied", "input_ids"], ["last_hidden_state"])]
    graph = helper.make_graph(
        nodes, "g", [helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["b", "s"])],
        [helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT, ["b", "s", 4])], [table])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    save(model, str(tmp_path / "model.onnx"))
    assert word_table.cached(tmp_path / "model.onnx", tmp_path / "cache") is None


def test_a_graph_that_gathers_token_ids_only_through_other_nodes_keeps_the_plain_model(tmp_path):
    """The token ids reach the word Gather through a Cast (as in some exports); the only Gather fed
    by an input straight away is the token-type one: nothing is split (the table is looked up
    with input_ids, so only their own Gather can go)."""
    from onnx import TensorProto, helper, numpy_helper, save

    words = numpy_helper.from_array(np.ones((50, 4), dtype=np.float32), "words")
    types = numpy_helper.from_array(np.zeros((2, 4), dtype=np.float32), "types")
    nodes = [helper.make_node("Cast", ["input_ids"], ["ids32"], to=TensorProto.INT32),
             helper.make_node("Gather", ["words", "ids32"], ["word_vectors"]),
             helper.make_node("Gather", ["types", "token_type_ids"], ["type_vectors"]),
             helper.make_node("Add", ["word_vectors", "type_vectors"], ["last_hidden_state"])]
    graph = helper.make_graph(
        nodes, "g", [helper.make_tensor_value_info(name, TensorProto.INT64, ["b", "s"])
                     for name in ("input_ids", "token_type_ids")],
        [helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT, ["b", "s", 4])], [words, types])
    save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), str(tmp_path / "model.onnx"))
    assert word_table.cached(tmp_path / "model.onnx", tmp_path / "cache") is None


def test_an_unwritable_cache_keeps_the_plain_model(tiny_files, tmp_path):
    blocked = tmp_path / "file"
    blocked.write_text("not a directory")
    assert word_table.cached(tiny_files.onnx_path, blocked) is None
    encoder = Encoder(tiny_files, cache_dir=blocked)
    assert encoder._table is None and encoder.embed_queries(["otters"]).shape == (1, 384)


def _dequantizing_graph(tmp_path, scale_shape: tuple[int, ...], scale_first: bool) -> Path:
    """A graph that stores its word table int8 and dequantizes it itself, as all-MiniLM-L6-v2's export
    does: Gather(Mul(Cast(table_q, to=float), scale), input_ids), then a MatMul."""
    from onnx import TensorProto, helper, numpy_helper, save

    rng = np.random.default_rng(31)
    rows, width = 50, 8
    quantized = numpy_helper.from_array(rng.integers(-127, 128, (rows, width), dtype=np.int8), "table_q")
    scale = numpy_helper.from_array((rng.random(scale_shape) / 100 + 1e-4).astype(np.float32), "table_scale")
    weight = numpy_helper.from_array(rng.standard_normal((width, 4)).astype(np.float32), "w")
    mul_inputs = ["table_scale", "table_f"] if scale_first else ["table_f", "table_scale"]
    nodes = [helper.make_node("Cast", ["table_q"], ["table_f"], to=TensorProto.FLOAT),
             helper.make_node("Mul", mul_inputs, ["table"]),
             helper.make_node("Gather", ["table", "input_ids"], ["word_vectors"]),
             helper.make_node("MatMul", ["word_vectors", "w"], ["last_hidden_state"])]
    graph = helper.make_graph(
        nodes, "g", [helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["b", "s"])],
        [helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT, ["b", "s", 4])],
        [quantized, scale, weight])
    save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), str(tmp_path / "model.onnx"))
    return tmp_path / "model.onnx"


@pytest.mark.parametrize(("scale_shape", "scale_first"), [((50, 1), False), ((50, 1), True), ((1, 8), False),
                                                          ((8,), False), ((), True)])
def test_an_int8_table_dequantized_in_the_graph_is_split_and_gives_the_same_values(tmp_path, scale_shape,
                                                                                    scale_first):
    import onnxruntime as ort

    source = _dequantizing_graph(tmp_path, scale_shape, scale_first)
    split = word_table.cached(source, tmp_path / "cache")
    assert split is not None and split.scale_path is not None and not split.keeps_input_ids
    rows = split.table()
    assert rows.dtype == np.int8 and rows.shape == (50, 8)
    ids = np.array([[0, 3, 49, 3], [7, 7, 12, 0]], dtype=np.int64)
    plain = ort.InferenceSession(str(source), providers=["CPUExecutionProvider"])
    cut = ort.InferenceSession(str(split.onnx_path), providers=["CPUExecutionProvider"])
    assert {i.name for i in cut.get_inputs()} == {split.embeds_input}
    want = plain.run(None, {"input_ids": ids})[0]
    got = cut.run(None, {split.embeds_input: rows.floats(ids)})[0]
    assert np.array_equal(got, want)  # the same float32 products the graph made: bit for bit


@pytest.mark.minilm
def test_minilm_int8_table_is_split_and_its_vectors_are_unchanged(minilm_model_dir, minilm_encoder, tmp_path):
    """all-MiniLM-L6-v2's int8 word table leaves its graph (a smaller, quicker session), and its
    vectors stay what the plain model gives, bit for bit: indexes made either way match."""
    files = resolve("unused", minilm_model_dir, tmp_path / "no-hub")
    split = Encoder(files, cache_dir=tmp_path / "cache")
    assert split._table is not None and split._table.dtype == np.int8
    assert split._table.scale is not None and split._table.scale.shape == (30522, 1)  # one scale per row
    for embed in ("embed_documents", "embed_queries"):
        ours, plain = getattr(split, embed)(TEXTS), getattr(minilm_encoder, embed)(TEXTS)
        assert np.array_equal(ours, plain)


def test_a_new_split_removes_the_splits_no_path_reaches_again(tiny_files, tmp_path):
    """A FORMAT bump or a changed model file makes a new split; the old one (280 MB for e5-small)
    goes, and so does the split of a model file that is gone (one unpacked into a temporary folder
    once), while splits of other files that exist, and one being made (no split.json yet), stay."""
    import json

    splits = tmp_path / "cache" / word_table.SPLIT_DIR
    other_model = tmp_path / "elsewhere" / "model.onnx"
    other_model.parent.mkdir()
    other_model.write_bytes(b"another model")
    older, other, gone = splits / "older-format", splits / "another-model", splits / "a-deleted-model"
    for folder, source in ((older, tiny_files.onnx_path), (other, other_model),
                           (gone, tmp_path / "unpacked-once" / "model.onnx")):
        folder.mkdir(parents=True)
        (folder / "table.npy").write_bytes(b"old rows")
        (folder / "split.json").write_text(json.dumps({"split": True, "source": str(source)}))
    being_made = splits / "being-made"
    being_made.mkdir()
    (being_made / "table.npy").write_bytes(b"rows so far")
    split = word_table.cached(tiny_files.onnx_path, tmp_path / "cache")
    assert split is not None and split.table_path.is_file()
    assert not older.exists() and not gone.exists()
    assert (other / "table.npy").is_file() and (being_made / "table.npy").is_file()


def test_the_first_split_says_so_once_on_a_terminal(tiny_files, tmp_path, caplog, monkeypatch):
    """Splitting e5-small's 470 MB graph took half a minute on a busy machine, with nothing shown.
    Said on a terminal; elsewhere (CI logs, a client's MCP log) only with -v."""
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True, raising=False)
    word_table.cached(tiny_files.onnx_path, tmp_path / "a")
    said = [r for r in caplog.records if r.levelname == "WARNING" and "first use" in r.getMessage()]
    assert len(said) == 1 and str(tiny_files.onnx_path) in said[0].getMessage()
    caplog.clear()
    word_table.cached(tiny_files.onnx_path, tmp_path / "a")
    assert not [r for r in caplog.records if "first use" in r.getMessage()]
    monkeypatch.setattr(sys.stderr, "isatty", lambda: False, raising=False)
    caplog.set_level(logging.INFO, logger="minirag")
    word_table.cached(tiny_files.onnx_path, tmp_path / "b")
    assert [r.levelname for r in caplog.records if "first use" in r.getMessage()] == ["INFO"]


def test_a_split_whose_model_file_cannot_be_looked_at_stays_and_the_new_split_serves(tiny_files, tmp_path,
                                                                                      monkeypatch):
    """A cache shared with another user (or a `sudo minirag` run with HOME kept) holds a split of a
    model file in a folder this process may not search: stat says EACCES there, and Path.exists
    raises it (Python 3.11), where "gone" is only ENOENT. The split is not known to be gone, so it
    stays, and the model loads."""
    import json
    import os
    from pathlib import Path

    splits = tmp_path / "cache" / word_table.SPLIT_DIR
    foreign = splits / "another-users-model"
    foreign.mkdir(parents=True)
    hidden = tmp_path / "locked" / "model.onnx"
    (foreign / "split.json").write_text(json.dumps({"split": True, "source": str(hidden)}))
    real_stat = Path.stat

    def stat(self, *args, **kwargs):  # what a non-root process gets under another user's 0700 folder
        if str(self).startswith(str(hidden.parent)):
            raise PermissionError(13, os.strerror(13), str(self))
        return real_stat(self, *args, **kwargs)

    monkeypatch.setattr(Path, "stat", stat)
    split = word_table.cached(tiny_files.onnx_path, tmp_path / "cache")
    assert split is not None and split.table_path.is_file()
    assert (foreign / "split.json").is_file()
