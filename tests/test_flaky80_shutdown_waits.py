"""Waits on the main thread while work stops (a watcher's thread, a server's sync jobs), that a
Ctrl-C must still reach: the kernel hands a process's SIGINT to any thread that does not block it,
and a timed wait on a lock sleeps through one handed to another thread until its end (60 s each).
Here the main thread blocks SIGINT, so every Ctrl-C lands elsewhere (as in test_interruptible)."""

from __future__ import annotations

import signal
import sys

import pytest
from test_interruptible import _lines_of

PRELUDE = """
import signal
import threading
from pathlib import Path

never = threading.Event()
thread = threading.Thread(target=never.wait, daemon=True)  # a thread that does not stop; it may take SIGINT
thread.start()
signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})  # from here the kernel hands SIGINT to another thread
"""

STOP_WATCHING = PRELUDE + """
from minirag.app import App

app = App.__new__(App)  # only what stop_watching reads: a watcher whose thread does not end
app._watcher, app._watch_thread = type("Watcher", (), {"stop": lambda self: None})(), thread
try:  # the line inside: a Ctrl-C handled as it is written ends here too, not in a traceback
    print("waiting", flush=True)
    app.stop_watching(timeout=3600)
except KeyboardInterrupt:
    print("interrupted", flush=True)
"""

STOP_ALL = PRELUDE + """
from minirag.ingest.jobs import SyncJob, SyncJobs
from minirag.ingest.progress import Progress

jobs = SyncJobs(Path("unused.db"))
job = SyncJob("sync-1", Progress())  # a job whose thread never ends
jobs._jobs[job.job_id] = job
try:
    print("waiting", flush=True)
    jobs.stop_all(timeout=3600)
except KeyboardInterrupt:
    print("interrupted", flush=True)
"""


@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT to a child process")
@pytest.mark.parametrize("script", [STOP_WATCHING, STOP_ALL], ids=["stop_watching", "stop_all"])
def test_ctrl_c_reaches_a_main_thread_waiting_for_work_to_stop(script):
    proc, next_line = _lines_of(script)
    try:
        assert next_line() == "waiting\n"
        proc.send_signal(signal.SIGINT)
        assert next_line() == "interrupted\n"
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0
