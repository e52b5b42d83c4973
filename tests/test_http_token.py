"""`serve --http` with a bearer token: requests without it (or with another) get 401, the SDK
client with it works, and a non-loopback bind without a token is refused in one line."""

from __future__ import annotations

import http.client
import json
import os
import subprocess
import sys
from pathlib import Path

import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from test_server_stdio import CONFIG_VARS, TIMEOUT_S, _free_port, _wait_for_port

from minirag import cli
from minirag import server as server_module

TOKEN = "s3cret-token-for-the-test-0123456789"


@pytest.fixture
def server_env(tmp_path, model_path) -> dict[str, str]:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "tides.md").write_text("# Tides\n\nThe moon's gravity raises two tidal bulges a day.\n")
    env = {k: v for k, v in os.environ.items() if k not in CONFIG_VARS | {"MINIRAG_HTTP_TOKEN"}}
    return env | {"MODEL_PATH": model_path, "BASE_DIR": str(docs), "DB_PATH": str(tmp_path / "index.db")}


def start(env: dict[str, str], *extra: str) -> tuple[subprocess.Popen, int]:
    port = _free_port()
    proc = subprocess.Popen([sys.executable, "-m", "minirag", "serve", "--http", f"127.0.0.1:{port}", *extra],
                            env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    _wait_for_port(port, proc)
    return proc, port


INITIALIZE = (b'{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", '
              b'"capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}}')


def status_of(port: int, headers: dict[str, str], body: bytes = b'{"jsonrpc": "2.0", "id": 1, "method": "ping"}') -> int:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=TIMEOUT_S)
    try:
        conn.request("POST", "/mcp", body=body, headers={"Content-Type": "application/json",
                                                          "Accept": "application/json, text/event-stream", **headers})
        return conn.getresponse().status
    finally:
        conn.close()


def stop(proc: subprocess.Popen) -> bytes:
    proc.terminate()
    _stdout, stderr = proc.communicate(timeout=TIMEOUT_S)
    return stderr


@pytest.mark.slow
@pytest.mark.anyio
async def test_with_a_token_only_requests_that_carry_it_are_served(server_env):
    proc, port = start(server_env | {"MINIRAG_HTTP_TOKEN": TOKEN})
    try:
        assert status_of(port, {}) == 401
        assert status_of(port, {"Authorization": "Bearer " + TOKEN[:-1] + "x"}) == 401
        assert status_of(port, {"Authorization": "Basic " + TOKEN}) == 401
        headers = {"Authorization": f"Bearer {TOKEN}"}
        async with httpx2.AsyncClient(headers=headers, timeout=TIMEOUT_S) as http_client:
            transport = streamable_http_client(f"http://127.0.0.1:{port}/mcp", http_client=http_client)
            async with Client(transport) as client:
                await client.call_tool("ingest_file", {"filePath": str(Path(server_env["BASE_DIR"]) / "tides.md")})
                found = await client.call_tool("query_documents", {"query": "tidal bulges"})
    finally:
        stderr = stop(proc)
    assert found.structured_content["results"][0]["source"].endswith("tides.md"), stderr


@pytest.mark.slow
def test_the_token_flag_works_like_the_environment_variable(server_env):
    proc, port = start(server_env, "--token", TOKEN)
    try:
        assert status_of(port, {}) == 401
        assert status_of(port, {"Authorization": f"Bearer {TOKEN}"}) != 401
    finally:
        stop(proc)


def refusal(server_env: dict[str, str], monkeypatch, capsys, argv: list[str]) -> tuple[int, str]:
    """Run the CLI in this process: a refused bind never starts a server, so no subprocess is needed."""
    for name in CONFIG_VARS | {"MINIRAG_HTTP_TOKEN"}:
        monkeypatch.delenv(name, raising=False)
    for name in ("MODEL_PATH", "BASE_DIR", "DB_PATH"):
        monkeypatch.setenv(name, server_env[name])
    code = cli.main(argv)
    return code, capsys.readouterr().err


@pytest.mark.parametrize("host", ["0.0.0.0", "[::]", "192.168.1.20", "example.org"])
def test_binding_a_non_loopback_address_without_a_token_is_refused_in_one_line(server_env, monkeypatch, capsys, host):
    code, stderr = refusal(server_env, monkeypatch, capsys, ["serve", "--http", f"{host}:{_free_port()}"])
    assert code == 1
    assert stderr.count("\n") == 1 and "Traceback" not in stderr
    assert stderr.startswith("minirag: error: refusing to serve HTTP on")
    assert "MINIRAG_HTTP_TOKEN" in stderr


def test_a_port_in_use_is_one_line_and_nothing_says_it_is_serving(server_env, monkeypatch, capsys):
    import socket

    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
        code, stderr = refusal(server_env, monkeypatch, capsys, ["serve", "--http", f"127.0.0.1:{port}"])
    assert code == 1
    assert stderr.startswith(f"minirag: error: cannot listen on 127.0.0.1:{port}: ") and stderr.count("\n") == 1
    assert "serving" not in stderr and "ERROR" not in stderr


def test_a_short_token_is_refused(server_env, monkeypatch, capsys):
    code, stderr = refusal(server_env, monkeypatch, capsys, ["serve", "--http", f":{_free_port()}", "--token", "abc"])
    assert code == 1 and "at least 16 characters" in stderr


