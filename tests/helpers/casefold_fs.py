"""A folder served again through FUSE with names looked up regardless of letter case, as macOS's APFS
and Windows' NTFS do by default: `python casefold_fs.py FOLDER MOUNTPOINT` (in the foreground, until
unmounted). Names are listed as they were written (case-preserving); a name in any other case opens
the same file, with the same inode number. Read-only: the tests write into FOLDER itself.

Needs fusepy (`import fuse`) and libfuse 2, and the right to mount: tests that use it skip without them.
Used where the kernel cannot fold case itself (ext4 and tmpfs casefold need CONFIG_UNICODE).
"""

from __future__ import annotations

import errno
import os
import sys

from fuse import FUSE, FuseOSError, Operations  # type: ignore[import-not-found]


class CaseFolding(Operations):
    def __init__(self, folder: str):
        self.folder = folder

    def _backing(self, path: str) -> str:
        """The file of FOLDER that `path` names, each name matched as written, else regardless of case."""
        here = self.folder
        for name in path.strip("/").split("/"):
            if not name:
                continue
            if not os.path.lexists(os.path.join(here, name)):
                try:
                    found = [entry for entry in os.listdir(here) if entry.casefold() == name.casefold()]
                except OSError:
                    found = []
                if found:
                    name = found[0]
            here = os.path.join(here, name)
        return here

    def getattr(self, path, fh=None):
        try:
            st = os.lstat(self._backing(path))
        except OSError as exc:
            raise FuseOSError(exc.errno or errno.EIO) from None
        return {key: getattr(st, key) for key in ("st_mode", "st_ino", "st_nlink", "st_uid", "st_gid", "st_size",
                                                  "st_atime", "st_mtime", "st_ctime")}

    def readdir(self, path, fh):
        return [".", "..", *os.listdir(self._backing(path))]

    def readlink(self, path):
        return os.readlink(self._backing(path))

    def open(self, path, flags):
        if flags & (os.O_WRONLY | os.O_RDWR):
            raise FuseOSError(errno.EROFS)
        return os.open(self._backing(path), os.O_RDONLY)

    def read(self, path, size, offset, fh):
        return os.pread(fh, size, offset)

    def release(self, path, fh):
        os.close(fh)
        return 0

    def statfs(self, path):
        st = os.statvfs(self.folder)
        return {key: getattr(st, key) for key in ("f_bavail", "f_bfree", "f_blocks", "f_bsize", "f_favail", "f_ffree",
                                                  "f_files", "f_flag", "f_frsize", "f_namemax")}


if __name__ == "__main__":
    FUSE(CaseFolding(os.path.realpath(sys.argv[1])), sys.argv[2], foreground=True, ro=True, use_ino=True,
         allow_other=False)
