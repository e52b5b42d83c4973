"""A read-only open decides from the -wal and -shm beside the index how to open it
(connection.read_only_uri); a writer ending between that decision and the open removes them."""

from __future__ import annotations

import os

from minirag.store import connection
from minirag.store.index import Index


def test_a_read_only_open_the_writers_end_overtook_reads_the_index_it_left(tmp_path, monkeypatch):
    path = tmp_path / "index.db"
    Index(path).close()
    writer = connection.connect(path)
    writer.execute("CREATE TABLE IF NOT EXISTS probe (x)")
    writer.execute("INSERT INTO probe VALUES (42)")
    assert all(os.path.exists(f"{path}{side}") for side in ("-wal", "-shm"))
    decided = connection.read_only_uri

    def decided_then_writer_ends(*args, **kwargs):
        uri = decided(*args, **kwargs)
        if writer_open:
            writer.close()  # the last connection's close folds the -wal in and removes both side files
            writer_open.clear()
        return uri

    writer_open = [True]
    monkeypatch.setattr(connection, "read_only_uri", decided_then_writer_ends)
    reader = connection.connect(path, read_only=True)
    try:
        assert reader.execute("SELECT x FROM probe").fetchall() == [(42,)]
    finally:
        reader.close()
