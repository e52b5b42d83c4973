"""The files SQLite holds locks on for this process, and descriptors of them that never drop those locks.

Closing any descriptor of a file drops every POSIX lock the process holds on it, the locks of
SQLite's own connections included (section 2.2 of SQLite's "How To Corrupt An SQLite Database
File"). A WAL index whose shared lock is gone looks unused to other processes: the last of them to
close folds the -wal into the file and deletes it under this process's open transaction, and the
index ends with pages used twice. So:

- a descriptor this package opens on the index (to read its header, or the file before its -wal)
  is closed only when no other descriptor of the process refers to the file, and otherwise kept,
  one per file, until the connections have closed (`release_unshared`);
- the index and its -shm are recorded as each connection opens them (`hold`), and a document that
  is one of them (a link to the index in a root, a hard link) is never read: reading it would
  close such a descriptor.
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Iterator
from pathlib import Path

_KEPT: dict[tuple[int, int], int] = {}
_HELD: set[tuple[int, int]] = set()
_LOCK = threading.Lock()


def hold(path: Path | str) -> None:
    """Record the index at `path`, and its -shm when there is one, as files SQLite locks here."""
    for name in (os.fspath(path), f"{os.path.abspath(path)}-shm"):
        with contextlib.suppress(OSError):
            st = os.stat(name)
            with _LOCK:
                _HELD.add((st.st_dev, st.st_ino))


def is_held(st: os.stat_result) -> bool:
    """Whether the file of `st` is an index (or -shm) a connection of this process opened."""
    with _LOCK:
        return (st.st_dev, st.st_ino) in _HELD


@contextlib.contextmanager
def reading(path: Path | str, flags: int = 0) -> Iterator[int]:
    """A read-only descriptor of the file at `path` (`flags` added: O_NONBLOCK), closed after only
    where that drops no lock."""
    with _LOCK:
        st = os.stat(path)
        kept = _KEPT.get((st.st_dev, st.st_ino))
    if kept is not None:
        yield kept
        return
    fd = os.open(path, os.O_RDONLY | flags | getattr(os, "O_CLOEXEC", 0))
    try:
        yield fd
    finally:
        close(fd)


def close(fd: int) -> None:
    """Close `fd`, or keep it where another descriptor of the process refers to its file (and so may
    hold locks there) or SQLite locks the file here."""
    opened = os.fstat(fd)
    key = (opened.st_dev, opened.st_ino)
    with _LOCK:
        if key in _KEPT or key in _HELD or _another_descriptor_of(key, fd) is not False:
            _KEPT.setdefault(key, fd)  # a duplicate of a kept one stays open, unused
        else:
            os.close(fd)


def release_unshared() -> None:
    """Close the kept descriptors no other descriptor of the process shares a file with any longer
    (the connections that held locks there have closed): a kept one pins its file, and the file
    system the file is on, until then."""
    with _LOCK:
        for key in list(_HELD | _KEPT.keys()):
            fd = _KEPT.get(key, -1)
            if _another_descriptor_of(key, fd) is False:
                if fd >= 0:
                    os.close(fd)
                    del _KEPT[key]
                _HELD.discard(key)  # (a later file may take its inode)


def _another_descriptor_of(key: tuple[int, int], fd: int) -> bool | None:
    """Whether another descriptor of this process refers to the file `key`; None where the system
    does not say (no /proc/self/fd), which counts as yes."""
    try:
        names = os.listdir("/proc/self/fd")
    except OSError:
        return None
    for name in names:
        if name == str(fd):
            continue
        try:
            st = os.stat(f"/proc/self/fd/{name}")
        except OSError:
            continue
        if (st.st_dev, st.st_ino) == key:
            return True
    return False
