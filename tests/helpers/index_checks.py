"""The invariants a crash must not break, checked on an open connection to an index."""

from __future__ import annotations


def assert_tables_in_step(conn) -> set[int]:
    """SQLite's own checks pass, and the keyword and vector tables hold exactly the chunks, with
    every section belonging to a source; the chunk ids."""
    q = conn.execute
    assert q("PRAGMA integrity_check").fetchall() == [("ok",)]
    assert q("PRAGMA foreign_key_check").fetchall() == []
    chunk_ids = {r[0] for r in q("SELECT id FROM chunks")}
    assert {r[0] for r in q("SELECT rowid FROM chunks_fts")} == chunk_ids
    assert q("SELECT count(*) FROM chunks_fts").fetchone()[0] == len(chunk_ids)
    assert {r[0] for r in q("SELECT chunk_id FROM chunks_vec")} == chunk_ids
    assert q("SELECT count(*) FROM chunks c JOIN parents p ON p.id = c.parent_id "
             "WHERE p.source_id != c.source_id").fetchone()[0] == 0
    assert q("SELECT count(*) FROM parents WHERE source_id NOT IN (SELECT id FROM sources)").fetchone()[0] == 0
    return chunk_ids
