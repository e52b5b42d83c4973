"""Every converter runs in a child process, so a hostile document costs one file, never minirag.

A parser given a tiny bomb can take gigabytes or minutes, or abort the process
outright ("Cannot recover from MemoryErrors"). So conversion happens in worker
processes (convert_worker.py) under an address-space limit and a CPU-time limit
they set on themselves per file, and a wall-time limit the parent enforces by
killing the worker. A worker that dies, is killed or runs past a limit makes that
file's ConversionFailed, with a reason naming the setting; the parent, the server
and the watcher go on.

The workers are plain `python -m` subprocesses, not `multiprocessing`: `fork` would
copy a parent that holds an ONNX session and threads, and `spawn`/`forkserver` re-run
the parent's `__main__`. They are reused from file to file (a start costs an
interpreter and the converter imports, once per worker) and each converting thread
checks one out, so conversions run in parallel past the GIL.
"""

from __future__ import annotations

import atexit
import contextlib
import io
import json
import logging
import os
import pickle
import select
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import cast

from minirag import interruptible
from minirag.chunking.rows import RowMap
from minirag.errors import ConversionFailed
from minirag.ingest.convert_worker import _HEADER, max_answer_bytes
from minirag.ingest.converted import Converted
from minirag.ingest.ocr import MAX_OCR_PAGES

log = logging.getLogger(__name__)

MAX_WORKERS = 2
EXTRA_WORKER_AFTER = 0.5  # seconds a file waits for a busy worker before another one starts
# Numeric libraries the converters pull in (pandas -> numpy) start a thread pool per core, each
# reserving address space; one thread each keeps a worker's footprint small and its limit honest.
_WORKER_ENV = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
               "PYTHONDONTWRITEBYTECODE": "1"}


# Settings a converter reads from the environment itself, sent with each request: a worker
# outlives changes to the parent's environment (a test's, or a server's MINIRAG_OCR). XDG_CACHE_HOME
# places the OCR cache: a worker must read and write the cache its parent would. The locale's
# variables choose Tesseract's default languages (ocr.py).
REQUEST_ENV = ("MINIRAG_OCR", "MINIRAG_OCR_LANGUAGES", "XDG_CACHE_HOME", "LC_ALL", "LC_MESSAGES", "LANG")
# A progress frame ({"page": i, "pages": n}, {"progress": n}) is never longer; a longer frame is the answer.
MAX_PROGRESS_FRAME = 64
# A worker sends OCR's page frames no faster than OCR reads pages, and its other reports at most one
# each convert_worker.PROGRESS_EVERY_S. One whose frames for a request pass REPORTS_AT_ONCE, and
# REPORTS_PER_S more for each second the request has run, floods the parent's converting thread (each
# frame is a read there), and is stopped.
REPORTS_AT_ONCE = MAX_OCR_PAGES
REPORTS_PER_S = 100
# No answer is longer (convert_worker.max_answer_bytes); a frame said to be is refused before it is read.
MAX_ANSWER_BYTES = max_answer_bytes()


@dataclass(frozen=True)
class Limits:
    """What one file's conversion may use (config.py's MINIRAG_CONVERT_* settings)."""

    memory_mb: int
    cpu_seconds: int
    wall_seconds: int


def limits_of(config) -> Limits:
    return Limits(config.convert_memory_mb, config.convert_cpu_seconds, config.convert_timeout)


class ConversionStopped(Exception):
    """The run that asked for the conversion was stopped (sync_cancel, Ctrl-C, a server closing, a
    client cancelling its call): the worker was ended mid-file. Nothing is wrong with the file; the
    next run converts it. Ended by the run's `stop` event, or by the RunBound it runs under
    (interruptible: a call's cancellation, which has no event of its own), which `args[0]` names."""


# How often a wait for a worker, or for its answer, looks at its run's stop event: a stop ends the
# conversion within this, where the worker alone could take MINIRAG_CONVERT_TIMEOUT (minutes).
STOP_CHECK_S = 0.1


class _WorkerGone(Exception):
    """The worker ended, or was ended, before it answered."""


class _Unreadable(Exception):
    """The worker sent a frame that is neither a progress frame nor an answer."""


class _Flooded(Exception):
    """The worker sent progress frames faster than any conversion makes progress."""


class _TooLong(Exception):
    """The worker announced a frame longer than any answer (its length: args[0])."""


