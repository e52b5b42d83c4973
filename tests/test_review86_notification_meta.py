"""A notification's malformed `_meta` is the SDK's to drop, as it drops any malformed notification (one
warning): a notification has no reply to carry a refusal, and the refusal of a request's `_meta`
(tool_arguments.meta_error) raised out of one was logged with a traceback."""

from __future__ import annotations

import time

from test_server_stdio import TIMEOUT_S, shared_server  # noqa: F401  (the module's one stdio server)


def test_review86_a_notification_with_a_malformed_meta_is_dropped_without_a_traceback(shared_server):  # noqa: F811
    server = shared_server()
    mark = server.begin()
    # The SDK passes a notification's progressToken of another shape by without a word, and drops one
    # whose _meta is no object with a warning: that line says both notifications were read.
    for meta in ({"progressToken": [1]}, [1]):
        server.send({"method": "notifications/roots/list_changed", "params": {"_meta": meta}})
    deadline = time.monotonic() + TIMEOUT_S
    while b"'notifications/roots/list_changed'" not in server.stderr_since(mark) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert server.request("ping", {}).get("result") == {}
    stderr = server.stderr_since(mark).decode()
    assert "dropped 'notifications/roots/list_changed': malformed params" in stderr, stderr
    assert "Traceback" not in stderr, stderr
