"""The -wal beside the index, read the way SQLite's recovery reads it, and judged against the file.

SQLite replays every frame of a -wal whose header and frame checksums hold and whose
frames carry the header's salts, up to the last commit frame (the WAL format in
https://www.sqlite.org/fileformat2.html#walformat). Nothing in the -wal names the
database it belongs to, so a -wal left beside another file (a backup copied into place,
another index's -wal moved beside this one) is replayed into it by the first connection
that checkpoints, and a writable connection's close does. `foreign_wal` says, before any
connection is opened, whether replaying it could be anything but this file's own commits.
"""

from __future__ import annotations

import os
import stat
import struct
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from minirag.store import held_files

if TYPE_CHECKING:  # imported where a -wal's frames are summed: most opens find no -wal to read
    import numpy as np

_MAGIC = (0x377F0682, 0x377F0683)  # the low bit: checksums over big-endian words
_VERSION = 3007000
_HEADER = 32
_FRAME_HEADER = 24
_MASK = 0xFFFFFFFF
_PENDING_BYTE_PAGE = 65536  # the most room the page holding the lock bytes takes (SQLite's own allowance)


@dataclass(frozen=True)
class WalFrames:
    """What SQLite would replay from a -wal: its page size and, per page, the last committed image."""

    page_size: int
    pages: dict[int, bytes]  # page number -> its image as of the last commit in the -wal
    database_pages: int  # the database's size in pages after that commit
    frames: int  # up to and with that commit


def wal_path(path: Path) -> Path:
    return Path(f"{os.path.abspath(path)}-wal")


def _regular_file_bytes(path: Path) -> bytes | None:
    """The bytes of the regular file at `path`, or None for anything else (a FIFO, opened without
    waiting for a writer). OSError where there is nothing to open."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    with os.fdopen(fd, "rb") as file:
        return file.read() if stat.S_ISREG(os.fstat(fd).st_mode) else None


def committed_frames(wal: bytes) -> WalFrames | None:
    """The frames SQLite's recovery keeps, or None when it keeps none (no -wal, an empty or invalid
    header, or no valid commit frame): such a -wal is reset by the next writer, never replayed."""
    if len(wal) < _HEADER:
        return None
    magic, version, page_size, _seq, salt1, salt2, ck1, ck2 = struct.unpack(">8I", wal[:_HEADER])
    if magic not in _MAGIC or version != _VERSION:
        return None
    if page_size < 512 or page_size > 65536 or page_size & (page_size - 1):
        return None
    order = ">" if magic & 1 else "<"
    sums = _checksum(order, wal[:24], (0, 0))
    if sums != (ck1, ck2):
        return None
    pages: dict[int, bytes] = {}
    pending: dict[int, bytes] = {}
    database_pages = frames = 0
    step = _FRAME_HEADER + page_size
    for number, at in enumerate(range(_HEADER, len(wal) - step + 1, step), 1):
        pgno, truncate, f_salt1, f_salt2, f_ck1, f_ck2 = struct.unpack(">6I", wal[at:at + _FRAME_HEADER])
        if pgno == 0 or (f_salt1, f_salt2) != (salt1, salt2):
            break
        page = wal[at + _FRAME_HEADER:at + step]
        sums = _checksum(order, wal[at:at + 8] + page, sums)
        if sums != (f_ck1, f_ck2):
            break
        pending[pgno] = page
        if truncate:  # a commit frame: everything up to here is replayed
            pages.update(pending)
            pending.clear()
            database_pages, frames = truncate, number
    if not pages:
        return None
    return WalFrames(page_size, pages, database_pages, frames)


def _checksum(order: str, data: bytes, start: tuple[int, int]) -> tuple[int, int]:
    """SQLite's WAL checksum of `data` (a multiple of 8 bytes) continued from `start`.

    Per pair of 32-bit words (x0, x1): s1 += x0 + s2, then s2 += x1 + s1, modulo 2**32. That is
    linear: v' = M v + (x0, x0 + x1) with M = [[1, 1], [1, 2]], so after n pairs
    v = M**n v0 + sum_k M**(n-1-k) (x0_k, x0_k + x1_k). uint64 arithmetic wraps modulo 2**64,
    which keeps every value right modulo 2**32."""
    import numpy as np

    words = np.frombuffer(data, dtype=np.dtype(f"{order}u4")).astype(np.uint64).reshape(-1, 2)
    n = len(words)
    powers = _powers(n)
    terms = np.stack([words[:, 0], words[:, 0] + words[:, 1]], axis=1)
    with np.errstate(over="ignore"):
        total = np.einsum("kij,kj->i", powers[n - 1::-1] if n else powers[:0], terms)
        total += powers[n] @ np.array(start, dtype=np.uint64)
    s1, s2 = (int(v) & _MASK for v in total)
    return s1, s2


_POWERS: np.ndarray | None = None  # _POWERS[j] = M**j modulo 2**32


def _powers(n: int) -> np.ndarray:
    """M**0 .. M**n, at least."""
    import numpy as np

    global _POWERS
    if _POWERS is None:
        _POWERS = np.eye(2, dtype=np.uint64)[None]
    if len(_POWERS) <= n:
        m = np.array([[1, 1], [1, 2]], dtype=np.uint64)
        grown = [*_POWERS]
        while len(grown) <= n:
            grown.append((m @ grown[-1]) & _MASK)
        _POWERS = np.stack(grown)
    return _POWERS


def refuse_foreign(path: Path, *, thorough: bool) -> None:
    """Raise DamagedIndex, in one line naming the -wal and the fix, when it is not the index's own."""
    from minirag.errors import DamagedIndex

    problem = foreign_wal_problem(path, thorough=thorough)
    if problem is not None:
        raise DamagedIndex(f"{problem}; refusing to open the index, so that SQLite cannot fold it into the file. "
                           f"{set_aside(path)}, then retry")


