"""The requests the stdio server has read and not yet answered: at most MAX_IN_FLIGHT.

The SDK starts each request as it reads it, and a request's answer is held in memory until
stdout takes it. A client that wrote requests and read no answers grew the server without bound.
Here a request is taken only while fewer than MAX_IN_FLIGHT are open; past that, stdin is left
unread and the client's writes block, as on any full pipe, until it reads answers.

A request is open from when it is read until its answer is handed to the stdout writer, or until
the SDK settles it unanswered (the client cancelled it: JSON-RPC answers nothing then). Two open
requests of one id are counted apart; either answer of that id closes one of them.

When stdin closes, the SDK cancels every request still running: a client that wrote its requests
and closed stdin (`minirag < requests.jsonl`) got no answers. The requests open then are given
SETTLE_S to be answered first.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import anyio
import mcp_types as types

from minirag._compat.mcp import correlated_id, settled_unanswered

#: Well past what a client keeps waiting at once; each open request holds at most one answer.
MAX_IN_FLIGHT = 64
#: How long the requests open when stdin closes may run on to be answered; the SDK then cancels the rest.
SETTLE_S = 10.0


class InFlight:
    def __init__(self, limit: int = MAX_IN_FLIGHT) -> None:
        self._room = anyio.Semaphore(limit)
        self._open: Counter[Any] = Counter()
        self._none_open = anyio.Event()
        self._none_open.set()

    async def admitted(self, item):
        """`item` (what the transport read), once there is room for it when it is a request."""
        if not isinstance(getattr(item, "message", None), types.JSONRPCRequest):
            return item
        await self._room.acquire()
        key = correlated_id(item.message.id)
        self._open[key] += 1
        if self._none_open.is_set():
            self._none_open = anyio.Event()

        async def unanswered() -> None:
            self._close(key)

        return settled_unanswered(item, unanswered)

    def sent(self, message) -> None:
        """`message` went to the stdout writer: the request it answers, if any, is closed."""
        if isinstance(message, (types.JSONRPCResponse, types.JSONRPCError)) and message.id is not None:
            self._close(correlated_id(message.id))

    def _close(self, key) -> None:
        if self._open[key] > 0:
            self._open[key] -= 1
            if not self._open[key]:
                del self._open[key]
                if not self._open:
                    self._none_open.set()
            self._room.release()

    async def settled(self, timeout: float = SETTLE_S) -> None:
        """Return once no request is open, or after `timeout` seconds."""
        with anyio.move_on_after(timeout):
            await self._none_open.wait()


class WrappedStream:
    """Closing, and `async with`, as the SDK's stream `_inner` that a subclass wraps does them."""

    _inner: Any

    def close(self) -> None:
        self._inner.close()

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def __aenter__(self):
        return self

    async def __aexit__(self, *exc) -> None:
        await self.aclose()


class AnsweredWrites(WrappedStream):
    """The SDK's write stream, closing in `flight` each request whose answer goes through it."""

    def __init__(self, inner, flight: InFlight) -> None:
        self._inner = inner
        self._flight = flight

    async def send(self, item) -> None:
        try:
            await self._inner.send(item)
        finally:
            self._flight.sent(item.message)
