"""A `minirag sync` that finds nothing changed (a scheduled sync, a watcher's reconcile, a user's habit)
embeds nothing: its process imports neither numpy with the store's vector modules, nor the model's
runtime, nor the converters. Checked in a real process by the module names `python -X importtime`
writes (test_startup82_imports.py), never by time."""

from __future__ import annotations

import pytest
from test_startup82_imports import MODEL, PARSERS, SERVER, VECTORS, _modules, synced  # noqa: F401 - a fixture

pytestmark = pytest.mark.slow  # a process of its own


def test_suite86_a_sync_with_nothing_changed_imports_no_numpy(synced):  # noqa: F811
    out, modules = _modules(synced.parent, "sync")
    assert "1 unchanged" in out and "0 ingested" in out, out
    assert "minirag.store.index" in modules
    # store.pending is asked whether vectors of an earlier stopped sync are kept, which needs no numpy.
    assert modules & ((VECTORS - {"minirag.store.pending"}) | MODEL | PARSERS | SERVER) == set()
