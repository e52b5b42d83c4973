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
from minirag.results import query_result
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

