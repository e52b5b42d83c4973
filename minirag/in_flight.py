"""The requests the stdio server has read and not yet answered: at most MAX_IN_FLIGHT.

The SDK starts each request as it reads it, and a request's answer is held in memory until
stdout takes it. A client that wrote requests and read no answers grew the server without bound.
Here a request is taken only while fewer than MAX_IN_FLIGHT are open; past that, stdin is left
unread and the client's writes block, as on any full pipe, until it reads answers.

A request is open from when it is read until its answer is handed to the stdout writer, or until
the SDK settles it unanswered (the client cancelled it: JSON-RPC answers nothing then). Two open
requests of one id are counted apart; either answer of that id closes one of them.

A request read while MAX_IN_FLIGHT are open is held, not waited on: reading goes on, so that a
`notifications/cancelled` behind it reaches the request it names (which ends, and makes room). A
client waiting on a stuck call could not cancel it once it had written one request too many. At most
MAX_HELD requests, of at most MAX_HELD_CHARS characters together (or one of any length), are held;
past that, stdin is left unread as above: what the server holds grows by that much at most.
Notifications are handed on as they are read, one at a time, so a flood of them queues nowhere. A
cancellation naming a held request drops it: it never starts.

When stdin closes, the SDK cancels every request still running: a client that wrote its requests
and closed stdin (`minirag < requests.jsonl`) got no answers. The requests open then, and those
held, are answered first, while their work goes on: until SETTLE_S pass with no piece of work ending
(a model run, a conversion, a page, sheet, slide or chapter a converter's worker reports: interruptible.steps), which
a stuck request (a conversion that hangs, a graph that never ends) meets and a slow ingest, each batch
or page ending, does not; and SETTLE_MAX_S at most, however they go on. A fixed SETTLE_S from stdin's end had cut a piped ingest_file on a slow
machine, its answer lost.
"""

from __future__ import annotations

import logging
import time
from collections import Counter, deque
from typing import Any

import anyio
import mcp_types as types

from minirag import interruptible
from minirag._compat.mcp import correlated_id, settled_unanswered

log = logging.getLogger(__name__)

#: Well past what a client keeps waiting at once; each open request holds at most one answer.
MAX_IN_FLIGHT = 64
#: Requests read past a full backlog and held: a cancellation behind at most these many is read.
MAX_HELD = 16
#: Characters of the held requests together (a query is a few hundred; one ingest_data may pass alone).
MAX_HELD_CHARS = 1 << 20
#: How long the requests open when stdin closes may go on with no work ending; the SDK then cancels them.
SETTLE_S = 10.0
#: How long they may go on at all once stdin closed, however their work goes on.
SETTLE_MAX_S = 3600.0
_LOOK_S = 0.25  # how often the settling looks whether work ended


class InFlight:
    def __init__(self, limit: int = MAX_IN_FLIGHT, held_chars: int = MAX_HELD_CHARS) -> None:
        self._room = anyio.Semaphore(limit)
        self._open: Counter[Any] = Counter()
        self._none_open = anyio.Event()
        self._none_open.set()
        self._held: deque[tuple[Any, int, Any]] = deque()  # (request, its line's length, its tag), as read
        self._held_chars = 0
        self._max_held_chars = held_chars
        self._changed = anyio.Event()  # set, and replaced, whenever the held requests change

    async def take(self, item, size: int, tag: Any = None) -> tuple[Any, Any] | None:
        """(`tag`, `item`) to hand on now, `item` being what the transport read, a line of `size`
        characters, and `tag` what goes with it (the sender's context); None for a request the backlog
        has no room for, held until there is (`released`). Waits only while the held requests are at
        their bound."""
        message = getattr(item, "message", None)
        if not isinstance(message, types.JSONRPCRequest):
            if isinstance(message, types.JSONRPCNotification) and message.method == "notifications/cancelled":
                self._drop_held(_cancelled_id(message.params))
            return tag, item
        if not self._held:
            try:
                self._room.acquire_nowait()
            except anyio.WouldBlock:
                pass
            else:
                return tag, self._opened(item)
        while self._held and (len(self._held) >= MAX_HELD or self._held_chars + size > self._max_held_chars):
            await self._changed.wait()
        self._held.append((item, size, tag))
        self._held_chars += size
        self._wake()
        return None

    async def released(self) -> tuple[Any, Any]:
        """(tag, request) of the request held longest, once there is room for it."""
        while True:
            while not self._held:
                await self._changed.wait()
            await self._room.acquire()
            if self._held:
                item, size, tag = self._held.popleft()
                self._held_chars -= size
                self._wake()
                return tag, self._opened(item)
            self._room.release()  # a cancellation dropped it meanwhile

    def _drop_held(self, request_id) -> None:
        if request_id is None or not self._held:
            return
        key = correlated_id(request_id)
        kept = deque(entry for entry in self._held if correlated_id(entry[0].message.id) != key)
        if len(kept) != len(self._held):
            self._held = kept
            self._held_chars = sum(size for _item, size, _tag in kept)
            self._wake()

    def _wake(self) -> None:
        self._changed.set()
        self._changed = anyio.Event()

    def _opened(self, item):
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

    async def settled(self, patience: float | None = None, bound: float | None = None) -> None:
        """Return once no request is open nor held; or once `patience` seconds (SETTLE_S) pass with no
        work ending (interruptible.steps), counted from this call and again from each look that
        finds work ended; or `bound` seconds (SETTLE_MAX_S) after this call."""
        patience = SETTLE_S if patience is None else patience
        bound = SETTLE_MAX_S if bound is None else bound
        with anyio.move_on_after(bound) as bounded:
            async with anyio.create_task_group() as waiting:
                waiting.start_soon(self._quiet_for, patience, waiting.cancel_scope)
                while self._held:
                    await self._changed.wait()
                await self._none_open.wait()
                waiting.cancel_scope.cancel()
        if bounded.cancelled_caught:
            log.info("the requests still open %g s after stdin closed are cancelled", bound)

    async def _quiet_for(self, patience: float, waiting: anyio.CancelScope) -> None:
        """Ends `waiting` once `patience` seconds pass with no work ending. A look counts the work
        ended since the last look, however late it comes (a loaded machine): slowness is no silence."""
        steps, since = interruptible.steps(), time.monotonic()
        while time.monotonic() - since < patience:
            await anyio.sleep(min(_LOOK_S, patience))
            if (now := interruptible.steps()) != steps:
                steps, since = now, time.monotonic()
        log.info("the requests still open after stdin closed ended no work for %g s: they are cancelled", patience)
        waiting.cancel()


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


def _cancelled_id(params) -> Any:
    """The id a `notifications/cancelled` names, read by the SDK's own model of its parameters; None
    where they are no such thing (the SDK answers that)."""
    try:
        return types.CancelledNotificationParams.model_validate(params or {}).request_id
    except ValueError:  # pydantic's ValidationError
        return None
