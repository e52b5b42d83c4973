"""A request's `_meta` (where a client asks for progress) held to the protocol's shapes for every
method, not only tools/call: a ping whose progressToken was a list was answered in pydantic's words
(`_meta.progressToken.str: Input should be a valid string, got [1]`), naming a field of the SDK's
model and writing the value as Python does (`None`, `{'a': 1}`)."""

from __future__ import annotations

import json

from test_server_stdio import shared_server  # noqa: F401  (the module's one stdio server)

CASES = [
    ("ping", {"_meta": {"progressToken": [1]}}, "ping: _meta.progressToken must be a string or an integer, got an array"),
    ("ping", {"_meta": {"progressToken": {"a": 1}}},
     "ping: _meta.progressToken must be a string or an integer, got an object"),
    ("ping", {"_meta": {"progressToken": None}}, "ping: _meta.progressToken must be a string or an integer, got null"),
    ("tools/list", {"_meta": {"progressToken": 1.5}},
     "tools/list: _meta.progressToken must be a string or an integer, got 1.5"),
    ("ping", {"_meta": [1]}, "ping: _meta must be a JSON object, got an array"),
    ("tools/list", {"cursor": 5}, "tools/list: cursor must be a string, got 5"),
]


def test_leftovers86_a_malformed_meta_on_any_request_is_refused_in_the_protocols_words(shared_server):  # noqa: F811
    server = shared_server()
    mark = server.begin()
    lines = [json.dumps({"jsonrpc": "2.0", "id": 500 + i, "method": method, "params": params}).encode()
             for i, (method, params, _) in enumerate(CASES)]
    replies = server.replies_to(lines)
    after = server.request("ping", {"_meta": {"progressToken": "p-1"}})
    stderr = server.stderr_since(mark).decode()
    said = [reply.get("error", {}).get("message") for reply in replies]
    assert said == [expected for _m, _p, expected in CASES], said
    assert all(reply["error"]["code"] == -32602 for reply in replies), replies
    assert after.get("result") == {}, after
    assert "Traceback" not in stderr, stderr
