"""Red team 77: a model whose vectors' width is not the one it gave when probed (here: as many
coordinates as the longest text of a batch has tokens). Its first vectors fixed the index's width,
and every later batch of another width failed in sqlite-vec's words, blamed on the index: `the index
... failed: OperationalError: Dimension mismatch for inserted vector` (a sync) or `... for query
vector` (a query), which sends the user to restore or rebuild an index that is fine. Now the model
is named, and nothing of such a batch is written."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from conftest import write


def width_by_length(folder: Path, tiny_model_dir: Path, declared: int | str = "seq") -> Path:
    """A model that pools inside its graph and gives one coordinate per token of the batch's longest
    text (attention_mask + input_ids, as floats); its output's declared width is `declared`."""
    import onnx
    from onnx import TensorProto, helper

    folder.mkdir()
    inputs = [helper.make_tensor_value_info(name, TensorProto.INT64, ["batch", "seq"])
              for name in ("input_ids", "attention_mask")]
    output = helper.make_tensor_value_info("sentence_embedding", TensorProto.FLOAT, ["batch", declared])
    nodes = [helper.make_node("Cast", ["attention_mask"], ["mask"], to=TensorProto.FLOAT),
             helper.make_node("Cast", ["input_ids"], ["ids"], to=TensorProto.FLOAT),
             helper.make_node("Add", ["mask", "ids"], ["sentence_embedding"])]
    model = helper.make_model(helper.make_graph(nodes, "width-by-length", inputs, [output]),
                              opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.save(model, str(folder / "model.onnx"))
    for name in ("tokenizer.json", "minirag-model.json"):
        shutil.copy(tiny_model_dir / name, folder / name)
    return folder


def test_a_sync_with_a_model_whose_width_varies_names_the_model_and_writes_nothing(
        cli_env, docs, tmp_path, tiny_model_dir, run_cli):
    model = width_by_length(tmp_path / "model", tiny_model_dir)
    write(docs / "long.md", "# Long\n\n" + " ".join(f"word{n}" for n in range(60)) + "\n")
    done = run_cli("sync", env={"MODEL_PATH": str(model)})
    assert done.returncode == 1
    assert done.stderr.count("\n") == 1, done.stderr
    assert str(model / "model.onnx") in done.stderr and "Dimension mismatch" not in done.stderr, done.stderr
    assert "index" not in done.stderr.split(str(model / "model.onnx"))[0], done.stderr  # not the index's fault


@pytest.mark.parametrize("declared", ["seq", 4])
def test_a_query_vector_of_another_width_than_the_model_gave_is_refused_naming_the_model(
        tmp_path, tiny_model_dir, declared):
    from minirag.encoder import Encoder
    from minirag.errors import ModelUnavailable
    from minirag.models import resolve

    model = width_by_length(tmp_path / "model", tiny_model_dir, declared)
    for one_shot in (False, True):
        encoder = Encoder(resolve("unused", model, tmp_path / "cache"), one_shot=one_shot)
        assert encoder.dimension == 4  # `dimension probe`: four tokens with the marks; or as declared
        assert encoder.embed_queries(["dimension probe"]).shape == (1, 4)
        with pytest.raises(ModelUnavailable, match="gave vectors of 11 coordinates where it gave 4 before"):
            encoder.embed_queries(["a query of more words than the probe had"])
