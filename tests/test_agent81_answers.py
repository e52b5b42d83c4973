"""agent81: what an agent gets back when one answer alone is larger than the response budget.

A query whose best hit was over MINIRAG_MAX_RESPONSE_TOKENS by itself (five long names in `alsoIn`, or
one passage of characters each a token of the bound) came back with no results at all, only
`truncated`: the agent learnt that there was an answer and could not see it."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from test_server import connected, ok

from minirag.app import App
from minirag.budget import cost
from minirag.config import load_config
from minirag.results import payload, query_result
from minirag.server import ServerState

TIDES = "# Tides\n\nThe harbour tide tables list high and low water for each day.\n"


@pytest.fixture
def make_state(tmp_path, model_path, encoder):
    states = []

    def make(root: Path, **env) -> ServerState:
        config = load_config(env=env, base_dirs=[str(root)], db_path=str(tmp_path / "index.db"), model_path=model_path)
        states.append(ServerState.from_config(config, App(config, encoder=encoder)))
        return states[-1]

    yield make
    for state in states:
        state.close()


def _long_root(base: Path) -> Path:
    """A root whose path is some 800 ASCII characters: each file's name in it about 270 tokens."""
    root = base
    for n in range(4):
        root = root / (chr(ord("a") + n) * 200)
    root.mkdir(parents=True)
    return root


@pytest.mark.anyio
async def test_a_hit_whose_copies_are_over_the_budget_comes_back_naming_fewer_of_them(make_state, tmp_path):
    root = _long_root(tmp_path)
    for n in range(7):
        (root / f"copy-{n}.md").write_text(TIDES)
    state = make_state(root, MINIRAG_MAX_RESPONSE_TOKENS="1000")
    async with connected(state) as client:
        await ok(client, "sync_start", wait=True)
        found = await ok(client, "query_documents", query="harbour tide tables")
    whole = query_result(state.app.query("harbour tide tables"))["results"][0]
    assert (len(whole["alsoIn"]), whole["alsoInMore"]) == (5, 1) and cost(whole) > 1000
    assert cost(found) <= 1000
    [hit] = found["results"]
    assert hit["text"] == whole["text"] and hit["source"] == whole["source"]
    named = hit.get("alsoIn", [])
    assert len(named) < 5 and named == whole["alsoIn"][:len(named)]
    assert len(named) + hit["alsoInMore"] == 6  # every other copy named or counted
    truncated = found["truncated"]
    assert truncated["alsoInLeftOut"] == 5 - len(named) and "textCharsLeftOut" not in truncated
    assert truncated["hitsLeftOut"] == 0 and "alsoInLeftOut" in truncated["next"]


@pytest.mark.anyio
async def test_a_passage_over_the_budget_alone_comes_back_cut_and_says_how_much(make_state, tmp_path):
    """Each U+A66D/U+A66E is a token of the bound (budget.py) and the model reads a run of them as one
    word: a passage of 1,500 of them is within the chunk budget and over a 1,000-token answer."""
    root = tmp_path / "docs"
    root.mkdir()
    rng = random.Random(4)
    words = " ".join("".join(rng.choice("\ua66d\ua66e") for _ in range(150)) for _ in range(60))
    (root / "wide.md").write_text(f"# Harbour tide tables\n\nThe harbour tide tables: {words}\n")
    state = make_state(root, MINIRAG_MAX_RESPONSE_TOKENS="1000")
    async with connected(state) as client:
        await ok(client, "sync_start", wait=True)
        found = await ok(client, "query_documents", query="harbour tide tables")
    whole = query_result(state.app.query("harbour tide tables"))["results"][0]
    assert cost(whole) > 1000
    assert cost(found) <= 1000 and cost(found) > 900  # cut to fit, not to nothing
    [hit] = found["results"]
    assert whole["text"].startswith(hit["text"]) and 0 < len(hit["text"]) < len(whole["text"])
    truncated = found["truncated"]
    assert truncated["textCharsLeftOut"] == len(whole["text"]) - len(hit["text"])
    assert truncated["hitsLeftOut"] == len(query_result(state.app.query("harbour tide tables"))["results"]) - 1
    assert "read_file" in truncated["next"]
    json.dumps(found)



def _collections(base: Path, count: int) -> dict:
    roots = {}
    for n in range(count):
        folder = base / f"root-{n:04d}"
        folder.mkdir(parents=True)
        (folder / "note.md").write_text(f"# Note {n}\n\nA note about topic {n}.\n")
        roots[f"c{n:04d}"] = {"path": str(folder), "description": f"{'d' * 150} {n}"}
    return roots


@pytest.mark.anyio
@pytest.mark.parametrize("count", [60, 10])  # more roots than fit; roots that fit, but not with the warnings
async def test_status_cut_to_its_first_roots_keeps_every_collection_of_them_beside_a_watchers_warnings(
        tmp_path, model_path, encoder, count):
    """Status cut its per-root parts to fit with its other lists empty; a watcher's few warnings then put
    it over, and the longest list, `collections`, was cut again: `truncated` said `field: collections`
    and `alsoLeftOut: {collections: 4}`, `roots` kept 15 and `collections` 11, and the `offset` it gave
    list_collections (15) skipped the four in between. Where every root fitted but not with the warnings,
    `collections` alone was cut, and nothing said to page them with list_collections."""
    from test_watch import eventually

    from minirag.server import start_watching

    roots = _collections(tmp_path / "roots", count)
    first = Path(roots["c0000"]["path"])
    for n in range(8):
        (first / (f"{n:03d}-" + "f" * 200 + ".pdf")).write_bytes(b"%PDF-1.4 not a PDF at all")
    config = load_config(env={"BASE_DIRS": json.dumps(roots), "MINIRAG_MAX_RESPONSE_TOKENS": "3000",
                              "MINIRAG_WATCH": "1"}, db_path=str(tmp_path / "index.db"), model_path=model_path)
    state = ServerState.from_config(config, App(config, encoder=encoder))
    try:
        assert start_watching(state) is None
        eventually(lambda: state.app.watch_state().last_pass, what="the initial pass", timeout=120)
        async with connected(state) as client:
            said = await ok(client, "status")
        whole = payload(state.app.status())
    finally:
        state.close()
    assert cost(said) <= 3000
    kept, truncated = len(said["roots"]), said["truncated"]
    assert [c["name"] for c in said["collections"]] == list(roots)[:kept]
    assert said["watch"]["roots"] == said["roots"]
    if count == 60:
        assert 0 < kept < len(roots)
        assert truncated["field"] == "collections" and truncated["leftOut"] == len(roots) - kept
        assert f"list_collections with offset {kept}" in truncated["next"]
        assert set(truncated.get("alsoLeftOut", {})) <= {"watch.lastPass.warnings"}, truncated
        left_out = truncated.get("alsoLeftOut", {}).get("watch.lastPass.warnings", 0)
    else:
        assert kept == len(roots) and cost(whole) > 3000
        assert truncated["field"] == "watch.lastPass.warnings" and "alsoLeftOut" not in truncated, truncated
        left_out = truncated["leftOut"]
    assert len(said["watch"]["lastPass"]["warnings"]) + left_out == 8
