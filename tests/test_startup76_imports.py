"""What a spawned stdio server imports before it answers (an MCP client starts one at every session):
neither the MCP SDK's client side, nor uvicorn, nor the model's runtime until a request needs the
model. Checked in real spawns by the module names `python -X importtime` writes, never by time."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

pytestmark = pytest.mark.slow  # each test starts the server in a process of its own

TIMEOUT_S = 60
CONFIG_VARS = {"BASE_DIR", "BASE_DIRS", "DB_PATH", "CACHE_DIR", "MODEL_NAME", "MODEL_PATH", "MINIRAG_READ_ONLY"}


def _imported(importtime: str) -> set[str]:
    """The modules a process imported (or tried to: a failed import is listed too)."""
    return {line.rpartition("|")[2].strip() for line in importtime.splitlines() if line.startswith("import time:")}


def _session(env: dict[str, str], tmp_path, *calls: dict) -> tuple[list[dict], set[str]]:
    """A stdio session of a fresh `python -X importtime -m minirag`: initialize, tools/list, then `calls`
    (tools/call params); their replies, and every module the process imported until it exited."""
    log = tmp_path / "importtime.txt"
    with log.open("wb") as sink:
        proc = subprocess.Popen([sys.executable, "-X", "importtime", "-m", "minirag"], env=env,
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=sink)
        replies = []

        def ask(ident: int, method: str, params: dict) -> None:
            proc.stdin.write(json.dumps({"jsonrpc": "2.0", "id": ident, "method": method, "params": params}).encode()
                             + b"\n")
            proc.stdin.flush()
            while (message := json.loads(proc.stdout.readline())).get("id") != ident:
                pass
            replies.append(message)

        try:
            ask(1, "initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                  "clientInfo": {"name": "t", "version": "0"}})
            proc.stdin.write(b'{"jsonrpc": "2.0", "method": "notifications/initialized"}\n')
            ask(2, "tools/list", {})
            for ident, call in enumerate(calls, 3):
                ask(ident, "tools/call", call)
        finally:
            proc.stdin.close()
            proc.wait(TIMEOUT_S)
    return replies, _imported(log.read_text(errors="replace"))


@pytest.fixture
def env(cli_env, run_cli) -> dict[str, str]:
    assert run_cli("sync").returncode == 0
    return {k: v for k, v in os.environ.items() if k not in CONFIG_VARS} | {
        name: os.environ[name] for name in ("MODEL_PATH", "BASE_DIR", "DB_PATH")}


def test_a_stdio_session_imports_neither_the_sdk_client_nor_the_http_server(env, tmp_path):
    replies, imported = _session(env, tmp_path, {"name": "query_documents", "arguments": {"query": "otters"}})
    assert any(tool["name"] == "query_documents" for tool in replies[1]["result"]["tools"])
    answer = replies[2]["result"]
    assert not answer.get("isError") and "otters" in answer["content"][0]["text"].lower()
    assert "mcp.server.mcpserver" in imported
    assert not {name for name in imported if name == "mcp.client" or name.startswith("mcp.client.")}
    assert "httpx2._client" not in imported  # what the SDK's HTTP resources fetch with
    # The HTTP transport's server: sse_starlette's attempt at uvicorn.main is listed, but it failed there.
    assert not imported & {"uvicorn", "uvicorn.config", "click"}


def test_a_stdio_session_loads_the_model_runtime_only_for_a_request_that_needs_the_model(env, tmp_path):
    """Most sessions a client starts never search: their server imports no ONNX Runtime or tokenizer and
    makes no session (0.3 s of CPU and the model's memory at every spawn); the first query loads them."""
    _replies, imported = _session(env, tmp_path, {"name": "status", "arguments": {}})
    assert not imported & {"onnxruntime", "tokenizers", "minirag.encoder"}
    replies, imported = _session(env, tmp_path, {"name": "query_documents", "arguments": {"query": "otters"}})
    assert "otters" in replies[2]["result"]["content"][0]["text"].lower()
    assert {"onnxruntime", "minirag.encoder"} <= imported


def test_the_sdk_client_still_imports_in_a_process_whose_server_left_it_out():
    """The `mcp` package's own names (its Client, stdio_client) come when first asked for, as a test or a
    script that drives a server from the same process asks for them, and httpx2's likewise; uvicorn's
    exit handler is hooked for event streams as sse_starlette hooks it when it imports with uvicorn there."""
    code = ("import sys\nimport minirag.server\n"
            "left_out = not {'mcp.client', 'uvicorn', 'httpx2._client'} & set(sys.modules)\n"
            "from mcp import Client, StdioServerParameters\nimport mcp\nimport httpx2\n"
            "from minirag._compat.mcp import http_streams_end_on_exit\n"
            "from sse_starlette.sse import AppStatus\nfrom uvicorn.main import Server\n"
            "original = Server.handle_exit\nhttp_streams_end_on_exit()\nhttp_streams_end_on_exit()\n"
            "print(left_out, Client.__module__, mcp.types.Tool.__name__, httpx2.AsyncClient.__name__,"
            " bool(httpx2.__version__), AppStatus.original_handler is original,"
            " Server.handle_exit is AppStatus.handle_exit)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["True", "mcp.client.client", "Tool", "AsyncClient", "True", "True", "True"]


@pytest.mark.parametrize("argv", [["--version"], ["status"]])
def test_a_process_that_ran_its_command_leaves_what_it_made_out_of_its_exits_collections(cli_env, argv):
    """The teardown's collections walked every object the imports made (the MCP SDK's ~500 models, the
    modules) only to free memory the exit frees: 0.25-0.35 s of CPU after a stdio server. main() frees
    them from the walk as the process's own command ends; what exits register still runs after it."""
    code = ("import atexit, gc, sys\n"
            "atexit.register(lambda: print('frozen', gc.get_freeze_count() > 0))\n"
            "from minirag.cli import main\nsys.exit(main())")
    done = subprocess.run([sys.executable, "-c", code, *argv], capture_output=True, text=True, timeout=120,
                          cwd=cli_env.parent, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == "frozen True"


def test_main_called_in_a_process_that_goes_on_leaves_its_collections_alone(run_cli, cli_env, monkeypatch):
    import gc

    frozen: list[bool] = []
    monkeypatch.setattr(gc, "freeze", lambda: frozen.append(True))
    assert run_cli("status").returncode == 0
    assert frozen == []
