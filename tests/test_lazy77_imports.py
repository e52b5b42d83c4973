"""What a CLI command that never searches imports: not the search steps (search/plan.py and what it pulls:
vector.py, keyword.py, query_form.py, code_product.py) nor the Snowball stemmers (made on a first stem), which
every such process paid for at its start.
Checked in real processes by the module names `python -X importtime` writes (a query's
process ends by os._exit, before any exit handler), never by time; a query still loads them."""

from __future__ import annotations

import subprocess
import sys

import pytest

pytestmark = pytest.mark.slow  # each case starts a process of its own

TIMEOUT_S = 120
SEARCH_ONLY = {"minirag.search.plan", "minirag.search.vector", "minirag.search.keyword",
               "minirag.search.query_form", "minirag.search.filters", "minirag.search.code_product",
               "minirag.onnx_proto", "snowballstemmer"}


def _modules(cwd, *argv: str) -> tuple[str, set[str]]:
    """What `minirag ARGV` printed, and every module its process imported (or tried to)."""
    done = subprocess.run([sys.executable, "-X", "importtime", "-m", "minirag", *argv], capture_output=True,
                          text=True, timeout=TIMEOUT_S, cwd=cwd, check=False)
    assert done.returncode == 0, done.stderr
    return done.stdout, {line.rpartition("|")[2].strip() for line in done.stderr.splitlines()
                         if line.startswith("import time:")}


@pytest.fixture
def synced(cli_env, run_cli):
    assert run_cli("sync").returncode == 0
    return cli_env


@pytest.mark.parametrize("argv", [["status"], ["list"], ["read", "a.md"], ["collections"], ["--help"]])
def test_a_command_that_never_searches_loads_no_search_step(synced, docs, argv):
    argv = [str(docs / arg) if arg == "a.md" else arg for arg in argv]
    out, modules = _modules(synced.parent, *argv)
    assert out.strip()
    assert "minirag.app" in modules or argv == ["--help"]
    assert not modules & SEARCH_ONLY


def test_a_query_still_loads_them(synced):
    out, modules = _modules(synced.parent, "query", "otters")
    assert "otters" in out.lower()
    assert {"minirag.search.plan", "minirag.search.keyword", "snowballstemmer"} <= modules
