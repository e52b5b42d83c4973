"""OS file notifications as batches of changes, with a first, empty batch once the watches are set.

watchfiles.watch yields nothing until a change comes or its timeout ends (2 s here), so
its caller cannot tell when the watches were set: a change after the watcher's first read
of a file and before its watch raised no event. The same loop over watchfiles' Rust
watcher, saying so at once. Errors setting the watches (a missing path, the OS limit) are
raised by the first `next()`, as from watchfiles.watch.
"""

from __future__ import annotations

import logging
from collections.abc import Generator, Sequence

from watchfiles import Change
from watchfiles._rust_notify import RustNotify

log = logging.getLogger(__name__)

# watchfiles.watch's own defaults: a batch gathers changes for up to 1.6 s, ends after 50 ms of quiet.
_GATHER_MS = 1600
_QUIET_MS = 50


def change_batches(paths: Sequence[str], *, recursive: bool, stop_event, polling: bool, poll_delay_ms: int,
            timeout_ms: int, ignore_permission_denied: bool) -> Generator[set[tuple[Change, str]], None, None]:
    """Sets of (Change, path): first an empty one once the watches are set, then each batch of
    changes, and an empty one each `timeout_ms` without any; ends when `stop_event` is set."""
    with RustNotify([str(p) for p in paths], False, polling, poll_delay_ms, recursive,
                    ignore_permission_denied) as watcher:
        yield set()  # the watches are set: from here on every change raises an event
        while True:
            raw = watcher.watch(_GATHER_MS, _QUIET_MS, timeout_ms, stop_event)
            if isinstance(raw, str):  # timeout, stop or signal (this thread gets none)
                if raw != "timeout":
                    return
                yield set()
            else:
                yield {(Change(change), path) for change, path in raw}
