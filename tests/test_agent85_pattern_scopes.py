"""A scope written as a name pattern (`*.pdf`), an agent's way to ask for the files of a type, finds
nothing, for a scope is a path or id prefix: it is refused saying so, never an empty answer."""

from __future__ import annotations

import pytest
from test_server import connected, make_state, ok, refused  # noqa: F401 (make_state: a fixture)


@pytest.mark.anyio
async def test_agent85_a_scope_written_as_a_pattern_is_refused_saying_scopes_are_prefixes(
        make_state, docs):  # noqa: F811 (the fixture imported above)
    (docs / "guide").mkdir()
    (docs / "guide" / "tides.md").write_text("# Tides\n\nHigh water at noon.\n")
    async with connected(make_state()) as client:
        await ok(client, "sync_start", wait=True)
        answers = [await refused(client, "list_files", scope="*.md"),
                   await refused(client, "list_files", scope=f"{docs}/**/*.md"),
                   await refused(client, "query_documents", query="tides", scope=f"{docs}/guide/*.md"),
                   await refused(client, "query_documents", query="tides", scope=["guide/tide?.md"])]
        listed = await ok(client, "list_files", scope=f"{docs}/guide")
    for answer in answers:
        assert "not a pattern" in answer, answer
    assert [entry["source"] for entry in listed["files"]] == [f"{docs}/guide/tides.md"]
