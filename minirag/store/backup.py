"""`minirag backup DEST`: a consistent copy through SQLite's online backup API.

Safe while a server reads or a sync writes: the backup API copies a single
snapshot and restarts if a writer changes pages underneath it.
"""

from __future__ import annotations

from pathlib import Path

from minirag.errors import IndexUnavailable, InvalidArgument
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
    try:
        tmp.unlink(missing_ok=True)
        ok = _copy(source, tmp)
        if ok != "ok":
            raise IndexUnavailable(f"backup failed its integrity check: {ok}")
        tmp.replace(target)
    except BaseException:
        tmp.unlink(missing_ok=True)  # never leave a half-written copy behind
        raise
    return {"source": str(source), "backup": str(target), "bytes": target.stat().st_size, "integrity": ok}


def _copy(source: Path, tmp: Path) -> str:
    """Copy through the backup API into `tmp`; returns the copy's integrity_check answer."""
    src = db.connect(source, read_only=True)
    try:
        dst = db.sqlite3.connect(str(tmp))
        try:
            src.backup(dst, pages=1024)
            dst.execute("PRAGMA journal_mode = DELETE")  # the copy is one self-contained file
            return dst.execute("PRAGMA integrity_check").fetchone()[0]
        finally:
            dst.close()
    finally:
        src.close()
