"""Leftovers 84: `minirag status` imports no keyword stemming (minirag.keywords, its Snowball stemmers and
word tables: status shows only which keyword scheme the index holds), and a sync that finds nothing
changed imports no model runtime (ONNX Runtime, tokenizers): nothing is embedded. Checked in real
processes by the module names `python -X importtime` writes, never by time."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

pytestmark = pytest.mark.slow  # each case starts a process of its own

TIMEOUT_S = 120
MODEL = {"onnxruntime", "tokenizers", "minirag.encoder", "minirag.onnx_proto", "minirag.int8_graph"}
KEYWORDS = {"minirag.keywords", "snowballstemmer", "minirag.stopwords", "minirag.word_table"}


def _modules(cwd, *argv: str) -> tuple[str, set[str]]:
    done = subprocess.run([sys.executable, "-X", "importtime", "-m", "minirag", *argv], capture_output=True,
                          text=True, timeout=TIMEOUT_S, cwd=cwd, env=dict(os.environ), check=False)
    assert done.returncode == 0, done.stderr
    names = {line.rpartition("|")[2].strip() for line in done.stderr.splitlines() if line.startswith("import time:")}
    return done.stdout, names | {name.partition(".")[0] for name in names}


@pytest.fixture
def synced(cli_env, run_cli):
    assert run_cli("sync").returncode == 0
    return cli_env


def test_leftovers84_status_imports_no_keyword_stemming(synced):
    out, modules = _modules(synced.parent, "status")
    assert "minirag.store.index" in modules and out.strip()
    assert modules & (KEYWORDS | MODEL) == set()


def test_leftovers84_a_sync_that_finds_nothing_changed_imports_no_model_runtime(synced):
    out, modules = _modules(synced.parent, "sync")
    assert "minirag.ingest.sync" in modules or "minirag.ingest.pipeline" in modules, sorted(modules)
    assert modules & MODEL == set()
