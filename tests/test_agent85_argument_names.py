"""An argument named as other tools and other servers name it is refused naming the one meant."""

from __future__ import annotations

import pytest
from test_server import connected, make_state, refused  # noqa: F401 (make_state: a fixture)


@pytest.mark.anyio
@pytest.mark.parametrize(("tool", "sent", "meant"), [
    ("read_file", "path", "filePath"),
    ("delete_file", "uri", "filePath"),
    ("read_file", "limit", "maxChars"),
    ("read_file", "start", "offset"),
    ("query_documents", "limit", "topK"),
    ("query_documents", "k", "topK"),
    ("query_documents", "max_results", "topK"),
    ("query_documents", "q", "query"),
    ("query_documents", "question", "query"),
    ("query_documents", "path", "scope"),
    ("list_files", "folder", "scope"),
    ("list_files", "path", "scope"),
    ("sync_start", "filePath", "path"),
    ("sync_start", "folder", "path"),
    ("sync_status", "id", "jobId"),
    ("ingest_data", "content", "data"),
    ("ingest_data", "text", "data"),
    ("ingest_url", "link", "url"),
])
async def test_agent85_an_argument_named_as_elsewhere_is_refused_naming_the_one_meant(
        make_state, tool, sent, meant):  # noqa: F811 (the fixture imported above)
    async with connected(make_state()) as client:
        message = await refused(client, tool, **{sent: 1})
    assert f"unknown argument {sent!r} (did you mean {meant!r}?)" in message
