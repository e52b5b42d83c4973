"""Background sync jobs of one process (the server's sync_start): ids, live progress, results."""

from __future__ import annotations

import itertools
import logging
import os
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from minirag import interruptible
from minirag.display import NOTICE
from minirag.errors import MiniragError, ModelRunStopped, SyncLocked
from minirag.ingest import run_log
from minirag.ingest.progress import Progress
from minirag.store.lock import SyncLock

log = logging.getLogger(__name__)

REPORTER_JOIN_S = 5.0  # how long a job's end waits for its progress reporter's line in hand


@dataclass
class SyncJob:
    job_id: str
    progress: Progress
    state: str = "running"  # running | succeeded | failed | cancelled
    error: str | None = None
    cancel_reason: str | None = None  # set when asked to stop; the state says "cancelled" once it has
    finished_at: float | None = None
    looked_in: str = ""  # the roots or the path the job syncs, as a note that it found nothing names them
    _done: threading.Event = field(default_factory=threading.Event, repr=False)
    # The job's model runs: its thread runs under it, and a cancel stops the run in hand. No time limit: a
    # big batch on a slow machine may take long.
    _runs: interruptible.RunBound = field(default_factory=lambda: interruptible.RunBound(None), repr=False)

    def wait(self, timeout: float | None = None) -> bool:
        return self._done.wait(timeout)

    def cancel(self, reason: str) -> None:
        """Stop between files, or the model run in hand (the files of its group embedded whole by then
        are written, the rest left); what was written stays, the next sync does the rest."""
        if self.state == "running" and self.cancel_reason is None:
            self.cancel_reason = reason
            self.progress.stop.set()
            self._runs.stop(f"was stopped: {reason}")


class SyncJobs:
    """Background sync jobs of one server process. The cross-process lock is taken
    before the job starts, so a refusal is immediate and names the holder."""

    KEEP = 16

    def __init__(self, db_path: Path):
        self.db_path = db_path
        self._jobs: dict[str, SyncJob] = {}
        self._lock = threading.Lock()
        self._counter = itertools.count(1)

    def start(self, work: Callable[[SyncLock, Progress], None],
              on_change: Callable[[SyncJob], None] | None = None, what: str = "syncing every root",
              looked_in: str = "") -> SyncJob:
        """`what`: the job's work in words, for the line that says it started; `looked_in`: SyncJob's."""
        try:
            lock = SyncLock(self.db_path).acquire()  # raises SyncLocked at once if held
        except SyncLocked:
            # Held by a job of this server: its jobId, which a client can follow and cancel, not only a PID.
            running = self.running()
            if running is None:
                raise
            raise SyncLocked(f"sync job {running.job_id} of this server (pid {os.getpid()}) is running: sync_status "
                             "with that jobId follows it, sync_cancel stops it") from None
        job = SyncJob(job_id=f"sync-{next(self._counter)}-{uuid.uuid4().hex[:8]}", progress=Progress(),
                      looked_in=looked_in)

        ended = threading.Event()

        def report() -> None:
            while not ended.wait(run_log.LOG_EVERY_S):
                log.warning("%s: %s", job.job_id, job.progress.live_line(), extra=NOTICE)

        def target() -> None:
            log.warning("%s: %s", job.job_id, what, extra=NOTICE)
            reporter = threading.Thread(target=report, name=f"{job.job_id}-log", daemon=True)
            reporter.start()
            try:
                with interruptible.bounded(job._runs):
                    work(lock, job.progress)
                job.state = "cancelled" if job.progress.stop.is_set() else "succeeded"
            except Exception as exc:  # noqa: BLE001 - reported through sync_status
                if isinstance(exc, ModelRunStopped) and job.progress.stop.is_set():
                    job.state = "cancelled"  # the run in hand, stopped: its group of files was left unwritten
                else:
                    if isinstance(exc, MiniragError):  # a reason to show, not a bug: one line
                        log.error("sync job %s failed: %s", job.job_id, exc)
                    else:
                        log.exception("sync job %s failed", job.job_id)
                    job.state = "failed"
                    job.error = str(exc) if isinstance(exc, MiniragError) else f"{type(exc).__name__}: {exc}"
            finally:
                job.progress.end()
                lock.release()
                job.finished_at = time.time()
                ended.set()
                # Its last line before the end's, and the end's before a waiter wakes; bounded: a reporter
                # whose write does not come back holds neither the job's end nor a shutdown's wait for it.
                interruptible.join(reporter, REPORTER_JOIN_S)
                progress = job.progress
                if job.state != "failed":  # a failed job's end is its error's line, above
                    log.warning("%s %s: %s in %s s%s", job.job_id, job.state, progress.counts(),
                                progress.elapsed_seconds(), progress.git_words(), extra=NOTICE)
                job._done.set()
                if on_change:
                    on_change(job)

        with self._lock:
            self._jobs[job.job_id] = job
            while len(self._jobs) > self.KEEP:
                self._jobs.pop(next(iter(self._jobs)))
        threading.Thread(target=target, name=job.job_id, daemon=True).start()
        return job

    def stop_all(self, timeout: float = 60.0) -> None:
        """Ask running jobs to stop (the model run in hand included) and wait for them, so nothing
        closes the index under a job's feet."""
        with self._lock:
            jobs = [j for j in self._jobs.values() if j.state == "running"]
        for job in jobs:
            job.cancel("the server is shutting down")
        deadline = time.monotonic() + timeout
        for job in jobs:
            interruptible.wait_set(job._done, max(0.0, deadline - time.monotonic()))

    def running(self) -> SyncJob | None:
        """The job of this server that is running, if one is."""
        with self._lock:
            return next((j for j in self._jobs.values() if j.state == "running"), None)

    def get(self, job_id: str) -> SyncJob | None:
        with self._lock:
            return self._jobs.get(job_id)
