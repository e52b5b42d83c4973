"""A file's state has one answer (minirag.ingest.file_state): what `list` shows is what a sync does."""

from __future__ import annotations

import sqlite3

import pytest
from conftest import write

from minirag.chunking import SCHEME_VERSION
from minirag.ingest.file_state import CONVERTING, FileState, by_hash, file_state
from minirag.store.index import ExcludedState, StoredState

OLD = SCHEME_VERSION - 1


def stored(content_hash="h", scheme=SCHEME_VERSION, budget=64) -> StoredState:
    return StoredState(content_hash, 10, 1, scheme, budget)


def excluded(content_hash="h", scheme=SCHEME_VERSION, *, failure=False, reason="frontmatter rag: false"):
    return ExcludedState(content_hash, 10, 1, scheme, reason, failure)


@pytest.mark.parametrize(("indexed", "left_out", "state"), [
    (None, None, FileState.NEW),
    (stored(), None, FileState.UNCHANGED),
    (stored("other"), None, FileState.CHANGED),
    (stored(scheme=OLD), None, FileState.RECUT),
    (stored(budget=128), None, FileState.RECUT),  # cut at another token budget
    (stored(budget=None), None, FileState.RECUT),  # cut before budgets were recorded
    (None, excluded(), FileState.EXCLUDED),
    (None, excluded("other"), FileState.CHANGED),
    (None, excluded(scheme=OLD), FileState.RECUT),  # left out by an older scheme: converted again
    (None, excluded(failure=True), FileState.FAILING),
    (stored("other"), excluded(failure=True), FileState.FAILING),  # what was indexed before stays
    (None, excluded("other", failure=True), FileState.NEW),  # changed since it failed: tried again
    (None, excluded(scheme=OLD, failure=True), FileState.NEW),
    (None, excluded(failure=True, reason=f"/d/a.md: {CONVERTING}"), FileState.INTERRUPTED),
])
def test_the_state_of_a_file_from_what_the_index_records(indexed, left_out, state):
    assert file_state("/d/a.md", indexed, left_out, holds=by_hash("h"), budget=64) is state


def states(app) -> list[str]:
    return [entry.state for entry in app.list_files().files]


def test_a_file_left_out_under_an_older_scheme_is_listed_as_the_sync_treats_it(make_app, docs, tmp_path):
    write(docs / "draft.md", "---\nrag: false\n---\n# Draft\n\nNot for the index.\n")
    app = make_app()
    app.sync()
    assert states(app) == ["excluded"]
    with sqlite3.connect(tmp_path / "index.db") as conn:
        conn.execute("UPDATE exclusions SET scheme = ?", (OLD,))
    conn.close()
    assert states(app) == ["stale_scheme"]  # what the next sync converts again
    assert app.sync().excluded == 1
    with sqlite3.connect(tmp_path / "index.db") as conn:
        assert conn.execute("SELECT scheme FROM exclusions").fetchall() == [(SCHEME_VERSION,)]
    conn.close()
    assert states(app) == ["excluded"]