class _Worker:
    killed = False  # by kill(): the run it converted for was stopped

    def __init__(self) -> None:
        env = {**os.environ, **_WORKER_ENV,
               "PYTHONPATH": os.pathsep.join(p for p in sys.path if isinstance(p, str) and p)}
        # A worker's dying words ("Fatal Python error: Cannot recover from MemoryErrors" and a stack)
        # are not for the user, whose one line says what happened; with -v they are shown.
        # -P: `-m` would put the working directory first on the module path, and that may be the folder
        # being indexed (`minirag ingest .` in a cloned repository): its `struct.py` or its own
        # `minirag/` would run as the user. Started in the filesystem's root, which holds no module.
        self.process = subprocess.Popen(
            [sys.executable, "-P", "-m", "minirag.ingest.convert_worker"], stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, stderr=None if log.isEnabledFor(logging.INFO) else subprocess.DEVNULL, env=env,
            close_fds=True, cwd=os.path.abspath(os.sep))

    # Both are pipes, buffered (Popen's default bufsize): never None.
    @property
    def stdin(self) -> io.BufferedWriter:
        return cast(io.BufferedWriter, self.process.stdin)

    @property
    def stdout(self) -> io.BufferedReader:
        return cast(io.BufferedReader, self.process.stdout)

    def call(self, request: bytes, wall_seconds: float, on_page: Callable[[int, int], None] | None = None,
             stop: threading.Event | None = None) -> dict:
        """The worker's answer to `request`; its progress frames before it go to `on_page` (OCR's
        pages), and each counts as a piece of work ended (interruptible.advanced). ConversionStopped
        once `stop` is set."""
        began = time.monotonic()
        deadline = began + wall_seconds
        reports = 0
        try:
            self.stdin.write(_HEADER.pack(len(request)))
            self.stdin.write(request)  # not joined to the header: a document may be 100 MB
            self.stdin.flush()
        except (BrokenPipeError, OSError):
            raise _WorkerGone from None
        while True:
            (size,) = _HEADER.unpack(self._read(_HEADER.size, deadline, stop))
            if size > MAX_ANSWER_BYTES:
                raise _TooLong(size)
            try:
                frame = json.loads(self._read(size, deadline, stop).decode("utf-8", "surrogatepass"))
            except ValueError:
                raise _Unreadable from None
            if not isinstance(frame, dict):
                raise _Unreadable
            if size > MAX_PROGRESS_FRAME or not frame.keys() & {"page", "progress"}:
                if not _is_answer(frame):
                    raise _Unreadable
                return frame
            if "progress" in frame:
                done = frame["progress"]
                if frame.keys() != {"progress"} or type(done) is not int or done < 1:
                    raise _Unreadable
            else:
                page, pages = frame.get("page"), frame.get("pages")
                if (frame.keys() != {"page", "pages"} or type(page) is not int or type(pages) is not int
                        or not 1 <= page <= pages <= MAX_OCR_PAGES):
                    raise _Unreadable
            if self.killed:  # read from the pipe after its run was stopped: no work going on
                continue
            reports += 1
            if reports > REPORTS_AT_ONCE + REPORTS_PER_S * (time.monotonic() - began):
                raise _Flooded
            interruptible.advanced()
            if "page" in frame and on_page is not None:
                on_page(frame["page"], frame["pages"])

    def _read(self, size: int, deadline: float, stop: threading.Event | None) -> bytes:
        out = self.stdout
        pieces, got = [], 0
        while got < size:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError
            if stop is not None and stop.is_set():
                raise ConversionStopped
            if not select.select([out], [], [], left if stop is None else min(left, STOP_CHECK_S))[0]:
                continue
            piece = out.read1(size - got)
            if not piece:
                raise _WorkerGone
            pieces.append(piece)
            got += len(piece)
        return b"".join(pieces)

    def kill(self) -> None:
        """End the worker mid-conversion, from any thread: the converting thread's read of its answer
        then finds the pipe closed, and the converting thread reaps it (end)."""
        self.killed = True
        with contextlib.suppress(OSError):
            self.process.kill()

    def end(self) -> int | None:
        """Kill the worker and reap it; its exit status (negative: the signal that ended it)."""
        if self.process.poll() is None:
            self.process.kill()
        try:
            return self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:  # pragma: no cover - a process stuck in the kernel
            return None
        finally:
            for stream in (self.stdin, self.stdout):
                with contextlib.suppress(OSError):
                    stream.close()

    def retire(self) -> None:
        """Let an idle worker finish: its stdin closing ends its loop."""
        with contextlib.suppress(OSError):
            self.stdin.close()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(timeout=5)
        self.end()


