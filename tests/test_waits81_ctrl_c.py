"""Waits on the main thread for a thread to end, that a Ctrl-C must still reach: a progress
line's ticker, the checkpointer's retry thread, the watcher's notifications thread, a conversion
pool's threads after a first Ctrl-C. The kernel hands a process's SIGINT to any thread that does
not block it, and an untimed wait on a lock (Thread.join, a pool's shutdown) is interrupted only by
one delivered to the waiting thread itself: here the main thread blocks SIGINT, so every Ctrl-C
lands elsewhere (as in test_interruptible), and the thread waited for is held by a gate (a line on
stdin) the test opens only once the Ctrl-C was acted on."""

from __future__ import annotations

import contextlib
import os
import queue
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="SIGINT to a child process")

PRELUDE = """
import sys
import threading
import signal
from pathlib import Path

never = threading.Event()
threading.Thread(target=never.wait, daemon=True).start()  # a thread that does not stop; it may take SIGINT
signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})  # from here the kernel hands SIGINT to another thread
main = threading.main_thread().ident


def waits_in(function):
    # Whether the main thread is blocked (in threading) inside `function`, called from its own module.
    frame = sys._current_frames().get(main)
    if frame is None or not frame.f_code.co_filename.endswith("threading.py"):
        return False
    while frame is not None:
        if frame.f_code.co_name == function:
            return True
        frame = frame.f_back
    return False


def held(function):
    # Once the main thread waits inside `function` for this thread, say so, and wait for the test's gate.
    while not waits_in(function):
        threading.Event().wait(0.01)
    print("waiting", flush=True)
    sys.stdin.readline()
"""

TICKER = PRELUDE + """
from minirag.cli_output import ProgressLine


ticking = threading.Event()


class Stuck:  # the ticker's line in hand does not come back (a write to a full stderr)
    def live_line(self):
        ticking.set()
        held("close")
        return "stuck"


line = ProgressLine(0.01)
line.start(Stuck())
ticking.wait()
try:
    line.close()
except KeyboardInterrupt:
    print("interrupted", flush=True)
"""

CHECKPOINT = PRELUDE + """
import sqlite3
from minirag.store.checkpoint import Checkpointer


def connect():  # the retry thread's connection does not come (a disk that hangs)
    held("close")
    return sqlite3.connect(":memory:")


checkpointer = Checkpointer(connect)
checkpointer._retry_later()  # a fold a reader's snapshot left incomplete
try:
    checkpointer.close()
except KeyboardInterrupt:
    print("interrupted", flush=True)
"""

WATCHER = PRELUDE + """
from minirag.ingest import watch
from minirag.interruptible import RunBound

watch.NOTIFIER_JOIN_S = 3600  # its own bound out of the way: the Ctrl-C alone ends the wait
watcher = watch.Watcher.__new__(watch.Watcher)  # only what run() reads
watcher._runs = RunBound(None)
watcher._notify_loop = lambda: held("run")  # the notifications' thread does not end (a stuck native watch)
stop = threading.Event()
stop.set()  # asked to stop as it starts: run() goes on to wait for its notifier
try:
    watcher.run(stop)
except KeyboardInterrupt:
    print("interrupted", flush=True)
"""

CONVERSIONS = PRELUDE + """
import tempfile
from minirag import interruptible
from minirag.ingest.pipeline import Pipeline
from minirag.ingest.progress import Progress
from minirag.ingest.scan import FoundFile
from minirag.store.index import Index

progress = Progress()


def prepare_file(self, found, stored, **_):  # a conversion that does not heed its stop
    print("converting", flush=True)
    while not progress.stop.is_set():  # the first Ctrl-C sets it
        threading.Event().wait(0.01)
    held("run_files")


pipeline = Pipeline.__new__(Pipeline)  # only what run_files reads before any file is embedded
with tempfile.TemporaryDirectory() as folder:
    pipeline.index = Index(Path(folder) / "index.db")
    Pipeline.prepare_file = prepare_file
    files = [FoundFile(f"{folder}/a.md", f"{folder}/a.md", 10, 0, 0, 1)]
    try:
        pipeline.run_files(files, progress)
    except KeyboardInterrupt:
        print("interrupted", flush=True)
        print(f"left running: {interruptible.left_running()}", flush=True)
"""


