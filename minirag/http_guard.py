"""Guards for `serve --http` against clients that hold connections open (slowloris).

uvicorn times out a kept-alive connection that sends nothing, but not one that
is still sending a request line and headers: a client that dribbles a header
byte now and then holds the connection, and its file descriptor, for ever. The
bearer token is checked only once the headers are complete, so clients
without the token could use up the process's descriptors; then SQLite, the
documents being indexed and every client with the token fail too, and
asyncio logs a traceback for each refused accept (megabytes a second).

Three guards:
- every request gets HEADER_DEADLINE_S from its first byte (or from the
  connection's opening) to finish its headers, else the connection is closed.
  A request whose headers arrived is not timed: its body and its response (an
  MCP event stream may stay open for hours) are the application's;
- at most `connection_cap()` connections are open at once, so half the
  descriptors stay for the index: past it, the oldest connection still waiting
  for its headers is dropped to make room (a flood of idle ones cannot keep a
  real client out), and only when every connection is busy is the new one closed;
- the soft descriptor limit is raised to the hard one when the server starts.

Whether a request's headers are still awaited is read from h11's connection
state (`their_state` is IDLE until they are parsed).
"""

from __future__ import annotations

import asyncio
import logging
import time
import weakref

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

log = logging.getLogger(__name__)

# Long enough for a slow link to send a few KB of headers, short enough that
# holding a descriptor costs an attacker a new connection every few seconds.
HEADER_DEADLINE_S = 10.0
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

    def connection_made(self, transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._opened_at = time.monotonic()
        if len(self.connections) > connection_cap():
            # Make room by dropping the oldest connection still waiting for headers (an idle
            # keep-alive, or a slow client), so a flood of them cannot keep a real client out;
            # only when every connection is busy with a request is the new one refused.
            oldest = self._oldest_waiting()
            if oldest is None:
                self.transport.close()
                _RefusalLog.of(self.loop).note("refused a new connection")
                return
            oldest.transport.close()
            _RefusalLog.of(self.loop).note("dropped the oldest connection still waiting for its headers")
        self._arm()

    def _oldest_waiting(self) -> GuardedH11Protocol | None:
        waiting = [c for c in self.connections if c is not self and isinstance(c, GuardedH11Protocol)
                   and c._awaiting_headers() and not c.transport.is_closing()]
        return min(waiting, key=lambda c: c._opened_at, default=None)

    def data_received(self, data: bytes) -> None:
        if self._awaiting_headers():
            self._arm()  # the first byte of a later request on a kept-alive connection
        super().data_received(data)
        if not self._awaiting_headers():
            self._disarm()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def _awaiting_headers(self) -> bool:
        return self.conn.their_state is h11.IDLE

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
