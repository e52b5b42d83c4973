"""A message POSTed over HTTP with a UTF-8 byte-order mark first (Windows PowerShell 5.1 writes one
into every UTF-8 file it saves, and a client that sends such a file as its body) is read as the stdio
transport reads such a line: JSON lets a reader skip the mark. A real server on loopback."""

from __future__ import annotations

import json

import pytest
from test_http_token import INITIALIZE, _posted, server_env, start, stop  # noqa: F401 - fixture

BOM = "\ufeff".encode()


@pytest.mark.slow
def test_redteam85_a_body_opening_with_a_byte_order_mark_is_read_over_http_as_over_stdio(server_env):  # noqa: F811
    """It was answered 400 'Parse error (Invalid JSON: expected value at line 1 column 1)' under id
    null, where stdio answers the same line's request."""
    proc, port = start(server_env)
    try:
        status, answer = _posted(port, BOM + INITIALIZE)
        assert status == 200 and b'"id":1,"result"' in answer, (status, answer[:300])
    finally:
        stop(proc)
    assert "serverInfo" in json.loads(answer.split(b"data: ", 1)[1])["result"]
