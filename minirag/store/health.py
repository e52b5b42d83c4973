"""Read-only checks of the SQLite driver and of an index file, for `doctor`: never writes."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from minirag.store import connection as db
from minirag.store import schema

if TYPE_CHECKING:
    from minirag.store.index import IndexStats


T = TypeVar("T")


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
    """(schema version, stats when the schema is one a read-only open reads), through read-only
    connections."""
    return db.read_whole(path, lambda: _inspect(path))


def _inspect(path: Path) -> tuple[int, IndexStats | None]:
    from minirag.store.index import Index

    conn = db.connect(path, read_only=True)
    try:
        version = schema.schema_version(conn)
    finally:
        db.close(conn, checkpoint=False)
    if not schema.READ_SCHEMA <= version <= schema.SCHEMA_VERSION:
        return version, None
    index = Index(path, read_only=True)
    try:
        return version, index.stats()
    finally:
        index.close()


def _read(path: Path, question: Callable[[db.Connection], T]) -> T:
    """`question` asked of the file through a read-only connection of its own (db.read_whole)."""
    def ask() -> T:
        conn = db.connect(path, read_only=True)
        try:
            return question(conn)
        finally:
            db.close(conn, checkpoint=False)

    return db.read_whole(path, ask)


def another_programs(path: Path) -> str | None:
    """What the file is when it is another program's SQLite database, or None (read-only)."""
    return _read(path, lambda conn: db.another_programs(conn, path))


def recorded_model(path: Path) -> tuple[str, int] | None:
    """The model and vector width the index records, read without upgrading an older schema."""
    from minirag.store.index import model_recorded_in

    return _read(path, model_recorded_in)


def quick_check(path: Path) -> str:
    """SQLite's `quick_check` of the file: "ok", or its first complaints. O(file size): for doctor, not status."""
    return _read(path, lambda conn: answer(conn, "quick_check"))


def sound_without_wal(path: Path) -> bool:
    """Whether the index file read alone, its -wal left unread (SQLite's `immutable`), passes
    quick_check: then what damages it is a -wal that is not its own (another moment or another file)."""
    wal = Path(f"{os.path.abspath(path)}-wal")
    if not wal.is_file() or wal.stat().st_size == 0:
        return False
    uri = db.read_only_uri(path)
    try:
        conn = db.sqlite3.connect(uri if "immutable=1" in uri else uri + "&immutable=1", uri=True)
    except db.DatabaseError:
        return False
    try:
        return answer(conn, "quick_check") == "ok"
    except db.DatabaseError:
        return False
    finally:
        conn.close()


def answer(conn: db.Connection, pragma: str) -> str:
    """`PRAGMA quick_check` or `integrity_check` on `conn`: "ok", or its first three complaints
    (without the "*** in database main ***" heading SQLite puts above them, in their row or one of
    its own)."""
    rows = (row[0] for row in conn.execute(f"PRAGMA {pragma}"))
    complaints = [line for text in rows for line in text.split("\n")
                  if line.strip() and not line.startswith("*** in database")]
    return "ok" if complaints == ["ok"] else "; ".join(complaints[:3])


# Rows the index keeps in step, one to one with `chunks` (store/index.py writes them in one transaction).
_KEYWORD_IDS = "SELECT rowid FROM chunks_fts"
_VECTOR_IDS = "SELECT chunk_id FROM chunks_vec"
UNIT_LENGTH_TOLERANCE = 1e-3  # stored vectors are L2-normalized (encoder.py); float32 rounding stays far below this


def out_of_step(path: Path) -> tuple[str, ...]:
    """What disagrees between the tables that must agree, each a short phrase; empty when nothing.

    SQLite's own checks see a well-formed file, not one whose rows were changed by hand (a row
    deleted in the sqlite3 shell, a -wal from another copy replayed) or whose vector bytes were
    flipped inside a page: those leave chunks unfindable or searches ranked by garbage, silently.
    O(file size): for doctor, not status."""
    def ask() -> tuple[str, ...]:
        conn = db.connect(path, read_only=True)
        try:
            conn.execute("BEGIN")  # one snapshot for every statement: a commit between two is no damage
            return tuple(_disagreements(conn))
        finally:
            db.close(conn, checkpoint=False)

    return db.read_whole(path, ask)


