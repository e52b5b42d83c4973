"""`status` says which search settings are in force (minirag-mcp's troubleshooting: run `status` to
confirm the configuration resolves the way you expect). RAG_GROUPING, RAG_MAX_DISTANCE and RAG_MAX_FILES
can each leave a query with fewer hits or none, and status showed none of them: a user who set one in a
client's `env` block could not tell whether the server had read it. Real CLI, real MCP server, real
index, the real test model."""

from __future__ import annotations

import json

import pytest
from conftest import write
from mcp import Client

from minirag.app import App
from minirag.config import load_config
from minirag.server import ServerState, build_server

TUNING = {"RAG_GROUPING": "Similar", "RAG_MAX_DISTANCE": "0.35", "RAG_MAX_FILES": "2"}


@pytest.fixture
def run(run_cli, tmp_path, model_dir, docs):
    def run(*args, env=None):
        full_env = {"BASE_DIRS": None, "MODEL_NAME": None, "MODEL_PATH": str(model_dir), "BASE_DIR": str(docs),
                    "DB_PATH": str(tmp_path / "i.db"), "RAG_GROUPING": None, "RAG_MAX_DISTANCE": None,
                    "RAG_MAX_FILES": None, **(env or {})}
        return run_cli(*args, env=full_env, cwd=docs)

    return run


def test_status_names_each_search_setting_that_is_set(run, docs):
    write(docs / "otters.md", "# Otters\n\nSea otters float on their backs.")
    assert run("sync").returncode == 0
    done = run("status", "--json", env=TUNING)
    assert done.returncode == 0, done.stderr
    status = json.loads(done.stdout)
    assert (status["grouping"], status["maxDistance"], status["maxFiles"]) == ("similar", 0.35, 2)
    keys = list(status)  # beside the weight, before the chunking settings
    assert keys.index("hybridWeightForNames") < keys.index("grouping") < keys.index("maxDistance") \
        < keys.index("maxFiles") < keys.index("chunkTokenBudget")
    text = run("status", env=TUNING).stdout.splitlines()
    assert {"grouping: similar", "maxDistance: 0.35", "maxFiles: 2"} <= set(text)


def test_status_without_a_search_setting_names_none_of_them(run, docs):
    """Unset, each keeps today's status: the keys are absent, as the query-form weights are when one
    weight is set."""
    status = json.loads(run("status", "--json").stdout)
    assert not {"grouping", "maxDistance", "maxFiles"} & set(status)
    one = json.loads(run("status", "--json", env={"RAG_MAX_FILES": "1"}).stdout)
    assert one["maxFiles"] == 1 and not {"grouping", "maxDistance"} & set(one)


def test_status_names_them_before_an_index_exists_and_over_mcp(tmp_path, docs, model_path, encoder):
    config = load_config(env=TUNING, base_dirs=[str(docs)], db_path=str(tmp_path / "none.db"), model_path=model_path)
    app = App(config, encoder=encoder)
    try:
        status = app.status()
        assert status.index_error is not None  # no index yet: the settings are known all the same
        assert (status.grouping, status.max_distance, status.max_files) == ("similar", 0.35, 2)
    finally:
        app.close()

    async def over_mcp() -> dict:
        state = ServerState.from_config(config, App(config, encoder=encoder))
        try:
            async with Client(build_server(state)) as client:
                result = await client.call_tool("status", {})
                assert not result.is_error, result.content[0].text
                return result.structured_content
        finally:
            state.close()

    import anyio

    served = anyio.run(over_mcp)
    assert (served["grouping"], served["maxDistance"], served["maxFiles"]) == ("similar", 0.35, 2)
