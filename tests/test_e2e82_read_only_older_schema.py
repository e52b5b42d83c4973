"""An index of the previous release (schema 11) served read-only by this one: schema 12 added only a
table that syncs write (pending_vectors), so a --read-only server or command reads it as it is. It
had been refused outright (`has schema version 11, expected 12; open it once without --read-only`):
an agent's read-only server answered nothing from the day minirag was upgraded until a writer ran."""

from __future__ import annotations

import sqlite3

import pytest

from minirag import cli
from minirag.store import schema


def _as_schema(db, version: int) -> None:
    conn = sqlite3.connect(db)
    with conn:
        if version < 12:
            conn.execute("DROP TABLE pending_vectors")
        conn.execute("DELETE FROM migrations WHERE id > ?", (version,))
    conn.close()


def _run(argv, capsys) -> tuple[int, str, str]:
    try:
        code = cli.main(argv)
    except SystemExit as exc:
        code = exc.code
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.fixture
def schema_11(cli_env, capsys):
    assert cli.main(["sync"]) == 0
    _as_schema(cli_env, 11)
    capsys.readouterr()
    return cli_env


def test_e2e82_a_read_only_query_list_and_status_read_a_schema_11_index(schema_11, capsys):
    code, out, err = _run(["query", "otters", "--read-only"], capsys)
    assert code == 0 and "a.md" in out and not err, (out, err)
    code, out, err = _run(["list", "--read-only"], capsys)
    assert code == 0 and "indexed" in out, (out, err)
    code, out, err = _run(["status", "--read-only", "--json"], capsys)
    assert code == 0 and '"schemaVersion": 11' in out and "indexError" not in out, (out, err)
    conn = sqlite3.connect(schema_11)
    assert conn.execute("SELECT MAX(id) FROM migrations").fetchone()[0] == 11  # read, not upgraded
    conn.close()


def test_e2e82_doctor_read_only_passes_a_schema_11_index(schema_11, capsys):
    code, out, err = _run(["doctor", "--read-only"], capsys)
    index_line = next(line for line in out.splitlines() if line.startswith(("[ok] index", "[FAIL] index")))
    assert code == 0 and index_line.startswith("[ok] index"), (out, err)


def test_e2e82_a_writer_still_upgrades_it_and_an_older_schema_is_still_refused_read_only(schema_11, capsys):
    assert _run(["status"], capsys)[0] == 0
    conn = sqlite3.connect(schema_11)
    assert conn.execute("SELECT MAX(id) FROM migrations").fetchone()[0] == schema.SCHEMA_VERSION
    conn.close()
    _as_schema(schema_11, 10)
    code, out, err = _run(["query", "otters", "--read-only"], capsys)
    assert code == 1 and "has schema version 10" in err and "without --read-only" in err, (out, err)
