"""Which model an index is used with has one answer (minirag.binding): a query, a sync and doctor
agree on it, whether the configuration names the index's model, another one, or none."""

from __future__ import annotations

import json
import shutil

import pytest
from conftest import write

from minirag.app import App
from minirag.config import load_config
from minirag.doctor import run_checks
from minirag.errors import IndexUnavailable
from minirag.store.index import META_MODEL_PATH


@pytest.fixture
def model_id(model_dir) -> str:
    return json.loads((model_dir / "minirag-model.json").read_text())["model_id"]


@pytest.fixture
def indexed(tmp_path, docs, model_path):
    """An index built with the test model; returns the settings that find it, naming no model."""
    write(docs / "otters.md", "# Otters\n\nSea otters hold hands while they sleep.\n")
    settings = {"base_dirs": [str(docs)], "db_path": str(tmp_path / "index.db")}
    app = App(load_config(env={}, model_path=model_path, **settings))
    app.sync()
    app.close()
    return settings


def model_match(config) -> dict:
    return next(check for check in run_checks(config).checks if check.name == "model-match")


def test_naming_no_model_the_query_and_doctor_both_use_the_index_model(indexed, model_id):
    config = load_config(env={}, **indexed)
    app = App(config)
    try:
        binding = app.binding()
        assert binding.model_id == model_id and not binding.mismatch
        assert app.query("animals that hold hands").hits  # the index's model loaded, no refusal
    finally:
        app.close()
    match = model_match(config)
    assert match.ok, match.detail
    assert model_id in match.detail


def test_another_named_model_is_the_same_mismatch_to_query_sync_and_doctor(indexed, tmp_path, model_dir, model_id):
    other = tmp_path / "other-model"
    shutil.copytree(model_dir, other)
    (other / "minirag-model.json").write_text(json.dumps({"model_id": "local:other-model", "max_length": 256}))
    config = load_config(env={}, model_path=str(other), **indexed)
    app = App(config)
    try:
        binding = app.binding()
        assert binding.mismatch and (binding.model_id, binding.recorded.model_id) == ("local:other-model", model_id)
        with pytest.raises(IndexUnavailable) as by_query:
            app.query("otters")
        with pytest.raises(IndexUnavailable) as by_sync:
            app.sync()
        assert str(by_query.value) == str(by_sync.value)
        assert "local:other-model" in str(by_query.value) and model_id in str(by_query.value)
        assert app._encoder is None  # refused before loading either model
    finally:
        app.close()
    match = model_match(config)
    assert not match.ok
    assert "local:other-model" in match.detail and model_id in match.detail


def test_a_model_folder_the_index_records_is_used_only_by_its_absolute_path(indexed, tmp_path, model_dir, monkeypatch):
    """An index inside a cloned folder (its .minirag/) is the clone's to write: a relative model path
    it records must not pick a model folder the clone ships, read from where minirag was started."""
    shutil.copytree(model_dir, tmp_path / "shipped-model")
    app = App(load_config(env={}, **indexed))
    app.index.set_meta(META_MODEL_PATH, "shipped-model")
    app.close()
    monkeypatch.chdir(tmp_path)
    app = App(load_config(env={}, **indexed))
    try:
        assert app.binding().recorded.path is None
        app.index.set_meta(META_MODEL_PATH, str(tmp_path / "shipped-model"))  # as MODEL_PATH is recorded
        assert app.binding().recorded.path == tmp_path / "shipped-model"
    finally:
        app.close()


@pytest.mark.parametrize("recorded", ["/proc/self/cwd/shipped-model", "//proc/self/cwd/shipped-model",
                                      "/./proc/self/cwd/shipped-model", "/proc/thread-self/cwd/shipped-model",
                                      "{docs}/.m", "{docs}/../docs/.m"])
def test_a_model_folder_the_index_records_is_not_one_the_documents_or_the_working_folder_may_hold(
        indexed, tmp_path, docs, model_dir, monkeypatch, recorded):
    """A cloned folder can ship its index and a model beside it: an absolute path through /proc
    (`/proc/self/cwd/...`) named the folder minirag is started in, and a path inside a document root
    names what the documents' authors put there. The index's model is then the clone's, its vectors
    the clone's to choose, its files parsed by ONNX Runtime."""
    shutil.copytree(model_dir, tmp_path / "shipped-model")
    shutil.copytree(model_dir, docs / ".m")
    app = App(load_config(env={}, **indexed))
    app.index.set_meta(META_MODEL_PATH, recorded.format(docs=docs))
    app.close()
    monkeypatch.chdir(tmp_path)
    app = App(load_config(env={}, **indexed))
    try:
        assert app.binding().recorded.path is None
    finally:
        app.close()


def test_a_model_the_index_names_is_fetched_only_when_minirag_knows_it_or_the_user_names_it(indexed, tmp_path):
    """An index shipped in a cloned folder could name any hub model, and a user naming none would
    download and run it. Unless minirag lists it or it is on this machine already, it must be named."""
    from minirag.store.index import META_MODEL

    app = App(load_config(env={}, **indexed))
    app.index.set_meta(META_MODEL, "evil-org/evil-embedder")
    app.index.conn.execute("DELETE FROM meta WHERE key = ?", (META_MODEL_PATH,))
    app.close()
    app = App(load_config(env={}, cache_dir=str(tmp_path / "cache"), **indexed))
    try:
        with pytest.raises(IndexUnavailable, match=r"built with evil-org/evil-embedder, a model minirag does not list "
                                                   r"and this machine does not hold: name it to fetch it \(--model-name"):
            app.query("otters")
        assert app._encoder is None
    finally:
        app.close()
