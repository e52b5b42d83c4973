"""Several scopes at once, as minirag-mcp takes them: its `query_documents` and `list_files` take `scope`
as a string or a list of strings (a source under any of them), and its `--scope` can be given more than
once. Here a list was refused (`scope must be a string or null, got an array`) and a second `--scope`
silently replaced the first, so `query X --scope a --scope b` searched b alone. Real CLI, real MCP
server through the SDK client, real index, the real test model."""

from __future__ import annotations

import json

import anyio
import pytest
from conftest import write
from mcp import Client

from minirag.app import App
from minirag.config import load_config
from minirag.server import ServerState, build_server


@pytest.fixture
def corpus(docs):
    write(docs / "proj" / "otters.md", "# Otters\n\nSea otters hold hands while they sleep on the water.")
    write(docs / "project-secret" / "otters.md", "# Secret otters\n\nSea otters sleep on kelp in the secret bay.")
    write(docs / "zoo" / "otters.md", "# Zoo otters\n\nThe zoo's sea otters sleep in a pool at night.")
    return docs


@pytest.fixture
def run(run_cli, tmp_path, model_dir, corpus):
    def run(*args):
        env = {"BASE_DIRS": None, "MODEL_NAME": None, "MODEL_PATH": str(model_dir), "BASE_DIR": str(corpus),
               "DB_PATH": str(tmp_path / "i.db")}
        return run_cli(*args, env=env, cwd=corpus)

    assert run("sync").returncode == 0
    return run


def _sources(done) -> set[str]:
    assert done.returncode == 0, done.stderr
    return {hit["source"] for hit in json.loads(done.stdout)["results"]}


def test_a_repeated_scope_searches_under_each_and_nothing_else(run, corpus):
    found = _sources(run("query", "sea otters sleep", "--json", "--scope", "proj", "--scope", str(corpus / "zoo")))
    assert found == {str(corpus / "proj" / "otters.md"), str(corpus / "zoo" / "otters.md")}
    one = _sources(run("query", "sea otters sleep", "--json", "--scope", "proj"))
    assert one == {str(corpus / "proj" / "otters.md")}  # whole segments still: never project-secret
    listed = json.loads(run("list", "--json", "--scope", "zoo", "--scope", "proj").stdout)["files"]
    assert [f["source"] for f in listed] == [str(corpus / "proj" / "otters.md"), str(corpus / "zoo" / "otters.md")]


def test_a_mistyped_scope_among_several_is_refused_when_nothing_is_found(run, corpus):
    done = run("query", "sea otters sleep", "--scope", str(corpus / "nowhere"), "--scope", str(corpus / "gone"))
    assert done.returncode == 1
    assert done.stderr == f"minirag: error: scope '{corpus / 'nowhere'}' matches no source and no file or folder on disk\n"


async def _calls(config, encoder, *calls):
    state = ServerState.from_config(config, App(config, encoder=encoder))
    try:
        async with Client(build_server(state)) as client:
            await client.call_tool("sync_start", {"wait": True})
            return [await client.call_tool(tool, arguments) for tool, arguments in calls]
    finally:
        state.close()


def test_the_tools_take_a_list_of_scopes_and_refuse_a_bad_one_in_one_line(tmp_path, corpus, model_path, encoder):
    config = load_config(env={}, base_dirs=[str(corpus)], db_path=str(tmp_path / "i.db"), model_path=model_path)
    proj, zoo = str(corpus / "proj"), str(corpus / "zoo")
    query, listing, empty, mixed, too_many, outside = anyio.run(
        _calls, config, encoder,
        ("query_documents", {"query": "sea otters sleep", "scope": [proj, zoo]}),
        ("list_files", {"scope": [zoo, proj, zoo]}),
        ("query_documents", {"query": "otters", "scope": []}),
        ("query_documents", {"query": "otters", "scope": [proj, 5]}),
        ("list_files", {"scope": [f"{proj}/{i}" for i in range(21)]}),
        ("query_documents", {"query": "otters", "scope": [zoo, "/etc"]}))
    assert not query.is_error and not listing.is_error
    assert {hit["source"] for hit in query.structured_content["results"]} == {
        f"{proj}/otters.md", f"{zoo}/otters.md"}
    assert [f["source"] for f in listing.structured_content["files"]] == [f"{proj}/otters.md", f"{zoo}/otters.md"]
    assert empty.is_error and empty.content[0].text == (
        "query_documents: scope is an empty list: give one or more folders, files or source-id prefixes, "
        "or leave scope out")
    assert mixed.is_error and mixed.content[0].text == "query_documents: scope[1] must be a string, got 5"
    assert too_many.is_error and too_many.content[0].text == "list_files: scope takes at most 20 entries, got 21"
    assert outside.is_error and "'/etc' lies outside the document roots" in outside.content[0].text


def test_a_collection_with_several_scopes_needs_each_inside_it(tmp_path, corpus, model_path, encoder):
    other = tmp_path / "other"
    write(other / "otters.md", "# Far otters\n\nRiver otters sleep in dens.")
    env = {"BASE_DIRS": json.dumps({"docs": str(corpus), "other": str(other)})}
    config = load_config(env=env, db_path=str(tmp_path / "i.db"), model_path=model_path)
    inside, across = anyio.run(
        _calls, config, encoder,
        ("query_documents", {"query": "otters sleep", "collection": "docs",
                             "scope": [str(corpus / "zoo"), str(corpus / "proj")]}),
        ("query_documents", {"query": "otters sleep", "collection": "docs",
                             "scope": [str(corpus / "zoo"), str(other)]}))
    assert {hit["source"] for hit in inside.structured_content["results"]} == {
        str(corpus / "zoo" / "otters.md"), str(corpus / "proj" / "otters.md")}
    assert across.is_error and across.content[0].text == (
        f"query_documents: scope '{other}' is not inside collection 'docs' ({corpus})")
