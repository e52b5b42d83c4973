"""Damage SQLite's own checks cannot see: rows changed by hand in a plain sqlite3 shell (foreign
keys off, no sqlite-vec), a -wal replayed from another copy, vector bytes flipped inside a page.
Each leaves a well-formed file whose tables disagree; `doctor` must name it, never pass it."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import numpy as np
import pytest

from minirag.doctor import run_checks
from minirag.store import connection as db


@pytest.fixture
def closed_index(indexed) -> Path:
    path = indexed.config.db_path
    indexed.close()
    return path


def by_hand(path: Path, sql: str) -> None:
    """What a user does in the sqlite3 shell: foreign keys off, no extension loaded."""
    conn = sqlite3.connect(path)
    conn.execute(sql)
    conn.commit()
    conn.close()


def index_check(make_config):
    report = run_checks(make_config())
    return next(c for c in report.checks if c.name == "index")


def test_a_healthy_index_passes_the_table_checks(closed_index, make_config):
    check = index_check(make_config)
    assert check.ok, check.detail


@pytest.mark.parametrize(("sql", "named"), [
    ("DELETE FROM chunks WHERE id = (SELECT MAX(id) FROM chunks)", "keyword rows with no chunk: 1; vectors with no chunk: 1"),
    ("DELETE FROM chunks_fts WHERE rowid = (SELECT MIN(id) FROM chunks)", "chunks with no keyword row: 1"),
    ("DELETE FROM sources WHERE id = (SELECT MIN(id) FROM sources)", "source or section is gone"),
    ("UPDATE meta SET value = '256' WHERE key = 'dimension'", "meta table says 256-d vectors, the stored ones are"),
    ("DELETE FROM meta WHERE key = 'model_id'", "records no model or dimension"),
])
def test_doctor_names_rows_changed_by_hand_in_the_sqlite3_shell(closed_index, make_config, sql, named):
    by_hand(closed_index, sql)
    check = index_check(make_config)
    assert not check.ok
    assert "tables disagree" in check.detail and named in check.detail, check.detail
    assert "backup" in check.fix and "minirag sync" in check.fix


def test_doctor_names_int8_codes_out_of_step_with_the_chunks(indexed, make_config):
    from minirag.store.index import Index

    path = indexed.config.db_path
    indexed.close()
    with Index(path) as index:  # a large index builds them at 20,000 chunks; here by hand
        index.build_codes()
    assert index_check(make_config).ok
    by_hand(path, "DELETE FROM vector_codes")
    check = index_check(make_config)
    assert not check.ok and "chunks with no int8 code: 2" in check.detail, check.detail


def test_doctor_names_a_wal_from_another_copy_that_deleted_rows_without_their_keywords(closed_index, make_config,
                                                                                       tmp_path):
    other = tmp_path / "other.db"
    shutil.copyfile(closed_index, other)
    conn = sqlite3.connect(other, isolation_level=None)
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA wal_autocheckpoint = 0")
    conn.execute("DELETE FROM chunks WHERE id IN (SELECT MIN(id) FROM chunks)")
    shutil.copyfile(f"{other}-wal", f"{closed_index}-wal")  # copied before the close folds it in
    conn.close()
    check = index_check(make_config)
    assert not check.ok and "keyword rows with no chunk: 1" in check.detail, check.detail


def test_doctor_names_a_vector_whose_bytes_were_flipped_in_its_page(closed_index, make_config):
    conn = db.connect(closed_index, read_only=True)
    (blob,) = conn.execute("SELECT embedding FROM chunks_vec LIMIT 1").fetchone()
    db.close(conn, checkpoint=False)
    raw = bytearray(closed_index.read_bytes())
    at = raw.find(blob)
    assert at > 0 and raw.count(blob) == 1
    raw[at + 16:at + 48] = bytes(b ^ 0x5A for b in raw[at + 16:at + 48])
    closed_index.write_bytes(raw)
    conn = db.connect(closed_index, read_only=True)
    assert conn.execute("PRAGMA quick_check").fetchone()[0] == "ok"  # SQLite sees nothing wrong
    flipped = np.frombuffer(conn.execute("SELECT embedding FROM chunks_vec LIMIT 1").fetchone()[0], np.float32)
    db.close(conn, checkpoint=False)
    assert flipped.tobytes() != blob
    check = index_check(make_config)
    assert not check.ok and "vectors whose bytes were changed (not unit length): 1" in check.detail, check.detail


def test_a_sync_into_tables_that_disagree_says_damaged_in_one_line_and_writes_nothing(
        closed_index, make_app, docs, run_cli, model_path):
    from conftest import ROOT, write

    from minirag.errors import DamagedIndex

    # The chunk with the highest id goes; its keyword row and vector stay, holding the id SQLite
    # gives the next chunk inserted.
    by_hand(closed_index, "DELETE FROM chunks WHERE id = (SELECT MAX(id) FROM chunks)")
    write(docs / "walrus.md", "# Walruses\n\nA walrus hauls itself onto the ice with its tusks.\n")
    with pytest.raises(DamagedIndex) as caught:
        make_app().sync()
    message = str(caught.value)
    assert "is damaged" in message and "tables disagree" in message and "minirag doctor" in message, message
    assert "backup" in message and "minirag sync" in message and "\n" not in message
    conn = db.connect(closed_index, read_only=True)
    assert conn.execute("SELECT COUNT(*) FROM sources WHERE source LIKE '%walrus.md'").fetchone()[0] == 0
    db.close(conn, checkpoint=False)
    done = run_cli("sync", "--base-dir", str(docs), "--db-path", str(closed_index), "--model-path", model_path,
                   cwd=ROOT)
    assert done.returncode == 1 and "is damaged" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr


def flip_in_a_leaf_of(path: Path, table: str) -> None:
    """XOR 32 bytes near the end of the fullest leaf page of `table`: cell content, not free space."""
    conn = db.connect(path, read_only=True)
    page_size = conn.execute("PRAGMA page_size").fetchone()[0]
    (page,) = conn.execute("SELECT pageno FROM dbstat WHERE name = ? AND pagetype = 'leaf' ORDER BY unused LIMIT 1",
                           (table,)).fetchone()
    db.close(conn, checkpoint=False)
    with open(path, "r+b") as handle:
        handle.seek(page * page_size - 48)
        chunk = handle.read(32)
        handle.seek(page * page_size - 48)
        handle.write(bytes(b ^ 0x5A for b in chunk))


def test_a_backup_of_an_index_with_a_damaged_keyword_page_names_the_index_and_the_fix(closed_index, tmp_path):
    from minirag.errors import DamagedIndex
    from minirag.store.backup import backup

    flip_in_a_leaf_of(closed_index, "chunks_fts_data")
    dest = tmp_path / "backups"
    dest.mkdir()
    with pytest.raises(DamagedIndex) as caught:
        backup(closed_index, dest)
    message = str(caught.value)
    assert f"the index {closed_index} is damaged (integrity_check of its copy: " in message, message
    assert "***" not in message and "nothing was backed up" in message and "minirag sync" in message
    assert list(dest.iterdir()) == []


def test_doctor_finds_nothing_amiss_in_an_index_a_sync_writes_meanwhile(indexed):
    """The checks read several statements: one read snapshot for all of them, or a commit between
    two (codes read before a write, chunks after) looks like damage."""
    import threading

    from minirag.store.health import out_of_step

    indexed.index.build_codes()
    stop = threading.Event()
    errors: list[BaseException] = []

    def writer() -> None:
        i = 0
        try:
            while not stop.is_set():
                indexed.ingest_data(f"# Note {i}\n\nThe lantern by the copper river, entry {i}.", f"note-{i % 5}")
                i += 1
        except BaseException as exc:  # noqa: BLE001 - surfaced by the assertion below
            errors.append(exc)

    thread = threading.Thread(target=writer, daemon=True)
    thread.start()
    try:
        found = [out_of_step(indexed.config.db_path) for _ in range(40)]
    finally:
        stop.set()
        thread.join(timeout=60)
    assert not errors, errors
    assert all(f == () for f in found), [f for f in found if f]


def test_doctor_leaves_an_index_with_a_stray_wal_as_it_was_and_says_to_move_the_wal_aside(closed_index, make_app,
                                                                                          tmp_path):
    """A -wal of another database beside a sound index (a backup copied into place, the old -wal
    left): doctor, which never writes, opened the index writable to read its model, and SQLite's
    close folded the stray -wal into the file, destroying it; the fix said to restore a backup."""
    other = tmp_path / "other.db"
    conn = sqlite3.connect(other, isolation_level=None)
    conn.execute("CREATE TABLE t (x)")
    conn.executemany("INSERT INTO t VALUES (?)", [("x" * 500,) for _ in range(3000)])
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA wal_autocheckpoint = 0")
    conn.execute("UPDATE t SET x = 'y' WHERE rowid % 2 = 0")  # its pages 2.. in its -wal, not page 1
    shutil.copyfile(f"{other}-wal", f"{closed_index}-wal")
    conn.close()
    before = closed_index.read_bytes()
    report = make_app().doctor()
    check = next(c for c in report.checks if c.name == "index")
    assert closed_index.read_bytes() == before
    assert not check.ok and "move index.db-wal" in check.fix and "file alone is sound" in check.fix, check.fix
