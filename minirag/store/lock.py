"""The sync lock: one writer of a whole sync at a time, across processes.

A kernel-held file lock (flock on POSIX, msvcrt on Windows), so it dies with
its process and can never go stale. The file records the holder's PID and
start time so a refused sync can say who holds it and for how long.

The lock is written, so it is opened without following a symlink and must be a
regular file of one link: a link planted in its place (to a user's file, a
FIFO, a device) is refused and what it points at is left untouched.
"""

from __future__ import annotations

import json
import os
import stat
import sys
import time
from pathlib import Path

from minirag import json_text
from minirag.errors import FileAccessError, SyncLocked
from minirag.store.connection import make_index_folder, not_sqlite, not_sqlite_error

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


def lock_path_for(db_path: Path) -> Path:
    return db_path.with_name(db_path.name + LOCK_SUFFIX)


class SyncLock:
    def __init__(self, db_path: Path):
        self.db_path = db_path
        self.path = lock_path_for(db_path)
        self._fd: int | None = None

    def acquire(self) -> SyncLock:
        if not_sqlite(self.db_path):  # a document DB_PATH names by mistake gets no lock file beside it
            raise not_sqlite_error(self.db_path)
        try:
            make_index_folder(self.path)
            fd = os.open(self.path, _OPEN_FLAGS, 0o644)
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
        try:
            self._write_holder(fd)
        except OSError as exc:  # a full disk: let go, or this process would hold the lock until it exits
            _unlock(fd)
            os.close(fd)
            raise FileAccessError(f"cannot write the sync lock {self.path}: {exc.strerror or exc}; nothing was "
                                  "synced: retry once its disk has room") from None
        self._fd = fd
        return self

    @staticmethod
    def _write_holder(fd: int) -> None:
        # Holder info lives past byte 0 so the Windows byte-range lock never blocks reading it.
        holder_info = json.dumps({"pid": os.getpid(), "started": time.time()}).encode()
        os.lseek(fd, 1, os.SEEK_SET)
        os.write(fd, holder_info + b" " * 16)
        os.ftruncate(fd, 1 + len(holder_info))

    def release(self) -> None:
        if self._fd is not None:
            _unlock(self._fd)
            os.close(self._fd)
            self._fd = None

    def __enter__(self) -> SyncLock:
        return self.acquire()

    def __exit__(self, *exc) -> None:
        self.release()

    def _not_a_file(self, what: str) -> str:
        return (f"the sync lock {self.path} is {what}; refusing to write through it (remove it, and "
                "minirag creates a plain file)")

    @staticmethod
    def _read_holder(fd: int) -> dict:
        try:
            os.lseek(fd, 1, os.SEEK_SET)
            return json_text.loads(os.read(fd, 4096).decode() or "{}")
        except (OSError, ValueError):
            return {}

    @staticmethod
    def _refusal(holder: dict) -> str:
        if "pid" not in holder:
            return "another sync is already running against this index"
        elapsed = max(0, int(time.time() - float(holder.get("started", time.time()))))
        return (
            f"another sync is already running against this index (pid {holder['pid']}, "
            f"running for {elapsed // 60}m{elapsed % 60:02d}s); wait for it to finish"
        )