class Script:
    """A script's process, its stdout read a line at a time, its stdin the gate."""

    def __init__(self, script: str):
        self.proc = subprocess.Popen([sys.executable, "-c", script], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True,
                                     env={**os.environ, "PYTHONPATH": str(Path(__file__).parent.parent)})
        self._lines: queue.SimpleQueue[str] = queue.SimpleQueue()
        threading.Thread(target=lambda: [self._lines.put(line) for line in self.proc.stdout], daemon=True).start()

    def next_line(self) -> str:  # a line, or a failure: never a test that waits for ever
        try:
            return self._lines.get(timeout=60)
        except queue.Empty:
            self.proc.kill()
            pytest.fail(f"the process said nothing for 60 s: {self.proc.stderr.read()[-2000:]}")

    def open_gate(self) -> None:
        with contextlib.suppress(OSError):  # a process already ended (killed, failed)
            self.proc.stdin.write("\n")
            self.proc.stdin.close()

    def ended(self) -> str:
        try:
            self.proc.wait(timeout=60)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()
        stderr = self.proc.stderr.read()
        assert self.proc.returncode == 0, stderr
        return stderr


@pytest.mark.parametrize("script", [TICKER, CHECKPOINT, WATCHER], ids=["ticker", "checkpoint", "watcher"])
def test_ctrl_c_reaches_a_main_thread_waiting_for_a_thread_that_does_not_end(script):
    """The wait raises the Ctrl-C's KeyboardInterrupt while the thread it waits for is still held."""
    process = Script(script)
    try:
        assert process.next_line() == "waiting\n"
        process.proc.send_signal(signal.SIGINT)
        assert process.next_line() == "interrupted\n"
    finally:
        process.open_gate()
    process.ended()


def test_a_second_ctrl_c_leaves_a_conversion_the_first_could_not_stop():
    """The first Ctrl-C stops the run and its pool's exit waits for the conversion in hand, which
    does not heed the stop; a second Ctrl-C leaves it, still converting, and says so (cli.main then
    ends the process without the interpreter's exit, which would join that thread)."""
    process = Script(CONVERSIONS)
    try:
        assert process.next_line() == "converting\n"
        process.proc.send_signal(signal.SIGINT)
        assert process.next_line() == "waiting\n"  # the first Ctrl-C was acted on: the run stops
        process.proc.send_signal(signal.SIGINT)
        assert process.next_line() == "interrupted\n"
        assert process.next_line() == "left running: True\n"
    finally:
        process.open_gate()
    process.ended()


def test_a_sync_job_ends_though_its_progress_reporter_is_held(tmp_path, monkeypatch):
    """The job's thread waited for its reporter with no bound before it said it had ended: a reporter
    held in its line (a log write that does not come back) held the job for ever, and a server's
    shutdown waited its whole minute for it (stop_all)."""
    from minirag.ingest import jobs, run_log

    monkeypatch.setattr(run_log, "LOG_EVERY_S", 0.01)
    monkeypatch.setattr(jobs, "REPORTER_JOIN_S", 0.05)
    reporting, gate = threading.Event(), threading.Event()

    def work(_lock, progress) -> None:
        def held_line() -> str:
            reporting.set()
            gate.wait(120)  # a failure below, not a test that waits for ever
            return "held"

        progress.live_line = held_line
        assert reporting.wait(60), "the reporter never reported"

    job = jobs.SyncJobs(tmp_path / "index.db").start(work)
    try:
        assert job.wait(60), "the job did not end: it waited for its held reporter"
        assert job.state == "succeeded"
    finally:
        gate.set()
        # The reporter writes its held line now: within this test, not into the stderr the next test's
        # command has (seen as an extra line in test_e2e84_command_words).
        for thread in threading.enumerate():
            if thread.name == f"{job.job_id}-log":
                thread.join(60)


FULL_STDERR = """
import os
import threading
from minirag import cli_output

cli_output.TICKER_JOIN_S = 0.05  # its bound, short: what comes after the wait is what is looked at here


class Counts:
    def live_line(self):
        return "3 files seen"


os.set_blocking(2, False)  # stderr filled: nobody reads it until this process says "closed"
try:
    while True:
        os.write(2, b"x" * 4096)
except BlockingIOError:
    pass
os.set_blocking(2, True)
line = cli_output.ProgressLine(0.01)
line.start(Counts())
while not line._lock.locked():  # the ticker is in its write, which does not come back
    threading.Event().wait(0.01)
line.close()
print("closed", flush=True)
"""


def test_a_run_ends_though_its_progress_line_is_stuck_writing_to_a_full_stderr():
    """A piped run whose stderr nobody reads (for now): the ticker's write blocks holding the line's
    lock, and close() waited for the ticker, then for that lock, for ever, with no bound."""
    process = Script(FULL_STDERR)
    try:
        assert process.next_line() == "closed\n"
    finally:
        threading.Thread(target=process.proc.stderr.read, daemon=True).start()  # stderr read from now on
        process.open_gate()
    process.proc.wait(timeout=60)
    assert process.proc.returncode == 0
