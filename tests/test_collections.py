"""Collections: named document roots with a description, that an agent can discover before
it searches, search one at a time, and see named on every hit."""

from __future__ import annotations

import json

import pytest
from mcp import Client

from minirag import cli
from minirag.app import App
from minirag.config import ConfigError, load_config
from minirag.instructions import MAX_LISTED_COLLECTIONS, build_instructions
from minirag.server import ServerState, build_server

pytestmark = pytest.mark.anyio


@pytest.fixture
def roots(tmp_path):
    specs, notes = tmp_path / "specs", tmp_path / "notes"
    specs.mkdir()
    notes.mkdir()
    (specs / "pump.md").write_text("# Pump\n\nThe pump moves coolant through the loop at 3 bar.\n")
    (specs / "valve.md").write_text("# Valve\n\nThe relief valve opens above 5 bar of coolant pressure.\n")
    (notes / "visit.md").write_text("# Site visit\n\nThe coolant pump was noisy during the visit.\n")
    return specs, notes


def _named(specs, notes) -> dict[str, str]:
    return {"BASE_DIRS": json.dumps({"specs": {"path": str(specs), "description": "Product specifications"},
                                     "notes": str(notes)})}


def test_base_dirs_names_roots_with_descriptions_and_the_list_form_names_them_by_folder(tmp_path, roots):
    specs, notes = roots
    config = load_config(env=_named(specs, notes), cwd=tmp_path)
    assert [(c.name, c.root, c.description) for c in config.collections] == [
        ("specs", specs, "Product specifications"), ("notes", notes, "")]
    assert config.roots == (specs, notes)
    (tmp_path / "other" / "specs").mkdir(parents=True)
    listed = load_config(env={"BASE_DIRS": json.dumps([str(specs), str(tmp_path / "other" / "specs")])}, cwd=tmp_path)
    assert [c.name for c in listed.collections] == ["specs", "specs-2"]


@pytest.mark.parametrize(("value", "expected"), [
    ({"bad name": "/tmp"}, "collection name 'bad name'"),
    ({"a": {"path": "/tmp", "colour": "red"}}, "no other keys"),
    ({"a": {"description": "x"}}, "needs a non-empty"),
    ({"a": {"path": "/tmp", "description": "two\nlines"}}, "one line"),
    ({"a": "/tmp", "b": "/tmp/"}, "name the same folder"),
])
def test_a_malformed_collection_is_a_one_line_config_error(tmp_path, value, expected):
    with pytest.raises(ConfigError, match=expected) as caught:
        load_config(env={"BASE_DIRS": json.dumps(value)}, cwd=tmp_path)
    assert "\n" not in str(caught.value)


@pytest.mark.slow
async def test_an_agent_discovers_the_collections_and_searches_one(tmp_path, roots, model_path, encoder):
    specs, notes = roots
    config = load_config(env=_named(specs, notes), db_path=str(tmp_path / "index.db"), model_path=model_path)
    state = ServerState.from_config(config, App(config, encoder=encoder))
    async with Client(build_server(state)) as client:
        assert "specs: Product specifications" in client.instructions
        before = (await client.call_tool("list_collections", {})).structured_content["collections"]
        assert [(c["name"], c["fileCount"], c["lastSync"]) for c in before] == [("specs", 0, None), ("notes", 0, None)]
        await client.call_tool("sync_start", {"wait": True})
        listed = (await client.call_tool("list_collections", {})).structured_content["collections"]
        assert [(c["name"], c["description"], c["fileCount"]) for c in listed] == [
            ("specs", "Product specifications", 2), ("notes", "", 1)]
        assert all(c["chunkCount"] >= c["fileCount"] and c["lastSync"] for c in listed)
        status = (await client.call_tool("status", {})).structured_content
        assert [c["name"] for c in status["collections"]] == ["specs", "notes"]

        everywhere = (await client.call_tool("query_documents", {"query": "coolant pump"})).structured_content
        assert {h["collection"] for h in everywhere["results"]} == {"specs", "notes"}
        only = (await client.call_tool("query_documents", {"query": "coolant pump", "collection": "notes"})
                ).structured_content
        assert [h["source"] for h in only["results"]] == [str(notes / "visit.md")]
        files = (await client.call_tool("list_files", {"collection": "specs"})).structured_content["files"]
        assert sorted(f["source"] for f in files) == [str(specs / "pump.md"), str(specs / "valve.md")]

        unknown = await client.call_tool("query_documents", {"query": "pump", "collection": "nope"})
        assert unknown.is_error and "the collections are: specs, notes" in unknown.content[0].text
        outside = await client.call_tool("list_files", {"collection": "notes", "scope": str(specs)})
        assert outside.is_error and "is not inside collection 'notes'" in outside.content[0].text
        await client.call_tool("ingest_data", {"data": "coolant pump notes", "source": "memo/1"})
        data_hit = (await client.call_tool("query_documents", {"query": "coolant pump notes", "scope": "memo/"})
                    ).structured_content["results"][0]
        assert data_hit["collection"] is None  # data and url sources lie in no root
    state.close()


