"""What each CLI command's process imports: only what the command uses. numpy (and with it the store's
vector and code modules) only where vectors are embedded or compared; ONNX Runtime and tokenizers only
where a text is embedded; the converters' parsers never in the command's own process; the MCP SDK and
its server stack (anyio, starlette, pydantic) only in a server. A query weighted wholly to the keyword
side compares no vectors. Checked in real processes by the module names `python -X importtime` writes,
never by time."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

pytestmark = pytest.mark.slow  # each case starts a process of its own

TIMEOUT_S = 120
VECTORS = {"numpy", "minirag.store.codes", "minirag.store.pending", "minirag.search.vector",
           "minirag.search.code_product"}
MODEL = {"onnxruntime", "tokenizers", "minirag.encoder", "minirag.onnx_proto", "minirag.int8_graph"}
PARSERS = {"pdfminer", "markitdown", "openpyxl", "minirag.ingest.convert"}
SERVER = {"mcp", "anyio", "starlette", "pydantic", "uvicorn", "minirag.server"}
SQLITE = {"sqlean", "sqlite_vec", "minirag.store.connection"}


def _modules(cwd, *argv: str, env: dict[str, str] | None = None) -> tuple[str, set[str]]:
    """What `minirag ARGV` printed, and every module (and every package above it) its process imported."""
    done = subprocess.run([sys.executable, "-X", "importtime", "-m", "minirag", *argv], capture_output=True,
                          text=True, timeout=TIMEOUT_S, cwd=cwd, env={**os.environ, **(env or {})}, check=False)
    assert done.returncode == 0, done.stderr
    names = {line.rpartition("|")[2].strip() for line in done.stderr.splitlines() if line.startswith("import time:")}
    return done.stdout, names | {name.partition(".")[0] for name in names}


@pytest.fixture
def synced(cli_env, run_cli):
    assert run_cli("sync").returncode == 0
    return cli_env


def test_startup82_help_imports_neither_vectors_model_parsers_server_nor_the_sqlite_driver(tmp_path):
    out, modules = _modules(tmp_path, "--help")
    assert "ingest" in out
    assert modules & (VECTORS | MODEL | PARSERS | SERVER | SQLITE) == set()


@pytest.mark.parametrize("argv", [["status"], ["list"], ["read", "a.md"], ["collections"]])
def test_startup82_a_command_that_compares_no_vectors_imports_no_numpy(synced, docs, argv):
    argv = [str(docs / arg) if arg == "a.md" else arg for arg in argv]
    out, modules = _modules(synced.parent, *argv)
    assert out.strip()
    assert "minirag.store.index" in modules
    assert modules & (VECTORS | MODEL | PARSERS | SERVER) == set()


def test_startup82_a_keyword_only_query_imports_no_numpy(synced):
    out, modules = _modules(synced.parent, "query", "otters", env={"RAG_HYBRID_WEIGHT": "1"})
    assert "otters" in out.lower()
    assert "minirag.search.keyword" in modules
    assert modules & (VECTORS | MODEL | PARSERS | SERVER) == set()


def test_startup82_a_hybrid_query_imports_the_vector_side_and_the_model_but_no_parser_or_server(synced):
    out, modules = _modules(synced.parent, "query", "otters")
    assert "otters" in out.lower()
    assert {"numpy", "onnxruntime", "minirag.search.vector", "minirag.encoder"} <= modules
    assert modules & (PARSERS | SERVER) == set()


def _served(cwd, *calls: dict) -> tuple[list[dict], set[str]]:
    """A stdio session of a fresh `python -X importtime -m minirag`: initialize, tools/list, then `calls`
    (tools/call params); the replies, and every module (and package above it) the process imported."""
    proc = subprocess.Popen([sys.executable, "-X", "importtime", "-m", "minirag"], cwd=cwd, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    replies = []

    def ask(ident: int, method: str, params: dict) -> None:
        proc.stdin.write(json.dumps({"jsonrpc": "2.0", "id": ident, "method": method, "params": params}) + "\n")
        proc.stdin.flush()
        while (message := json.loads(proc.stdout.readline())).get("id") != ident:
            pass
        replies.append(message)

    ask(1, "initialize", {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}})
    proc.stdin.write('{"jsonrpc": "2.0", "method": "notifications/initialized"}\n')
    ask(2, "tools/list", {})
    for ident, call in enumerate(calls, 3):
        ask(ident, "tools/call", call)
    _out, err = proc.communicate(timeout=TIMEOUT_S)
    names = {line.rpartition("|")[2].strip() for line in err.splitlines() if line.startswith("import time:")}
    return replies, names | {name.partition(".")[0] for name in names}


def test_startup82_a_server_session_that_never_searches_imports_no_numpy(synced):
    replies, modules = _served(synced.parent, {"name": "status", "arguments": {}})
    assert not replies[2]["result"].get("isError")
    assert modules & (VECTORS | MODEL | PARSERS) == set()
    replies, modules = _served(synced.parent, {"name": "query_documents", "arguments": {"query": "otters"}})
    assert "otters" in replies[2]["result"]["content"][0]["text"].lower()
    assert {"numpy", "minirag.search.vector"} <= modules
