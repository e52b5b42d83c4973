"""A user opens the address `minirag serve --http` printed without its path, or the wrong one, in a
browser or with curl: the 404 says it is minirag's MCP server and where its endpoint is, where it
had said only `Not Found`. A real server, on a free port."""

from __future__ import annotations

import http.client
import subprocess
import sys

import pytest
from test_http_hosts import _wait_for
from test_http_token import server_env  # noqa: F401 - the fixture, shared
from test_server_stdio import TIMEOUT_S, _free_port


def get(port: int, path: str) -> tuple[int, str]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=TIMEOUT_S)
    try:
        conn.request("GET", path)
        response = conn.getresponse()
        return response.status, response.read().decode()
    finally:
        conn.close()


@pytest.mark.slow
def test_e2e84_a_path_other_than_the_endpoint_is_told_where_the_endpoint_is(server_env):  # noqa: F811
    port = _free_port()
    proc = subprocess.Popen([sys.executable, "-m", "minirag", "serve", "--http", f"127.0.0.1:{port}"], env=server_env,
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        _wait_for("127.0.0.1", port, proc)
        answers = {path: get(port, path) for path in ("/", "/favicon.ico", "/sse", "/mcpx")}
        endpoint = get(port, "/mcp")
    finally:
        proc.terminate()
        proc.communicate(timeout=TIMEOUT_S)
    said = (f"this is minirag's MCP server: MCP clients connect to http://127.0.0.1:{port}/mcp "
            "(streamable HTTP)\n")
    assert answers == {path: (404, said) for path in answers}, answers
    assert endpoint[0] != 404, endpoint  # the endpoint itself is the SDK's, as before
