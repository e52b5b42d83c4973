"""A second Ctrl-C whose handler raises while the first one's stop is being asked, or while a pool's
exit is being set up, before the wait it would leave: the run goes on, and `left_running` must say
so, or the process's exit joins the thread running it, for ever under a model run that does not heed
its stop. Seen as test_flaky80_query_interrupt's second-Ctrl-C test timing out under load: the test
sends the second Ctrl-C as soon as the first one's stop says it was asked, and a loaded machine ran the
main thread's handler before that thread reached its wait."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
from test_flaky80_interrupt_windows import _blocking

from minirag import interruptible


def test_flaky86_a_second_ctrl_c_as_asides_stop_is_asked_leaves_its_run_said_to_be_running():
    began, stopped, ended = threading.Event(), threading.Event(), threading.Event()
    run = _blocking(began, stopped, ended)

    def asked_to_stop() -> None:  # a stop the run does not heed, asked in the main thread
        raise KeyboardInterrupt  # as the second Ctrl-C's handler does, as the stop returns

    with ThreadPoolExecutor(max_workers=1) as pool:
        try:
            with pytest.raises(KeyboardInterrupt), \
                    interruptible.aside(pool, lambda: interruptible.call(run, asked_to_stop)):
                assert began.wait(60)
                raise KeyboardInterrupt  # the first Ctrl-C
            assert not ended.is_set() and interruptible.left_running()
        finally:
            stopped.set()
    assert ended.is_set() and not interruptible.left_running()


def test_flaky86_a_second_ctrl_c_as_a_pools_exit_begins_leaves_its_run_said_to_be_running(monkeypatch):
    began, stopped, ended = threading.Event(), threading.Event(), threading.Event()
    shutdown = interruptible._Pool.shutdown

    def shutdown_then_raise(pool, wait: bool = True, **kwargs) -> None:
        shutdown(pool, wait=wait, **kwargs)
        if not wait:
            monkeypatch.setattr(interruptible._Pool, "shutdown", shutdown)
            raise KeyboardInterrupt  # as Ctrl-C's handler does, as the exit's first step returns

    monkeypatch.setattr(interruptible._Pool, "shutdown", shutdown_then_raise)
    try:
        with pytest.raises(KeyboardInterrupt), interruptible.pool(1, "minirag-test-pool") as pool:
            pool.submit(_blocking(began, stopped, ended))
            assert began.wait(60)
        assert not ended.is_set() and interruptible.left_running()
    finally:
        stopped.set()
    assert ended.wait(60)
    for thread in threading.enumerate():
        if thread.name.startswith("minirag-test-pool"):
            thread.join(60)
    assert not interruptible.left_running()
