"""read_chunk_neighbors named each chunk's `parentId` but not the section's text it points to: no
tool takes a parentId, so the id was a pointer the agent could not follow. The answer now carries
`parents` (section text by parentId) as query_documents does, chunks first and the sections while
they fit the response budget, a section left out named in `truncated.parentsLeftOut`."""

from __future__ import annotations

import pytest
import test_server
from test_server import connected, ok

docs, make_state = test_server.docs, test_server.make_state

SENTENCES = ["Tidal range depends on the shape of the coast and the alignment of the moon and the sun.",
             "Spring tides come when the sun and moon pull together, neap tides when they pull at right angles.",
             "Estuaries funnel the incoming water so that the range grows as the channel narrows inland."]


def _long_section() -> str:
    paragraphs = [f"Paragraph {n}. " + " ".join(SENTENCES[(n + k) % 3] for k in range(4)) for n in range(40)]
    return "# Tides\n\n## Range\n\n" + "\n\n".join(paragraphs) + "\n\n## Currents\n\nEbb currents run seaward.\n"


@pytest.mark.anyio
async def test_leftovers86_each_neighbors_parent_id_names_a_section_the_answer_carries(make_state, docs):
    path = str(docs / "solar.md")
    async with connected(make_state()) as client:
        await ok(client, "ingest_file", filePath=path)
        around = await ok(client, "read_chunk_neighbors", filePath=path, chunkIndex=1)
    ids = {chunk["parentId"] for chunk in around["chunks"]}
    assert ids and ids == set(around.get("parents", {})), around
    for chunk in around["chunks"]:
        body = chunk["text"].split("\n", 1)[1]  # past the section-title line the chunk starts with
        assert body in around["parents"][chunk["parentId"]], (chunk, around["parents"])


@pytest.mark.anyio
async def test_leftovers86_a_section_over_the_budget_is_named_as_left_out_after_the_chunks(make_state, docs):
    (docs / "tides.md").write_text(_long_section())
    path = str(docs / "tides.md")
    async with connected(make_state(env={"MINIRAG_MAX_RESPONSE_TOKENS": "1000"})) as client:
        await ok(client, "ingest_file", filePath=path)
        around = await ok(client, "read_chunk_neighbors", filePath=path, chunkIndex=2, before=1, after=1)
    assert [chunk["chunkIndex"] for chunk in around["chunks"]] == [1, 2, 3], around
    left = around["truncated"]
    named = {chunk["parentId"] for chunk in around["chunks"]}
    assert set(left["parentsLeftOut"]) | set(around["parents"]) == named, around
    assert left["parentsLeftOut"] and "read_file" in left["next"], left
