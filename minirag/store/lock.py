"""The sync lock: one writer of a whole sync at a time, across processes.

A kernel-held file lock (flock on POSIX, msvcrt on Windows), so it dies with
its process and can never go stale. The file records the holder's PID and
start time so a refused sync can say who holds it and for how long.

The lock is written, so it is opened without following a symlink and must be a
regular file of one link: a link planted in its place (to a user's file, a
FIFO, a device) is refused and what it points at is left untouched.

A kernel lock lives on the file, not on its name: once the file is deleted or
replaced (an `rm` of a "stale" lock, a folder restored from a copy) the next
sync makes a new file and locks that. So a lock is taken only on the file its
name still names, and a holder checks its name at every file, every encoder
batch, before it drops the files it found gone and before it records the sync
(`guarded`, `ensure_held`): one that finds it gone stops. Only a transaction
begun just before the name went can still land; SQLite keeps each whole.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import stat
import sys
import time
from collections.abc import Callable
from pathlib import Path

from minirag import json_text
from minirag.errors import FileAccessError, IndexUnavailable, SyncLocked
from minirag.store.connection import (
    INDEX_FOLDER_GITIGNORE,
    INDEX_FOLDER_GITIGNORE_TEXT,
    make_index_folder,
    not_sqlite,
    not_sqlite_error,
    other_names,
    write_new_file,
)

if sys.platform == "win32":  # pragma: no cover - exercised on Windows only
    import msvcrt

    def _try_lock(fd: int) -> bool:
        try:
            os.lseek(fd, 0, os.SEEK_SET)
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
            return True
        except OSError:
            return False

    def _unlock(fd: int) -> None:
        os.lseek(fd, 0, os.SEEK_SET)
        msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)

else:
    import fcntl

    def _try_lock(fd: int) -> bool:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True
        except OSError:
            return False

    def _unlock(fd: int) -> None:
        fcntl.flock(fd, fcntl.LOCK_UN)


_OPEN_FLAGS = os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) \
    | getattr(os, "O_CLOEXEC", 0)


LOCK_SUFFIX = ".sync.lock"  # the lock file is the index's name with this added
_OPEN_TRIES = 8  # a lock file deleted between its open and its lock is opened again, this many times at most


def lock_path_for(db_path: Path) -> Path:
    return db_path.with_name(db_path.name + LOCK_SUFFIX)


class SyncLock:
    def __init__(self, db_path: Path):
        self.db_path = db_path
        self.path = lock_path_for(db_path)
        self._fd: int | None = None
        self._made: tuple[bool, bool] = (False, False)  # (the index's folder, the lock file) made by acquire

    def acquire(self) -> SyncLock:
        if not_sqlite(self.db_path):  # a document DB_PATH names by mistake gets no lock file beside it
            raise not_sqlite_error(self.db_path)
        if (linked := other_names(self.db_path)) is not None:  # a lock beside one name locks out no other
            raise IndexUnavailable(linked)
        for _ in range(_OPEN_TRIES):
            fd = self._open_and_lock()
            if _names(self.path, fd):
                break
            # Deleted or replaced between the open and the lock: another process may hold the file
            # its name names now. Only that file is the lock.
            _unlock(fd)
            os.close(fd)
        else:
            raise SyncLocked(f"the sync lock {self.path} was deleted or replaced each time it was opened "
                             f"({_OPEN_TRIES} times); retry once nothing removes it")
        try:
            self._write_holder(fd)
        except OSError as exc:  # a full disk: let go, or this process would hold the lock until it exits
            _unlock(fd)
            os.close(fd)
            raise FileAccessError(f"cannot write the sync lock {self.path}: {exc.strerror or exc}; nothing was "
                                  "synced: retry once its disk has room") from None
        self._fd = fd
        return self

    def _open_and_lock(self) -> int:
        """A descriptor of the lock file, locked; FileAccessError, or SyncLocked naming the holder."""
        try:
            for tries_left in range(_OPEN_TRIES - 1, -1, -1):
                made_folder = make_index_folder(self.path)
                made_file = not os.path.lexists(self.path)  # only what abandon() may remove: a lock file made by
                try:  # another in between is locked by it, refused below, or left alone
                    fd = os.open(self.path, _OPEN_FLAGS, 0o644)
                except FileNotFoundError:
                    # The folder was there and is gone: a first sync whose model failed took away the
                    # `.minirag` folder it made (abandon). Made again.
                    if tries_left and not os.path.lexists(self.path.parent):
                        continue
                    raise
                self._made = (made_folder or self._made[0], made_file)
                break
        except OSError as exc:
            if os.path.islink(self.path):
                raise FileAccessError(self._not_a_file("a symbolic link")) from None
            raise FileAccessError(f"cannot create the sync lock {self.path}: {exc.strerror or exc}; the index's "
                                  "folder must be writable (or use --read-only to only search)") from None
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_nlink > 1:
            os.close(fd)
            raise FileAccessError(self._not_a_file("not a regular file" if not stat.S_ISREG(info.st_mode)
                                                   else "a hard link to another file"))
        if not _try_lock(fd):
            holder = self._read_holder(fd)
            os.close(fd)
            raise SyncLocked(self._refusal(holder))
        return fd

    def intact(self) -> bool:
        """Whether this process holds the lock and its name still names the file locked."""
        return self._fd is not None and _names(self.path, self._fd)

    def ensure_held(self) -> None:
        """FileAccessError when the lock file was deleted or replaced since it was locked: another
        sync may have locked a new one and be running beside this one, which must stop."""
        if not self.intact():
            raise FileAccessError(
                f"the sync lock {self.path} was deleted or replaced while this sync ran, so another sync may "
                "be running beside it: this one stopped (what it wrote stays); run it again once no other "
                "sync runs, and leave the lock file in place (the kernel lets it go when its holder ends)")

    def guarded(self, on_change: Callable | None) -> Callable:
        """`on_change` for a sync holding this lock: each call (a file done, an encoder batch) first
        checks that the lock is still this process's (ensure_held)."""
        def notify(progress) -> None:
            self.ensure_held()
            if on_change is not None:
                on_change(progress)

        return notify

    @staticmethod
    def _write_holder(fd: int) -> None:
        # Holder info lives past byte 0 so the Windows byte-range lock never blocks reading it.
        holder_info = json.dumps({"pid": os.getpid(), "started": time.time()}).encode()
        os.lseek(fd, 1, os.SEEK_SET)
        os.write(fd, holder_info + b" " * 16)
        os.ftruncate(fd, 1 + len(holder_info))

    def release(self) -> None:
        if self._fd is not None:
            # The holder record goes first, while the lock is still held: a reader goes by the record
            # (live_holder), and this process, a server, lives on past its sync.
            with contextlib.suppress(OSError):
                os.ftruncate(self._fd, 1)
            _unlock(self._fd)
            os.close(self._fd)
            self._fd = None

    def abandon(self) -> None:
        """Let go and take away what acquire made, the lock file and the `.minirag` folder it made for
        it: a first sync that failed before it wrote anything (its model did not load) leaves nothing
        behind. A file or folder that was there before stays; so does a folder something else was put in."""
        made_folder, made_file = self._made
        if self._fd is not None and made_file and _names(self.path, self._fd):
            with contextlib.suppress(OSError):
                os.unlink(self.path)  # while locked: a sync that opened it meanwhile finds its name gone, and retries
        self.release()
        if made_folder:
            _remove_made_folder(self.path.parent)
        self._made = (False, False)

    def __enter__(self) -> SyncLock:
        return self.acquire()

    def __exit__(self, *exc) -> None:
        self.release()

    def _not_a_file(self, what: str) -> str:
        return (f"the sync lock {self.path} is {what}; refusing to write through it (remove it, and "
                "minirag creates a plain file)")

    @staticmethod
    def _read_holder(fd: int) -> object:
        try:
            os.lseek(fd, 1, os.SEEK_SET)
            return json_text.loads(os.read(fd, 4096).decode() or "{}")
        except (OSError, ValueError):
            return {}

    @staticmethod
    def _refusal(holder: object) -> str:
        said = _who(holder)
        if said is None:
            return "another sync is already running against this index"
        return f"another sync is already running against this index ({said}); wait for it to finish"


