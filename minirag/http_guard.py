"""Guards for `serve --http` against clients that hold connections open (slowloris).

uvicorn times out a kept-alive connection that sends nothing, but not one that
is still sending a request line and headers: a client that dribbles a header
byte now and then holds the connection, and its file descriptor, for ever. The
bearer token is checked only once the headers are complete, so clients
without the token could use up the process's descriptors; then SQLite, the
documents being indexed and every client with the token fail too, and
asyncio logs a traceback for each refused accept (megabytes a second).

A client that sends full headers and then dribbles its body holds the
connection the same way (the application waits for the whole body before it
answers), and the bearer token does not help when there is none.

Four guards:
- every request gets HEADER_DEADLINE_S from its first byte (or from the
  connection's opening) to finish its headers, else the connection is closed;
- a request's body must come at MIN_BODY_RATE bytes a second on average once
  BODY_GRACE_S have passed since its headers, else the connection is closed.
  Time when the body is not the client's to send does not count: while uvicorn
  has paused reading (the application has not taken what came) or the client
  waits for a `100 Continue`. The response is never timed (an MCP event stream
  may stay open for hours);
- at most `connection_cap()` connections are open at once, so half the
  descriptors stay for the index: past it, the oldest connection still waiting
  for its headers is dropped to make room, else the one whose body comes the
  slowest (a flood of idle or dribbling ones cannot keep a real client out),
  and only when every connection is busy with a whole request is the new one closed;
- the soft descriptor limit is raised to the hard one when the server starts.

Whether a request's headers are still awaited is read from h11's connection
state (`their_state` is IDLE until they are parsed, SEND_BODY while its body comes).
"""

from __future__ import annotations

import asyncio
import logging
import time
import weakref

import h11
from starlette.requests import ClientDisconnect

from minirag._compat.mcp import STREAMABLE_HTTP_LOGGER
from minirag._compat.uvicorn import (
    H11Protocol,
    body_on_hold,
    body_so_far,
    open_connections,
    peer_state,
)

log = logging.getLogger(__name__)

# Long enough for a slow link to send a few KB of headers, short enough that
# holding a descriptor costs an attacker a new connection every few seconds.
HEADER_DEADLINE_S = 10.0
# A 4 MB body (the SDK's cap) may take BODY_GRACE_S + 512 s at the minimum rate; a connection held
# by dribbling costs at least that rate for as long as it is held.
BODY_GRACE_S = 10.0
MIN_BODY_RATE = 8 * 1024
BODY_CHECK_S = 1.0
# Far more than a team's MCP clients open (each holds one or two), and never
# more than half the descriptors the process may have.
MAX_CONNECTIONS = 512
REFUSAL_LOG_INTERVAL_S = 10.0
FALLBACK_DESCRIPTORS = 10240  # macOS's OPEN_MAX


def raise_descriptor_limit() -> None:
    """Soft RLIMIT_NOFILE up to the hard limit (macOS, whose hard limit reads unlimited, refuses more
    than its per-process maximum: there FALLBACK_DESCRIPTORS is tried). Nothing on Windows."""
    try:
        import resource
    except ImportError:
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    for target in (hard, FALLBACK_DESCRIPTORS):
        if target == resource.RLIM_INFINITY or soft == resource.RLIM_INFINITY or target <= soft:
            continue
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
            return
        except (OSError, ValueError):
            continue


