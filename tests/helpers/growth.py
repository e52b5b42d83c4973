"""Whether a function's cost grows linearly with its input, measured as a ratio within one run."""

from __future__ import annotations

import gc
import time
from collections.abc import Callable


def grows_linearly(convert: Callable[[str], object], text_of: Callable[[int], str]) -> bool:
    """`convert` on `text_of(1_000)` and on `text_of(8_000)`, in CPU time: 8x the text may cost about
    8x, never the ~64x a quadratic scan does. A ratio, not a wall-clock bound (shared machines)."""
    small, large = text_of(1_000), text_of(8_000)

    def seconds(text: str) -> float:
        # Without the cyclic collector: its passes over every live object come more often as a
        # large input makes more of them (a sheet of 160,000 rows measured 11x its 20,000 rows
        # alone, and past 24x under a busy suite), which says nothing about the code's own scans.
        gc.collect()
        gc.disable()
        try:
            started = time.process_time()
            convert(text)
            return time.process_time() - started
        finally:
            gc.enable()

    # The bound is 24x the best of three small runs: a run a busy machine slowed down says nothing
    # about the code. One run of each under 12x passes at once: that lets through nothing the full
    # measure would not, unless the one small run took over twice the best of three. The large run
    # goes first so that it takes the first call's imports and pattern compiling; anything over 12x
    # takes the full measure.
    first_large = seconds(large)
    first_small = seconds(small)
    if first_large < 12 * max(first_small, 0.002):
        return True
    bound = 24 * max(min(first_small, seconds(small), seconds(small)), 0.002)
    return first_large < bound or seconds(large) < bound
