"""The index file under attack or accident: deleted or replaced under a running App, damaged,
on a read-only mount, or under a folder whose name holds URI syntax."""

from __future__ import annotations

import contextlib
import shutil

import pytest
from conftest import ROOT, write
from helpers.mounts import bind_mount

from minirag.errors import IndexUnavailable, MiniragError
from minirag.results import payload
from minirag.store import connection


def test_a_deleted_index_file_is_refused_and_never_written_into(indexed, docs):
    path = indexed.config.db_path
    for suffix in ("", "-wal", "-shm"):
        path.with_name(path.name + suffix).unlink(missing_ok=True)
    with pytest.raises(IndexUnavailable, match="was deleted while minirag had it open"):
        indexed.ingest_data("# Lost\n\nThis would vanish.", "lost-note")
    with pytest.raises(IndexUnavailable, match="was deleted"):
        indexed.query("otters")
    assert not path.exists()
    # An explicit sync starts a new file there and fills it.
    indexed.sync()
    assert path.exists() and payload(indexed.query("otters holding hands"))["results"]


def test_a_replaced_index_file_is_noticed_and_the_new_one_is_used(indexed, make_app, tmp_path, docs):
    # The new file's source is data: a file of another root would not be served (not configured here).
    other_docs = tmp_path / "other"
    other_docs.mkdir()
    other = make_app(base_dirs=[str(other_docs)], db_path=str(tmp_path / "other.db"))
    other.ingest_data("# Volcanoes\n\nMagma rises and erupts as lava.\n", "notes/volcano")
    other.close()
    assert payload(indexed.query("otters"))["results"]
    shutil.copyfile(tmp_path / "other.db", tmp_path / "swap.db")
    (tmp_path / "swap.db").replace(indexed.config.db_path)  # a new inode under the same name
    sources = {h["source"] for h in payload(indexed.query("volcano lava", top_k=5))["results"]}
    assert sources == {"notes/volcano"}
    indexed.ingest_data("# Note\n\nWritten into the new file.", "note-after-swap")
    indexed.close()
    reopened = make_app(base_dirs=[str(other_docs)], db_path=str(tmp_path / "index.db"))
    assert "new file" in reopened.read("note-after-swap").text


def _damage(path, offset=8192, size=200 * 1024):
    with open(path, "r+b") as handle:
        handle.seek(offset)
        handle.write(b"\xa5" * size)


def test_a_damaged_index_gives_one_line_naming_the_file_and_the_fix(indexed, make_app, docs):
    from minirag.errors import MiniragError

    path = indexed.config.db_path
    indexed.close()
    _damage(path)
    app = make_app()
    messages = []
    for operation in (lambda: app.query("otters hands"), lambda: app.read(str(docs / "otters.md")),
                      lambda: app.list_files(), lambda: app.sync()):
        with pytest.raises(MiniragError) as caught:
            operation()
        messages.append(str(caught.value))
    assert any("is damaged" in m for m in messages), messages
    damaged = next(m for m in messages if "is damaged" in m)
    assert str(path) in damaged and "backup" in damaged and "minirag sync" in damaged
    assert "\n" not in damaged
    assert "damaged" in (app.status().index_error or "")


def test_a_damaged_index_restored_by_a_rename_is_used_and_no_longer_reported(indexed, make_app, tmp_path):
    path = indexed.config.db_path
    indexed.close()
    shutil.copyfile(path, tmp_path / "backup.db")
    app = make_app()
    app.query("otters")  # open, then damaged under it
    _damage(path)
    for operation in (lambda: app.query("otters hands"), lambda: app.list_files(), lambda: app.sync()):
        with contextlib.suppress(MiniragError):
            operation()
    assert app.damage and "damaged" in (app.status().index_error or "")
    (tmp_path / "backup.db").replace(path)  # the restore, moved into place while the App runs
    assert payload(app.query("otters holding hands"))["results"]
    assert app.status().index_error is None


