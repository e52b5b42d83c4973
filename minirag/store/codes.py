"""Compact vector codes in the index file: what a large index searches in memory instead of floats.

Each chunk's float32 vector (kept in `chunks_vec`) also gets an int8 code of
its coordinates on the index's principal directions, one byte each, every
dimension kept. A query ranks every code with one integer matrix-vector
product, then re-scores the best few dozen (search/vector.py), so results
are those of an exact float search whenever the true neighbours survive the
coarse pass. Each vector re-scored from the file is a vec0 point lookup, so
the re-scored stay few and the codes must be precise. Why this width, and what was rejected: see
docs/scale.md#how-a-large-index-is-searched.

The codes live in blocks of 2**BLOCK_BITS chunk ids (`block = chunk_id >> BLOCK_BITS`;
the codebook records the shift), so loading them reads one row per block rather
than one per chunk, and a write rewrites only the blocks its new chunks fall in.
The codebook (the projection and the per-dimension step) is fitted once, from
the vectors in the index when it first reaches CODES_FROM_CHUNKS chunks, and
never changes after: every code in the file is comparable with every other.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

import numpy as np

from minirag.store.connection import DatabaseError

#: Below this many chunks the exact vec0 scan is fast enough and no codes are kept
#: (see docs/scale.md#the-vector-sides-numbers).
CODES_FROM_CHUNKS = 20_000
TRAIN_SAMPLE = 50_000  # vectors the projection is fitted on, at most
BLOCK_BITS = 10  # 1,024 chunk ids per block row, in a new codebook (see docs/scale.md#the-vector-sides-numbers)
STEP_SIGMAS = 4.0  # the int8 range spans |mean| + 4 standard deviations of each projected dimension

TABLES_SQL = """
CREATE TABLE vector_codebook (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    dimension INTEGER NOT NULL,
    code_dims INTEGER NOT NULL,
    block_bits INTEGER NOT NULL,
    basis BLOB NOT NULL,
    step BLOB NOT NULL,
    trained_on INTEGER NOT NULL
);
CREATE TABLE vector_codes (
    block INTEGER PRIMARY KEY,
    ids BLOB NOT NULL,
    codes BLOB NOT NULL,
    active BLOB NOT NULL
)
"""


@dataclass(frozen=True)
class Codebook:
    basis: np.ndarray  # float32 (dimension, code_dims), orthonormal columns
    step: np.ndarray  # float32 (code_dims,): value of one code unit in each projected dimension
    block_bits: int = BLOCK_BITS  # block = chunk_id >> block_bits

    @property
    def code_dims(self) -> int:
        return self.basis.shape[1]

    def encode(self, vectors: np.ndarray) -> np.ndarray:
        projected = np.asarray(vectors, dtype=np.float32) @ self.basis
        return np.clip(np.rint(projected / self.step), -127, 127).astype(np.int8)

    @property
    def complete(self) -> bool:
        """Every dimension coded: a codebook fitted before codes kept all of them had 5/6 of them,
        which lose recall with the default model (docs/scale.md#the-vector-sides-numbers)."""
        return self.code_dims == self.basis.shape[0]

    def query_weights(self, query: np.ndarray) -> np.ndarray:
        """float32 weights w with codes @ w ~= the query's inner product with each coded vector,
        less the same amount for every vector."""
        return (np.asarray(query, dtype=np.float32) @ self.basis) * self.step


def fit(sample: np.ndarray) -> Codebook:
    """The principal directions of the sample, strongest first, and a step that keeps nearly every
    value in int8."""
    return fit_blocks([sample])


def fit_blocks(blocks: Iterable[np.ndarray]) -> Codebook:
    """`fit` on the sample the blocks make up, read one block at a time: from its first and second
    moments, so the sample is never held whole (in float64, beside its centred copy and its
    projection, it had been the peak of the sync that first fitted the codebook)."""
    count, shift, total, scatter = 0, np.zeros(0), np.zeros(0), np.zeros((0, 0))
    for block in blocks:
        block = np.asarray(block, dtype=np.float64)
        if not len(block):
            continue
        if not count:
            # Sums taken about a point near the mean keep float64's precision for the centred scatter.
            shift = block.mean(axis=0)
            total, scatter = np.zeros_like(shift), np.zeros((len(shift), len(shift)))
        offsets = block - shift
        count += len(offsets)
        total += offsets.sum(axis=0)
        scatter += offsets.T @ offsets
    if not count:
        raise ValueError("no vectors to fit a codebook on")
    mean_offset = total / count
    scatter -= count * np.outer(mean_offset, mean_offset)  # now about the mean itself
    _values, vectors = np.linalg.eigh(scatter)
    basis = np.ascontiguousarray(vectors[:, ::-1], dtype=np.float32)
    directions = basis.astype(np.float64)
    # The spread of the sample along each (float32) direction v is sqrt(v' S v / count).
    spread = np.sqrt(np.maximum(np.einsum("ij,ij->j", directions, scatter @ directions) / count, 0.0))
    reach = np.abs((shift + mean_offset) @ directions) + STEP_SIGMAS * spread
    step = np.maximum(reach / 127.0, 1e-6).astype(np.float32)
    return Codebook(basis, step)


def read_codebook(conn) -> Codebook | None:
    row = conn.execute(
        "SELECT dimension, code_dims, block_bits, basis, step, "
        "(SELECT value FROM meta WHERE key = 'dimension') FROM vector_codebook WHERE id = 1").fetchone()
    if row is None:
        return None
    dimension, code_dims, block_bits, basis, step, indexed = row
    shaped = all(isinstance(n, int) and n > 0 for n in (dimension, code_dims)) and str(dimension) == indexed
    if not (shaped and isinstance(basis, bytes) and len(basis) == 4 * dimension * code_dims
            and isinstance(step, bytes) and len(step) == 4 * code_dims
            and isinstance(block_bits, int) and 0 <= block_bits < 63):
        raise _damage(f"its vector codebook (dimension {dimension!r}, code_dims {code_dims!r}, block_bits "
                      f"{block_bits!r}) does not fit its blobs or the index's vectors")
    return Codebook(np.frombuffer(basis, dtype=np.float32).reshape(dimension, code_dims),
                    np.frombuffer(step, dtype=np.float32), block_bits)


def _damage(what: str) -> Exception:
    """Codes minirag did not write (the tables changed by hand, or an index someone else made) as
    SQLite's own corruption error, which the faces say as a damaged index with what to do."""
    return DatabaseError(f"database corrupt: {what}")


@dataclass
class Block:
    ids: np.ndarray  # int64, ascending
    codes: np.ndarray  # int8 (len(ids), code_dims)
    active: np.ndarray  # bool

    @classmethod
    def from_row(cls, ids: bytes, codes: bytes, active: bytes, code_dims: int) -> Block:
        blobs = all(isinstance(blob, bytes) for blob in (ids, codes, active))
        if not (blobs and len(ids) % 8 == 0 and len(active) == len(ids) // 8 == len(codes) // code_dims
                and len(codes) % code_dims == 0):
            raise _damage("a block of its vector codes does not fit its codebook")
        ids_ = np.frombuffer(ids, dtype=np.int64)
        return cls(ids_, np.frombuffer(codes, dtype=np.int8).reshape(len(ids_), code_dims),
                   np.frombuffer(active, dtype=bool))


def _read_block(conn, block: int, code_dims: int) -> Block | None:
    row = conn.execute("SELECT ids, codes, active FROM vector_codes WHERE block = ?", (block,)).fetchone()
    if row is None:
        return None
    ids, codes, active = row
    return Block.from_row(ids, codes, active, code_dims)


def _write_block(conn, block: int, content: Block) -> None:
    if len(content.ids) == 0:
        conn.execute("DELETE FROM vector_codes WHERE block = ?", (block,))
        return
    conn.execute(
        "INSERT OR REPLACE INTO vector_codes (block, ids, codes, active) VALUES (?, ?, ?, ?)",
        (block, content.ids.astype(np.int64).tobytes(), np.ascontiguousarray(content.codes).tobytes(),
         content.active.astype(bool).tobytes()),
    )


def add(conn, codebook: Codebook, ids: np.ndarray, vectors: np.ndarray, active: np.ndarray) -> None:
    """Codes for new chunks, merged into their blocks (inside the caller's transaction)."""
    if len(ids) == 0:
        return
    ids = np.asarray(ids, dtype=np.int64)
    codes = codebook.encode(vectors)
    active = np.asarray(active, dtype=bool)
    blocks = ids >> codebook.block_bits
    for block in np.unique(blocks):
        mine = blocks == block
        old = _read_block(conn, int(block), codebook.code_dims)
        merged = Block(ids[mine], codes[mine], active[mine])
        if old is not None:
            keep = ~np.isin(old.ids, merged.ids)
            merged = Block(np.concatenate([old.ids[keep], merged.ids]),
                           np.concatenate([old.codes[keep], merged.codes]),
                           np.concatenate([old.active[keep], merged.active]))
        order = np.argsort(merged.ids, kind="stable")
        _write_block(conn, int(block), Block(merged.ids[order], merged.codes[order], merged.active[order]))


def remove(conn, codebook: Codebook, ids: Iterable[int]) -> None:
    """Drop the codes of deleted chunks (inside the caller's transaction)."""
    by_block: dict[int, list[int]] = defaultdict(list)
    for chunk_id in ids:
        by_block[chunk_id >> codebook.block_bits].append(chunk_id)
    for block, gone in by_block.items():
        old = _read_block(conn, block, codebook.code_dims)
        if old is not None:
            keep = ~np.isin(old.ids, np.asarray(gone, dtype=np.int64))
            _write_block(conn, block, Block(old.ids[keep], old.codes[keep], old.active[keep]))


def blocks(conn, code_dims: int) -> Iterator[Block]:
    """Every block, in chunk-id order; each holds ~1 MB, so a scan never holds them all."""
    for ids, codes, active in conn.execute("SELECT ids, codes, active FROM vector_codes ORDER BY block"):
        yield Block.from_row(ids, codes, active, code_dims)


def code_count(conn) -> int:
    return int(conn.execute("SELECT COALESCE(SUM(length(active)), 0) FROM vector_codes").fetchone()[0])


def build(conn, *, batch: int = 1 << BLOCK_BITS) -> Codebook | None:
    """Fit the codebook on the stored vectors and code every chunk (inside the caller's transaction).

    Fitted once, when the index first reaches CODES_FROM_CHUNKS chunks (or when an older index
    is upgraded); None while the index has no vectors."""
    if conn.execute("SELECT chunk_id FROM chunks_vec LIMIT 1").fetchone() is None:
        return None
    trained_on = 0

    def sample() -> Iterator[np.ndarray]:
        nonlocal trained_on
        cursor = conn.execute("SELECT embedding FROM chunks_vec LIMIT ?", (TRAIN_SAMPLE,))
        while rows := cursor.fetchmany(batch):
            trained_on += len(rows)
            yield np.stack([np.frombuffer(blob, dtype=np.float32) for (blob,) in rows])

    codebook = fit_blocks(sample())
    conn.execute(
        "INSERT OR REPLACE INTO vector_codebook (id, dimension, code_dims, block_bits, basis, step, trained_on) "
        "VALUES (1, ?, ?, ?, ?, ?, ?)",
        (codebook.basis.shape[0], codebook.code_dims, codebook.block_bits, codebook.basis.tobytes(),
         codebook.step.tobytes(), trained_on),
    )
    conn.execute("DELETE FROM vector_codes")
    pending_ids: list[int] = []
    pending_vectors: list[np.ndarray] = []
    pending_active: list[bool] = []

    def flush() -> None:
        if pending_ids:
            add(conn, codebook, np.asarray(pending_ids), np.stack(pending_vectors), np.asarray(pending_active))
            pending_ids.clear()
            pending_vectors.clear()
            pending_active.clear()

    for chunk_id, blob, lifecycle in conn.execute("SELECT chunk_id, embedding, lifecycle FROM chunks_vec"):
        pending_ids.append(chunk_id)
        pending_vectors.append(np.frombuffer(blob, dtype=np.float32))
        pending_active.append(lifecycle == "active")
        if len(pending_ids) >= batch:
            flush()
    flush()
    return codebook
