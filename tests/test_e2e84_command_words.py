"""A new user types the command other tools call it (`minirag search "..."`, `minirag index DIR`,
`minirag rm FILE`): the one-line refusal names minirag's command for it, and a slip of the
finger on such a word (`serch`) is not offered `serve`, which starts an MCP server that waits
on a terminal."""

from __future__ import annotations

import pytest


@pytest.mark.parametrize(("typed", "meant"), [
    ("search", "query"), ("serch", "query"), ("find", "query"), ("ask", "query"),
    ("index", "ingest"), ("update", "sync"), ("reindex", "sync"), ("add", "ingest"),
    ("rm", "delete"), ("remove", "delete"), ("show", "read"), ("cat", "read"),
    ("info", "status"), ("check", "doctor"), ("ls", "list"), ("qurey", "query"),
])
def test_e2e84_another_tools_word_for_a_command_names_minirags(run_cli, typed, meant):
    done = run_cli(typed, "otters")
    assert done.returncode == 2 and done.stdout == "", done
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr, done.stderr
    assert done.stderr.startswith(f"minirag: error: argument COMMAND: invalid choice: '{typed}' "), done.stderr
    assert done.stderr.rstrip().endswith(f"(did you mean '{meant}'?) (see `minirag --help`)"), done.stderr


def test_e2e84_a_word_like_no_command_gets_no_guess(run_cli):
    done = run_cli("zzzz", "otters")
    assert done.returncode == 2 and "did you mean" not in done.stderr, done.stderr
