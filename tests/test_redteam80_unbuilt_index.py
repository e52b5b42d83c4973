"""Red team 80: a first sync that fails before it writes the schema (its disk full: a 40 KB tmpfs
holding the index) leaves an SQLite file with no table in it, in WAL mode. Read-only, every command
then said `index … has schema version 0, expected 11; open it once without --read-only to upgrade`:
there is nothing to upgrade, and the way on is a first sync that finishes."""

from __future__ import annotations

import sqlite3


def _unbuilt(path) -> None:
    """The file such a sync leaves: page one written, WAL mode set, no table."""
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA journal_mode=wal")
    conn.close()


def test_a_read_only_command_on_an_index_no_sync_finished_building_says_so(run_cli, cli_env):
    db_path = cli_env
    _unbuilt(db_path)
    for argv in (("query", "--read-only", "walrus"), ("status", "--read-only")):
        code, out, err = run_cli(*argv)
        said = (out + err).strip().splitlines()
        line = next(line for line in said if "error" in line.lower())  # status: indexError
        assert "upgrade" not in line and "schema version 0" not in line, line
        assert f"the index file {db_path} holds no index yet" in line, line
        assert "a writer must build it first" in line, line