def test_doctor_runs_quick_check_and_fails_on_a_damaged_index(indexed, make_config):
    from minirag.doctor import run_checks

    path = indexed.config.db_path
    indexed.close()
    assert run_checks(make_config()).ok
    _damage(path)
    result = run_checks(make_config())
    index_check = next(c for c in result.checks if c.name == "index")
    assert not result.ok and not index_check.ok
    assert "backup" in index_check.fix


def test_the_cli_reports_a_damaged_index_in_one_line_with_exit_1(run_cli, indexed, docs, model_path):
    path = indexed.config.db_path
    indexed.close()
    _damage(path)
    for args in (["query", "otters"], ["list"], ["sync"], ["read", str(docs / "otters.md")]):
        done = run_cli(*args, "--base-dir", str(docs), "--db-path", str(path), "--model-path", model_path, cwd=ROOT)
        assert done.returncode == 1, (args, done.stderr)
        assert "Traceback" not in done.stderr and len(done.stderr.strip().splitlines()) == 1, (args, done.stderr)


@pytest.mark.parametrize("folder", ["odd%41name", "what?is=this", "hash#tag", "spa ce"])
def test_the_read_only_uri_opens_exactly_the_named_file(tmp_path, folder):
    target = tmp_path / folder / "index.db"
    target.parent.mkdir()
    conn = connection.connect(target)
    conn.execute("CREATE TABLE marker (v TEXT)")
    conn.execute("INSERT INTO marker VALUES ('the right file')")
    connection.close(conn)
    before = sorted(p.name for p in tmp_path.rglob("*"))
    ro = connection.connect(target, read_only=True)
    assert ro.execute("SELECT v FROM marker").fetchone()[0] == "the right file"
    ro.close()
    after = sorted(p.name for p in tmp_path.rglob("*"))
    # nothing opened or created anywhere but the file itself (and SQLite's own -wal/-shm beside it)
    assert [n for n in after if n not in ("index.db-wal", "index.db-shm")] == before


@pytest.fixture
def read_only_mount():
    """A real read-only bind mount (needs root and mount privileges; skipped elsewhere)."""
    with bind_mount(read_only=True) as folders:
        yield folders


def test_read_only_mode_works_on_a_read_only_filesystem(read_only_mount, make_app, docs):
    source, mount = read_only_mount
    writer = make_app(db_path=str(source / "index.db"))
    write(docs / "otters.md", "# Otters\n\nSea otters hold hands while they sleep.\n")
    writer.sync()
    writer.close()
    before = sorted(p.name for p in source.iterdir())
    reader = make_app({"MINIRAG_READ_ONLY": "1"}, db_path=str(mount / "index.db"))
    assert payload(reader.query("otters sleep"))["results"]
    assert reader.status().stats.chunk_count > 0 and reader.status().index_error is None
    assert sorted(p.name for p in source.iterdir()) == before


def test_a_writable_open_on_a_read_only_filesystem_says_so_and_offers_read_only(read_only_mount, make_app, docs):
    """It said 'cannot open the index … (unable to open database file); check that its folder exists
    and that this user may read it', neither of which was the trouble."""
    from minirag.errors import IndexUnavailable

    source, mount = read_only_mount
    writer = make_app(db_path=str(source / "index.db"))
    write(docs / "otters.md", "# Otters\n\nSea otters hold hands while they sleep.\n")
    writer.sync()
    writer.close()
    with pytest.raises(IndexUnavailable, match="is on a read-only file system.*--read-only"):
        make_app(db_path=str(mount / "index.db")).query("otters")


def test_a_reader_on_a_read_only_mount_sees_what_a_writer_elsewhere_commits(read_only_mount, make_app, docs):
    """A container reading the host's index through a read-only mount while the host syncs."""
    source, mount = read_only_mount
    writer = make_app(db_path=str(source / "index.db"))
    write(docs / "otters.md", "# Otters\n\nSea otters hold hands while they sleep.\n")
    writer.sync()
    writer.close()  # no -wal, no -shm: the reader can only open it immutable
    reader = make_app({"MINIRAG_READ_ONLY": "1"}, db_path=str(mount / "index.db"))
    assert payload(reader.query("otters sleep"))["results"]
    writer = make_app(db_path=str(source / "index.db"))
    for n, words in enumerate(["zanzibar quokka", "marmalade penguin"]):
        writer.ingest_data(f"# Note {n}\n\nThe {words} appears only here.", f"note-{n}")
        sources = [h["source"] for h in payload(reader.query(words))["results"]]
        assert f"note-{n}" in sources, (words, sources)
        assert reader.status().stats.source_count == 2 + n
    writer.close()
    assert "note-1" in [h["source"] for h in payload(reader.query("marmalade penguin"))["results"]]


