"""Read-only checks of the SQLite driver and of an index file, for `doctor`: never writes."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from minirag.store import connection as db
from minirag.store import schema

if TYPE_CHECKING:
    from minirag.store.index import IndexStats


@dataclass(frozen=True)
class Driver:
    name: str
    sqlite_version: str
    vec_version: str | None = None
    problem: str | None = None  # why sqlite-vec or FTS5 is unusable
    fix: str | None = None


def driver() -> Driver:
    """Whether this driver loads sqlite-vec and has FTS5: the two things the index cannot live without."""
    name, version = db.sqlite3.__name__, db.sqlite_version()
    try:
        conn = db.connect(":memory:")
    except Exception as exc:  # noqa: BLE001 - IndexUnavailable, ImportError, OSError alike
        return Driver(name, version, problem=f"cannot load sqlite-vec: {exc}",
                      fix="pip install sqlean.py sqlite-vec (a sqlite3 with extension loading)")
    try:
        vec = conn.execute("SELECT vec_version()").fetchone()[0]
        try:
            conn.execute("CREATE VIRTUAL TABLE temp.probe_fts USING fts5(body)")
        except db.OperationalError as exc:
            return Driver(name, version, vec, problem=f"has no FTS5: {exc}",
                          fix="pip install sqlean.py (its SQLite has FTS5 built in)")
    finally:
        conn.close()
    return Driver(name, version, vec)


def inspect(path: Path) -> tuple[int, IndexStats | None]:
    """(schema version, stats when the schema is current), through read-only connections."""
    from minirag.store.index import Index

    conn = db.connect(path, read_only=True)
    try:
        version = schema.schema_version(conn)
    finally:
        db.close(conn, checkpoint=False)
    if version != schema.SCHEMA_VERSION:
        return version, None
    index = Index(path, read_only=True)
    try:
        return version, index.stats()
    finally:
        index.close()


def quick_check(path: Path) -> str:
    """SQLite's `quick_check` of the file: "ok", or its first complaint. O(file size): for doctor, not status."""
    conn = db.connect(path, read_only=True)
    try:
        rows = conn.execute("PRAGMA quick_check").fetchmany(3)
    finally:
        db.close(conn, checkpoint=False)
    answers = [r[0] for r in rows]
    return "ok" if answers == ["ok"] else "; ".join(answers)
