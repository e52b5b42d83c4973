"""A partial file, `DEST.<random>.partial`, held under a kernel lock while it is written: a backup's
copy, and the files made once into CACHE_DIR (a model's split graph and tables, a tokenizer's cache).

A backup killed outright (SIGKILL, power loss) cannot remove its partial copy; the next backup to
the same DEST removes every one that no live process holds. Held means locked: the writer takes
an exclusive `flock` on its partial for as long as it writes it, and the kernel drops that lock
when the writer dies, so a partial whose lock can be taken is stale, whatever its age, and one
being written is never touched. (`flock` and SQLite's own `fcntl` locks do not interact.) On
Windows a lock would stop SQLite's own writes to the file, so partials are neither locked nor swept.
"""

from __future__ import annotations

import contextlib
import os
import re
import stat
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO

SUFFIX = ".partial"
SQLITE_SIDE_FILES = ("-journal", "-wal", "-shm")


def create(target: Path, mode: int) -> tuple[Path, int]:
    """A new partial beside `target`, locked by this process: (its path, the descriptor that holds
    the lock; close it once the partial is renamed or removed)."""
    if sys.platform == "win32":  # pragma: no cover - see the module docstring
        fd, name = tempfile.mkstemp(prefix=f"{target.name}.", suffix=SUFFIX, dir=target.parent)
        os.chmod(name, stat.S_IMODE(mode))
        return Path(name), fd
    import fcntl

    for _ in range(100):
        fd, name = tempfile.mkstemp(prefix=f"{target.name}.", suffix=SUFFIX, dir=target.parent)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            # Taken between mkstemp and flock by a sweep that then removed it: not ours any more.
            if os.path.samestat(os.fstat(fd), os.lstat(name)):
                os.fchmod(fd, stat.S_IMODE(mode))
                return Path(name), fd
        except OSError:
            pass
        os.close(fd)
    raise OSError("no partial copy could be made and locked")


def sweep(target: Path) -> list[Path]:
    """Remove the partial copies (and SQLite's files beside them) that earlier backups to `target`
    left behind and no live process holds; returns what was removed."""
    if sys.platform == "win32":  # pragma: no cover - see the module docstring
        return []
    import fcntl

    pattern = re.compile(re.escape(target.name) + r"\.[a-z0-9_]{8}" + re.escape(SUFFIX))
    removed: list[Path] = []
    try:
        names = os.listdir(target.parent)
    except OSError:
        return removed
    for name in names:
        if not pattern.fullmatch(name):
            continue
        path = target.parent / name
        try:
            # Never waiting on what is opened: a FIFO planted under a partial's name in a folder others
            # write blocked a plain open() until a writer came, so every backup to DEST for ever.
            fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
        except OSError:
            continue  # gone already, or a link: not a partial this module made
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            os.close(fd)
            continue  # a pipe or a device: not a partial this module made
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            continue  # a live backup writes it
        try:
            if stat.S_ISREG(os.fstat(fd).st_mode) and os.path.samestat(os.fstat(fd), os.lstat(path)):
                for side in SQLITE_SIDE_FILES:
                    with contextlib.suppress(OSError):
                        os.unlink(f"{path}{side}")
                os.unlink(path)  # under the lock: a writer that locks it after this sees it unlinked
                removed.append(path)
        except OSError:
            pass
        finally:
            os.close(fd)
    return removed


def open_made(path: Path) -> BinaryIO:
    """A file write_atomically made, opened to be read, as a regular file only: what stands in its
    place otherwise (a FIFO, a socket, a device, a link: put there by whoever may write CACHE_DIR) is
    an OSError, as a file not made yet is, never waited on. A plain open() of a FIFO waited for a
    writer, so every command that loaded the model stopped there for ever."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0)
                 | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0))
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(f"{path} is no regular file")
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def write_atomically(target: Path, write: Callable[[BinaryIO], object], mode: int = 0o644) -> None:
    """`target` written whole by `write(file)` under a partial's name and renamed into place, so a reader
    finds the whole file or none. A write that fails (a full disk, a file size limit) removes its partial,
    and the partials of `target` that writers killed meanwhile left are swept first: on a disk that
    stays full each try left a half-written partial of its own, and each command tries again."""
    sweep(target)
    partial, held = create(target, mode)
    try:
        try:
            with os.fdopen(os.dup(held), "wb") as file:
                write(file)
            if sys.platform == "win32":  # pragma: no cover - a file open there cannot be renamed (nor is it locked)
                os.close(held)
                held = -1
            os.replace(partial, target)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(partial)
            raise
    finally:
        if held >= 0:
            os.close(held)  # after the rename or the removal: never a partial unlocked while it exists
