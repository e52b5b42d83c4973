"""A Ctrl-C whose handler raises as a conversion takes its worker from the pool leaves the pool as it
was: the worker stays the pool's, idle, for the next file. It was lost, counted as live and known to
nobody: a pool of one then waited for ever for it, one of two after two such Ctrl-Cs (a server's calls,
or one test's Ctrl-C with the process-global pool of the tests after it in that process)."""

from __future__ import annotations

import subprocess
import threading

import pytest

from minirag.ingest import isolation

LIMITS = isolation.Limits(2048, 60, 60)


def _converts(pool: isolation.ConverterPool, name: str) -> str:
    """`name`'s markdown, or why not: a pool that no worker comes back to is waited on for 30 s, not for ever."""
    stop = threading.Event()
    timer = threading.Timer(30, stop.set)
    timer.start()
    try:
        return pool.run("document", (f"# {name}\n".encode(), ".md", name), name, LIMITS, stop=stop).markdown
    except isolation.ConversionStopped:
        return "no worker came back to the pool"
    finally:
        timer.cancel()


class _RaisingOnce(threading.Condition):
    """The pool's condition, whose first release from now on is followed by a signal's handler raising."""

    armed = False

    def __exit__(self, *exc):
        super().__exit__(*exc)
        if self.armed:
            self.armed = False
            raise KeyboardInterrupt


def test_flaky86_a_ctrl_c_as_an_idle_workers_check_returns_leaves_it_to_the_next_file(monkeypatch):
    pool = isolation.ConverterPool(1)
    try:
        assert _converts(pool, "a.md") == "# a.md\n"
        poll = subprocess.Popen.poll

        def poll_then_raise(process):
            monkeypatch.setattr(subprocess.Popen, "poll", poll)
            poll(process)
            raise KeyboardInterrupt  # as Ctrl-C's handler does, as the check returns

        monkeypatch.setattr(subprocess.Popen, "poll", poll_then_raise)
        with pytest.raises(KeyboardInterrupt):
            pool.run("document", (b"# b\n", ".md", "b.md"), "b.md", LIMITS)
        assert _converts(pool, "c.md") == "# c.md\n"
        assert pool.started == 1
    finally:
        pool.close()


@pytest.mark.parametrize("idle", [True, False], ids=["idle worker", "new worker"])
def test_flaky86_a_ctrl_c_as_the_pool_lets_go_of_its_lock_after_a_take_leaves_the_worker_to_the_next_file(idle):
    pool = isolation.ConverterPool(1)
    pool._changed = _RaisingOnce()
    try:
        if idle:
            assert _converts(pool, "a.md") == "# a.md\n"
        pool._changed.armed = True
        with pytest.raises(KeyboardInterrupt):
            pool.run("document", (b"# b\n", ".md", "b.md"), "b.md", LIMITS)
        assert _converts(pool, "c.md") == "# c.md\n"
    finally:
        pool.close()
    assert pool._live == 0
