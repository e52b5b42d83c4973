"""scripts/load_http.py's clients on a loaded machine (tests/test_team_server.py runs it whole)."""

from __future__ import annotations

import asyncio
import secrets
import shutil
import subprocess
import sys

import pytest
from conftest import FIXTURES, ROOT, _load_script

pytestmark = pytest.mark.slow


def test_every_client_asks_at_least_once_however_long_its_connection_took(tmp_path, model_path):
    """The clients' window began before they connected: on a loaded machine (CI, four test workers on
    two cores) connecting took longer than the whole window, every client found it over and asked
    nothing, and test_team_server saw 0 calls. A window of no length shows it on any machine: the
    window begins once every client is connected, and each asks at least once."""
    load = _load_script("load_http")
    root = tmp_path / "docs"
    root.mkdir()
    shutil.copy(FIXTURES / "docs" / "md_debug_readme.md", root)
    env = load.base_env(model_path, root, tmp_path / "index.db")
    subprocess.run([sys.executable, "-m", "minirag", "sync"], env=env, check=True, cwd=ROOT, stdout=subprocess.DEVNULL)
    token, port = secrets.token_urlsafe(24), load.free_port()
    server = subprocess.Popen([sys.executable, "-m", "minirag", "serve", "--http", f"127.0.0.1:{port}"],
                              env=env | {"MINIRAG_HTTP_TOKEN": token}, cwd=ROOT, stdin=subprocess.DEVNULL,
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    samples: list = []
    errors: list = []
    try:
        load.wait_for_port(port, server)
        asyncio.run(load.run_clients(f"http://127.0.0.1:{port}/mcp", token, ["python debugger breakpoints"], 3, 0.0,
                                     samples, errors))
    finally:
        server.terminate()
        try:
            server.wait(60)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
    assert errors == []
    assert len(samples) == 3
