"""`serve --http` against a client that opens session after session and never ends them: at the cap a
new client still gets a session. The one idle the longest is ended to make room (its next request
answers 404, on which a client initializes again, as the MCP specification has it); a session with a
request in flight (an open GET stream) is kept. The SDK answered every new client 503 for as long as
the flood's sessions lived (30 minutes idle), and kept up to 10,000 of them (tens of KB each). A real
uvicorn server on a real socket, in a thread, serving minirag's HTTP app; the cap is lowered."""

from __future__ import annotations

import http.client
import json
import socket
import threading
import time

import pytest
import uvicorn
from test_server_stdio import _free_port

from minirag import http_sessions
from minirag import server as server_module
from minirag.app import App
from minirag.config import load_config
from minirag.server import MCP_PATH, ServerState, build_server

CAP = 3
INITIALIZE = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-03-26", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}})
PING = json.dumps({"jsonrpc": "2.0", "id": 2, "method": "ping"})


@pytest.fixture
def served(tmp_path, tiny_model_dir, tiny_encoder, monkeypatch):
    monkeypatch.setattr(http_sessions, "MAX_SESSIONS", CAP)
    docs = tmp_path / "docs"
    docs.mkdir()
    config = load_config(env={}, base_dirs=[str(docs)], db_path=str(tmp_path / "index.db"),
                         model_path=str(tiny_model_dir))
    mcp = build_server(ServerState.from_config(config, App(config, encoder=tiny_encoder)))
    port = _free_port()
    app = server_module.http_app(mcp, "127.0.0.1", port, None)
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        assert time.monotonic() < deadline and thread.is_alive(), "the server did not start"
        time.sleep(0.02)
    yield port
    server.should_exit = True
    thread.join(timeout=10)


def headers(port: int, session: str | None = None) -> dict[str, str]:
    sent = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
            "Host": f"127.0.0.1:{port}"}
    return sent | ({"mcp-session-id": session} if session else {})


def post(port: int, body: str, session: str | None = None) -> tuple[int, str | None]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        connection.request("POST", MCP_PATH, body, headers(port, session))
        response = connection.getresponse()
        response.read()
        return response.status, response.getheader("mcp-session-id")
    finally:
        connection.close()


def open_session(port: int) -> str:
    status, session = post(port, INITIALIZE)
    assert status == 200 and session, status
    assert post(port, json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}), session)[0] == 202
    return session


def open_stream(port: int, session: str) -> socket.socket:
    """A GET stream left open: a request in flight for as long as it lasts."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=10)
    sock.sendall((f"GET {MCP_PATH} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAccept: text/event-stream\r\n"
                  f"mcp-session-id: {session}\r\n\r\n").encode())
    assert sock.recv(4096).startswith(b"HTTP/1.1 200")
    return sock


def test_redteam84_at_the_session_cap_a_new_client_gets_one_and_the_longest_idle_makes_room(served):
    port = served
    oldest, streaming = open_session(port), open_session(port)
    stream = open_stream(port, streaming)
    try:
        time.sleep(0.05)
        newer = open_session(port)
        status, newest = post(port, INITIALIZE)
        assert status == 200 and newest, f"a new client was refused at the cap: {status}"
        assert post(port, PING, oldest)[0] == 404  # ended to make room; its client initializes again
        for kept in (streaming, newer, newest):
            assert post(port, PING, kept)[0] == 200
    finally:
        stream.close()


def test_redteam84_a_flood_of_sessions_never_holds_more_than_the_cap(served):
    port = served
    flood = [post(port, INITIALIZE) for _ in range(4 * CAP)]
    assert all(status == 200 for status, _ in flood), [status for status, _ in flood]
    alive = [session for _, session in flood if post(port, PING, session)[0] == 200]
    assert alive == [session for _, session in flood[-CAP:]]