class _Conversion:
    """The stop of one conversion under a bound: its worker killed while the conversion goes on, and
    never after. RunBound.stop calls the stops it took after letting go of its lock, and a thread the
    machine ran late called this one once the worker was back in the pool, idle or converting the next
    file, for whatever run."""

    def __init__(self, worker: _Worker) -> None:
        self._worker = worker
        self._lock = threading.Lock()
        self._over = False

    def kill(self) -> None:
        with self._lock:
            if not self._over:
                self._worker.kill()

    def over(self) -> None:
        """The conversion has ended: a stop from now on does nothing (and `killed` says whether one came before)."""
        with self._lock:
            self._over = True


class ConverterPool:
    """Worker processes, started as needed and kept for the next file.

    A second worker starts only when a file has waited EXTRA_WORKER_AFTER for the first: most
    files convert in milliseconds, and each worker pays the converter imports (markitdown,
    pandas: seconds) on its own. Before isolation the converting threads shared one
    interpreter's GIL, so one busy worker converts no slower than they did.
    """

    def __init__(self, max_workers: int = MAX_WORKERS) -> None:
        self.max_workers = max_workers
        self._idle: list[_Worker] = []
        self._live = 0  # workers started and not ended: idle or checked out
        self._changed = threading.Condition()
        self.started = 0  # workers started in this process's life (tests count on reuse)

    def _take(self, stop: threading.Event | None, taken: list[_Worker | None]) -> _Worker:
        """An idle worker, or a new one while fewer than max_workers run and none came free for
        EXTRA_WORKER_AFTER; ConversionStopped once `stop` is set, so that threads of a stopped run
        waiting here start no worker only to end it.

        A signal's handler may raise at any call here, the lock's release included: the worker is in
        `taken[0]` from the moment it leaves the idle list (stores and deletions run no handler), for
        the caller to hand back, and a start that never made its worker is uncounted."""
        waited_until = time.monotonic() + EXTRA_WORKER_AFTER
        starting = False
        try:
            with self._changed:
                while True:
                    if stop is not None and stop.is_set():
                        raise ConversionStopped
                    while self._idle:
                        worker = self._idle[-1]
                        if worker.process.poll() is None:
                            taken[0] = worker
                            del self._idle[-1]
                            return worker
                        del self._idle[-1]
                        self._live -= 1
                        worker.end()
                    left = waited_until - time.monotonic()
                    if self._live == 0 or (self._live < self.max_workers and left <= 0):
                        self._live += 1
                        self.started += 1
                        starting = True
                        break
                    wait = left if left > 0 and self._live < self.max_workers else None
                    if stop is not None:
                        wait = STOP_CHECK_S if wait is None else min(wait, STOP_CHECK_S)
                    self._changed.wait(wait)
            taken[0] = worker = _Worker()
            return worker
        except BaseException:
            if starting and taken[0] is None:
                self._ended()
            raise

    def _ended(self) -> None:
        with self._changed:
            self._live -= 1
            self._changed.notify()

    def _give_back(self, worker: _Worker) -> None:
        with self._changed:
            self._idle.append(worker)
            self._changed.notify()

    def run(self, op: str, args: tuple, name: str, limits: Limits, started: Callable[[], None] | None = None,
            on_page: Callable[[int, int], None] | None = None, stop: threading.Event | None = None) -> Converted:
        """`op` (convert_worker._run) on `args` in a worker; ConversionFailed when it fails or
        runs past a limit, the reason naming the setting. `started` is called once a worker is
        ready, right before the conversion starts (not while a worker starts or is waited for);
        `on_page(page, pages)` as OCR starts on each page. Once `stop` is set, or the RunBound in
        force (interruptible.current) is stopped, the worker is ended and ConversionStopped raised."""
        request = pickle.dumps((op, args, name, limits.memory_mb * 1024 * 1024, limits.cpu_seconds,
                                {key: os.environ.get(key) for key in REQUEST_ENV}),
                               protocol=pickle.HIGHEST_PROTOCOL)
        bound = interruptible.current()
        if bound is not None and bound.why is not None:
            raise ConversionStopped(f"{name}: its conversion {bound.why}")
        taken: list[_Worker | None] = [None]
        try:
            worker = self._take(stop, taken)
        except BaseException:
            if taken[0] is not None:  # taken as a signal's handler raised: it never had this file
                self._give_back(taken[0])
            raise
        try:
            if started is not None:
                started()
            if bound is None:
                answer = worker.call(request, limits.wall_seconds, on_page, stop)
            else:
                conversion = _Conversion(worker)
                try:
                    with bound.stopping(conversion.kill):
                        answer = worker.call(request, limits.wall_seconds, on_page, stop)
                finally:
                    conversion.over()
                if worker.killed:  # stopped as it answered: its answer is not wanted
                    raise interruptible.RunStopped(bound.why)
        except interruptible.RunStopped as exc:
            worker.end()
            self._ended()
            raise ConversionStopped(f"{name}: its conversion {exc}") from None
        except ConversionStopped:
            worker.end()
            self._ended()
            raise
        except TimeoutError:
            worker.end()
            self._ended()
            raise ConversionFailed(f"{name}: conversion took longer than {limits.wall_seconds} s "
                                   "(MINIRAG_CONVERT_TIMEOUT); stopped") from None
        except _WorkerGone:
            status = worker.end()
            self._ended()
            raise ConversionFailed(_death(name, status, limits)) from None
        except _Unreadable:
            worker.end()
            self._ended()
            raise ConversionFailed(f"{name}: the converter sent something unreadable; stopped") from None
        except _Flooded:
            worker.end()
            self._ended()
            raise ConversionFailed(f"{name}: the converter sent progress reports faster than any conversion "
                                   "makes progress; stopped") from None
        except _TooLong as exc:
            worker.end()
            self._ended()
            raise ConversionFailed(f"{name}: the converter's answer is {exc.args[0]:,} bytes, over the "
                                   f"{MAX_ANSWER_BYTES:,} any document's may take; stopped") from None
        except BaseException:  # KeyboardInterrupt mid-answer: the worker's state is unknown
            worker.end()
            self._ended()
            raise
        if "memory" in answer:
            worker.end()
            self._ended()
            raise ConversionFailed(_out_of_memory(name, limits))
        self._give_back(worker)
        if "failed" in answer:
            raise ConversionFailed(answer["failed"])
        return Converted(markdown=answer["markdown"], metadata_title=answer["title"],
                         warnings=tuple(answer["warnings"]), note=answer["note"], frontmatter=answer["frontmatter"],
                         rows=RowMap.from_json(answer["rows"]))

    def close(self) -> None:
        """Let the idle workers go (checked-out ones end when their conversion comes back)."""
        with self._changed:
            idle, self._idle = self._idle, []
            self._live -= len(idle)
        for worker in idle:
            worker.retire()


