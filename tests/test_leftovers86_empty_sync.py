"""A sync of a folder holding no document an agent can search: `minirag sync` said where it looked
and why nothing may be there (lazysync85), sync_start answered `0 files` and nothing more, so the
agent went on to query an empty index."""

from __future__ import annotations

import shutil

import pytest
import test_server
from test_server import connected, ok

docs, make_state = test_server.docs, test_server.make_state


@pytest.mark.anyio
async def test_leftovers86_a_sync_job_that_found_no_document_says_where_it_looked(make_state, docs):
    shutil.rmtree(docs / "infra")
    for name in ("solar.md", "garden.txt"):
        (docs / name).unlink()
    (docs / "notes.pages").write_text("Not a type minirag reads.\n")
    async with connected(make_state()) as client:
        done = await ok(client, "sync_start", wait=True)
        polled = await ok(client, "sync_status", jobId=done["jobId"])
    assert done["state"] == "succeeded" and done["seen"] == 0, done
    assert done.get("note", "").startswith(f"found no document to index in {docs}: "), done
    assert polled.get("note") == done["note"], polled


@pytest.mark.anyio
async def test_leftovers86_a_sync_job_that_found_documents_has_no_note(make_state):
    async with connected(make_state()) as client:
        done = await ok(client, "sync_start", wait=True)
    assert done["state"] == "succeeded" and done["seen"] == 3 and "note" not in done, done
