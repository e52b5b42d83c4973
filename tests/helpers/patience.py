"""Deadlines for waits on work this machine does, that stretch while the machine is loaded.

A wait of a fixed number of seconds fails where the test is right and the machine slow: CI runs the
suite on 2-4 cores with four workers, other jobs beside it, and the first pass of a watcher (the
converters' imports, the first chunking) that takes a second alone took over 20 s there. Here a second
counts for less while more threads want to run than there are cores: at a load of 25 on 2 cores, a
wall second counts 2/25 of one. Unloaded, a deadline is what it says, so a wait for something that
never comes fails as soon as before."""

from __future__ import annotations

import os
import time


class Deadline:
    """`seconds` of this machine's unloaded time, counted from now (`passed`)."""

    def __init__(self, seconds: float):
        self.seconds = seconds
        self._used = 0.0
        self._at = time.monotonic()

    def passed(self) -> bool:
        now = time.monotonic()
        self._used += (now - self._at) / slowdown()
        self._at = now
        return self._used >= self.seconds


def slowdown() -> float:
    """How many times slower than unloaded this machine runs now: the threads that want to run per
    core over the last minute, at least 1."""
    try:
        load = os.getloadavg()[0]
    except OSError:  # no load average here: taken as unloaded
        return 1.0
    return max(1.0, load / (os.cpu_count() or 1))
