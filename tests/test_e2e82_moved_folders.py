"""A folder moved or renamed, then synced path by path (`minirag sync old`, then `minirag sync new`)
or by a watcher whose passes see the two sides apart: the vectors of the files the first pass drops
are kept (store/pending.py) for the pass that finds them under their new names, until a full sync."""

from __future__ import annotations

import shutil
import sqlite3

from conftest import write


def _notes(folder, count: int = 3) -> None:
    for i in range(count):
        write(folder / f"note{i}.md", f"# Harbour log {i}\n\nOn day {i} the pilot boat met {i * 7} ships "
                                      f"at buoy {i * 13 % 29} while the tide stood {i % 5} feet over the bar.")


def _pending_rows(path) -> int:
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return conn.execute("SELECT COUNT(*) FROM pending_vectors").fetchone()[0]
    finally:
        conn.close()


def test_e2e82_a_folder_moved_and_synced_old_path_first_embeds_nothing_again(app, docs):
    _notes(docs / "harbour")
    first = app.sync()
    assert first.chunks_embedded > 0
    shutil.move(docs / "harbour", docs / "archive")
    dropped = app.sync(str(docs / "harbour"))
    assert dropped.deleted == 3
    moved = app.sync(str(docs / "archive"))
    assert (moved.done, moved.chunks_embedded, moved.chunks_reused) == (3, 0, first.chunks_written)
    hits = app.query("pilot boat buoy tide", top_k=3)
    assert {hit.source for hit in hits.hits} <= {str(docs / "archive" / f"note{i}.md") for i in range(3)}


def test_e2e82_vectors_a_path_sync_dropped_are_gone_after_a_full_sync(app, docs):
    _notes(docs / "harbour")
    app.sync()
    shutil.rmtree(docs / "harbour")
    app.sync(str(docs / "harbour"))
    assert _pending_rows(app.config.db_path) > 0
    app.sync()
    assert _pending_rows(app.config.db_path) == 0


def test_e2e82_a_path_sync_keeps_at_most_the_pending_limit(app, docs, monkeypatch):
    from minirag.store import pending

    _notes(docs / "harbour", count=5)
    app.sync()
    monkeypatch.setattr(pending, "LIMIT", 2)
    shutil.rmtree(docs / "harbour")
    app.sync(str(docs / "harbour"))
    assert _pending_rows(app.config.db_path) == 2
