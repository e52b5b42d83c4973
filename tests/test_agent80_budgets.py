"""agent80: every MCP answer fits what an agent can take, and what it leaves out can be asked for.

With 1,000 collections (BASE_DIRS as a JSON object of 1,000 roots) `list_collections` kept the first
45 that fit the response budget and said "the rest is left out", with no way to read the others;
`status` cut its `collections` and then its `roots`, and its `truncated` named only the last list
cut, so the first cut was silent; a mistyped collection name was refused with every name in one
66 KB line (about 22,000 tokens of the bound, past the budget every answer keeps). The probe that
measured them is /tmp/agent80/probe.py (sizes in docs/mcp-tools.md, "Response budget")."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from test_server import connected, ok, refused

from minirag.app import App
from minirag.budget import cost
from minirag.config import load_config
from minirag.server import ServerState


def _collections(base: Path, count: int, *, description: str = "d" * 150) -> dict:
    roots = {}
    for n in range(count):
        folder = base / f"root-{n:04d}"
        folder.mkdir(parents=True)
        (folder / "note.md").write_text(f"# Note {n}\n\nA note about topic {n}.\n")
        roots[f"c{n:04d}"] = {"path": str(folder), "description": f"{description} {n}"}
    return roots


@pytest.fixture
def make_state(tmp_path, model_path, encoder):
    states = []

    def make(roots: dict, **env) -> ServerState:
        config = load_config(env={"BASE_DIRS": json.dumps(roots), **env}, db_path=str(tmp_path / "index.db"),
                             model_path=model_path)
        states.append(ServerState.from_config(config, App(config, encoder=encoder)))
        return states[-1]

    yield make
    for state in states:
        state.close()


@pytest.mark.anyio
async def test_list_collections_over_the_budget_is_walked_whole_with_next_offset(make_state, tmp_path):
    roots = _collections(tmp_path / "roots", 60)
    state = make_state(roots, MINIRAG_MAX_RESPONSE_TOKENS="2000")
    async with connected(state) as client:
        seen, offset, pages = [], 0, 0
        while offset is not None:
            page = await ok(client, "list_collections", offset=offset)
            assert cost(page) <= 2000
            seen += [entry["name"] for entry in page["collections"]]
            if "truncated" in page:
                assert page["truncated"]["field"] == "collections"
                assert page["truncated"]["leftOut"] == len(roots) - len(seen)
                assert "nextOffset" in page["truncated"]["next"] and page["nextOffset"] == len(seen)
            offset, pages = page.get("nextOffset"), pages + 1
        past_the_end = await ok(client, "list_collections", offset=len(roots) + 5)
        negative = await refused(client, "list_collections", offset=-1)
        whole = await ok(client, "list_collections")
    assert seen == list(roots) and pages > 2
    assert past_the_end == {"collections": []}
    assert negative == "list_collections: offset must be 0 or more, got -1"
    assert "nextOffset" in whole and len(whole["collections"]) < len(roots)


@pytest.mark.anyio
async def test_a_few_collections_are_answered_whole_as_before(make_state, tmp_path):
    roots = _collections(tmp_path / "roots", 3)
    async with connected(make_state(roots)) as client:
        listed = await ok(client, "list_collections")
    assert [c["name"] for c in listed["collections"]] == list(roots)
    assert set(listed) == {"collections"}


@pytest.mark.anyio
async def test_status_over_the_budget_cuts_its_roots_and_collections_alike_and_says_so(make_state, tmp_path):
    """Status cut `collections` to fit, then `roots`, and said only that `roots` was cut."""
    roots = _collections(tmp_path / "roots", 80)
    state = make_state(roots, MINIRAG_MAX_RESPONSE_TOKENS="3000")
    async with connected(state) as client:
        said = await ok(client, "status")
    assert cost(said) <= 3000
    kept = len(said["collections"])
    assert 0 < kept < len(roots)
    assert said["roots"] == [roots[name]["path"] for name in list(roots)[:kept]]
    assert [c["name"] for c in said["collections"]] == list(roots)[:kept]
    truncated = said["truncated"]
    assert truncated["field"] == "collections" and truncated["leftOut"] == len(roots) - kept
    assert f"list_collections with offset {kept}" in truncated["next"]


@pytest.mark.anyio
async def test_a_result_that_cuts_two_lists_names_both(make_state, tmp_path):
    """Any result whose budget cut more than one list: the `truncated` of the first was overwritten by
    the second's, so that cut was silent."""
    from minirag.results import within_budget

    fitted = within_budget({"a": ["x" * 300] * 100, "b": ["y" * 200] * 100, "c": 1}, 2000)
    assert cost(fitted) <= 2000
    truncated = fitted["truncated"]
    cut = {truncated["field"]: truncated["leftOut"], **truncated.get("alsoLeftOut", {})}
    assert cut == {"a": 100 - len(fitted["a"]), "b": 100 - len(fitted["b"])}
    assert all(n > 0 for n in cut.values())


