"""`minirag backup`: a copy that passes integrity_check and answers queries exactly like the
original, from the library, from the CLI, and while another thread keeps writing."""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from minirag.errors import IndexUnavailable, InvalidArgument
from minirag.results import payload
from minirag.store import connection as db
from minirag.store.backup import backup

FIXTURE_DOCS = Path(__file__).parent / "fixtures" / "docs"
# Small real documents: embedding dominates set-up time (~60 ms a chunk on 2 busy cores).
REAL_DOCS = ["txt_python_tutorial_appetite_en.txt", "html_libreoffice_footnotes_en.html"]
QUERIES = ["why use Python to automate tasks", "how are footnotes numbered", "interpreter"]


@pytest.fixture
def indexed(make_app, docs):
    for name in REAL_DOCS:
        shutil.copy(FIXTURE_DOCS / name, docs / name)
    app = make_app()
    progress = app.ingest_paths([str(docs)])
    assert progress.done == len(REAL_DOCS) and not progress.failed, progress.warnings
    return app


def integrity(path: Path) -> str:
    conn = db.connect(path, read_only=True)
    try:
        return conn.execute("PRAGMA integrity_check").fetchone()[0]
    finally:
        conn.close()


def consistency(path: Path) -> dict:
    """Row counts that must agree in any committed state of the index."""
    conn = db.connect(path, read_only=True)
    try:
        q = lambda sql: conn.execute(sql).fetchone()[0]  # noqa: E731
        return {
            "integrity": q("PRAGMA integrity_check"),
            "foreign_key_violations": len(conn.execute("PRAGMA foreign_key_check").fetchall()),
            "chunks": q("SELECT COUNT(*) FROM chunks"),
            "fts_rows": q("SELECT COUNT(*) FROM chunks_fts"),
            "vectors": q("SELECT COUNT(*) FROM chunks_vec"),
            "orphan_chunks": q("SELECT COUNT(*) FROM chunks WHERE source_id NOT IN (SELECT id FROM sources)"),
        }
    finally:
        conn.close()


def assert_same_answers(make_app, original, copy_path: Path) -> None:
    copy = make_app(db_path=str(copy_path), read_only=True)
    for text in QUERIES:
        expected = payload(original.query(text, top_k=5))
        assert expected["results"], f"no results for {text!r} in the original"
        assert payload(copy.query(text, top_k=5)) == expected


def test_a_backup_passes_integrity_check_and_answers_like_the_original(indexed, make_app, tmp_path):
    dest = tmp_path / "backups" / "copy.db"
    dest.parent.mkdir()
    result = backup(indexed.config.db_path, dest)  # the app still holds its writer connection open
    assert result.integrity == "ok" and result.backup == str(dest)
    assert result.bytes == dest.stat().st_size > 0
    assert integrity(dest) == "ok"
    assert not list(dest.parent.glob("*.partial*"))
    assert not Path(f"{dest}-wal").exists(), "the copy must be one self-contained file"
    assert_same_answers(make_app, indexed, dest)


def test_the_cli_backup_command_writes_a_consistent_copy_into_a_folder(run_cli, indexed, make_app, tmp_path,
                                                                       model_dir):
    dest_dir = tmp_path / "backups"
    dest_dir.mkdir()
    config = indexed.config
    indexed.close()  # the CLI opens the file on its own; it must be complete without this App too
    done = run_cli("backup", str(dest_dir), "--json", "--base-dir", str(config.roots[0]), "--db-path",
                   str(config.db_path), "--model-path", str(model_dir), cwd=tmp_path,
                   env=dict.fromkeys(("DB_PATH", "BASE_DIR", "BASE_DIRS", "MODEL_PATH")))
    assert done.returncode == 0, done.stderr
    payload = json.loads(done.stdout)
    copy = dest_dir / config.db_path.name
    assert payload["backup"] == str(copy) and payload["integrity"] == "ok"
    assert integrity(copy) == "ok"
    assert_same_answers(make_app, indexed, copy)


