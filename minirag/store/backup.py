"""`minirag backup DEST`: a consistent copy through SQLite's online backup API.

Safe while a server reads or a sync writes: the backup API copies a single
snapshot and restarts if a writer changes pages underneath it.
"""

from __future__ import annotations

from pathlib import Path

from minirag.errors import FileAccessError, IndexUnavailable, InvalidArgument
from minirag.store import connection as db


def backup(source: Path, dest: str | Path) -> dict:
    source, target = Path(source), Path(dest).expanduser().resolve()
    if not source.exists():
        raise IndexUnavailable(f"no index at {source}; run `minirag sync` first")
    if target.is_dir():
        target = target / source.name
    if target == source.resolve():
        raise InvalidArgument("backup destination is the index itself")
    if not target.parent.is_dir():
        raise InvalidArgument(f"the backup folder {target.parent} does not exist; create it first")
    tmp = target.with_name(target.name + ".partial")
    # The copy and the files SQLite keeps beside it while writing it.
    leftovers = [tmp, *(tmp.with_name(tmp.name + suffix) for suffix in ("-journal", "-wal", "-shm"))]
    try:
        for path in leftovers:
            path.unlink(missing_ok=True)
        ok = _copy(source, tmp, target)
        if ok != "ok":
            raise IndexUnavailable(f"backup failed its integrity check: {ok}")
        tmp.replace(target)
    except BaseException:
        for path in leftovers:
            path.unlink(missing_ok=True)  # never leave a half-written copy behind
        raise
    return {"source": str(source), "backup": str(target), "bytes": target.stat().st_size, "integrity": ok}


def _copy(source: Path, tmp: Path, target: Path) -> str:
    """Copy through the backup API into `tmp`; returns the copy's integrity_check answer."""
    src = db.connect(source, read_only=True)
    try:
        dst = db.sqlite3.connect(str(tmp))
        try:
            src.backup(dst, pages=1024)
            dst.execute("PRAGMA journal_mode = DELETE")  # the copy is one self-contained file
            return dst.execute("PRAGMA integrity_check").fetchone()[0]
        except db.sqlite3.OperationalError as exc:
            # The index is only read here; writing is the destination's part, and these
            # are write failures (EFBIG past a file-size limit surfaces as a disk I/O error).
            text = str(exc).lower()
            if "full" in text or "no space" in text or "too large" in text:
                raise FileAccessError(f"no room to write the backup {target} ({exc}); free space on that disk "
                                      "and retry (nothing was left behind)") from None
            if "disk i/o error" in text:
                raise FileAccessError(f"cannot write the backup {target} ({exc}: is that disk full or failing?); "
                                      "nothing was left behind") from None
            if "readonly" in text or "read-only" in text or "unable to open" in text:
                raise FileAccessError(f"cannot write the backup {target} ({exc}); choose a writable "
                                      "folder (nothing was left behind)") from None
            raise
        finally:
            dst.close()
    finally:
        src.close()
