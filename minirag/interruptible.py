"""A native call that Ctrl-C and SIGTERM can stop.

Python runs a signal's handler between bytecodes of the main thread: while that thread waits
inside ONNX Runtime, the handler waits too, for ever under a graph that never ends (a Loop of
10**15 turns: a hostile or broken model folder). On the main thread the call runs on a helper
thread instead, and the main thread waits in a join, where handlers run; the exception one
raises asks the call to stop (`stop`), waits for it to end, and goes on up. Elsewhere the call
runs as it is: only the main thread gets signals.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def call(run: Callable[[], T], stop: Callable[[], None]) -> T:
    """`run()`, ended by `stop()` when a signal's handler raises while it runs."""
    if threading.current_thread() is not threading.main_thread():
        return run()
    done: list[T] = []
    failed: list[BaseException] = []
    ended = threading.Event()  # not Thread.join: one a signal interrupted may return at once after

    def target() -> None:
        try:
            done.append(run())
        except BaseException as exc:  # noqa: BLE001 - handed to the waiting thread as it is
            failed.append(exc)
        finally:
            ended.set()

    threading.Thread(target=target, name="minirag-native-call", daemon=True).start()
    try:
        ended.wait()
    except BaseException:
        stop()
        ended.wait()  # ONNX Runtime looks at its flag between kernels; a second signal leaves it
        raise
    if failed:
        raise failed[0]
    return done[0]