def _is_answer(frame: dict) -> bool:
    """Whether a frame is one of the answers convert_worker.serve sends."""
    if frame.keys() in ({"memory"}, {"failed"}):
        return all(isinstance(value, str) for value in frame.values())
    return (frame.keys() == {"markdown", "title", "warnings", "note", "frontmatter", "rows"}
            and isinstance(frame["markdown"], str) and isinstance(frame["title"], str | None)
            and isinstance(frame["note"], str) and isinstance(frame["frontmatter"], bool)
            and isinstance(frame["warnings"], list) and all(isinstance(w, str) for w in frame["warnings"]))


def _out_of_memory(name: str, limits: Limits) -> str:
    return (f"{name}: conversion needs more than {limits.memory_mb} MiB of memory "
            "(MINIRAG_CONVERT_MEMORY_MB); refused")


def _death(name: str, status: int | None, limits: Limits) -> str:
    if status == -signal.SIGXCPU:
        return (f"{name}: conversion used more than {limits.cpu_seconds} s of CPU "
                "(MINIRAG_CONVERT_CPU_SECONDS); stopped")
    if status is not None and status < 0:
        what = signal.Signals(-status).name if -status in signal.valid_signals() else f"signal {-status}"
        # Python aborts (SIGABRT) when it cannot recover from a MemoryError.
        hint = "; most likely out of memory (MINIRAG_CONVERT_MEMORY_MB)" if status == -signal.SIGABRT else ""
        return f"{name}: the converter crashed ({what}){hint}"
    return f"{name}: the converter exited unexpectedly (status {status})"


POOL = ConverterPool()
atexit.register(POOL.close)


def convert_isolated(op: str, args: tuple, name: str, limits: Limits,
                     started: Callable[[], None] | None = None,
                     on_page: Callable[[int, int], None] | None = None,
                     stop: threading.Event | None = None) -> Converted:
    return POOL.run(op, args, name, limits, started, on_page=on_page, stop=stop)
