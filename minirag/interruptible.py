"""A native call that Ctrl-C and SIGTERM can stop.

Python runs a signal's handler between bytecodes of the main thread: while that thread waits
inside ONNX Runtime, the handler waits too, for ever under a graph that never ends (a Loop of
10**15 turns: a hostile or broken model folder). On the main thread the call runs on a helper
thread instead (one, kept: starting a thread for each call cost more than a small run), and the
main thread waits for it, where handlers run; the exception one raises asks the call to stop
(`stop`), waits for it to end, and goes on up. Elsewhere the call runs as it is: only the main
thread gets signals. The helper is a daemon thread, not a ThreadPoolExecutor's worker, which the
interpreter joins at its exit: a run a second signal left must not hold the process's exit.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any, TypeVar

T = TypeVar("T")

_calls: queue.SimpleQueue[tuple[Future, Callable[[], Any]]] | None = None
_helper_lock = threading.Lock()
_running = threading.Event()  # set while the helper runs a call


def _serve(calls: queue.SimpleQueue[tuple[Future, Callable[[], Any]]]) -> None:
    while True:
        future, run = calls.get()
        result = None
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


def call(run: Callable[[], T], stop: Callable[[], None]) -> T:
    """`run()`, ended by `stop()` when a signal's handler raises while it runs."""
    if threading.current_thread() is not threading.main_thread():
        return run()
    global _calls
    with _helper_lock:
        if _calls is None:
            _calls = queue.SimpleQueue()
            threading.Thread(target=_serve, args=(_calls,), name="minirag-native-call", daemon=True).start()
    future: Future[T] = Future()
    _calls.put((future, run))
    try:
        return future.result()
    except BaseException:
        if not future.done():  # a signal's handler raised while it ran, not the call itself
            stop()
            future.exception()  # ONNX Runtime looks at its flag between kernels; a second signal leaves it
        raise


def left_running() -> bool:
    """Whether a run the main thread no longer waits for (a second signal left it) is running or waits
    to: the process must end without the interpreter's teardown (os._exit), which destroys the native
    library under that run (ONNX Runtime: "terminate called without an active exception", SIGABRT)."""
    return _running.is_set() or (_calls is not None and not _calls.empty())
