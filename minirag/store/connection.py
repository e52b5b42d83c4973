"""Connection, sqlite-vec loading, pragmas, and versioned schema migrations.

Driver choice: `sqlean.py` first. It bundles SQLite 3.50 with FTS5 and extension
loading on Linux, macOS and Windows wheels, so every install runs the same SQL
engine; many Python builds (pyenv, python.org macOS, this machine's) ship a
`sqlite3` without `enable_load_extension`, which cannot load sqlite-vec at all.
The standard library driver is the fallback when sqlean is not importable.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from minirag.errors import IndexUnavailable

try:  # see the module docstring for why sqlean comes first
    import sqlean as sqlite3
except ImportError:  # pragma: no cover - exercised only where sqlean is absent
    import sqlite3  # type: ignore[no-redef]

Connection = Any  # sqlean.Connection or sqlite3.Connection: the same DB-API surface
DatabaseError = sqlite3.DatabaseError
OperationalError = sqlite3.OperationalError
IntegrityError = sqlite3.IntegrityError

BUSY_TIMEOUT_MS = 10_000


def sqlite_version() -> str:
    return sqlite3.sqlite_version


def connect(path: Path | str, *, read_only: bool = False, auto_checkpoint: bool = True) -> Connection:
    """Open the index with sqlite-vec loaded and our pragmas set. Does not migrate.

    `auto_checkpoint` False turns SQLite's own checkpoint-every-1000-pages off on
    this connection, for a file whose checkpoints Litestream runs (store/checkpoint.py).
    """
    import sqlite_vec

    if read_only:
        uri = f"file:{Path(path).as_posix()}?mode=ro"
        conn = sqlite3.connect(uri, uri=True, check_same_thread=False, isolation_level=None)
    else:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None)
    try:
        conn.enable_load_extension(True)
        sqlite_vec.load(conn)
        conn.enable_load_extension(False)
    except AttributeError:
        conn.close()
        raise IndexUnavailable(
            "this Python's sqlite3 cannot load extensions and sqlean.py is not installed; "
            "`pip install sqlean.py`"
        ) from None
    conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    conn.execute("PRAGMA foreign_keys = ON")
    if not read_only:
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA synchronous = NORMAL")
        if not auto_checkpoint:
            conn.execute("PRAGMA wal_autocheckpoint = 0")
    return conn


def close(conn: Connection, *, checkpoint: bool = True) -> None:
    """Close; a writer's clean close folds the WAL back so the .db file alone is complete."""
    try:
        if checkpoint:
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    except OperationalError:
        pass  # another connection holds the WAL; it will checkpoint when it closes
    finally:
        conn.close()


def with_retry(fn: Callable[[], Any], *, attempts: int = 8) -> Any:
    """Run fn, retrying 'database is locked' past the busy timeout (e.g. WAL upgrades)."""
    delay = 0.05
    for attempt in range(attempts):
        try:
            return fn()
        except OperationalError as exc:
            if "locked" not in str(exc) and "busy" not in str(exc) or attempt == attempts - 1:
                raise
            time.sleep(delay)
            delay = min(delay * 2, 1.0)
    raise AssertionError("unreachable")
