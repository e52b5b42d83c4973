"""A partial file, `DEST.<random>.partial`, held under a kernel lock while it is written: a backup's
copy, and the files made once into CACHE_DIR (a model's split graph and tables, a tokenizer's cache).

A backup killed outright (SIGKILL, power loss) cannot remove its partial copy; the next backup to
the same DEST removes every one that no live process holds. Held means locked: the writer takes
an exclusive `flock` on its partial for as long as it writes it, and the kernel drops that lock
when the writer dies, so a partial whose lock can be taken is stale, whatever its age, and one
being written is never touched. (`flock` and SQLite's own `fcntl` locks do not interact.) On
Windows a lock would stop SQLite's own writes to the file, so partials are neither locked nor swept.

Earlier releases wrote CACHE_DIR's files under names of their writer's process id, unlocked
(`DEST.<pid>.partial`; OCR's `<key>.<pid>.<thread>.part` for `<key>.json`): one of those is stale once
no live process has that id, and write_atomically removes it (sweep_earlier_names) before it writes.
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


def sweep_earlier_names(target: Path) -> list[Path]:
    """Remove the partials of `target` that earlier releases' cache writers left (the module docstring)
    and no live process can be writing; returns what was removed. Only CACHE_DIR's files were so named:
    a backup's folder is the user's, and its names are never taken for one of these."""
    if sys.platform == "win32":  # pragma: no cover - see the module docstring
        return []
    earlier = re.compile(re.escape(target.name) + r"\.([0-9]{1,10})" + re.escape(SUFFIX)
                         + "|" + re.escape(target.stem) + r"\.([0-9]{1,10})\.[0-9]{1,20}\.part")
    try:
        names = os.listdir(target.parent)
    except OSError:
        return []
    return [target.parent / name for name in names
            if (named := earlier.fullmatch(name)) is not None and _writer_gone(int(named[1] or named[2]))
            and _unlink_regular(target.parent / name)]


def _writer_gone(pid: int) -> bool:
    """Whether no live process has the id an earlier release's partial is named by (this one's own
    id included: no such writer runs in this process)."""
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except (OSError, OverflowError):  # another user's process (EPERM): alive
        return False
    return False


def _unlink_regular(path: Path) -> bool:
    """Remove `path` if it is a regular file (never a link, a pipe or a folder planted under its name)."""
    try:
        if not stat.S_ISREG(os.lstat(path).st_mode):
            return False
        os.unlink(path)
    except OSError:
        return False
    return True


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
    sweep_earlier_names(target)
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
