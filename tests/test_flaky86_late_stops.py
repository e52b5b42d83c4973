"""A bound's stop reaches a conversion's worker only while that conversion goes on. RunBound.stop
calls the stops it found registered after letting go of its lock: a stopping thread the machine ran
late (a watcher's stop, a cancelled job under load) killed the worker after its conversion had ended
and the pool had it back, idle or already converting the next file, whatever run that was for: that
file failed, "the converter crashed (SIGKILL)", and a sync left it out."""

from __future__ import annotations

import threading

from minirag import interruptible
from minirag.ingest import isolation

LIMITS = isolation.Limits(2048, 60, 60)


class _LateLock:
    """A bound's lock whose release by the stopping thread hands over to the test before that thread
    goes on (to call the stops it took): the point where a loaded machine may leave it for long."""

    def __init__(self, stopper: str, took: threading.Event, go_on: threading.Event) -> None:
        self._lock = threading.Lock()
        self._stopper, self._took, self._go_on = stopper, took, go_on

    def __enter__(self) -> None:
        self._lock.acquire()

    def __exit__(self, *exc) -> None:
        self._lock.release()
        if threading.current_thread().name == self._stopper:
            self._took.set()
            self._go_on.wait(60)


def test_flaky86_a_stop_that_comes_after_its_conversion_ended_leaves_the_next_file_alone(monkeypatch):
    pool = isolation.ConverterPool(1)
    took, go_on, next_began = threading.Event(), threading.Event(), threading.Event()
    bound = interruptible.RunBound(None)
    bound._lock = _LateLock("flaky86-stopper", took, go_on)
    call = isolation._Worker.call
    converting = threading.Event()

    def calling(worker, *args, **kwargs):
        converting.set()
        took.wait(60)  # the stop has taken this conversion's stop, and is held before calling it
        return call(worker, *args, **kwargs)

    monkeypatch.setattr(isolation._Worker, "call", calling)
    first: list = []

    def convert_first() -> None:
        with interruptible.bounded(bound):
            first.append(pool.run("document", (b"# First\n", ".md", "a.md"), "a.md", LIMITS))

    stopper = threading.Thread(target=bound.stop, args=("was stopped",), name="flaky86-stopper")
    try:
        converting_thread = threading.Thread(target=convert_first)
        converting_thread.start()
        assert converting.wait(60)
        stopper.start()
        converting_thread.join(60)
        assert first and first[0].markdown == "# First\n"  # it had ended before its stop took

        def began() -> None:  # the stopping thread goes on now, as the next file's conversion begins
            next_began.set()
            go_on.set()
            stopper.join(60)

        second = pool.run("document", (b"# Second\n", ".md", "b.md"), "b.md", LIMITS, started=began)
        assert second.markdown == "# Second\n"
        assert next_began.is_set()
    finally:
        go_on.set()
        stopper.join(60)
        pool.close()