def foreign_wal_problem(path: Path, *, thorough: bool) -> str | None:
    """`foreign_wal`'s reason as the sentence that names the -wal; None when it can be the index's own."""
    reason = foreign_wal(path, thorough=thorough)
    return None if reason is None else f"{wal_path(path)} is not the index's own -wal ({reason})"


def set_aside(path: Path) -> str:
    """How the user moves a -wal that is not the index's own out of the way."""
    name = Path(path).name
    return f"With no minirag process using the index, move {name}-wal and {name}-shm aside"


def foreign_wal(path: Path, *, thorough: bool) -> str | None:
    """Why the -wal beside `path` cannot be the index's own, or None when it can (or holds nothing
    SQLite would replay). Opens no connection that could checkpoint: the file alone is read
    `immutable`, the file with its -wal `mode=ro`.

    `thorough` also reads the whole index through the -wal (SQLite's quick_check) when its frames
    are not yet in the file, O(file size): for an open that may write, whose close folds the -wal
    in for good. A crash between a commit and its checkpoint leaves exactly such frames, which are
    the index's own and pass."""
    from minirag.store.connection import odd_side_file

    if odd_side_file(path) is not None:
        return None  # a pipe to wait on, no -wal to judge: the open refuses it (connection.connect)
    try:
        wal = _regular_file_bytes(wal_path(path))
        if wal is None:
            return None  # no file SQLite would replay: connection.odd_side_file refuses it
        with held_files.reading(path) as fd:  # the file before the -wal: the file grows only from the -wal
            header = os.pread(fd, 100, 0)
            file_size = os.fstat(fd).st_size
    except OSError:
        return None  # no -wal (or no file): nothing to replay
    frames = committed_frames(wal)
    if frames is None or len(header) < 100:
        return None  # SQLite resets such a -wal (and deletes one beside an empty file)
    page_size = int.from_bytes(header[16:18], "big")
    page_size = 65536 if page_size == 1 else page_size
    if frames.page_size != page_size:
        return f"its pages are {frames.page_size} bytes, the index's {page_size}"
    if header[18:20] != b"\x02\x02":
        return ("the index file is not in WAL mode, as a copy `minirag backup` made is not, "
                "so no -wal is its own")
    file_pages = file_size // page_size
    if frames.database_pages < file_pages:
        return (f"it would cut the index from {file_pages} pages to {frames.database_pages}, "
                "and minirag never shrinks its file")
    if frames.database_pages * page_size > file_size + _PENDING_BYTE_PAGE + frames.frames * page_size:
        # SQLite's own checkpoint refuses such a -wal as corruption (walCheckpoint in wal.c).
        return (f"it would grow the index from {file_pages} pages to {frames.database_pages}, more than its "
                f"{frames.frames} frames can hold")
    if _already_in(path, frames, file_pages):
        return None  # replaying it changes nothing
    if thorough:
        return _damage_through(path)
    return None


def _already_in(path: Path, frames: WalFrames, file_pages: int) -> bool:
    """Whether every page the -wal would write already holds that image in the file (checkpointed)."""
    if frames.database_pages != file_pages:
        return False
    with held_files.reading(path) as fd:
        return all(os.pread(fd, frames.page_size, (pgno - 1) * frames.page_size) == image
                   for pgno, image in frames.pages.items())


def _connect(path: Path, *, immutable: bool):
    from minirag.store.connection import cannot_change, opens_immutable, read_only_uri, sqlite3

    # Through the -wal on a folder none may write, only where its -shm is there to read.
    immutable = immutable or (cannot_change(path) and opens_immutable(path))
    return sqlite3.connect(read_only_uri(path, immutable=immutable), uri=True, isolation_level=None)


def _damage_through(path: Path) -> str | None:
    """SQLite's complaint about the index read through its -wal, when the file alone is sound."""
    from minirag.store.connection import DatabaseError
    from minirag.store.health import answer

    verdicts = []
    for immutable in (False, True):
        try:
            conn = _connect(path, immutable=immutable)
            try:
                verdicts.append(answer(conn, "quick_check"))
            finally:
                conn.close()
        except DatabaseError as exc:
            verdicts.append(str(exc))
        if verdicts[0] == "ok":
            return None
    through, alone = verdicts
    return f"read through it the index is damaged ({through[:200]}), the file alone is sound" if alone == "ok" else None
