"""A stop signal that comes once the command is over, while the interpreter tears down (its converter
workers retiring: up to seconds), ends the process at once with the command's exit code, saying
nothing more. `timeout` sends its SIGTERM twice (to the command, then to its process group), and uv
passes one on as well: the second one, raised in an exit callback or the last `finally`, printed a
traceback after the command's one line ('Exception ignored in atexit callback ... _Terminated: 15';
found by redteam84 with `timeout` over `minirag sync`, 2 runs in 6). Here the signal comes from an
exit callback of the real `minirag` program's process, so it lands in the teardown every time."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from test_server_stdio import CONFIG_VARS

PROGRAM = """
import atexit, os, signal, sys, time

def stop_during_teardown():
    os.kill(os.getpid(), signal.{signal})
    time.sleep(2)  # where the signal lands: a worker being waited for

atexit.register(stop_during_teardown)
from minirag import cli
sys.argv = ["minirag", *sys.argv[1:]]
sys.exit(cli.main())
"""


@pytest.mark.parametrize("name", ["SIGTERM", "SIGHUP", "SIGINT"])
def test_redteam84_a_stop_signal_during_teardown_ends_the_process_without_a_traceback(tmp_path, name):
    program = tmp_path / "minirag_program.py"
    program.write_text(PROGRAM.format(signal=name))
    (tmp_path / "docs").mkdir()
    env = {k: v for k, v in os.environ.items() if k not in CONFIG_VARS}
    done = subprocess.run([sys.executable, str(program), "status", "--base-dir", str(tmp_path / "docs"),
                           "--db-path", str(tmp_path / "index.db")],
                          env=env, capture_output=True, text=True, timeout=60)
    assert "Traceback" not in done.stderr, done.stderr
    assert done.returncode == 0, (done.returncode, done.stderr)
    assert "roots:" in done.stdout
