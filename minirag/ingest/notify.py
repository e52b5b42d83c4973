"""OS file notifications, or polling, as batches of changes, with a first, empty batch once the
watches are set.

watchfiles.watch yields nothing until a change comes or its timeout ends (2 s here), so
its caller cannot tell when the watches were set: a change after the watcher's first read
of a file and before its watch raised no event. The same loop over watchfiles' Rust
watcher, saying so at once. Errors setting the watches (a missing path, the OS limit) are
raised by the first `next()`, as from watchfiles.watch.

Polling is done here, not by watchfiles: its poller (notify 6) keeps each file's mtime in
whole seconds and reports a change only when it grows, so a file saved twice within a
second, or replaced by an older one (`cp -p`, `rsync -a`, `mv` of an older file over it,
a link to an older file), was never seen. Here a file is changed when any of its inode,
type, size, mtime or ctime (which no user can set back) differs.
"""

from __future__ import annotations

import errno
import logging
import os
import stat as stat_mode
import threading
import time
from collections.abc import Generator, Sequence

from watchfiles import Change
from watchfiles._rust_notify import RustNotify

log = logging.getLogger(__name__)

# watchfiles.watch's own defaults: a batch gathers changes for up to 1.6 s, ends after 50 ms of quiet.
_GATHER_MS = 1600
_QUIET_MS = 50

Batch = set[tuple[Change, str]]
_Entry = tuple[int, int, int, int, int]  # inode, type, size, mtime_ns, ctime_ns


def change_batches(paths: Sequence[str], *, recursive: bool, stop_event: threading.Event, polling: bool,
                   poll_delay_ms: int, timeout_ms: int, ignore_permission_denied: bool) -> Generator[Batch, None, None]:
    """Sets of (Change, path): first an empty one once the watches are set, then each batch of
    changes, and an empty one each `timeout_ms` without any; ends when `stop_event` is set.
    Polling looks at the folders `paths` alone, not below them (`recursive` is for notifications)."""
    if polling:
        yield from _polled(paths, stop_event, poll_delay_ms / 1000, timeout_ms / 1000, ignore_permission_denied)
        return
    with RustNotify([str(p) for p in paths], False, False, poll_delay_ms, recursive,
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


def _listing(folder: str) -> dict[str, _Entry]:
    entries = {}
    with os.scandir(folder) as found:
        for entry in found:
            try:
                st = entry.stat(follow_symlinks=False)
            except OSError:
                continue  # gone since the listing: the next poll has it right
            entries[entry.path] = (st.st_ino, stat_mode.S_IFMT(st.st_mode), st.st_size, st.st_mtime_ns, st.st_ctime_ns)
    return entries


def _look(folders: Sequence[str], before: dict[str, dict[str, _Entry]] | None,
          ignore_permission_denied: bool) -> dict[str, dict[str, _Entry]]:
    """Each folder's entries. The first look raises what watchfiles would (a folder missing, one
    that cannot be read); later, a folder gone (or a file now under its name) has no entries, and
    one that cannot be read now keeps those it had: a folder that lost its permissions (or its
    network drive, for a moment) has not lost its files."""
    looked = {}
    for folder in folders:
        try:
            looked[folder] = _listing(folder)
        except (FileNotFoundError, NotADirectoryError) as exc:  # gone, or a file under its name now
            if before is None:
                raise FileNotFoundError(errno.ENOENT, f"no folder any more ({exc.strerror})", folder) from exc
            looked[folder] = {}
        except OSError as exc:
            if before is None and not (ignore_permission_denied and isinstance(exc, PermissionError)):
                raise
            looked[folder] = before.get(folder, {}) if before is not None else {}
    return looked


def _differences(before: dict[str, dict[str, _Entry]], after: dict[str, dict[str, _Entry]]) -> Batch:
    changes: Batch = set()
    for folder, entries in after.items():
        then = before.get(folder, {})
        for path, now in entries.items():
            old = then.get(path)
            if old is None:
                changes.add((Change.added, path))
            elif old[:2] != now[:2]:  # another file, folder or link under the name
                changes |= {(Change.deleted, path), (Change.added, path)}
            elif old != now:
                changes.add((Change.modified, path))
        changes |= {(Change.deleted, path) for path in then.keys() - entries.keys()}
    return changes


def _polled(folders: Sequence[str], stop_event: threading.Event, interval: float, timeout: float,
            ignore_permission_denied: bool) -> Generator[Batch, None, None]:
    folders = [str(f) for f in folders]
    state = _look(folders, None, ignore_permission_denied)
    yield set()  # the first look is taken: every change from here on is found by a later one
    next_look = time.monotonic() + interval
    while not stop_event.wait(max(0.0, min(next_look - time.monotonic(), timeout))):
        if time.monotonic() < next_look:
            yield set()
            continue
        looked = _look(folders, state, ignore_permission_denied)
        changes, state = _differences(state, looked), looked
        next_look = time.monotonic() + interval
        yield changes