def _disagreements(conn: db.Connection):
    count = lambda sql: conn.execute(sql).fetchone()[0]  # noqa: E731
    if n := len(conn.execute("PRAGMA foreign_key_check").fetchmany(1000)):
        yield f"rows whose source or section is gone: {n}{'+' if n == 1000 else ''}"
    if (problem := schema.keyword_table_problem(conn)) is not None:
        yield problem  # its rows are not read: a planted declaration may fail any statement on it
    else:
        yield from _keyword_disagreements(conn, count)
    if not schema.has_vector_table(conn):
        return
    if n := count(f"SELECT COUNT(*) FROM chunks WHERE id NOT IN ({_VECTOR_IDS})"):
        yield f"chunks with no vector: {n}"
    if n := count(f"SELECT COUNT(*) FROM ({_VECTOR_IDS}) AS v WHERE v.chunk_id NOT IN (SELECT id FROM chunks)"):
        yield f"vectors with no chunk: {n}"
    meta = dict(conn.execute("SELECT key, value FROM meta WHERE key IN ('model_id', 'dimension')").fetchall())
    if "model_id" not in meta or "dimension" not in meta:
        yield "vectors are stored but the meta table records no model or dimension"
    yield from _code_disagreements(conn)
    width, bad = _vector_shape(conn)
    if width is not None and meta.get("dimension") not in (None, str(width)):
        yield f"the meta table says {meta['dimension']}-d vectors, the stored ones are {width}-d"
    elif str(meta.get("dimension")).isdigit() and (
            problem := schema.vector_table_problem(conn, int(meta["dimension"]))) is not None:
        yield problem
    if bad:
        yield f"vectors whose bytes were changed (not unit length): {bad}"


def _keyword_disagreements(conn: db.Connection, count: Callable[[str], int]):
    if n := count(f"SELECT COUNT(*) FROM chunks WHERE id NOT IN ({_KEYWORD_IDS})"):
        yield f"chunks with no keyword row: {n}"
    if n := count(f"SELECT COUNT(*) FROM ({_KEYWORD_IDS}) WHERE rowid NOT IN (SELECT id FROM chunks)"):
        yield f"keyword rows with no chunk: {n}"


def _vector_shape(conn: db.Connection) -> tuple[int | None, int]:
    """(the stored vectors' dimension, how many of them are not unit length or not finite)."""
    import numpy as np

    width, bad = None, 0
    cursor = conn.execute("SELECT embedding FROM chunks_vec")
    while rows := cursor.fetchmany(4096):
        vectors = np.frombuffer(b"".join(blob for (blob,) in rows), dtype=np.float32).reshape(len(rows), -1)
        width = vectors.shape[1]
        with np.errstate(all="ignore"):
            norms = np.linalg.norm(vectors.astype(np.float64), axis=1)
        bad += int(np.count_nonzero(~(np.abs(norms - 1) <= UNIT_LENGTH_TOLERANCE)))
    return width, bad


def _code_disagreements(conn: db.Connection):
    """The int8 codes a large index searches (store/codes.py), once built, cover exactly the chunks."""
    import numpy as np

    if conn.execute("SELECT 1 FROM vector_codebook").fetchone() is None:
        return
    coded = np.concatenate([np.zeros(0, np.int64),
                            *(np.frombuffer(ids, np.int64) for (ids,) in conn.execute("SELECT ids FROM vector_codes"))])
    chunks = np.fromiter((i for (i,) in conn.execute("SELECT id FROM chunks")), np.int64)
    if n := len(np.setdiff1d(chunks, coded)):
        yield f"chunks with no int8 code: {n}"
    if n := len(np.setdiff1d(coded, chunks)):
        yield f"int8 codes with no chunk: {n}"