def test_a_backup_taken_while_another_thread_keeps_writing_is_consistent(indexed, make_app, tmp_path):
    stop = threading.Event()
    written: list[int] = []
    errors: list[BaseException] = []

    def writer() -> None:
        i = 0
        try:
            while not stop.is_set():
                indexed.ingest_data(f"Note {i}: the lantern by the copper river, entry number {i}. " * 20,
                                    source=f"note-{i}")
                written.append(i)
                i += 1
        except BaseException as exc:  # noqa: BLE001 - surfaced by the assertion below
            errors.append(exc)

    thread = threading.Thread(target=writer, daemon=True)
    thread.start()
    copies = []
    try:
        for n in range(3):
            before = len(written)
            while len(written) == before and thread.is_alive():  # a write lands between backups
                stop.wait(0.01)
            copies.append(Path(backup(indexed.config.db_path, tmp_path / f"copy-{n}.db").backup))
    finally:
        stop.set()
        thread.join(timeout=60)
    assert not errors, errors
    assert len(written) >= 3
    sizes = []
    for copy in copies:
        state = consistency(copy)
        assert state["integrity"] == "ok"
        assert state["foreign_key_violations"] == 0 and state["orphan_chunks"] == 0
        assert state["chunks"] == state["fts_rows"] == state["vectors"], state
        sizes.append(state["chunks"])
        copy_app = make_app(db_path=str(copy), read_only=True)
        assert payload(copy_app.query("lantern copper river", top_k=3))["results"]
    assert sizes == sorted(sizes), "later backups see at least as much as earlier ones"


def test_backing_up_onto_the_index_itself_or_from_nothing_is_refused(indexed, tmp_path):
    with pytest.raises(InvalidArgument, match="the index itself"):
        backup(indexed.config.db_path, indexed.config.db_path)
    with pytest.raises(IndexUnavailable, match="no index at"):
        backup(tmp_path / "missing.db", tmp_path / "out.db")


def test_a_backup_never_replaces_what_is_not_an_earlier_backup(indexed, tmp_path):
    """DEST is a name a user types: a slip must not destroy a document, a device or the index's WAL."""
    index = indexed.config.db_path
    note = tmp_path / "notes.md"
    note.write_text("# Precious\n\nNot a backup.")
    elsewhere = tmp_path / "elsewhere.db"
    shutil.copyfile(index, elsewhere)
    (tmp_path / "link.db").symlink_to(elsewhere)
    fifo = tmp_path / "pipe.db"
    os.mkfifo(fifo)
    refused = {
        str(note): "not an SQLite database",
        str(tmp_path / "link.db"): "symbolic link",
        str(fifo): "not a regular file",
        str(index) + "-wal": "index's own files",
        str(index) + ".sync.lock": "index's own files",
        "  ": "empty",
    }
    for dest, reason in refused.items():
        with pytest.raises(InvalidArgument, match=reason):
            backup(index, dest)
    assert note.read_text() == "# Precious\n\nNot a backup."
    assert (tmp_path / "link.db").is_symlink() and stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert backup(index, elsewhere).integrity == "ok"  # an earlier backup is replaced
    (tmp_path / "empty.db").touch()
    assert backup(index, tmp_path / "empty.db").integrity == "ok"


def test_a_backup_never_replaces_a_database_in_use(indexed, tmp_path):
    """Another project's live index is an SQLite file too; its -wal would be replayed into the copy."""
    other = tmp_path / "other.db"
    live = db.sqlite3.connect(str(other))
    try:
        live.execute("PRAGMA journal_mode = WAL")
        live.execute("CREATE TABLE t (x)")
        live.execute("INSERT INTO t VALUES (1)")
        live.commit()
        with pytest.raises(InvalidArgument, match="database in use"):
            backup(indexed.config.db_path, other)
        assert live.execute("SELECT x FROM t").fetchall() == [(1,)]
    finally:
        live.close()


