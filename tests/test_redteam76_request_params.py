"""Requests other than tools/call whose params the SDK's own check refuses (found by redteam76): they
were answered 'Invalid request parameters' with empty data, naming neither the field nor what was
wrong (a tools/list whose cursor is a number, a completion/complete without its ref), as tools/call
was before its own check. Each is now one line naming the method, the field and the value."""

from __future__ import annotations

import json

import pytest
from test_server_stdio import RawServer, server_env  # noqa: F401

pytestmark = pytest.mark.slow  # the server in a process of its own

_REQUESTS = [
    # (method, params, what the answer names)
    ("tools/list", {"cursor": 5}, "tools/list: cursor must be a string, got 5"),
    ("completion/complete", {}, "completion/complete: argument is required"),
    ("initialize", {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": "x"},
     "initialize: clientInfo must be a JSON object, got the string 'x'"),
]


def test_a_request_of_malformed_params_is_told_which_field_is_wrong(server_env):  # noqa: F811
    server = RawServer(server_env)
    try:
        server.initialize()
        for method, params, named in _REQUESTS:
            reply = server.request(method, params)
            error = reply["error"]
            assert error["code"] == -32602 and error["message"].startswith(named), (method, error)
            assert "\n" not in json.dumps(error["message"]) and len(error["message"]) < 300
        assert server.request("ping", {})["result"] == {}  # and it serves on
    finally:
        assert b"Traceback" not in server.close()
