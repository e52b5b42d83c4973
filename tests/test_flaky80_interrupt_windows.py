"""A signal's handler raising at the moment a run is handed to another thread (interruptible.py).

Python runs a handler between bytecodes of the main thread, in the middle of any Python code: in a
queue's or a pool's `submit`, after the other thread has the run and before the caller has anything
to stop it by. On a loaded machine that thread begins the run at once while the main thread waits
for a core, and a Ctrl-C sent as the run begins lands there (test_flaky80_query_interrupt's second
Ctrl-C test, under load: the first Ctrl-C asked nothing to stop)."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

from minirag import interruptible


def _blocking(began: threading.Event, stopped: threading.Event, ended: threading.Event):
    def run() -> None:
        began.set()
        stopped.wait(60)  # a failure, not a test that waits for ever
        ended.set()

    return run


def test_aside_stops_and_waits_for_its_run_when_a_handler_raises_inside_the_submission():
    began, stopped, ended = threading.Event(), threading.Event(), threading.Event()
    run = _blocking(began, stopped, ended)

    class RaisingInSubmit(ThreadPoolExecutor):
        def submit(self, fn, /, *args, **kwargs):
            handed = super().submit(fn, *args, **kwargs)
            began.wait(60)  # the pool's thread has begun the run
            raise KeyboardInterrupt  # as Ctrl-C's handler does, before the future is handed back
            return handed

    with RaisingInSubmit(max_workers=1) as pool:
        with pytest.raises(KeyboardInterrupt), \
                interruptible.aside(pool, lambda: interruptible.call(run, stopped.set)):
            pytest.fail("the block is never entered")
        assert stopped.is_set() and ended.is_set()  # asked to stop, and waited for
    assert not interruptible.left_running()


def test_aside_never_begins_a_run_its_caller_left_before_the_pool_took_it():
    ran = threading.Event()
    gate = threading.Event()
    with ThreadPoolExecutor(max_workers=1) as pool:
        pool.submit(gate.wait, 60)  # the pool's one thread is busy: the run waits in its queue
        with pytest.raises(KeyboardInterrupt), interruptible.aside(pool, ran.set):
            raise KeyboardInterrupt
        gate.set()
    assert not ran.is_set()


def test_call_stops_and_waits_for_its_run_when_a_handler_raises_as_the_run_is_handed_over(monkeypatch):
    if threading.current_thread() is not threading.main_thread():
        pytest.skip("the helper thread is used from the main thread only")
    began, stopped, ended = threading.Event(), threading.Event(), threading.Event()
    interruptible.call(lambda: None, lambda: None)  # the helper thread is up, reading its queue
    calls = interruptible._calls

    class RaisingInPut:
        def put(self, item) -> None:
            calls.put(item)
            began.wait(60)  # the helper has begun the run
            raise KeyboardInterrupt  # as Ctrl-C's handler does, as the put returns

        def empty(self) -> bool:
            return calls.empty()

    monkeypatch.setattr(interruptible, "_calls", RaisingInPut())
    with pytest.raises(KeyboardInterrupt):
        interruptible.call(_blocking(began, stopped, ended), stopped.set)
    assert stopped.is_set() and ended.is_set()  # asked to stop, and waited for
    assert not interruptible.left_running()


def test_a_pools_exit_waits_for_a_run_whose_submission_a_handler_interrupted(monkeypatch):
    """The pool's thread starts inside `submit` (Thread.start waits for it to begin): a Ctrl-C handled
    as that wait returns left the run known to neither the pool (its threads, which its shutdown
    joins) nor interruptible.pool (its unfinished work), and the block's exit went on while the run
    did: its caller said it had stopped with a conversion running (test_waits81_ctrl_c, under load)."""
    began, stopped, ended = threading.Event(), threading.Event(), threading.Event()
    run = _blocking(began, stopped, ended)
    start = threading.Thread.start

    def start_then_raise(thread: threading.Thread) -> None:
        start(thread)
        if thread.name.startswith("minirag-test-pool"):
            began.wait(60)  # the thread has taken the run
            raise KeyboardInterrupt  # as Ctrl-C's handler does, as the start's wait returns

    monkeypatch.setattr(threading.Thread, "start", start_then_raise)
    with pytest.raises(KeyboardInterrupt), interruptible.pool(1, "minirag-test-pool") as pool:
        try:
            pool.submit(run)
        finally:
            monkeypatch.undo()
            threading.Timer(0.5, stopped.set).start()  # the run ends half a second later
    assert ended.is_set()  # the exit waited for the run
    assert not interruptible.left_running()