def _who(holder: object) -> str | None:
    """`pid 812, running for 0m12s` of a holder record; None where it is not the one _write_holder
    writes (the file holds whatever anyone who can write the index's folder wrote)."""
    pid, started = (holder.get("pid"), holder.get("started")) if isinstance(holder, dict) else (None, None)
    # A pid of 0 or below names a process group to os.kill (-1: every process), never one holder.
    if (type(pid) is not int or pid <= 0 or not isinstance(started, (int, float)) or isinstance(started, bool)
            or not math.isfinite(started) or abs(time.time() - started) > 1e9):
        return None
    elapsed = max(0, int(time.time() - started))
    return f"pid {pid}, running for {elapsed // 60}m{elapsed % 60:02d}s"


def live_holder(db_path: Path) -> str | None:
    """Who holds the sync lock of `db_path`, in words ("a sync (pid 812, running for 0m12s)"), going by
    the holder record alone: None where no record names a process that is alive. The lock itself is
    never tried: a reader holding it a moment would make a sync starting then refuse to run."""
    if sys.platform == "win32":  # pragma: no cover - os.kill(pid, 0) sends CTRL_C_EVENT there
        return None
    try:
        fd = os.open(lock_path_for(db_path), os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        holder = SyncLock._read_holder(fd)
    finally:
        os.close(fd)
    said = _who(holder)
    if said is None or not isinstance(holder, dict) or not _alive(holder["pid"]):
        return None
    return f"a sync ({said})"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except PermissionError:  # another user's process
        return True
    except (OSError, OverflowError):
        return False
    return True


def _remove_made_folder(folder: Path) -> None:
    """Remove the `.minirag` folder make_index_folder made, where nothing but its own .gitignore is in
    it. The folder goes only empty (rmdir), so the .gitignore goes first: where another process wrote
    into the folder between the look and the rmdir, the .gitignore is written again, so that process's
    index stays out of git. One changed since it was made is someone's: it stays, and the folder too."""
    gitignore = folder / INDEX_FOLDER_GITIGNORE
    try:
        names = [entry.name for entry in os.scandir(folder)]
        if names == [INDEX_FOLDER_GITIGNORE]:
            if _head(gitignore, len(INDEX_FOLDER_GITIGNORE_TEXT) + 1) != INDEX_FOLDER_GITIGNORE_TEXT:
                return
            gitignore.unlink()
        elif names:
            return
    except OSError:
        return
    try:
        folder.rmdir()  # refused where anything came in meanwhile
    except OSError:
        if names:  # unless one is there again (another process's, or the user's)
            with contextlib.suppress(OSError):
                write_new_file(folder, INDEX_FOLDER_GITIGNORE, INDEX_FOLDER_GITIGNORE_TEXT)


def _head(path: Path, limit: int) -> bytes | None:
    """Up to `limit` bytes of the regular file at `path` (a link not followed); None where it is no such file."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return None
    try:
        return os.read(fd, limit) if stat.S_ISREG(os.fstat(fd).st_mode) else None
    finally:
        os.close(fd)


def _names(path: Path, fd: int) -> bool:
    """Whether `path` (not followed) names the file open at `fd`."""
    try:
        named = os.lstat(path)
    except OSError:
        return False
    held = os.fstat(fd)
    return (named.st_dev, named.st_ino) == (held.st_dev, held.st_ino)
