"""A conversion's mark (Index.mark_converting, on a connection of its own) that waits for the same
sync's main write (the vector codes fitted once a large index reaches CODES_FROM_CHUNKS chunks hold
the write lock for as long as that takes) is no other writer's doing: nothing tells the user a
sqlite3 shell may hold the index."""

from __future__ import annotations

import logging
import threading

from minirag.store import connection as db
from minirag.store.index import ExcludedState, Index


def test_a_mark_waiting_for_its_own_syncs_write_warns_of_no_other_writer(tmp_path, monkeypatch, caplog):
    monkeypatch.setattr(db, "BUSY_TIMEOUT_MS", 50)
    index = Index(tmp_path / "index.db")
    try:
        state = ExcludedState("0" * 40, 10, 1, 21, "converting", failure=True)
        index.conn.execute("BEGIN IMMEDIATE")  # the sync's own long write, under way
        marked = threading.Thread(target=index.mark_converting, args=(str(tmp_path / "a.pdf"), state))
        with caplog.at_level(logging.WARNING):
            marked.start()
            marked.join(1.0)
            assert marked.is_alive()  # it waits for the write...
            index.conn.execute("COMMIT")
            marked.join(30)
        assert not marked.is_alive()  # ...and is written once it ends
        assert not [r for r in caplog.records if "another writer" in r.getMessage()]
        assert index.excluded_states()[str(tmp_path / "a.pdf")].reason == "converting"
    finally:
        index.close()
