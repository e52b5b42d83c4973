"""The MCP HTTP transport's POST bodies, answered as the stdio transport answers its lines.

The SDK's HTTP transport reads a POST body as one JSON-RPC message. Where it cannot, its error
message is pydantic's whole report, one line per way the body failed each kind of message (a
dozen lines, with links), under id null; a request whose id is no string or integer it takes for
a notification and answers `202 Accepted` with no body, so the client waits for ever. Here a body
is looked at first, by the rules stdio_transport.py applies to a line: a request of an odd id, or
of params that are no JSON object, and a body that is no JSON-RPC message at all, are answered
with one line (400, a JSON-RPC error); lone surrogates in its strings become U+FFFD. Every other
body reaches the SDK as it came.
"""

from __future__ import annotations

from mcp.server.transport_security import DEFAULT_MAX_REQUEST_BODY_SIZE, RequestBodyLimitMiddleware
from mcp_types import jsonrpc_message_adapter
from pydantic import ValidationError

from minirag.stdio_transport import (
    BOM,
    number_or_batch_reply,
    odd_id_reply,
    odd_params_reply,
    repair,
    unreadable_reply,
)


def answered_messages(app, path: str, url: str = ""):
    """`app` behind AnsweredMessages, a body longer than the SDK takes refused (413) before it is read.
    `url`: the endpoint's address, given in the 404 of every other path."""
    return RequestBodyLimitMiddleware(AnsweredMessages(app, path, url), DEFAULT_MAX_REQUEST_BODY_SIZE)


class AnsweredMessages:
    """ASGI middleware in front of the SDK's streamable HTTP app, for the JSON bodies POSTed to `path`
    (a body of another type the SDK refuses as such)."""

    def __init__(self, app, path: str, url: str = "") -> None:
        self.app = app
        self.path = path
        self.url = url or path

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] == "http" and scope.get("path") not in (self.path, self.path + "/"):
            # A person who opened the printed address without its path (or another) is told what this is.
            await send({"type": "http.response.start", "status": 404,
                        "headers": [(b"content-type", b"text/plain; charset=utf-8")]})
            await send({"type": "http.response.body", "body": f"this is minirag's MCP server: MCP clients connect "
                                                              f"to {self.url} (streamable HTTP)\n".encode()})
            return
        if not (scope["type"] == "http" and scope.get("method") == "POST" and scope.get("path") == self.path
                and _is_json(scope)):
            await self.app(scope, receive, send)
            return
        body = await _whole_body(receive)
        if body is None:  # the client went away
            return
        # JSON lets a reader skip a byte-order mark, as the stdio transport does (Windows PowerShell 5.1
        # writes one into each UTF-8 file, a body sent from one); the SDK's parser refuses it.
        text = body.decode("utf-8", "surrogateescape").removeprefix(BOM)
        refusal = odd_id_reply(text) or odd_params_reply(text) or number_or_batch_reply(text)
        if refusal is None:
            body = repair(text).encode("utf-8", "surrogateescape")
            try:
                jsonrpc_message_adapter.validate_json(body, by_name=False)
            except ValidationError as exc:
                refusal = unreadable_reply(exc, text)
        if refusal is not None:
            await send({"type": "http.response.start", "status": 400,
                        "headers": [(b"content-type", b"application/json")]})
            await send({"type": "http.response.body",
                        "body": refusal.model_dump_json(by_alias=True, exclude_unset=True).encode()})
            return
        await self.app(scope, _replaying(body, receive), send)


def _is_json(scope) -> bool:
    """As the SDK reads it: any of the listed media types is `application/json`."""
    return any(name.lower() == b"content-type" and any(kind.split(b";")[0].strip().lower() == b"application/json"
                                                       for kind in value.split(b","))
               for name, value in scope.get("headers", ()))


async def _whole_body(receive) -> bytes | None:
    parts = []
    while True:
        event = await receive()
        if event["type"] == "http.disconnect":
            return None
        parts.append(event.get("body", b""))
        if not event.get("more_body", False):
            return b"".join(parts)


def _replaying(body: bytes, receive):
    """A receive that gives `body` whole, then whatever `receive` says (a disconnect)."""
    given = False

    async def replayed():
        nonlocal given
        if given:
            return await receive()
        given = True
        return {"type": "http.request", "body": body, "more_body": False}

    return replayed