def test_two_backups_to_one_destination_at_once_both_succeed_and_leave_one_whole_copy(indexed, tmp_path):
    """cron and a hand may back up to the same DEST together: neither may delete, or rename into
    place, the other's half-written copy."""
    dest = tmp_path / "backups" / "index.db"
    dest.parent.mkdir()
    errors: list[str] = []
    for _ in range(10):
        start = threading.Barrier(2)

        def one(start: threading.Barrier = start) -> None:
            start.wait()
            try:
                backup(indexed.config.db_path, dest)
            except Exception as exc:  # noqa: BLE001 - collected for the assertion
                errors.append(f"{type(exc).__name__}: {exc}")

        threads = [threading.Thread(target=one) for _ in range(2)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert integrity(dest) == "ok"
    assert errors == []
    assert sorted(p.name for p in dest.parent.iterdir()) == ["index.db"]
    assert stat.S_IMODE(dest.stat().st_mode) == stat.S_IMODE(indexed.config.db_path.stat().st_mode)


WRITER = """
import sqlite3, sys
conn = sqlite3.connect(sys.argv[1], isolation_level=None)
conn.execute("PRAGMA busy_timeout = 10000")
# ~40 MB of rows first: a copy in 4 MB steps then spans many commits.
conn.execute("BEGIN")
conn.executemany("INSERT INTO exclusions (source, content_hash, size, mtime_ns, scheme, reason, checked_at) "
                 "VALUES (?, 'h', 0, 0, 1, ?, 'now')", [(f"/pad/{i}", "r" * 4000) for i in range(10_000)])
conn.execute("COMMIT")
print("ready", flush=True)
while True:  # a sync committing as fast as it can
    conn.execute("UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'generation'")
"""


@pytest.mark.slow
def test_a_backup_of_a_large_index_finishes_while_another_process_commits_without_pause(indexed, tmp_path):
    """The copy went in steps of 1,024 pages, and SQLite restarts a stepped copy whenever another
    connection commits: under a sync committing often, a backup of a few tens of MB never ended.
    In one step it copies one read snapshot, which a WAL writer never disturbs."""
    path = indexed.config.db_path
    indexed.close()
    writer = subprocess.Popen([sys.executable, "-c", WRITER, str(path)], stdout=subprocess.PIPE, text=True)
    finished: list[str] = []
    try:
        assert writer.stdout.readline() == "ready\n"
        copying = threading.Thread(
            target=lambda: finished.append(backup(path, tmp_path / "copy.db").integrity), daemon=True)
        copying.start()
        copying.join(timeout=120)  # a hang guard, not a measure: the stepped copy never ended
    finally:
        writer.kill()
        writer.wait()
    assert finished == ["ok"]
    state = consistency(tmp_path / "copy.db")
    assert state["chunks"] == state["fts_rows"] == state["vectors"] > 0


def test_a_backup_says_which_moment_of_the_index_it_holds(indexed, tmp_path):
    index = indexed.config.db_path
    first = backup(index, tmp_path / "first.db")
    conn = db.connect(index, read_only=True)
    generation, sources, chunks = conn.execute(
        "SELECT (SELECT value FROM meta WHERE key = 'generation'), (SELECT COUNT(*) FROM sources), "
        "(SELECT COUNT(*) FROM chunks)").fetchone()
    db.close(conn, checkpoint=False)
    assert (first.moment.generation, first.moment.sources, first.moment.chunks) == (int(generation), sources, chunks)
    indexed.ingest_data("# Later\n\nA note written after the first backup.", "later-note")
    second = payload(backup(index, tmp_path / "second.db"))
    assert second["generation"] > first.moment.generation and second["sourceCount"] == sources + 1
    assert second["takenAt"] >= first.moment.taken_at and second["takenAt"].endswith("+00:00")
    # A backup onto an earlier one says it replaced it: a second run to one DEST had said nothing.
    assert first.replaced is False and second["replaced"] is False
    assert payload(backup(index, tmp_path / "first.db"))["replaced"] is True


def test_a_backup_onto_the_index_by_another_path_is_refused_and_the_index_left_in_place(make_app, docs):
    """A bind mount names the index's folder by a second path, a hard link the file by a second name.
    With no process on the index (no -wal beside it), the rename that ends a backup put the copy
    in place of the index itself there, or a database named index.db-wal beside it."""
    from helpers.mounts import bind_mount

    with bind_mount() as (folder, mount):
        app = make_app(db_path=str(folder / "index.db"))
        app.ingest_data("# Note\n\nThe lantern by the copper river.", "a-note")
        app.close()
        index = folder / "index.db"
        inode = index.stat().st_ino
        (folder / "hard.db").hardlink_to(index)
        refused = {mount / "index.db": "the index itself", mount: "the index itself",
                   folder / "hard.db": "the index itself", mount / "index.db-wal": "index's own files",
                   mount / "index.db.sync.lock": "index's own files"}
        for dest, reason in refused.items():
            with pytest.raises(InvalidArgument, match=reason):
                backup(index, dest)
            assert index.stat().st_ino == inode, dest
        assert sorted(p.name for p in folder.iterdir() if p.name.startswith("index.db")) in (
            ["index.db", "index.db.sync.lock"], ["index.db"])
        reopened = make_app(db_path=str(index))
        assert payload(reopened.query("lantern copper", top_k=1))["results"]
        reopened.close()


@pytest.mark.parametrize("empty_file", [False, True])
def test_a_backup_where_there_is_no_index_says_so_as_a_read_does(make_app, tmp_path, empty_file):
    """backup said `no index at X; run minirag sync first` in words of its own, and took a zero-length
    DB_PATH (no index either: every read refuses it) for an index to copy."""
    if empty_file:
        (tmp_path / "index.db").touch()
    app = make_app()
    with pytest.raises(IndexUnavailable) as read:
        app.query("anything")
    with pytest.raises(IndexUnavailable) as backed_up:
        app.backup(str(tmp_path / "out.db"))
    assert str(backed_up.value) == str(read.value)
    assert not (tmp_path / "out.db").exists()
    assert (tmp_path / "index.db").exists() == empty_file
