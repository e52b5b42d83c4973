"""A -wal that is not the index's own beside a sound index: another database's, one whose frames
hold page 1 of an empty database, one of a different page size, the live -wal left when a backup is
copied into place. SQLite replays any -wal whose checksums hold, and a writable connection's close
folds it into the file for good; every command that opens the index must refuse it first, in one
line, leaving both files as they were. A crash's own -wal (commits not yet checkpointed) must still
be read."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest

from minirag.store.wal import committed_frames


@pytest.fixture
def closed_index(indexed) -> Path:
    path = indexed.config.db_path
    indexed.close()
    return path


def other_wal(tmp_path: Path, *, page_size: int = 4096, empty: bool = False, rows: int = 300,
              one_row: bool = False) -> Path:
    """The -wal of another database, its frames committed and not checkpointed. `empty`: a database
    with no tables, so its one frame is page 1 with an empty schema; `one_row`: a commit that
    changes one row, so its few frames stand for a database of `rows` rows."""
    other = tmp_path / f"other-{page_size}-{empty}.db"
    conn = sqlite3.connect(other, isolation_level=None)
    conn.execute(f"PRAGMA page_size = {page_size}")
    if not empty:
        conn.execute("BEGIN")
        conn.execute("CREATE TABLE t (x)")
        conn.executemany("INSERT INTO t VALUES (?)", [("x" * 500,) for _ in range(rows)])
        conn.execute("COMMIT")
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA wal_autocheckpoint = 0")
    if empty:
        conn.execute("PRAGMA user_version = 1")  # one commit: page 1, the database one page long
    else:
        conn.execute("UPDATE t SET x = 'y' WHERE rowid " + ("= 1" if one_row else "% 2 = 0"))
    saved = tmp_path / f"{other.name}-wal.saved"
    shutil.copyfile(f"{other}-wal", saved)  # before the close folds it in
    conn.close()
    return saved


def own_later_wal(index: Path, tmp_path: Path) -> Path:
    """The index's own -wal one commit later, as a server left it when a backup was copied in."""
    later = tmp_path / "later.db"
    shutil.copyfile(index, later)
    conn = sqlite3.connect(later, isolation_level=None)
    conn.execute("PRAGMA wal_autocheckpoint = 0")
    conn.execute("UPDATE meta SET value = value || 'x' WHERE key = 'generation'")
    conn.execute("INSERT INTO meta (key, value) VALUES ('padding', ?)", ("p" * 20000,))
    saved = tmp_path / "later-wal.saved"
    shutil.copyfile(f"{later}-wal", saved)
    conn.close()
    return saved


def backup_copy(index: Path, tmp_path: Path) -> None:
    """`minirag backup`'s kind of copy (journal mode DELETE) put over the index."""
    copy = tmp_path / "copy.db"
    src, dst = sqlite3.connect(index), sqlite3.connect(copy)
    src.backup(dst)
    dst.execute("PRAGMA journal_mode = DELETE")
    src.close()
    dst.close()
    shutil.copyfile(copy, index)


# "one commit of a larger database": it cuts nothing and changes a few pages, but stands for more pages
# than the file and its frames hold together, which SQLite's checkpoint reports as corruption.
KINDS = ["another database", "page 1 of an empty database", "another page size", "the live one over a backup",
         "one commit of a larger database"]
LARGER = "another database larger than the index"  # its frames cut nothing: only reading through it tells


def place(kind: str, index: Path, tmp_path: Path) -> None:
    if kind == "the live one over a backup":
        wal = own_later_wal(index, tmp_path)
        backup_copy(index, tmp_path)
    else:
        wal = other_wal(tmp_path, page_size=8192 if kind == "another page size" else 4096,
                        empty=kind == "page 1 of an empty database",
                        rows=12_000 if kind in (LARGER, "one commit of a larger database") else 300,
                        one_row=kind == "one commit of a larger database")
    assert committed_frames(wal.read_bytes()) is not None  # SQLite would replay it
    shutil.copyfile(wal, f"{index}-wal")


COMMANDS = [
    ("backup", "BACKUP"),
    ("query", "otters"),
    ("status",),
    ("list",),
    ("sync",),
    ("--read-only", "query", "otters"),
    ("--read-only", "status"),
]


@pytest.mark.parametrize(("kind", "command"), [
    *((kind, command) for kind in KINDS for command in COMMANDS),
    # A read-only open never writes, so it does not read the whole file through the -wal first.
    *((LARGER, command) for command in COMMANDS if command[0] != "--read-only"),
], ids=lambda value: " ".join(value) if isinstance(value, tuple) else value)
def test_every_command_refuses_a_wal_that_is_not_the_indexs_own_and_leaves_both_files_as_they_were(
        closed_index, run_cli, docs, model_path, tmp_path, kind, command):
    place(kind, closed_index, tmp_path)
    before, wal_before = closed_index.read_bytes(), Path(f"{closed_index}-wal").read_bytes()
    flags = ["--db-path", closed_index, "--base-dir", docs, "--model-path", model_path]
    if command[0] == "--read-only":
        command, flags = command[1:], [*flags, "--read-only"]
    command = tuple(str(tmp_path / "backup.db") if arg == "BACKUP" else arg for arg in command)
    result = run_cli(*command, *flags)
    if command == ("status",):  # status reports what it cannot read, as `indexError`
        assert result.returncode == 0, result
        lines = [line for line in result.stdout.splitlines() if line.startswith("indexError: ")]
    else:
        assert result.returncode == 1, result
        lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and f"{closed_index}-wal is not the index's own -wal" in lines[0], result
    assert "move index.db-wal and index.db-shm aside" in lines[0]
    assert closed_index.read_bytes() == before
    assert Path(f"{closed_index}-wal").read_bytes() == wal_before
    assert not (tmp_path / "backup.db").exists()


