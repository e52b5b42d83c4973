"""An index remembers its model: name none and every command (and the server) uses it; name
another and the refusal comes first, in one line naming both models and the ways out."""

from __future__ import annotations

import json
import shutil
import time

import pytest
from conftest import write

from minirag.config import load_config
from minirag.errors import IndexUnavailable


@pytest.fixture
def cli(run_cli):
    def cli(*args):
        unset = dict.fromkeys(("MODEL_NAME", "MODEL_PATH", "BASE_DIR", "BASE_DIRS", "DB_PATH"))
        return run_cli(*args, env={**unset, "HF_HUB_OFFLINE": "1"})

    return cli


@pytest.fixture
def model_id(model_dir) -> str:
    return json.loads((model_dir / "minirag-model.json").read_text())["model_id"]


@pytest.fixture
def indexed(cli, tmp_path, docs, model_path):
    write(docs / "otters.md", "# Otters\n\nSea otters hold hands while they sleep.\n")
    common = ["--base-dir", str(docs), "--db-path", str(tmp_path / "index.db")]
    done = cli("sync", *common, "--model-path", model_path)
    assert done.returncode == 0, done.stderr
    return common


def test_a_query_naming_no_model_uses_the_model_the_index_was_built_with(cli, indexed, model_id):
    done = cli("query", "animals that hold hands", "--json", *indexed)
    assert done.returncode == 0, done.stderr
    hits = json.loads(done.stdout)["results"]
    assert hits and hits[0]["distance"] is not None  # the vector side ran, with the index's model
    status = json.loads(cli("status", "--json", *indexed).stdout)
    assert status["indexModel"] == model_id and "MODEL_PATH" in status["model"]


def test_naming_another_model_is_refused_at_once_naming_both(cli, indexed, model_id):
    started = time.monotonic()
    done = cli("query", "otters", *indexed, "--model-name", "intfloat/multilingual-e5-small")
    elapsed = time.monotonic() - started
    assert done.returncode == 1 and len(done.stderr.strip().splitlines()) == 1, done.stderr
    line = done.stderr
    assert model_id in line and "multilingual-e5-small" in line
    assert "--model-path" in line and "re-index" in line
    assert elapsed < 60  # refused before any model is loaded or fetched (the offline hub would say so)
    assert "not cached" not in line


def test_another_local_model_directory_is_refused_too(cli, indexed, tmp_path, model_dir, model_id):
    other = tmp_path / "other-model"
    shutil.copytree(model_dir, other)
    (other / "minirag-model.json").write_text(json.dumps({"model_id": "local:other-model", "max_length": 256}))
    done = cli("query", "otters", *indexed, "--model-path", str(other))
    assert done.returncode == 1 and "local:other-model" in done.stderr and model_id in done.stderr


@pytest.mark.anyio
async def test_the_server_with_no_model_configured_uses_the_index_model(indexed, tmp_path, docs):
    from mcp import Client

    from minirag.server import ServerState, build_server

    config = load_config(env={}, base_dirs=[str(docs)], db_path=str(tmp_path / "index.db"))
    state = ServerState.from_config(config)
    try:
        async with Client(build_server(state)) as client:
            result = await client.call_tool("query_documents", {"query": "animals that hold hands"})
        assert not result.is_error
        assert result.structured_content["results"][0]["distance"] is not None
    finally:
        state.close()


def test_the_app_refuses_before_loading_anything(tmp_path, docs, model_path, model_id):
    from minirag.app import App

    write(docs / "a.md", "# A\n\nText.\n")
    first = App(load_config(env={}, base_dirs=[str(docs)], db_path=str(tmp_path / "i.db"), model_path=model_path))
    first.sync()
    first.close()
    other = App(load_config(env={"MODEL_NAME": "intfloat/multilingual-e5-small"}, base_dirs=[str(docs)],
                            db_path=str(tmp_path / "i.db")))
    with pytest.raises(IndexUnavailable, match=f"was built with {model_id}"):
        other.query("text")
    assert other._encoder is None
    other.close()
