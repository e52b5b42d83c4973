"""A native call that Ctrl-C and SIGTERM can stop.

Python runs a signal's handler between bytecodes of the main thread: while that thread waits
inside ONNX Runtime, the handler waits too, for ever under a graph that never ends (a Loop of
10**15 turns: a hostile or broken model folder). On the main thread the call runs on a helper
thread instead (one, kept: starting a thread for each call cost more than a small run), and the
main thread waits for it, where handlers run; the exception one raises asks the call to stop
(`stop`), waits for it to end, and goes on up. Elsewhere the call runs as it is: only the main
thread gets signals.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

T = TypeVar("T")

_helper: ThreadPoolExecutor | None = None
_helper_lock = threading.Lock()


def call(run: Callable[[], T], stop: Callable[[], None]) -> T:
    """`run()`, ended by `stop()` when a signal's handler raises while it runs."""
    if threading.current_thread() is not threading.main_thread():
        return run()
    global _helper
    with _helper_lock:
        if _helper is None:
            _helper = ThreadPoolExecutor(max_workers=1, thread_name_prefix="minirag-native-call")
    future = _helper.submit(run)
    try:
        return future.result()
    except BaseException:
        if not future.done():  # a signal's handler raised while it ran, not the call itself
            stop()
            future.exception()  # ONNX Runtime looks at its flag between kernels; a second signal leaves it
        raise
