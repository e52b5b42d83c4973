"""A native call that Ctrl-C and SIGTERM can stop.

Python runs a signal's handler between bytecodes of the main thread: while that thread waits
inside ONNX Runtime, the handler waits too, for ever under a graph that never ends (a Loop of
10**15 turns: a hostile or broken model folder). On the main thread the call runs on a helper
thread instead (one, kept: starting a thread for each call cost more than a small run), and the
main thread waits for it, where handlers run; the exception one raises asks the call to stop
(`stop`), waits for it to end, and goes on up. Elsewhere the call runs as it is: only the main
thread gets signals. The helper is a daemon thread, not a ThreadPoolExecutor's worker, which the
interpreter joins at its exit: a run a second signal left must not hold the process's exit.

A `RunBound` stops the runs made under it (`bounded`) from another thread: when its caller stops it
(a client cancelled the call), or when one run goes on past its limit. The server's query has one:
its call ran for ever under such a graph, and a client's cancellation did nothing. Other work in
hand registers with the bound in force the same way (`stopping`): a converter's worker process,
killed when the bound stops, where it had converted on to its end first.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import queue
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Executor, Future, ThreadPoolExecutor, wait
from typing import Any, TypeVar

T = TypeVar("T")

_calls: queue.SimpleQueue[tuple[Future, Callable[[], Any]]] | None = None
_helper_lock = threading.Lock()
_running = threading.Event()  # set while the helper runs a call
_SLICE_S = 0.2  # how late a signal another thread received may be handled
_steps = 0  # work ended so far (`steps`); a lost increment of two threads at once still moves it


def _serve(calls: queue.SimpleQueue[tuple[Future, Callable[[], Any]]]) -> None:
    while True:
        future, run = calls.get()
        result = None
        if not future.set_running_or_notify_cancel():  # its caller left before it began: never run
            del future, run
            continue
        _running.set()
        try:
            result = run()
        except BaseException as exc:  # noqa: BLE001 - handed to the caller, which raises it
            _running.clear()  # before the hand-over: a caller that has it sees no run going on
            future.set_exception(exc)
        else:
            _running.clear()
            future.set_result(result)
        del future, run, result  # its result (a batch's hidden states) is the caller's: not kept here until the next run


class RunStopped(Exception):
    """A run a RunBound stopped; the message says why."""


class RunBound:
    """Stops the runs made under it (`bounded`, in this context and those copied from it), any
    thread: `stop(why)`, or a run going on past `limit_s` (None: no limit), said as `overdue`. A
    run stopped raises RunStopped; one that ended before its stop took returns as it is."""

    def __init__(self, limit_s: float | None, overdue: str = "ran past its time limit and was stopped"):
        self.limit_s = limit_s
        self._overdue = overdue
        self._lock = threading.Lock()
        self._why: str | None = None
        self._stops: dict[object, Callable[[], None]] = {}

    def stop(self, why: str) -> None:
        """Stop the runs going on under this bound, and refuse any later one; the first `why` stays."""
        with self._lock:
            if self._why is None:
                self._why = why
            stops = list(self._stops.values())
        for stop in stops:
            stop()

    @property
    def why(self) -> str | None:
        """Why it was stopped; None while it was not."""
        return self._why

    def run(self, run: Callable[[], T], stop: Callable[[], None]) -> T:
        timer = None
        with self.stopping(stop):
            if self.limit_s is not None:
                timer = threading.Timer(self.limit_s, self.stop, (self._overdue,))
                timer.daemon = True
                timer.start()
            try:
                return run()
            finally:
                if timer is not None:
                    timer.cancel()

    @contextlib.contextmanager
    def stopping(self, stop: Callable[[], None]) -> Iterator[None]:
        """A piece of work in hand that `stop()` ends (a converter's process killed), from any thread,
        when this bound is stopped meanwhile: RunStopped at once if it was already, and in place of
        what the work raised once stopped. No time limit: that is for model runs (`run`)."""
        key = object()
        with self._lock:
            if self._why is not None:
                raise RunStopped(self._why)
            self._stops[key] = stop
        try:
            yield
        except Exception:
            if self._why is not None:
                raise RunStopped(self._why) from None
            raise
        finally:
            with self._lock:
                del self._stops[key]
            _stepped()

    def stopped_by(self, event: threading.Event, why: str) -> None:
        """Stop this bound, saying `why`, once `event` is set, whoever sets it (a signal's handler
        setting a watcher's stop): one daemon thread waits for it, for the event's life."""
        def wait() -> None:
            event.wait()
            self.stop(why)

        threading.Thread(target=wait, name="minirag-run-bound", daemon=True).start()


_bound: contextvars.ContextVar[RunBound | None] = contextvars.ContextVar("minirag_run_bound", default=None)


def current() -> RunBound | None:
    """The bound the runs made here are under, if any."""
    return _bound.get()


@contextlib.contextmanager
def bounded(bound: RunBound) -> Iterator[RunBound]:
    """The runs made in this context (and contexts copied from it) under `bound`."""
    token = _bound.set(bound)
    try:
        yield bound
    finally:
        _bound.reset(token)


@contextlib.contextmanager
def tightened(limit_s: float, overdue: str) -> Iterator[RunBound]:
    """The runs made in this context under a bound of their own limit, which the bound in force (if
    any, of no limit or a longer one) stopping stops too."""
    with _within(RunBound(limit_s, overdue)) as inner:
        yield inner


@contextlib.contextmanager
def _within(inner: RunBound) -> Iterator[RunBound]:
    """The runs made in this context under `inner`, which the bound in force (if any) stopping stops too."""
    with _linked(inner), bounded(inner):
        yield inner


@contextlib.contextmanager
def _linked(inner: RunBound) -> Iterator[None]:
    """`inner` stopped, while this block lasts, when the bound in force here (if any) is."""
    outer = _bound.get()
    key = object()
    if outer is not None:
        with outer._lock:
            why = outer._why
            if why is None:
                outer._stops[key] = lambda: inner.stop(outer._why or "was stopped")
        if why is not None:
            inner.stop(why)
    try:
        yield
    finally:
        if outer is not None:
            with outer._lock:
                outer._stops.pop(key, None)


def call(run: Callable[[], T], stop: Callable[[], None]) -> T:
    """`run()`, ended by `stop()` when a signal's handler raises while it runs, or when the RunBound
    it runs under says so (RunStopped)."""
    bound = _bound.get()
    try:
        if bound is not None:
            return bound.run(functools.partial(_call, run, stop), stop)
        return _call(run, stop)
    finally:
        _stepped()


def _call(run: Callable[[], T], stop: Callable[[], None]) -> T:
    if threading.current_thread() is not threading.main_thread():
        return run()
    global _calls
    with _helper_lock:
        if _calls is None:
            _calls = queue.SimpleQueue()
            threading.Thread(target=_serve, args=(_calls,), name="minirag-native-call", daemon=True).start()
    future: Future[T] = Future()
    try:  # the put too: a signal's handler may raise as it returns, while the helper begins the run
        _calls.put((future, run))
        return result_of(future)
    except BaseException:
        # A signal's handler raised, not the call itself: a run not begun never begins, one begun is stopped.
        if not future.cancel() and not future.done():
            stop()
            done(future)  # ONNX Runtime looks at its flag between kernels; a second signal leaves it
        raise


def _stepped() -> None:
    global _steps
    _steps += 1


def advanced() -> None:
    """A piece of work ended that no `call` nor `stopping` wraps: a page of a conversion, as its
    worker process tells it (ingest/isolation.py)."""
    _stepped()


def steps() -> int:
    """How many pieces of work (model runs, conversions and other work under a bound's `stopping`,
    and pieces of a conversion: `advanced`) have ended in this process so far, any thread: a count
    that moves while work goes on, which a wait for that work may take as its sign of life
    (in_flight.settled)."""
    return _steps


@contextlib.contextmanager
def _stops_as_raised() -> Iterator[None]:
    """A stop signal's exception as its handler raised it. One raised inside Condition.wait, as the
    wait takes its lock back (a second signal, following the first within milliseconds), leaves the
    lock unheld, and the `with` around the wait then fails to release it: `RuntimeError: release
    unlocked lock`, the signal's KeyboardInterrupt only its context (a model run reported it as the
    model failing)."""
    try:
        yield
    except RuntimeError as exc:
        behind = exc.__context__
        while behind is not None and not isinstance(behind, KeyboardInterrupt):
            behind = behind.__context__
        if behind is None:
            raise
        raise behind from None


def done(future: Future) -> None:
    """Wait until `future` is done, where the main thread's signal handlers still run.

    A process's signal goes to any one of its threads that does not block it. An untimed wait on a
    lock is interrupted only by a signal delivered to the waiting thread itself: one the kernel hands
    to another thread sets Python's flag, and the main thread, asleep on its lock, never looks at it
    (Ctrl-C did nothing). A wait in short slices goes back to Python between them, which runs the
    handler."""
    while not future.done():
        with _stops_as_raised():
            wait([future], timeout=_SLICE_S)


def result_of(future: Future[T]) -> T:
    """`future.result()`, waited for as `done` does."""
    done(future)
    return future.result()


def join(thread: threading.Thread, timeout: float | None = None) -> None:
    """`thread.join(timeout)`, waited for as `done` does."""
    deadline = None if timeout is None else time.monotonic() + timeout
    while thread.is_alive():
        left = _SLICE_S if deadline is None else min(_SLICE_S, deadline - time.monotonic())
        if left <= 0:
            return
        with _stops_as_raised():
            thread.join(left)


def wait_set(event: threading.Event, timeout: float | None = None) -> bool:
    """`event.wait(timeout)`, waited for as `done` does: a timed wait too sleeps through a signal the
    kernel handed to another thread, until its end (a minute, for a server's shutdown)."""
    deadline = None if timeout is None else time.monotonic() + timeout
    while not event.is_set():
        left = _SLICE_S if deadline is None else min(_SLICE_S, deadline - time.monotonic())
        if left <= 0:
            return False
        with _stops_as_raised():
            event.wait(left)
    return True


_left_aside: set[Future] = set()  # work `aside` left running (a second signal), until it ends


@contextlib.contextmanager
def aside(pool: Executor, run: Callable[[], T]) -> Iterator[Callable[[], T]]:
    """`run()` on `pool`, in a copy of this context, while this thread goes on; the call yielded
    waits for its result as `result_of` does. Its model runs are under a bound of their own, which
    the bound in force (if any) stopping stops too, with that bound's time limit.

    Where the block ends before the run did (a signal's handler raised in this thread, or its own
    work failed), that bound stops the run and the block waits for it to end, as `call` does: left
    running, the pool's thread held the pool's shutdown and the process's exit, where Ctrl-C could
    not reach them. A second signal meanwhile leaves it (`left_running` says so until it ends)."""
    outer = _bound.get()
    mine = RunBound(None) if outer is None else RunBound(outer.limit_s, outer._overdue)
    # A future of its own, made before the submission: a signal's handler may raise inside `submit`,
    # after the pool has the run and before its future would be handed back.
    future: Future[T] = Future()
    with bounded(mine):
        context = contextvars.copy_context()

    def work() -> None:
        if not future.set_running_or_notify_cancel():  # left before it began: never run
            return
        try:
            result = context.run(run)
        except BaseException as exc:  # noqa: BLE001 - handed to the caller, which raises it
            future.set_exception(exc)
        else:
            future.set_result(result)

    with _linked(mine):
        try:
            pool.submit(work)
            yield functools.partial(result_of, future)
        finally:
            # A second signal's handler may raise anywhere here, the stop's asking included (a stop
            # that prints, or a stopping thread's lock): the run is then left, said to be until it ends.
            try:
                if not future.cancel() and not future.done():
                    mine.stop("was stopped: its caller left it")
                    done(future)
            except BaseException:
                _leave(future)
                raise


def _leave(future: Future) -> None:
    """A run no longer waited for: `left_running` says so until it ends."""
    if not future.done():
        _left_aside.add(future)
        future.add_done_callback(_left_aside.discard)  # at once, here, if it has ended meanwhile


_left_calls: list[threading.Event] = []  # calls left running once stopped (`leave`), each set as it ends


def leave(ended: threading.Event) -> None:
    """A call stopped and no longer waited for, its thread blocked where no stop reaches (a lock):
    `left_running` says so until `ended` is set."""
    _left_calls[:] = [*(call for call in _left_calls if not call.is_set()), ended]


def left_running() -> bool:
    """Whether a run the main thread no longer waits for (a second signal left it, or a server left a
    stopped call: `leave`) is running or waits to: the process must end without the interpreter's
    teardown (os._exit), which destroys the native library under that run (ONNX Runtime: "terminate
    called without an active exception", SIGABRT), and joins a pool's thread running it."""
    return (_running.is_set() or (_calls is not None and not _calls.empty()) or bool(_left_aside)
            or any(not call.is_set() for call in _left_calls))


class _Pool(ThreadPoolExecutor):
    """A ThreadPoolExecutor that knows the work it was given and has not finished. Each run's future
    is its own, known before the submission: the pool starts a thread inside `submit` and waits for
    it to begin, and a signal's handler raising as that wait returns left a run going on that
    neither the pool's threads (its shutdown joins them) nor the future handed back told of."""

    def __init__(self, workers: int, name: str) -> None:
        super().__init__(max_workers=workers, thread_name_prefix=name)
        self._unfinished: set[Future] = set()
        self._unfinished_lock = threading.Lock()

    def submit(self, fn, /, *args, **kwargs):
        future: Future = Future()

        def work() -> None:
            if not future.set_running_or_notify_cancel():  # cancelled before a thread took it
                return
            try:
                result = fn(*args, **kwargs)
            except BaseException as exc:  # noqa: BLE001 - handed to the future's reader
                future.set_exception(exc)
            else:
                future.set_result(result)

        try:
            with self._unfinished_lock:
                self._unfinished.add(future)
            future.add_done_callback(self._finished)
            super().submit(work)
        except BaseException:
            future.cancel()  # never queued, or queued and not begun: it never runs
            raise
        return future

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        if cancel_futures:
            for future in self.unfinished():
                future.cancel()  # those not begun; a thread taking one later returns at once
        super().shutdown(wait=wait, cancel_futures=cancel_futures)

    def _finished(self, future: Future) -> None:
        with self._unfinished_lock:
            self._unfinished.discard(future)

    def unfinished(self) -> list[Future]:
        with self._unfinished_lock:
            return list(self._unfinished)


@contextlib.contextmanager
def pool(workers: int, name: str) -> Iterator[ThreadPoolExecutor]:
    """A ThreadPoolExecutor whose end waits for its work as `done` does: `with ThreadPoolExecutor()`
    ends in `shutdown(wait=True)`, which joins each thread with no timeout, and a Ctrl-C the kernel
    hands to another thread meanwhile did nothing until the work in hand ended (a conversion that
    does not heed its stop). A signal's handler that raises during that wait leaves the work
    running, as `aside` does (`left_running` says so until it ends): the interpreter's exit would
    join those threads too."""
    threads = _Pool(workers, name)
    try:
        yield threads
    finally:
        try:
            threads.shutdown(wait=False)  # no thread takes more work once its queue is empty
            for future in threads.unfinished():
                done(future)
        except BaseException:  # from the shutdown's first step on: a handler may raise there too
            for future in threads.unfinished():
                _leave(future)
            raise
        threads.shutdown(wait=True)  # each thread is idle now, or ends as it takes the shutdown's wake-up
