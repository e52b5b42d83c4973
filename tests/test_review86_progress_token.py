"""A progressToken of `true` or `false` is neither of the protocol's shapes (a string or an integer),
though Python's bool is an int: held to them as any other."""

from __future__ import annotations

import json

from test_server_stdio import shared_server  # noqa: F401  (the module's one stdio server)


def test_review86_a_boolean_progress_token_is_refused_on_any_request(shared_server):  # noqa: F811
    server = shared_server()
    mark = server.begin()
    lines = [json.dumps({"jsonrpc": "2.0", "id": 600 + i, "method": method, "params": params}).encode()
             for i, (method, params) in enumerate([("ping", {"_meta": {"progressToken": True}}),
                                                   ("tools/call", {"name": "status", "arguments": {},
                                                                   "_meta": {"progressToken": False}})])]
    replies = server.replies_to(lines)
    stderr = server.stderr_since(mark).decode()
    said = [reply.get("error", {}).get("message") for reply in replies]
    assert said == ["ping: _meta.progressToken must be a string or an integer, got true",
                    "tools/call: _meta.progressToken must be a string or an integer, got false"], replies
    assert "Traceback" not in stderr, stderr
