"""Long runs said on the log (stderr: a client's MCP log view) by the server, which has no terminal
line of its own: how often, and its watcher's passes as `minirag watch` prints them."""

from __future__ import annotations

import logging
import time

from minirag.display import NOTICE
from minirag.ingest.progress import Progress

log = logging.getLogger(__name__)

# How often a running sync job or watcher pass writes its live line, as `minirag sync` does to a pipe.
LOG_EVERY_S = 10.0


class WatchLog:
    """A watcher's passes on the log: the live line of a long pass at most every LOG_EVERY_S, and, as
    `minirag watch` prints them, the end of the initial pass and of each that did something."""

    def __init__(self) -> None:
        self._last = time.monotonic()

    def on_change(self, progress: Progress) -> None:
        if (now := time.monotonic()) - self._last >= LOG_EVERY_S:
            self._last = now
            log.warning("watch: %s", progress.live_line(), extra=NOTICE)

    def on_pass(self, report) -> None:
        """`report`: the ingest.watch.PassReport of a pass that ended."""
        self._last = time.monotonic()
        progress = report.progress
        for warning in progress.warnings:
            log.warning("%s", warning)
        if report.kind == "initial" or progress.done or progress.deleted or progress.incomplete:
            what = f"{report.paths} change{'s' * (report.paths != 1)}" if report.kind == "changes" else report.kind
            log.warning("watch: %s: %s in %.2f s%s", what, progress.counts(), report.seconds, progress.git_words(),
                        extra=NOTICE)
