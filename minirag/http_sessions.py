"""Room for a new MCP HTTP session at the cap: the session idle the longest is ended.

The SDK keeps each session (its transport and server task) until its client ends it or it has
been idle half an hour, and at its cap answered every new client 503: one client opening
sessions and never ending them kept every other client out for that half hour, while the
server held thousands of sessions. Here a POST that would open a session finds at most
MAX_SESSIONS open: past that, the session with no request in flight that was used the longest
ago is ended first. Its next request answers 404, on which a client initializes again (the MCP
specification's rule for an unknown session). A session with a request in flight (an open GET
stream, a call being answered) is never ended; requests in flight are bounded by the
connections http_guard lets in, which are fewer than MAX_SESSIONS, so an idle one is there.
"""

from __future__ import annotations

import logging
import time
from collections import Counter

from minirag._compat.mcp import end_http_session, lift_session_cap, open_http_sessions

log = logging.getLogger(__name__)

MAX_SESSIONS = 1024
_SESSION_HEADER = b"mcp-session-id"


class SessionRoom:
    """ASGI middleware in front of the SDK's streamable HTTP app at `path`, served by `manager`."""

    def __init__(self, app, manager, path: str) -> None:
        self.app = app
        self.manager = manager
        self.path = path
        self._in_flight: Counter[str] = Counter()
        self._last_used: dict[str, float] = {}
        self._ended = 0
        lift_session_cap(manager)

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http" or scope.get("path") != self.path:
            await self.app(scope, receive, send)
            return
        session = _session_of(scope.get("headers", ()))
        if session is None:
            if scope.get("method") == "POST":
                await self._make_room()
            await self.app(scope, receive, self._noting_opened(send))
            return
        self._in_flight[session] += 1
        try:
            await self.app(scope, receive, send)
        finally:
            self._in_flight[session] -= 1
            if not self._in_flight[session]:
                del self._in_flight[session]
            if session in (open_http_sessions(self.manager) or {}):  # not an id a client made up
                self._last_used[session] = time.monotonic()

    def _noting_opened(self, send):
        async def noting(message) -> None:
            if message["type"] == "http.response.start":
                opened = _session_of(message.get("headers", ()))
                if opened is not None:
                    self._last_used[opened] = time.monotonic()
            await send(message)
        return noting

    async def _make_room(self) -> None:
        sessions = open_http_sessions(self.manager)
        if sessions is None:
            return
        for gone in [s for s in self._last_used if s not in sessions]:
            del self._last_used[gone]
        while len(sessions) >= MAX_SESSIONS:
            idle = [s for s in sessions if not self._in_flight.get(s)]
            if not idle:
                return
            oldest = min(idle, key=lambda s: self._last_used.get(s, 0.0))
            self._last_used.pop(oldest, None)
            await end_http_session(self.manager, oldest)
            if oldest in sessions:  # not ended (an SDK that ends sessions otherwise): its own cap decides
                return
            self._ended += 1
            if self._ended == 1 or self._ended % MAX_SESSIONS == 0:
                log.warning("%d MCP sessions open: ended the one idle the longest to open a new one "
                            "(%d ended so far); its client is told to initialize again", MAX_SESSIONS, self._ended)


def _session_of(headers) -> str | None:
    for name, value in headers:
        if name.lower() == _SESSION_HEADER:
            return value.decode("latin-1")
    return None
