"""Root containment: the single definition of "inside".

A path is inside a root when its real path (symlinks followed) equals the
root or continues it past a separator; `/docs/proj` never contains
`/docs/project-secret`.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable
from pathlib import Path

from minirag.errors import PathOutsideRoots


def is_under(path: str, prefix: str, sep: str = "/") -> bool:
    """True when `path` is `prefix` or lies below it, matching whole segments only."""
    prefix = prefix.rstrip(sep) if prefix != sep else prefix
    if path == prefix:
        return True
    return path.startswith(prefix if prefix.endswith(sep) else prefix + sep)


def containing_root(real: Path, roots: Iterable[Path]) -> Path | None:
    for root in roots:
        if is_under(str(real), str(root), os.sep):
            return root
    return None


def resolve_inside_roots(path: Path, roots: Iterable[Path]) -> Path:
    """The real path of `path` if it lands inside a root; else PathOutsideRoots."""
    roots = list(roots)
    real = Path(os.path.realpath(path))
    if containing_root(real, roots) is None:
        shown = f"{path} (resolves to {real})" if real != Path(os.path.abspath(path)) else str(path)
        raise PathOutsideRoots(
            f"path outside configured document roots: {shown}; roots: {', '.join(map(str, roots))}"
        )
    return real


def read_inside_roots(path: str | Path, roots: Iterable[Path], max_bytes: int) -> bytes:
    """The bytes of a regular file that is inside a root, read through one open handle.

    Containment is decided for the file actually opened, not for its name: the
    handle is opened first, then the name's real path must lie inside a root
    and name the same inode (device + inode) as the handle. A file or a folder
    swapped for a symlink between the scan, the check and the read is refused,
    never read. Opened non-blocking so a FIFO swapped in cannot hang the read.
    At most `max_bytes + 1` bytes are read, so the caller can tell "too large".
    """
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOCTTY", 0)
    fd = os.open(path, flags)
    with os.fdopen(fd, "rb", buffering=0) as handle:
        opened = os.fstat(fd)
        if not stat.S_ISREG(opened.st_mode):
            raise PathOutsideRoots(f"{path}: not a regular file")
        real = resolve_inside_roots(Path(path), roots)
        named = os.stat(real)
        if (named.st_dev, named.st_ino) != (opened.st_dev, opened.st_ino):
            raise PathOutsideRoots(f"{path}: changed while being opened (replaced or swapped for a link); "
                                   "not read")
        chunks, left = [], max_bytes + 1
        while left > 0:
            chunk = handle.read(min(left, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
        return b"".join(chunks)
