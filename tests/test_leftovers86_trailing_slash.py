"""A file's path written with a trailing slash (`/docs/solar.md/`, as an agent may join a path) names
that file for every tool that takes a path, as the path without it does: one source, never a second
copy under another spelling, and a scope that finds it. (POSIX's open() would refuse the spelling
with ENOTDIR; minirag takes it as the file, the same way in every tool.)"""

from __future__ import annotations

import pytest
import test_server
from test_server import connected, ok

docs, make_state = test_server.docs, test_server.make_state


@pytest.mark.anyio
async def test_leftovers86_a_file_path_with_a_trailing_slash_names_that_file_in_every_tool(make_state, docs):
    path = str(docs / "solar.md")
    slashed = path + "/"
    async with connected(make_state()) as client:
        ingested = await ok(client, "ingest_file", filePath=slashed)
        again = await ok(client, "ingest_file", filePath=path)
        read = await ok(client, "read_file", filePath=slashed)
        around = await ok(client, "read_chunk_neighbors", filePath=slashed, chunkIndex=0)
        listed = await ok(client, "list_files", scope=slashed)
        found = await ok(client, "query_documents", query="solar panels", scope=slashed, topK=3)
        synced = await ok(client, "sync_start", path=slashed, wait=True)
        every = await ok(client, "list_files")
        deleted = await ok(client, "delete_file", filePath=slashed)
    assert ingested["source"] == path and again["chunksEmbedded"] == 0, (ingested, again)
    assert read["source"] == path and {c["source"] for c in around["chunks"]} == {path}
    assert [f["source"] for f in listed["files"]] == [path]
    assert found["results"] and {r["source"] for r in found["results"]} == {path}
    assert (synced["state"], synced["seen"], synced["ingested"]) == ("succeeded", 1, 0), synced
    assert [f["source"] for f in every["files"] if f["state"] == "indexed"] == [path]
    assert deleted["source"] == path
