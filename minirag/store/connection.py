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


def connect(path: Path | str, *, read_only: bool = False) -> Connection:
    """Open the index with sqlite-vec loaded and our pragmas set. Does not migrate."""
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


# --- migrations -------------------------------------------------------------
# Each migration is one small function, one change, applied in order inside a
# transaction and recorded in `migrations`. Never edit a released migration:
# add a new one.


def _script(conn: Connection, sql: str) -> None:
    """Run DDL statements inside the caller's transaction (executescript would COMMIT it)."""
    for statement in sql.split(";\n"):
        if statement.strip():
            conn.execute(statement)


def _m001_core(conn: Connection) -> None:
    _script(conn,
        """
        CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
        CREATE TABLE sources (
            id INTEGER PRIMARY KEY,
            source TEXT NOT NULL UNIQUE,
            kind TEXT NOT NULL CHECK (kind IN ('file', 'data', 'url')),
            title TEXT NOT NULL DEFAULT '',
            content_hash TEXT NOT NULL,
            size INTEGER,
            mtime_ns INTEGER,
            scheme INTEGER NOT NULL,
            category TEXT NOT NULL DEFAULT 'generic',
            lifecycle TEXT NOT NULL DEFAULT 'active',
            ingested_at TEXT NOT NULL
        );
        CREATE TABLE parents (
            id INTEGER PRIMARY KEY,
            source_id INTEGER NOT NULL REFERENCES sources(id) ON DELETE CASCADE,
            ord INTEGER NOT NULL,
            text TEXT NOT NULL,
            page_start INTEGER,
            page_end INTEGER,
            context_lines INTEGER NOT NULL DEFAULT 0,
            UNIQUE (source_id, ord)
        );
        CREATE TABLE chunks (
            id INTEGER PRIMARY KEY,
            source_id INTEGER NOT NULL REFERENCES sources(id) ON DELETE CASCADE,
            ord INTEGER NOT NULL,
            parent_id INTEGER NOT NULL REFERENCES parents(id) ON DELETE CASCADE,
            text TEXT NOT NULL,
            tokens INTEGER NOT NULL,
            text_hash TEXT NOT NULL,
            scheme INTEGER NOT NULL,
            page_start INTEGER,
            page_end INTEGER,
            UNIQUE (source_id, ord)
        );
        CREATE INDEX chunks_by_parent ON chunks(parent_id);
        CREATE INDEX chunks_by_hash ON chunks(text_hash);
        CREATE INDEX chunks_by_scheme ON chunks(scheme);
        CREATE INDEX parents_by_source ON parents(source_id);
        -- BM25 over chunk body and source title; rowid = chunks.id. Stores the
        -- keyword-normalized text (see keywords.py), not the display text.
        CREATE VIRTUAL TABLE chunks_fts USING fts5(
            body, title, tokenize = 'unicode61 remove_diacritics 2'
        );
        """
    )


MIGRATIONS: list[tuple[str, Callable[[Connection], None]]] = [
    ("core tables, FTS5", _m001_core),
]
SCHEMA_VERSION = len(MIGRATIONS)


def schema_version(conn: Connection) -> int:
    exists = conn.execute(
        "SELECT 1 FROM sqlite_master WHERE type='table' AND name='migrations'"
    ).fetchone()
    if not exists:
        return 0
    return conn.execute("SELECT COALESCE(MAX(id), 0) FROM migrations").fetchone()[0]


def migrate(conn: Connection) -> int:
    """Apply every pending migration; returns the resulting schema version."""

    def run() -> int:
        conn.execute("BEGIN IMMEDIATE")
        try:
            conn.execute(
                "CREATE TABLE IF NOT EXISTS migrations "
                "(id INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)"
            )
            current = schema_version(conn)
            if current > SCHEMA_VERSION:
                raise IndexUnavailable(
                    f"the index has schema version {current}, newer than this minirag "
                    f"understands ({SCHEMA_VERSION}); upgrade minirag"
                )
            for number, (name, step) in enumerate(MIGRATIONS, start=1):
                if number <= current:
                    continue
                step(conn)
                conn.execute(
                    "INSERT INTO migrations (id, name, applied_at) VALUES (?, ?, datetime('now'))",
                    (number, name),
                )
            conn.execute(
                "INSERT INTO meta (key, value) VALUES ('schema_version', ?) "
                "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                (str(SCHEMA_VERSION),),
            )
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        return SCHEMA_VERSION

    return with_retry(run)


def create_vector_table(conn: Connection, dimension: int) -> None:
    """The vec0 table is created once the model (and so the dimension) is known.

    `lifecycle` is a vec0 metadata column so superseded documents are filtered
    inside the KNN, before ranking.
    """
    conn.execute(
        f"CREATE VIRTUAL TABLE IF NOT EXISTS chunks_vec USING vec0("
        f"chunk_id INTEGER PRIMARY KEY, embedding float[{int(dimension)}] distance_metric=cosine, lifecycle TEXT)"
    )
