"""Vectors embedded for files not written yet: kept so a sync stopped inside a large file (Ctrl-C,
SIGTERM, SIGKILL, a crash) does not embed them again next time.

A row is one chunk text's vector, keyed by the text's hash (store/index.text_hash) and the model
and width that made it, so it is only ever attached to that very text by that model. Rows are
written in short transactions of their own while a group embeds (PendingVectors), read like stored
vectors (embed.py), deleted in the transaction that writes the chunks using them, and all deleted
when a full sync finishes; the oldest go past LIMIT rows. A sync of some paths (`sync PATH`, a
watcher's pass) keeps the vectors of the files it drops too (keep_stored): a folder moved and synced
old path first finds them under its new name, as a full sync, which drops after it writes, does.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from minirag.store import connection as db

# numpy where a vector is read or kept: a sync with nothing to embed only asks whether any are kept.
if TYPE_CHECKING:
    import numpy as np

TABLE_SQL = """
    CREATE TABLE IF NOT EXISTS pending_vectors (
        id INTEGER PRIMARY KEY,
        text_hash TEXT NOT NULL,
        model TEXT NOT NULL,
        dimension INTEGER NOT NULL,
        embedding BLOB NOT NULL,
        UNIQUE (text_hash, model, dimension)
    );
"""

# The rows kept at most (the newest): 20,000 384-d vectors are some 31 MB of the index file.
LIMIT = 20_000
# Written every SAVE_EVERY_S seconds of embedding, or every SAVE_EVERY vectors, whichever comes first
# (what a SIGKILL loses at most), so long as saving has taken at most SAVE_SHARE of the time the group
# has embedded: a save costs about the same a vector whatever the encoder (docs/benchmarks.md, "Ctrl-C
# inside a large file"), nothing beside e5-small on a CPU, much beside a fast encoder. A stop saves all.
SAVE_EVERY_S = 2.0
SAVE_EVERY = 256
SAVE_SHARE = 0.05
UNIT_LENGTH_TOLERANCE = 1e-3  # vectors are L2-normalized (encoder.py); one whose bytes changed is not used

_IN_BATCH = 500


def _whole(blob: bytes, dimension: int) -> np.ndarray | None:
    if not isinstance(blob, bytes) or len(blob) != 4 * dimension:
        return None
    import numpy as np

    vector = np.frombuffer(blob, dtype=np.float32)
    with np.errstate(all="ignore"):
        norm = float(np.linalg.norm(vector.astype(np.float64)))
    return vector if abs(norm - 1) <= UNIT_LENGTH_TOLERANCE else None


def has_table(conn: db.Connection) -> bool:
    return conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'pending_vectors'"
                        ).fetchone() is not None


def lookup(conn: db.Connection, hashes: Iterable[str], model: str, dimension: int) -> dict[str, np.ndarray]:
    """The whole vectors kept for these chunk texts by this model, at this width."""
    hashes = list(dict.fromkeys(hashes))
    found: dict[str, np.ndarray] = {}
    if not hashes or not has_table(conn):
        return found
    for start in range(0, len(hashes), _IN_BATCH):
        part = hashes[start:start + _IN_BATCH]
        rows = conn.execute(
            f"""SELECT text_hash, embedding FROM pending_vectors
                WHERE model = ? AND dimension = ? AND text_hash IN ({', '.join('?' * len(part))})""",
            (model, dimension, *part))
        for h, blob in rows:
            if (vector := _whole(blob, dimension)) is not None:
                found[h] = vector
    return found


def save(conn: db.Connection, vectors: dict[str, np.ndarray], model: str, dimension: int) -> None:
    """Keep `vectors` (text hash -> vector) inside the caller's transaction, dropping any row of
    another model or width, and the oldest past LIMIT."""
    import numpy as np

    conn.execute("DELETE FROM pending_vectors WHERE model != ? OR dimension != ?", (model, dimension))
    conn.executemany(
        "INSERT OR REPLACE INTO pending_vectors (text_hash, model, dimension, embedding) VALUES (?, ?, ?, ?)",
        [(h, model, dimension, np.asarray(v, dtype=np.float32).tobytes()) for h, v in vectors.items()])
    conn.execute("""DELETE FROM pending_vectors WHERE id <= (
                        SELECT id FROM pending_vectors ORDER BY id DESC LIMIT 1 OFFSET ?)""", (LIMIT,))


def keep_stored(conn: db.Connection, source_ids: list[int], model: str, dimension: int) -> None:
    """Keep the stored vectors of these sources' chunks, inside the caller's transaction that deletes
    them (at most LIMIT of them; one kept already stays where it is in the order)."""
    conn.execute("DELETE FROM pending_vectors WHERE model != ? OR dimension != ?", (model, dimension))
    left = LIMIT
    for start in range(0, len(source_ids), _IN_BATCH):
        part = source_ids[start:start + _IN_BATCH]
        left -= conn.execute(
            f"""INSERT OR IGNORE INTO pending_vectors (text_hash, model, dimension, embedding)
                SELECT c.text_hash, ?, ?, v.embedding FROM chunks c JOIN chunks_vec v ON v.chunk_id = c.id
                WHERE c.source_id IN ({', '.join('?' * len(part))}) LIMIT ?""",
            (model, dimension, *part, left)).rowcount
        if left <= 0:
            break
    conn.execute("""DELETE FROM pending_vectors WHERE id <= (
                        SELECT id FROM pending_vectors ORDER BY id DESC LIMIT 1 OFFSET ?)""", (LIMIT,))


def forget(conn: db.Connection, hashes: Iterable[str]) -> None:
    """Drop the rows of these texts (their chunks are written, with these vectors), inside the
    caller's transaction."""
    hashes = list(dict.fromkeys(hashes))
    if not hashes or not has_table(conn):
        return
    for start in range(0, len(hashes), _IN_BATCH):
        part = hashes[start:start + _IN_BATCH]
        conn.execute(f"DELETE FROM pending_vectors WHERE text_hash IN ({', '.join('?' * len(part))})", part)


def count(conn: db.Connection) -> int:
    return conn.execute("SELECT COUNT(*) FROM pending_vectors").fetchone()[0] if has_table(conn) else 0


class PendingVectors:
    """The vectors a group embeds, saved as they come, `every` seconds or SAVE_EVERY vectors, through
    `write(vectors)` (a transaction of the index's: Index.save_pending, behind the sync's guard)."""

    def __init__(self, write: Callable[[dict[str, np.ndarray]], None], clock: Callable[[], float] = time.monotonic):
        self.write = write
        self.clock = clock
        self.held: dict[str, np.ndarray] = {}
        self.started = self.last = clock()
        self.spent = 0.0  # seconds spent saving

    def add(self, pairs: Iterable[tuple[str, np.ndarray]]) -> None:
        self.held.update(pairs)
        now = self.clock()
        if (len(self.held) >= SAVE_EVERY or now - self.last >= SAVE_EVERY_S) and \
                self.spent <= SAVE_SHARE * (now - self.started):
            self.flush()

    def flush(self) -> None:
        """Save what is held now (a stop: before the group's whole files are written)."""
        if self.held:
            t0 = self.clock()
            self.write(self.held)
            self.held = {}  # only once written: a Ctrl-C inside the write leaves them for the stop's save
            self.spent += self.clock() - t0
        self.last = self.clock()

    def drop(self) -> None:
        """The group was embedded whole: its chunks are written next, with these vectors."""
        self.held.clear()