def test_the_instructions_name_the_collections_up_to_a_cap():
    many = [(f"c{i}", f"about {i}") for i in range(MAX_LISTED_COLLECTIONS + 3)]
    text = build_instructions(collections=many)
    assert "c0: about 0" in text and f"c{MAX_LISTED_COLLECTIONS - 1}:" in text
    assert f"c{MAX_LISTED_COLLECTIONS}:" not in text and "and 3 more: call list_collections" in text
    assert "Collections" not in build_instructions()


def test_the_cli_lists_collections_and_queries_one_as_json(tmp_path, roots, model_path, monkeypatch, capsys):
    specs, notes = roots
    for name, value in _named(specs, notes).items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("BASE_DIR", raising=False)
    flags = ["--db-path", str(tmp_path / "index.db"), "--model-path", model_path]
    assert cli.main(["sync", *flags]) == 0
    capsys.readouterr()
    assert cli.main(["collections", "--json", *flags]) == 0
    listed = json.loads(capsys.readouterr().out)["collections"]
    assert [(c["name"], c["fileCount"]) for c in listed] == [("specs", 2), ("notes", 1)]
    assert cli.main(["query", "relief valve", "--collection", "specs", "--json", *flags]) == 0
    hits = json.loads(capsys.readouterr().out)["results"]
    assert hits and {h["collection"] for h in hits} == {"specs"}
    assert cli.main(["collections", *flags]) == 0
    assert "Product specifications" in capsys.readouterr().out


def test_a_collection_inside_another_holds_its_files_alone_as_its_hits_name_it(tmp_path, roots, model_path,
                                                                              monkeypatch, capsys):
    # docs/mcp-tools.md, Collections: a file is in the innermost collection holding it (listing82: it was
    # in both, counted by both, so the counts summed past the files indexed).
    specs, _ = roots
    inner = specs / "api"
    inner.mkdir()
    (inner / "flow.md").write_text("# Flow\n\nThe flow meter reads litres of coolant per minute.\n")
    monkeypatch.setenv("BASE_DIRS", json.dumps({"specs": str(specs), "api": str(inner)}))
    monkeypatch.delenv("BASE_DIR", raising=False)
    flags = ["--db-path", str(tmp_path / "index.db"), "--model-path", model_path]
    assert cli.main(["sync", *flags]) == 0
    capsys.readouterr()
    assert cli.main(["collections", "--json", *flags]) == 0
    listed = json.loads(capsys.readouterr().out)["collections"]
    assert [(c["name"], c["fileCount"]) for c in listed] == [("specs", 2), ("api", 1)]
    for name in ("specs", "api"):
        assert cli.main(["query", "flow meter litres", "--collection", name, "--json", *flags]) == 0
        hits = json.loads(capsys.readouterr().out)["results"]
        assert hits and {h["collection"] for h in hits} == {name}
    assert cli.main(["query", "flow meter litres", "--scope", str(specs), "--json", *flags]) == 0
    hits = json.loads(capsys.readouterr().out)["results"]  # a folder's path finds everything under it
    assert hits[0]["source"] == str(inner / "flow.md") and hits[0]["collection"] == "api"