def _snapshot_with_commits_in_its_wal(source, make_app, docs) -> None:
    """In `source`: an index and its -wal holding a commit, no -shm (a copy or snapshot of a live index)."""
    import sqlite3

    writer = make_app(db_path=str(source / "index.db"))
    write(docs / "otters.md", "# Otters\n\nSea otters hold hands while they sleep.\n")
    writer.sync()
    writer.close()
    live = sqlite3.connect(source / "index.db")
    live.execute("PRAGMA wal_autocheckpoint = 0")
    live.execute("INSERT INTO meta (key, value) VALUES ('a commit', 'left in the wal')")
    live.commit()
    copied = {name: (source / name).read_bytes() for name in ("index.db", "index.db-wal")}
    live.close()
    for name, data in copied.items():  # the snapshot: the file and its -wal, no -shm
        (source / name).write_bytes(data)
    assert not (source / "index.db-shm").exists() and (source / "index.db-wal").stat().st_size > 0


def test_a_backup_on_a_read_only_mount_of_an_index_whose_wal_it_cannot_read_is_refused(
        read_only_mount, make_app, docs, tmp_path):
    """The backup opened such a snapshot `immutable`, the file alone, and wrote a copy without the
    -wal's commits, as complete as any other by its answer."""
    from minirag.store.backup import backup

    source, mount = read_only_mount
    _snapshot_with_commits_in_its_wal(source, make_app, docs)
    with pytest.raises(IndexUnavailable) as caught:
        backup(mount / "index.db", tmp_path / "copy.db")
    message = str(caught.value)
    assert "index.db-wal holds writes" in message and "copy index.db and index.db-wal" in message, message
    assert list(tmp_path.glob("copy.db*")) == []


def test_a_reader_on_a_read_only_mount_says_when_a_wal_it_cannot_read_holds_writes(
        read_only_mount, make_app, docs, caplog):
    """A copy or snapshot of a live index: its -wal holds commits, its -shm is gone, and the folder
    is read-only, so SQLite can open it only `immutable`, which reads the file alone. It searched
    the index as of its last checkpoint without a word."""
    import logging

    source, mount = read_only_mount
    _snapshot_with_commits_in_its_wal(source, make_app, docs)
    with caplog.at_level(logging.WARNING, logger="minirag.store.index"):
        reader = make_app({"MINIRAG_READ_ONLY": "1"}, db_path=str(mount / "index.db"))
        try:
            assert payload(reader.query("otters sleep"))["results"]
        finally:
            reader.close()
    assert any("-wal holds writes not yet in the index file" in r.getMessage() for r in caplog.records)


def test_sqlites_complaint_is_kept_when_it_shares_a_row_with_its_heading(tmp_path):
    """quick_check gives "*** in database main ***" and its first complaint in one row: dropping rows
    that start with the heading had left doctor and backup saying "damaged (quick_check: )"."""
    import random

    from minirag.store import connection as db
    from minirag.store.health import answer

    path = tmp_path / "t.db"
    conn = db.sqlite3.connect(path)
    conn.execute("CREATE TABLE t (x)")
    conn.execute("CREATE INDEX t_x ON t (x)")
    conn.executemany("INSERT INTO t VALUES (?)", [(f"{n}" + "x" * 300,) for n in range(400)])
    conn.commit()
    conn.close()
    with open(path, "r+b") as handle:  # garbage over a page of the index's tree
        handle.seek(3 * 4096)
        handle.write(random.Random(4).randbytes(4096))
    said = answer(db.sqlite3.connect(path), "quick_check")
    assert said.startswith("Tree 3 page 4: ") and "***" not in said, said