@pytest.mark.anyio
async def test_a_mistyped_collection_is_refused_in_a_short_line_whatever_the_number_of_collections(
        make_state, tmp_path):
    roots = _collections(tmp_path / "roots", 300, description="")
    state = make_state(roots)
    async with connected(state) as client:
        query = await refused(client, "query_documents", query="note", collection="c0299x")
        listing = await refused(client, "list_files", collection="nope")
    for said in (query, listing):
        assert "\n" not in said and len(said) < 1_000, (len(said), said[:300])
        assert "300 collections" in said and "list_collections" in said, said
    assert "collections: c0299," in query  # the nearest name comes first


@pytest.mark.anyio
@pytest.mark.slow  # a watcher's first pass over 150 files
async def test_a_watchers_pass_with_many_failures_leaves_status_and_sync_status_answering(make_state, tmp_path):
    """The watcher's last pass sits inside `watch` in status and sync_status, its warnings one per failed
    file: the budget cut only a result's top-level lists, so 150 failures of long names made both tools
    refuse ("over MINIRAG_MAX_RESPONSE_TOKENS; narrow the request"), which neither can be."""
    from test_watch import eventually

    from minirag.server import start_watching

    root = tmp_path / "docs"
    root.mkdir()
    for n in range(150):
        (root / (f"{n:03d}-" + "f" * 150 + ".pdf")).write_bytes(b"%PDF-1.4 not a PDF at all")
    state = make_state({"docs": str(root)}, MINIRAG_MAX_RESPONSE_TOKENS="3000", MINIRAG_WATCH="1")
    assert start_watching(state) is None
    eventually(lambda: state.app.watch_state().last_pass, what="the initial pass", timeout=120)
    async with connected(state) as client:
        said = {tool: await ok(client, tool) for tool in ("status", "sync_status")}
    for tool, result in said.items():
        assert cost(result) <= 3000, tool
        warnings = result["watch"]["lastPass"]["warnings"]
        assert 0 < len(warnings) < 150, tool
        truncated = result["truncated"]
        assert truncated["field"] == "watch.lastPass.warnings" and truncated["leftOut"] == 150 - len(warnings)
        assert "list_files" in truncated["next"], truncated


def _deep_cjk_folder(base: Path) -> Path:
    """A folder whose path is about 850 characters of CJK text (each a token of the bound): legal,
    each name under 255 bytes and the whole under 4,096."""
    folder = base
    for n in range(10):
        folder = folder / (chr(0x4E00 + n) * 84)
    folder.mkdir(parents=True)
    return folder


@pytest.mark.anyio
async def test_a_page_that_cannot_hold_its_first_entry_is_refused_saying_how_to_go_on(make_state, tmp_path):
    """At the smallest budget (1,000 tokens) one collection or file of a long CJK path did not fit: the
    page came back empty with `nextOffset` equal to the `offset` given, so an agent following it asked
    for the same page for ever."""
    deep = _deep_cjk_folder(tmp_path / "roots")
    (deep / "note.md").write_text("# " + "\u6587" * 300 + "\n\nA note.\n")
    roots = {"small": str(_collections(tmp_path / "small", 1)["c0000"]["path"]),
             "deep": {"path": str(deep), "description": "\u8aac" * 200}}
    state = make_state(roots, MINIRAG_MAX_RESPONSE_TOKENS="1000")
    async with connected(state) as client:
        first = await ok(client, "list_collections")
        stuck = await refused(client, "list_collections", offset=first["nextOffset"])
        await ok(client, "sync_start", wait=True)
        files = await ok(client, "list_files", collection="small")
        big = await refused(client, "list_files", collection="deep")
        past = re.search(r"pass cursor (\S+) to go on past it$", big)
        assert past, big  # the rest of the listing kept (listing82: it named an offset, which walks anew)
        after = await ok(client, "list_files", cursor=past[1])
    assert [c["name"] for c in first["collections"]] == ["small"] and first["nextOffset"] == 1
    assert stuck.startswith("list_collections: the collection at offset 1 alone is over "
                            "MINIRAG_MAX_RESPONSE_TOKENS (1000)"), stuck
    assert "offset 2" in stuck and "\n" not in stuck
    assert len(files["files"]) == 1
    assert big.startswith("list_files: the file at offset 0 alone is over MINIRAG_MAX_RESPONSE_TOKENS (1000)"), big
    assert past[1].endswith(".1") and after["files"] == [] and "nextCursor" not in after
