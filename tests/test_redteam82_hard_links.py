"""Red team 82: an index file with a second name (a hard link). SQLite keeps a database's journal,
its `-wal` and `-shm`, beside the name it was opened by, and minirag's sync lock beside it too, so two
writers through two names of one file share neither lock nor journal: each checkpoints its own `-wal`
over pages the other wrote. A `cp -al` / rsnapshot "copy" of the index folder, synced while the
original was, left both names' index damaged ('Rowid out of order', 'FOREIGN KEY constraint failed';
reproduced with two `minirag sync` processes). Such a file is now never written, through either name;
it is still read."""

from __future__ import annotations

import os

import pytest
from conftest import write

from minirag.errors import IndexUnavailable


@pytest.fixture
def linked(make_app, docs, tmp_path):
    """An index synced under its first name, then given a second one in another folder."""
    write(docs / "otters.md", "# Otters\n\nSea otters hold hands while they sleep.\n")
    first = tmp_path / "index.db"
    app = make_app(db_path=str(first))
    app.sync()
    app.close()
    (tmp_path / "copy").mkdir()
    second = tmp_path / "copy" / "index.db"
    os.link(first, second)
    return first, second


def _beside(path) -> set[str]:
    return {entry.name for entry in path.parent.iterdir()}


@pytest.mark.parametrize("name", ["first", "second"])
def test_redteam82_an_index_with_two_names_is_written_through_neither(make_app, docs, linked, name):
    path = linked[0] if name == "first" else linked[1]
    before, size = _beside(path), path.stat().st_size
    write(docs / "seals.md", "# Seals\n\nSeals sleep in the water too.\n")
    app = make_app(db_path=str(path))
    with pytest.raises(IndexUnavailable, match="hard link") as refused:
        app.sync()
    assert "\n" not in str(refused.value)
    with pytest.raises(IndexUnavailable, match="hard link"):
        app.ingest_data("a note about seals", source="notes/seals")
    app.close()
    assert _beside(path) == before and path.stat().st_size == size  # no -wal, no -shm, no lock file left


def test_redteam82_a_second_name_made_while_a_writer_has_the_index_open_stops_its_next_write(
        make_app, docs, tmp_path):
    write(docs / "otters.md", "# Otters\n\nSea otters hold hands while they sleep.\n")
    first = tmp_path / "index.db"
    app = make_app(db_path=str(first))
    app.sync()
    os.link(first, tmp_path / "second.db")
    write(docs / "seals.md", "# Seals\n\nSeals sleep in the water too.\n")
    with pytest.raises(IndexUnavailable, match="hard link"):
        app.sync()
    assert [hit.source for hit in app.query("seals sleep in the water").hits if hit.source.endswith("seals.md")] == []


@pytest.mark.parametrize("read_only", [True, False])
def test_redteam82_an_index_with_two_names_is_still_read(make_app, docs, linked, read_only):
    """By a read-only App, and by one that may write: a query writes nothing it needs."""
    for path in linked:
        app = make_app(db_path=str(path), read_only=read_only)
        assert any(hit.source.endswith("otters.md") for hit in app.query("sea otters").hits)
        assert any(row.source.endswith("otters.md") for row in app.list_files().files)


def test_redteam82_the_cli_refuses_in_one_line(run_cli, cli_env, tmp_path):
    assert run_cli("sync").returncode == 0
    os.link(cli_env, tmp_path / "second.db")
    run = run_cli("sync", env={"DB_PATH": str(tmp_path / "second.db")})
    assert run.returncode != 0
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("minirag: error:") and "hard link" in lines[0], run.stderr


def test_redteam82_doctor_fails_the_index_check_of_an_index_with_two_names(run_cli, cli_env, tmp_path):
    assert run_cli("sync").returncode == 0
    os.link(cli_env, tmp_path / "second.db")
    run = run_cli("doctor")
    assert run.returncode != 0
    assert "[FAIL] index:" in run.stdout and "hard links" in run.stdout, run.stdout
    assert "[ok] index:" in run_cli("doctor", "--read-only").stdout
