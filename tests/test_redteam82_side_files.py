"""Red team 82: a pipe in place of a file SQLite keeps beside the index. Whoever may write the index's
folder (a `.minirag` that came with a shared or cloned folder) could put a FIFO named `index.db-wal`,
`-shm` or `-journal` there, and every command then waited for ever: minirag's own look at the -wal
opened it and waited for a writer, and SQLite opened the others and waited inside its C code, where
neither Ctrl-C nor SIGTERM reaches (a read-only query stayed stopped past its SIGTERM for 10 minutes).
Now each such file is refused before anything opens it, in one line naming it, and left where it is."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

pytestmark = pytest.mark.slow  # commands in processes of their own, which must not hang the tests

_PATIENCE_S = 60


@pytest.mark.parametrize("side", ["-wal", "-shm", "-journal"])
def test_redteam82_a_fifo_beside_the_index_is_refused_not_waited_on(run_cli, cli_env, side):
    assert run_cli("sync").returncode == 0
    fifo = f"{cli_env}{side}"
    os.mkfifo(fifo)
    for argv in (["query", "otters"], ["--read-only", "query", "otters"], ["sync"]):
        try:
            done = subprocess.run([sys.executable, "-m", "minirag", *argv], env=dict(os.environ),
                                  capture_output=True, text=True, timeout=_PATIENCE_S, stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired:
            pytest.fail(f"`minirag {' '.join(argv)}` waited on the FIFO {fifo}")
        lines = done.stderr.strip().splitlines()
        assert done.returncode != 0 and len(lines) == 1, (argv, done.stderr)
        assert lines[0].startswith("minirag: error: ") and f"index.db{side}" in lines[0], (argv, lines)
        assert "FIFO" in lines[0], lines
        assert os.path.exists(fifo)  # not the reader's to remove


_SWAPPED_WHILE_SERVING = textwrap.dedent("""
    import os, sys
    from minirag.app import App
    from minirag.config import load_config
    from minirag.errors import IndexUnavailable

    db = sys.argv[1]
    app = App(load_config(env={**os.environ, "MINIRAG_READ_ONLY": sys.argv[2]}))
    assert app.query("otters").hits
    os.mkfifo(db + ".fifo")
    os.replace(db + ".fifo", db)  # a server's index renamed over by a pipe while it serves
    try:
        app.query("otters")
    except IndexUnavailable as refused:
        print(refused)
""")


@pytest.mark.parametrize("read_only", ["1", "0"], ids=["read-only", "writer"])
def test_redteam82_an_index_replaced_by_a_fifo_while_served_is_refused_not_waited_on(run_cli, cli_env, read_only):
    assert run_cli("sync").returncode == 0
    try:
        done = subprocess.run([sys.executable, "-c", _SWAPPED_WHILE_SERVING, str(cli_env), read_only],
                              env=dict(os.environ), capture_output=True, text=True, timeout=_PATIENCE_S,
                              stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        pytest.fail("the query waited on the FIFO put in place of the index")
    assert done.returncode == 0, done.stderr
    assert f"{cli_env} is a FIFO" in done.stdout and "\n" not in done.stdout.strip(), done.stdout