class _ClientGone(logging.Filter):
    """Drops the SDK's traceback for a request whose client went away before its body was complete:
    that is what the body guard does to a dribbling client, hundreds of times in a flood (and a
    stderr nobody reads fast enough then blocks the server)."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not (record.exc_info and isinstance(record.exc_info[1], ClientDisconnect))


def quiet_client_disconnects() -> None:
    sdk = logging.getLogger(STREAMABLE_HTTP_LOGGER)
    if not any(isinstance(f, _ClientGone) for f in sdk.filters):
        sdk.addFilter(_ClientGone())


def connection_cap() -> int:
    try:
        import resource
    except ImportError:
        return MAX_CONNECTIONS
    soft, _hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        return MAX_CONNECTIONS
    return max(1, min(MAX_CONNECTIONS, soft // 2))


class GuardedH11Protocol(H11Protocol):
    """uvicorn's h11 protocol with a deadline on each request's headers and a cap on open connections."""

    _deadline: asyncio.TimerHandle | None = None
    _opened_at = 0.0
    _body: _BodyClock | None = None

    def connection_made(self, transport) -> None:
        super().connection_made(transport)
        self._opened_at = time.monotonic()
        if len(open_connections(self)) > connection_cap():
            # Make room by dropping the oldest connection still waiting for headers (an idle
            # keep-alive, or a slow client), so a flood of them cannot keep a real client out;
            # only when every connection is busy with a request is the new one refused.
            oldest = self._oldest_waiting()
            if oldest is not None:
                oldest.transport.close()
                _RefusalLog.of(self.loop).note("dropped the oldest connection still waiting for its headers")
            elif (slowest := self._slowest_body()) is not None:
                slowest.transport.close()
                _RefusalLog.of(self.loop).note("dropped the connection sending its request body the slowest")
            else:
                self.transport.close()
                _RefusalLog.of(self.loop).note("refused a new connection")
                return
        self._arm()

    def _others(self) -> list[GuardedH11Protocol]:
        return [c for c in open_connections(self) if c is not self and isinstance(c, GuardedH11Protocol)
                and not c.transport.is_closing()]

    def _oldest_waiting(self) -> GuardedH11Protocol | None:
        waiting = [c for c in self._others() if c._awaiting_headers()]
        return min(waiting, key=lambda c: c._opened_at, default=None)

    def _slowest_body(self) -> GuardedH11Protocol | None:
        now = time.monotonic()
        sending = [(c, c._body) for c in self._others() if c._receiving_body() and c._body is not None]
        slowest = min(sending, key=lambda pair: pair[1].rate(now), default=None)
        return slowest[0] if slowest is not None else None

    def data_received(self, data: bytes) -> None:
        if self._awaiting_headers():
            self._arm()  # the first byte of a later request on a kept-alive connection
        if self._body is not None and self._receiving_body():
            self._body.received += len(data)
        super().data_received(data)
        if not self._awaiting_headers():
            self._disarm()
        if self._receiving_body() and self._body is None and not self.transport.is_closing():
            self._body = _BodyClock(self)
            self._body.received = body_so_far(self)  # what came with the headers
        elif not self._receiving_body() and self._body is not None:
            self._body.stop()
            self._body = None

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        if self._body is not None:
            self._body.stop()
            self._body = None
        super().connection_lost(exc)

    def _awaiting_headers(self) -> bool:
        return peer_state(self) is h11.IDLE

    def _receiving_body(self) -> bool:
        return peer_state(self) is h11.SEND_BODY

    def _body_on_hold(self) -> bool:
        """Whether the body is not the client's to send now: reading paused, or a 100 Continue awaited."""
        return body_on_hold(self)

    def _arm(self) -> None:
        if self._deadline is None and not self.transport.is_closing():
            self._deadline = self.loop.call_later(HEADER_DEADLINE_S, self._expire)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _expire(self) -> None:
        self._deadline = None
        if self._awaiting_headers() and not self.transport.is_closing():
            log.debug("closed a connection whose request headers took over %.0f s", HEADER_DEADLINE_S)
            self.transport.close()


class _BodyClock:
    """How fast one request's body comes, checked every BODY_CHECK_S until it is complete."""

    def __init__(self, protocol: GuardedH11Protocol):
        self.protocol = protocol
        self.started = self.checked = time.monotonic()
        self.held = 0.0  # seconds the body was on hold (not the client's to send)
        self.received = 0
        self.timer: asyncio.TimerHandle | None = protocol.loop.call_later(BODY_CHECK_S, self.check)

    def rate(self, now: float) -> float:
        return self.received / max(now - self.started - self.held, 1e-3)

    def stop(self) -> None:
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None

    def check(self) -> None:
        self.timer = None
        protocol = self.protocol
        if protocol._body is not self or protocol.transport.is_closing() or not protocol._receiving_body():
            return
        now = time.monotonic()
        if protocol._body_on_hold():
            self.held += now - self.checked
        self.checked = now
        sending_for = now - self.started - self.held
        if self.received < MIN_BODY_RATE * (sending_for - BODY_GRACE_S):
            log.debug("closed a connection whose request body came at %.0f bytes/s", self.rate(now))
            protocol.transport.close()
            return
        self.timer = protocol.loop.call_later(BODY_CHECK_S, self.check)


class _RefusalLog:
    """What the cap did, on stderr: the first time at once, then one summing-up line per
    REFUSAL_LOG_INTERVAL_S while it goes on (a flood must not flood the log)."""

    _by_loop: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()

    def __init__(self, loop: asyncio.AbstractEventLoop):
        self.loop = loop
        self.pending = 0
        self.timer: asyncio.TimerHandle | None = None

    @classmethod
    def of(cls, loop: asyncio.AbstractEventLoop) -> _RefusalLog:
        if loop not in cls._by_loop:
            cls._by_loop[loop] = cls(loop)
        return cls._by_loop[loop]

    def note(self, what: str) -> None:
        if self.timer is None:
            log.warning("%s: the server keeps at most %d connections", what, connection_cap())
            self.timer = self.loop.call_later(REFUSAL_LOG_INTERVAL_S, self._sum_up)
        else:
            self.pending += 1

    def _sum_up(self) -> None:
        if self.pending:
            log.warning("%d more connection(s) refused or dropped at the cap of %d in the last %.0f s",
                        self.pending, connection_cap(), REFUSAL_LOG_INTERVAL_S)
            self.pending = 0
            self.timer = self.loop.call_later(REFUSAL_LOG_INTERVAL_S, self._sum_up)
        else:
            self.timer = None
