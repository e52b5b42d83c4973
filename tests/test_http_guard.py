"""`serve --http` against clients that hold connections (slowloris): a request that does not finish its
headers in time is hung up on, a refusal for a missing token closes the connection, and connections past
the cap are closed at once. A real uvicorn server on a real socket, in a thread, with short limits."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
import threading
import time

import pytest
import uvicorn
from test_server_stdio import _free_port

from minirag import http_guard
from minirag import server as server_module
from minirag.server import BearerToken

TOKEN = "t" * 32
DEADLINE_S = 0.4


async def streaming_app(scope, receive, send):
    """/stream answers in five parts over ~1 s (longer than the header deadline), /long-stream in
    thirteen over ~3 s; anything else 'ok'."""
    if scope["type"] != "http":
        return
    if scope["path"] in ("/stream", "/long-stream"):
        await send({"type": "http.response.start", "status": 200, "headers": []})
        for _ in range(4 if scope["path"] == "/stream" else 12):
            await send({"type": "http.response.body", "body": b"tick\n", "more_body": True})
            await asyncio.sleep(DEADLINE_S / 2)
        await send({"type": "http.response.body", "body": b"end\n"})
        return
    await send({"type": "http.response.start", "status": 200, "headers": [(b"content-length", b"2")]})
    await send({"type": "http.response.body", "body": b"ok"})


async def body_app(scope, receive, send):
    """Reads the whole request body (as the MCP endpoint does) before answering its length; /late
    waits BODY_GRACE_S * 3 before it starts reading."""
    if scope["type"] != "http":
        return
    if scope["path"] == "/late":
        await asyncio.sleep(http_guard.BODY_GRACE_S * 3)
    size, more = 0, True
    while more:
        message = await receive()
        if message["type"] == "http.disconnect":
            return
        size += len(message.get("body", b""))
        more = message.get("more_body", False)
    body = str(size).encode()
    await send({"type": "http.response.start", "status": 200, "headers": [(b"content-length", b"%d" % len(body))]})
    await send({"type": "http.response.body", "body": body})


@pytest.fixture
def serve_guarded(monkeypatch):
    monkeypatch.setattr(http_guard, "HEADER_DEADLINE_S", DEADLINE_S)
    servers = []

    def start(app=streaming_app) -> int:
        port = _free_port()
        server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning",
                                               http=http_guard.GuardedH11Protocol))
        thread = threading.Thread(target=server.run, daemon=True)
        thread.start()
        servers.append((server, thread))
        deadline = time.monotonic() + 10
        while not server.started:
            assert time.monotonic() < deadline and thread.is_alive(), "the server did not start"
            time.sleep(0.02)
        return port

    yield start
    for server, thread in servers:
        server.should_exit = True
        thread.join(timeout=10)


def connect(port: int) -> socket.socket:
    return socket.create_connection(("127.0.0.1", port), timeout=5)


def read_until_closed(sock: socket.socket, limit_s: float = 5.0) -> tuple[float | None, bytes]:
    """(seconds until the server closed the connection, or None if it was still open at limit_s; what it sent)."""
    started, data = time.monotonic(), b""
    sock.settimeout(limit_s)
    try:
        while chunk := sock.recv(4096):
            data += chunk
    except TimeoutError:
        return None, data
    except ConnectionResetError:
        pass
    return time.monotonic() - started, data


def read_until(sock: socket.socket, marker: bytes, limit_s: float = 5.0) -> bytes:
    data, deadline = b"", time.monotonic() + limit_s
    sock.settimeout(limit_s)
    while marker not in data and time.monotonic() < deadline:
        chunk = sock.recv(4096)
        if not chunk:
            break
        data += chunk
    return data


AUTHORIZED = b"Authorization: Bearer " + TOKEN.encode() + b"\r\n"


def test_a_connection_that_never_finishes_its_headers_is_closed(serve_guarded):
    port = serve_guarded()
    silent = connect(port)
    dribbling = connect(port)
    dribbling.sendall(b"GET / HTTP/1.1\r\n")
    started = time.monotonic()
    closed_early = False
    while time.monotonic() - started < 4 * DEADLINE_S:  # a header line every tenth of the deadline
        try:
            dribbling.sendall(b"X-Slow: 1\r\n")
        except OSError:
            closed_early = True
            break
        time.sleep(DEADLINE_S / 10)
    assert closed_early or read_until_closed(dribbling, 1.0)[0] is not None, "trickled headers kept the connection"
    assert read_until_closed(silent, 2.0)[0] is not None, "a connection that sent nothing was kept"


@pytest.mark.slow  # waits on real timeouts or file events: about a second
def test_a_slow_response_and_a_kept_alive_connection_are_not_cut(serve_guarded):
    port = serve_guarded()
    sock = connect(port)
    sock.sendall(b"GET /stream HTTP/1.1\r\nHost: a\r\n\r\n")
    received, started = b"", time.monotonic()
    while b"end\n" not in received and time.monotonic() - started < 5:
        chunk = sock.recv(4096)
        assert chunk, "the response was cut"
        received += chunk
    assert b"end\n" in received and time.monotonic() - started > DEADLINE_S  # it outlived the header deadline
    # The same connection: a second request whose headers never finish is timed from its first byte.
    sock.sendall(b"GET / HTTP/1.1\r\n")
    closed_after, _ = read_until_closed(sock, 3.0)
    assert closed_after is not None and closed_after < 3.0


def test_a_request_without_the_token_gets_401_and_the_connection_closes(serve_guarded):
    port = serve_guarded(BearerToken(streaming_app, TOKEN))
    sock = connect(port)
    # A body announced but never sent: nobody reads it, so nothing may wait for it.
    sock.sendall(b"POST /mcp HTTP/1.1\r\nHost: a\r\nContent-Length: 1000000\r\n\r\nabc")
    closed_after, data = read_until_closed(sock, 3.0)
    assert data.startswith(b"HTTP/1.1 401") and closed_after is not None and closed_after < 1.0
    authorized = connect(port)
    authorized.sendall(b"GET / HTTP/1.1\r\nHost: a\r\n" + AUTHORIZED + b"\r\n")
    assert authorized.recv(4096).startswith(b"HTTP/1.1 200")


@pytest.mark.slow  # waits on real timeouts or file events: about a second
def test_past_the_cap_the_oldest_waiting_connection_makes_room_and_busy_ones_are_kept(serve_guarded, monkeypatch,
                                                                                      caplog):
    monkeypatch.setattr(http_guard, "HEADER_DEADLINE_S", 5.0)
    monkeypatch.setattr(http_guard, "MAX_CONNECTIONS", 3)
    monkeypatch.setattr(http_guard, "REFUSAL_LOG_INTERVAL_S", 0.3)
    port = serve_guarded()
    idle = [connect(port) for _ in range(3)]  # a flood that never sends its headers
    time.sleep(0.2)
    client = connect(port)
    client.sendall(b"GET / HTTP/1.1\r\nHost: a\r\n\r\n")
    assert client.recv(4096).startswith(b"HTTP/1.1 200"), "a real client was kept out"
    assert read_until_closed(idle[0], 2.0)[0] is not None, "the oldest idle connection was not dropped"
    assert "dropped the oldest connection still waiting for its headers" in caplog.text
    client.close()
    for sock in idle[1:]:
        sock.close()
    time.sleep(0.2)
    # Every connection busy with a request (a response still streaming): the new one is refused.
    busy = [connect(port) for _ in range(3)]
    for sock in busy:  # streams that outlast a late machine's pauses: busy until the extra one is refused
        sock.sendall(b"GET /long-stream HTTP/1.1\r\nHost: a\r\n\r\n")
    # Each answering: the server has read its request (bytes it has not read yet could be anything,
    # so a connection is busy only from then on, however late a loaded machine runs the server).
    heard = [read_until(sock, b"tick\n") for sock in busy]
    assert all(b"tick\n" in got for got in heard), heard
    time.sleep(http_guard.REFUSAL_LOG_INTERVAL_S)  # the refusal gets a line of its own, not the drop's summary
    extra = connect(port)
    assert read_until_closed(extra, 2.0)[0] is not None, "a connection past the cap of busy ones was kept"
    assert all(b"end\n" in got + read_until(sock, b"end\n") for got, sock in zip(heard, busy, strict=True)), \
        "a busy connection was cut"
    assert "refused a new connection" in caplog.text


def test_a_flood_at_the_cap_is_logged_once_then_summed_up_per_interval(monkeypatch, caplog):
    monkeypatch.setattr(http_guard, "REFUSAL_LOG_INTERVAL_S", 0.2)
    loop = asyncio.new_event_loop()
    try:
        refusals = http_guard._RefusalLog.of(loop)
        for _ in range(27):
            refusals.note("refused a new connection")
        loop.run_until_complete(asyncio.sleep(0.5))
    finally:
        loop.close()
    lines = [r.getMessage() for r in caplog.records if r.name == "minirag.http_guard"]
    assert len(lines) == 2 and lines[0].startswith("refused a new connection") and lines[1].startswith("26 more")


def test_serve_http_runs_the_guarded_protocol_with_the_descriptor_limit_raised(monkeypatch):
    seen = {}

    class Recorder:
        def __init__(self, config):
            seen["http"] = config.http

        async def serve(self, sockets=None):
            seen["sockets"] = sockets

    monkeypatch.setattr(uvicorn, "Server", Recorder)
    monkeypatch.setattr(http_guard, "raise_descriptor_limit", lambda: seen.setdefault("raised", True))
    port = _free_port()
    with server_module.listening_socket("127.0.0.1", port) as sock:
        server_module.run_http(server_module.MCPServer("probe"), "127.0.0.1", port, None, sock)
    assert seen == {"http": http_guard.GuardedH11Protocol, "raised": True, "sockets": [sock]}


def body_headers(path: str, length: int) -> bytes:
    return f"POST {path} HTTP/1.1\r\nHost: a\r\nContent-Length: {length}\r\n\r\n".encode()


@pytest.fixture
def short_body_limits(monkeypatch):
    monkeypatch.setattr(http_guard, "BODY_GRACE_S", 0.4)
    monkeypatch.setattr(http_guard, "MIN_BODY_RATE", 2000)
    monkeypatch.setattr(http_guard, "BODY_CHECK_S", 0.1)


def test_a_body_dribbled_below_the_minimum_rate_is_cut_and_a_fast_one_is_read(serve_guarded, short_body_limits):
    port = serve_guarded(body_app)
    dribbling = connect(port)
    dribbling.sendall(body_headers("/", 100_000) + b"x")
    started, closed = time.monotonic(), False
    while time.monotonic() - started < 3.0:  # 20 bytes a second, a hundredth of the minimum
        try:
            dribbling.sendall(b"x")
        except OSError:
            closed = True
            break
        time.sleep(0.05)
    assert closed or read_until_closed(dribbling, 1.0)[0] is not None, "a dribbled body kept the connection"
    fast = connect(port)
    fast.sendall(body_headers("/", 300_000) + b"y" * 300_000)
    assert read_until(fast, b"300000").endswith(b"300000")


@pytest.mark.slow  # waits on real timeouts or file events: about a second
def test_a_body_the_application_has_not_started_reading_is_not_the_clients_delay(serve_guarded, short_body_limits,
                                                                                 monkeypatch):
    """uvicorn stops reading past 64 KB the application has not taken: that wait is not counted (at this
    minimum rate it would cut the connection)."""
    monkeypatch.setattr(http_guard, "MIN_BODY_RATE", 1_000_000)
    port = serve_guarded(body_app)
    sock = connect(port)
    sock.sendall(body_headers("/late", 1_000_000))
    sender = threading.Thread(target=sock.sendall, args=(b"z" * 1_000_000,), daemon=True)
    sender.start()
    assert read_until(sock, b"1000000").endswith(b"1000000"), "a body held back by the application was cut"
    sender.join(timeout=5)


def test_a_flood_of_dribbled_bodies_past_the_cap_does_not_keep_a_real_client_out(serve_guarded, monkeypatch):
    """600 such connections against the cap of 512, scaled down: 120 against a cap of 100. Each sent its
    headers and dribbles its body faster than the minimum would cut it within the test."""
    monkeypatch.setattr(http_guard, "MAX_CONNECTIONS", 100)
    monkeypatch.setattr(http_guard, "BODY_GRACE_S", 30.0)
    monkeypatch.setattr(http_guard, "REFUSAL_LOG_INTERVAL_S", 0.3)
    port = serve_guarded(body_app)
    flood = []
    for _ in range(120):
        sock = connect(port)
        sock.sendall(body_headers("/", 1_000_000) + b"x")
        flood.append(sock)
    time.sleep(0.3)
    for _ in range(2):  # still dribbling
        for sock in flood:
            with contextlib.suppress(OSError):
                sock.sendall(b"x")
        time.sleep(0.1)
    client = connect(port)
    client.sendall(body_headers("/", 5) + b"hello")
    assert read_until(client, b"\r\n\r\n5").endswith(b"\r\n\r\n5"), "a real client was kept out"
    for sock in flood:
        sock.close()


def test_a_client_cut_mid_body_leaves_no_traceback_in_the_log(caplog):
    """The SDK logs a traceback for each request whose client went away mid-body: in a flood of cut
    dribblers that was 5,000 lines of stderr, and a client reading stderr slowly stalled the server."""
    from starlette.requests import ClientDisconnect

    http_guard.quiet_client_disconnects()
    sdk = logging.getLogger("mcp.server.streamable_http")
    for exc in (ClientDisconnect(), RuntimeError("a real failure")):
        try:
            raise exc
        except Exception:
            sdk.exception("Error handling POST request")
    assert [r.exc_info[0] for r in caplog.records if r.name == sdk.name] == [RuntimeError]