def test_the_token_is_compared_with_hmac_compare_digest(monkeypatch):
    compared = []

    def spy(a, b):
        compared.append((a, b))
        return a == b

    monkeypatch.setattr(server_module.hmac, "compare_digest", spy)
    guard = server_module.BearerToken(app=None, token=TOKEN)
    assert guard.authorized({"headers": [(b"authorization", f"Bearer {TOKEN}".encode())]})
    assert not guard.authorized({"headers": [(b"authorization", b"Bearer nope")]})
    assert compared == [(TOKEN.encode(), TOKEN.encode()), (b"nope", TOKEN.encode())]


@pytest.mark.parametrize("headers", [[], [(b"authorization", b"Bearer nope")]])
def test_a_websocket_without_the_token_is_closed_before_the_app_sees_it(headers):
    # No route takes websockets today; a dependency that adds one must not open a door the HTTP
    # requests have shut (LocalOnly closes them the same way).
    import anyio

    reached, sent = [], []

    async def app(scope, receive, send):
        reached.append(scope["type"])

    async def send(message):
        sent.append(message)

    async def receive():
        return {"type": "websocket.connect"}

    guard = server_module.BearerToken(app=app, token=TOKEN)
    anyio.run(guard, {"type": "websocket", "headers": headers, "path": "/mcp"}, receive, send)
    assert reached == [] and sent == [{"type": "websocket.close", "code": 1008}]
    anyio.run(guard, {"type": "websocket", "headers": [(b"authorization", f"Bearer {TOKEN}".encode())],
                      "path": "/mcp"}, receive, send)
    assert reached == ["websocket"]


@pytest.mark.slow
def test_a_loopback_server_without_a_token_refuses_other_sites_hosts_and_origins(server_env):
    """No token on loopback: a web page in the user's browser must not reach it, neither by a
    cross-site request (Origin) nor by DNS rebinding (its own name resolving to 127.0.0.1)."""
    proc, port = start(server_env)
    try:
        served = status_of(port, {}, INITIALIZE)
        rebound = status_of(port, {"Host": f"attacker.example:{port}"}, INITIALIZE)
        cross_site = status_of(port, {"Origin": "http://attacker.example"}, INITIALIZE)
        same_machine = status_of(port, {"Origin": f"http://127.0.0.1:{port}"}, INITIALIZE)
    finally:
        stop(proc)
    assert served < 400 and same_machine < 400, (served, same_machine)
    assert rebound in (400, 403, 421) and cross_site in (400, 403), (rebound, cross_site)


def _posted(port: int, body: bytes, headers: dict[str, str] | None = None) -> tuple[int, bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=TIMEOUT_S)
    try:
        conn.request("POST", "/mcp", body=body, headers={"Content-Type": "application/json",
                                                          "Accept": "application/json, text/event-stream",
                                                          **(headers or {})})
        response = conn.getresponse()
        return response.status, response.read()
    finally:
        conn.close()


LONG_ID = b'{"jsonrpc":"2.0","id":' + b"7" * 5000 + b',"method":"ping"}'
BATCH = b'[{"jsonrpc":"2.0","id":9,"method":"ping"}]'


@pytest.mark.slow
def test_a_malformed_message_over_http_is_answered_in_one_line_as_over_stdio(server_env):
    """The SDK answered these with pydantic's whole report (a dozen lines) or, for an odd id, with
    202 and no body at all: the client waited for ever."""
    proc, port = start(server_env)
    try:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=TIMEOUT_S)
        conn.request("POST", "/mcp", body=INITIALIZE, headers={"Content-Type": "application/json",
                                                               "Accept": "application/json, text/event-stream"})
        session = {"mcp-session-id": conn.getresponse().getheader("mcp-session-id") or "",
                   "mcp-protocol-version": "2025-06-18"}
        conn.close()
        answers = {body: _posted(port, body, session) for body in (
            b'{"jsonrpc":"2.0","id":3,"method":"tools/call","params":[1]}', b'{"jsonrpc":"1.0","id":4,"method":"ping"}',
            b'{"id":5,"method":"ping"}', b"[]", b'{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}',
            b'{"jsonrpc":"2.0","id":1.5,"method":"ping"}', b'{"jsonrpc": "2.0", "id": 6, "method"', LONG_ID, BATCH)}
        surrogate = _posted(port, b'{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"query_documents",'
                                  b'"arguments":{"query":"tides \\ud800"}}}', session)
        served = _posted(port, b'{"jsonrpc":"2.0","id":8,"method":"tools/list"}', session)
    finally:
        stop(proc)
    for body, (status, answer) in answers.items():
        error = json.loads(answer)["error"]
        assert status == 400 and "\n" not in error["message"] and len(error["message"]) < 300, (body, answer)
    params = json.loads(answers[b'{"jsonrpc":"2.0","id":3,"method":"tools/call","params":[1]}'][1])
    assert params["id"] == 3 and params["error"]["message"] == ("Invalid params: tools/call's params must be a JSON "
                                                                 "object, got an array")
    assert json.loads(answers[b'{"jsonrpc":"2.0","id":1.5,"method":"ping"}'][1])["error"]["message"] == (
        "Invalid Request: the id must be a string or an integer, got 1.5")
    assert json.loads(answers[b'{"jsonrpc": "2.0", "id": 6, "method"'][1])["error"]["code"] == -32700
    long_id = json.loads(answers[LONG_ID][1])["error"]  # valid JSON: it was -32700 'number out of range'
    assert long_id["code"] == -32600 and "the id is an integer of 5,000 digits" in long_id["message"], long_id
    assert "batch" in json.loads(answers[BATCH][1])["error"]["message"]
    assert surrogate[0] == 200 and b'"id":7,"result"' in surrogate[1], surrogate  # (no index yet: a tool error)
    assert served[0] == 200 and b"query_documents" in served[1]
