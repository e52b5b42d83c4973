"""A file the index left out, read: the refusal says why it is not there, not to ingest it again."""

from __future__ import annotations

import pytest
from test_server import connected, make_state, ok, refused  # noqa: F401 (make_state: a fixture)


@pytest.mark.anyio
async def test_agent85_reading_a_file_that_failed_says_why_it_failed_not_to_ingest_it(
        make_state, docs):  # noqa: F811 (the fixture imported above)
    (docs / "broken.pdf").write_bytes(b"\x00\x01 not a PDF at all")
    (docs / "private.md").write_text("---\nrag: false\n---\n# Private\n\nNot for the index.\n")
    (docs / "note.md").write_text("# Note\n\nHerons nest on the east bank.\n")
    async with connected(make_state()) as client:
        job = await ok(client, "sync_start", wait=True)
        assert job["failed"] == 1
        failed = await refused(client, "read_file", filePath=str(docs / "broken.pdf"))
        neighbors = await refused(client, "read_chunk_neighbors", filePath=str(docs / "broken.pdf"), chunkIndex=0)
        left_out = await refused(client, "read_file", filePath=str(docs / "private.md"))
        (docs / "broken.pdf").write_bytes(b"%PDF-1.4 still not a PDF, but other bytes")
        changed = await refused(client, "read_file", filePath=str(docs / "broken.pdf"))
    for message in (failed, neighbors):
        assert "cannot read PDF" in message and "ingest it" not in message, message
    assert "rag: false" in left_out and "ingest it" not in left_out, left_out
    assert "ingest it" in changed, changed
