"""A stop signal that follows another (GNU `timeout` after Ctrl-C, a supervisor's SIGTERM after its
SIGINT), found by sending SIGINT then SIGTERM to `minirag sync` a few milliseconds apart:

- landing while the interpreter tore down, after it had put every signal back to its default, it
  killed the process (exit status -15) after the first stop's line;
- landing inside a lock's wait (Condition.wait taking its lock back), it came out as the lock's
  `RuntimeError: release unlocked lock`, which the model run reported as 'ONNX Runtime could not
  run the model ...: release unlocked lock', exit status 1."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time

import pytest
from test_server_stdio import CONFIG_VARS

from minirag import interruptible

PROGRAM = """
import os, signal, sys, time

class StopAtTeardown:
    def __del__(self):
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(1)  # where the signal lands: the interpreter freeing its modules

import json
json.held = StopAtTeardown()  # freed as the interpreter clears its modules: its signals are back to their defaults then
from minirag import cli
sys.argv = ["minirag", *sys.argv[1:]]
sys.exit(cli.main())
"""


def test_leftovers86_a_stop_signal_while_the_modules_are_freed_leaves_the_commands_exit_status(tmp_path):
    program = tmp_path / "minirag_program.py"
    program.write_text(PROGRAM)
    (tmp_path / "docs").mkdir()
    env = {k: v for k, v in os.environ.items() if k not in CONFIG_VARS}
    done = subprocess.run([sys.executable, str(program), "status", "--base-dir", str(tmp_path / "docs"),
                           "--db-path", str(tmp_path / "index.db")],
                          env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, (done.returncode, done.stderr)
    assert "Traceback" not in done.stderr and "roots:" in done.stdout, done.stderr


def _hit_by_a_stop_inside_its_lock(real_wait):
    """concurrent.futures.wait as a stop signal leaves it when its handler raises inside
    Condition.wait, as that wait takes its lock back: the lock's release then fails, and the
    RuntimeError carries the signal's KeyboardInterrupt as its context. At its second slice (the run
    has begun by then), once; else the real wait."""
    calls = []

    def wait(futures, timeout=None):
        calls.append(True)
        if len(calls) != 2:
            return real_wait(futures, timeout=timeout)
        lock = threading.Lock()
        try:
            raise KeyboardInterrupt  # the handler, raised where the wait would take its lock back
        finally:
            lock.release()  # Condition.__exit__: the lock the interrupted wait never took back

    return wait


@pytest.mark.skipif(threading.current_thread() is not threading.main_thread(),
                    reason="a native call waits on the main thread only (where signals are handled)")
def test_leftovers86_a_stop_that_lands_in_a_locks_wait_is_raised_as_the_stop(monkeypatch):
    monkeypatch.setattr(interruptible, "wait", _hit_by_a_stop_inside_its_lock(interruptible.wait))
    stopped = threading.Event()
    with pytest.raises(KeyboardInterrupt):
        interruptible.call(lambda: stopped.wait(5), stopped.set)
    assert stopped.is_set()  # the run was asked to stop, and waited for


def test_leftovers86_a_stop_that_lands_in_a_threads_join_is_raised_as_the_stop(monkeypatch):
    worker = threading.Thread(target=time.sleep, args=(0.3,))
    worker.start()
    real_join = threading.Thread.join
    hit = []

    def join(self, timeout=None):
        if hit:
            return real_join(self, timeout)
        hit.append(True)
        lock = threading.Lock()
        try:
            raise KeyboardInterrupt
        finally:
            lock.release()

    monkeypatch.setattr(threading.Thread, "join", join)
    with pytest.raises(KeyboardInterrupt):
        interruptible.join(worker)
    monkeypatch.undo()
    worker.join()
