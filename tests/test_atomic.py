"""A reader during re-ingest sees a source wholly old or wholly new, never a mix."""

import threading

import pytest
from conftest import write

from minirag.ingest.sync import run_sync


@pytest.mark.slow
def test_readers_never_see_a_half_replaced_source(app, docs):
    path = write(docs / "doc.md", "\n\n".join(f"## Part {i}\n\nOLD version paragraph {i}." for i in range(40)))
    run_sync(app.pipeline, list(app.config.roots))
    old_count = app.index.source_row(str(path)).chunk_count
    write(path, "\n\n".join(f"## Part {i}\n\nNEW version text number {i}, longer." for i in range(25)))

    seen, reading, stop = [], threading.Event(), threading.Event()

    def reader():
        from minirag.store.index import Index

        with Index(app.config.db_path) as index:
            # One read before the re-ingest starts and one after it ends, however the threads run.
            while True:
                finished = stop.is_set()
                rows = index.conn.execute(
                    "SELECT c.text FROM chunks c JOIN sources s ON s.id = c.source_id WHERE s.source = ?",
                    (str(path),),
                ).fetchall()
                seen.append(({"OLD" in r[0] for r in rows}, {"NEW" in r[0] for r in rows}, len(rows)))
                reading.set()
                if finished:
                    break

    thread = threading.Thread(target=reader)
    thread.start()
    try:
        assert reading.wait(30)
        app.ingest_file(str(path))
    finally:
        stop.set()
        thread.join()
    new_count = app.index.source_row(str(path)).chunk_count
    assert seen[0] == ({True}, {False}, old_count)
    assert seen[-1] == ({False}, {True}, new_count)
    for has_old, has_new, count in seen:
        assert not (True in has_old and True in has_new)
        assert count in (old_count, new_count)
