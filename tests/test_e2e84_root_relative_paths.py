"""An agent passes a file's path as its root writes it (a result's `displayPath`, `infra/k8s/pods.md`)
where a tool takes an absolute one: the refusal gives the absolute path of that file under its
root, so the next call is right. Nothing is said of a path no root holds, nor of one that climbs
out of its root (`../`): the refusal tells nothing about the disk outside the roots."""

from __future__ import annotations

import pytest
import test_server
from test_server import connected, ok, refused

docs, make_state = test_server.docs, test_server.make_state  # test_server's fixtures: its folder and server


@pytest.mark.anyio
@pytest.mark.parametrize("tool", ["read_file", "ingest_file", "read_chunk_neighbors", "delete_file"])
async def test_e2e84_a_root_relative_path_is_refused_naming_the_file_under_its_root(make_state, docs, tool):
    extra = {"chunkIndex": 0} if tool == "read_chunk_neighbors" else {}
    async with connected(make_state()) as client:
        await ok(client, "sync_start", wait=True)
        found = await ok(client, "query_documents", query="pods", topK=1)
        relative = found["sources"][0]["displayPath"]
        message = await refused(client, tool, filePath=relative, **extra)
    assert relative == "infra/k8s/pods.md", found["sources"]
    assert message.endswith(f"filePath must be an absolute path, got 'infra/k8s/pods.md': under the root {docs} "
                            f"it is {str(docs / 'infra/k8s/pods.md')!r}"), message


@pytest.mark.anyio
@pytest.mark.parametrize("path", ["nowhere.md", "../docs/solar.md", "../index.db", "infra/../../docs/solar.md"])
async def test_e2e84_a_relative_path_no_root_holds_gets_no_guess(make_state, docs, path):
    async with connected(make_state()) as client:
        message = await refused(client, "read_file", filePath=path)
    assert message == f"read_file: filePath must be an absolute path, got {path!r}", message
