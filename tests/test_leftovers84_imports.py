"""Leftovers 84: `minirag status` imports no keyword stemming (minirag.keywords, its Snowball stemmers and
word tables: status shows only which keyword scheme the index holds), and a sync that finds nothing
changed imports no model runtime (ONNX Runtime, tokenizers): nothing is embedded. Checked in real
processes by the module names `python -X importtime` writes, never by time."""

from __future__ import annotations

import pytest
from test_startup82_imports import MODEL, _modules, synced  # noqa: F401 - synced: a fixture

pytestmark = pytest.mark.slow  # each case starts a process of its own

KEYWORDS = {"minirag.keywords", "snowballstemmer", "minirag.stopwords", "minirag.word_table"}


def test_leftovers84_status_imports_no_keyword_stemming(synced):  # noqa: F811 - the imported fixture
    out, modules = _modules(synced.parent, "status")
    assert "minirag.store.index" in modules and out.strip()
    assert modules & (KEYWORDS | MODEL) == set()


def test_leftovers84_a_sync_that_finds_nothing_changed_imports_no_model_runtime(synced):  # noqa: F811
    out, modules = _modules(synced.parent, "sync")
    assert "minirag.ingest.sync" in modules or "minirag.ingest.pipeline" in modules, sorted(modules)
    assert modules & MODEL == set()