def test_doctor_names_a_wal_that_is_not_the_indexs_own(closed_index, run_cli, docs, model_path, tmp_path):
    place("one commit of a larger database", closed_index, tmp_path)
    wal_before = Path(f"{closed_index}-wal").read_bytes()
    result = run_cli("doctor", "--db-path", closed_index, "--base-dir", docs, "--model-path", model_path)
    assert result.returncode == 1
    assert f"[FAIL] index: {closed_index}-wal is not the index's own -wal" in result.stdout, result
    assert "move index.db-wal and index.db-shm aside" in result.stdout
    assert Path(f"{closed_index}-wal").read_bytes() == wal_before


def test_the_mcp_read_tools_refuse_a_stray_wal_too(closed_index, make_app, tmp_path):
    from minirag.errors import DamagedIndex

    place("page 1 of an empty database", closed_index, tmp_path)
    before = closed_index.read_bytes()
    app = make_app()
    assert "is not the index's own -wal" in app.status().index_error
    with pytest.raises(DamagedIndex, match="is not the index's own -wal"):
        app.query("otters")
    with pytest.raises(DamagedIndex, match="is not the index's own -wal"):
        app.list_files()
    assert closed_index.read_bytes() == before


def test_a_crash_leftover_wal_is_the_indexs_own_and_its_commits_are_read(closed_index, run_cli, docs, model_path,
                                                                           tmp_path):
    """Killed between a commit and its checkpoint: the file and its -wal as they were then."""
    copy = tmp_path / "crashed" / "index.db"
    copy.parent.mkdir()
    shutil.copyfile(closed_index, copy)
    conn = sqlite3.connect(copy, isolation_level=None)
    conn.execute("PRAGMA wal_autocheckpoint = 0")
    conn.execute("UPDATE sources SET title = 'Crash survivor' WHERE source LIKE '%otters.md'")
    shutil.copyfile(copy, tmp_path / "frozen.db")
    shutil.copyfile(f"{copy}-wal", tmp_path / "frozen.db-wal")
    conn.close()
    frozen = tmp_path / "frozen.db"
    result = run_cli("list", "--json", "--db-path", frozen, "--base-dir", docs, "--model-path", model_path)
    assert result.returncode == 0, result
    assert "Crash survivor" in result.stdout


@pytest.mark.parametrize("damage", ["a byte of its last page", "its last frame's salt", "none"])
def test_the_wal_is_read_as_sqlite_reads_it_up_to_the_last_commit_whose_checksums_hold(tmp_path, damage):
    """A torn last commit (a crash while writing it) is not replayed: SQLite and committed_frames both
    stop at the commit before it."""
    path = tmp_path / "db.sqlite"
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA wal_autocheckpoint = 0")
    conn.execute("CREATE TABLE t (x)")
    conn.execute("INSERT INTO t VALUES (?)", ("a" * 20000,))
    conn.execute("INSERT INTO t VALUES (?)", ("b" * 20000,))
    copy = tmp_path / "copy.sqlite"
    shutil.copyfile(path, copy)
    wal = bytearray(Path(f"{path}-wal").read_bytes())
    conn.close()
    page = 4096
    last = len(wal) - (24 + page)  # the last frame: the second insert's commit frame
    if damage == "a byte of its last page":
        wal[last + 24 + 100] ^= 0xFF
    elif damage == "its last frame's salt":
        wal[last + 8] ^= 0xFF
    Path(f"{copy}-wal").write_bytes(bytes(wal))
    frames = committed_frames(bytes(wal))
    reader = sqlite3.connect(f"file:{copy}?mode=ro", uri=True)
    rows = reader.execute("SELECT COUNT(*) FROM t").fetchone()[0]
    (pages,) = reader.execute("PRAGMA page_count").fetchone()
    reader.close()
    assert frames is not None
    assert rows == (2 if damage == "none" else 1)
    assert frames.database_pages == pages


@pytest.mark.skipif(not Path("/proc/locks").exists(), reason="reads the kernel's lock table")
def test_checking_the_wal_keeps_the_locks_this_processs_own_connections_hold(tmp_path):
    """Closing any descriptor of a file drops every POSIX lock the process holds on it: a check that
    opened and closed the index beside a live connection took away that connection's shared lock."""
    import os

    from minirag.store import held_files, wal

    path = tmp_path / "index.db"
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA wal_autocheckpoint = 0")
    conn.execute("CREATE TABLE t (x)")
    conn.execute("INSERT INTO t VALUES (1)")  # its own -wal, commits not yet in the file
    conn.execute("BEGIN")
    conn.execute("SELECT * FROM t").fetchall()  # a read transaction: a shared lock on the file

    def locks() -> list[str]:
        inode = os.stat(path).st_ino
        return [line.split(":", 1)[1].strip() for line in Path("/proc/locks").read_text().splitlines()
                if f":{inode} " in line and f" {os.getpid()} " in line]  # without the table's own numbering

    held = locks()
    assert held
    for _ in range(3):
        assert wal.foreign_wal(path, thorough=False) is None
        assert locks() == held
    conn.execute("COMMIT")
    conn.close()
    held_files.release_unshared()  # the connection gone, nothing keeps the file open any longer
    assert not [name for name in os.listdir("/proc/self/fd")
                if os.path.realpath(f"/proc/self/fd/{name}") == str(path.resolve())]
