"""Whether a function's cost grows linearly with its input, measured as a ratio within one run."""

from __future__ import annotations

import gc
import time
from collections.abc import Callable


def grows_linearly(convert: Callable[[str], object], text_of: Callable[[int], str]) -> bool:
    """`convert` on `text_of(1_000)` and on `text_of(8_000)`, in CPU time: 8x the text may cost about
    8x, never the ~64x a quadratic scan does. A ratio, not a wall-clock bound (shared machines)."""

    def seconds(repeats: int) -> float:
        text = text_of(repeats)
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

    # The best of a few runs each: a run a busy machine (the suite's other workers) slowed down
    # says nothing about the code. The large input is timed again only when its first run is over
    # the bound, so a linear reader costs one large run.
    bound = 24 * max(min(seconds(1_000) for _ in range(3)), 0.002)
    return seconds(8_000) < bound or seconds(8_000) < bound
