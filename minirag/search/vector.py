"""The vector side of a query: sqlite-vec's vec0 KNN, or int8 codes re-scored exactly on large indexes.

sqlite-vec's vec0 scan is exact but grows with the index (its cost: see
docs/scale.md#the-vector-sides-numbers). Past codes.CODES_FROM_CHUNKS chunks
the index also holds an int8 code of every vector (store/codes.py): the
query ranks all codes with one integer product, then re-scores the best
1.5 x depth exactly, cosine from the stored float32 vectors. A serving
process keeps the codes in memory (a fifth of the floats' size) and
rebuilds that copy in the background whenever the index's write generation
moves (any process); until a fresh copy is ready, or in a one-shot CLI
query, the codes are read block by block straight from the file, so
results always reflect the current file.
"""

from __future__ import annotations

import logging
import threading
import time

import numpy as np

from minirag.search.keyword import CountCache
from minirag.search.scope import Scope
from minirag.store import codes as stored_codes
from minirag.store.index import META_GENERATION

log = logging.getLogger(__name__)

MIN_CHUNKS = stored_codes.CODES_FROM_CHUNKS  # below it, the vec0 scan
REBUILD_PAUSE_S = 2.0  # at most one rebuild this often while a sync keeps writing
_FLOOR = np.iinfo(np.int32).min
HEAD_DIMS = 96  # code dimensions that rank every chunk in memory (VectorMatrix)
# A serving process whose index's float vectors fit this many bytes keeps those instead of the
# codes, and ranks exactly in memory: 256 MB is ~170k chunks of 384-d (why: see
# docs/scale.md#the-vector-sides-numbers).
FLOAT_MATRIX_BYTES = 256 * 1024 * 1024
HEAD_CANDIDATES = 20_000  # ranked again on every code dimension


def rescore_depth(depth: int) -> int:
    """Candidates re-scored exactly for a vector side of `depth` (40 for topK 10); the recall
    this keeps: see docs/scale.md#the-vector-sides-numbers."""
    return depth + depth // 2


SCOPED_CHUNKS_SQL = f"SELECT c.id FROM chunks c JOIN sources s ON s.id = c.source_id WHERE {Scope.SQL}"


def vec0_candidates(conn, vector: np.ndarray, depth: int, scope: Scope | None) -> list[tuple[int, float]]:
    """(chunk_id, distance) of the nearest active chunks by the vec0 KNN, nearest first.

    vec0's text-metadata range filters fail on larger tables (sqlite-vec 0.1.9:
    "Could not filter metadata fields"), so a scope is a `chunk_id IN (...)`
    constraint inside the KNN. MATERIALIZED keeps SQLite from flattening the
    KNN into the outer query, which vec0 rejects (one ORDER BY distance per KNN).
    """
    scope_filter = f"AND chunk_id IN ({SCOPED_CHUNKS_SQL})" if scope is not None else ""
    sql = f"""
        WITH knn AS MATERIALIZED (
            SELECT chunk_id, distance FROM chunks_vec
            WHERE embedding MATCH ? AND k = ? AND lifecycle = 'active' {scope_filter}
        )
        SELECT chunk_id, distance FROM knn ORDER BY distance, chunk_id LIMIT ?
    """
    blob = np.asarray(vector, dtype=np.float32).tobytes()
    return conn.execute(sql, (blob, depth, *(scope.args if scope else ()), depth)).fetchall()


def vector_distances(conn, ids: list[int], query: np.ndarray, *, small_index: bool) -> dict[int, float]:
    """Cosine distance of each of `ids` to the query, from its stored float32 vector: for the
    chunks only the keyword side found.

    On a small index one `chunk_id IN (...)` query, which vec0 answers with a scan
    whatever the number of ids; on a large one a point lookup per id (see rescore),
    since that scan grows with the index (docs/scale.md#the-vector-sides-numbers)."""
    if not ids:
        return {}
    if not small_index:
        return dict(rescore(conn, np.asarray(ids, dtype=np.int64), query, len(ids)))
    query = np.asarray(query, dtype=np.float32)
    marks = ",".join("?" * len(ids))
    rows = conn.execute(f"SELECT chunk_id, embedding FROM chunks_vec WHERE chunk_id IN ({marks})", ids)
    return {chunk_id: _stored_distance(blob, query) for chunk_id, blob in rows}


def _stored_distance(blob: bytes, query: np.ndarray) -> float:
    """Cosine distance of a stored float32 vector to the query (1.0 for a zero vector)."""
    vector = np.frombuffer(blob, dtype=np.float32)
    norm = float(np.linalg.norm(vector)) * (float(np.linalg.norm(query)) or 1.0)
    return float(1.0 - (vector @ query) / norm) if norm else 1.0


def scoped_chunk_ids(conn, scope: Scope) -> np.ndarray:
    return np.asarray([r[0] for r in conn.execute(SCOPED_CHUNKS_SQL, scope.args)], dtype=np.int64)


def _best(scores: np.ndarray, want: int) -> np.ndarray:
    """Positions of the `want` highest scores (any order), never one masked to the floor."""
    want = min(want, int(np.count_nonzero(scores > _FLOOR)))
    if want <= 0:
        return np.empty(0, dtype=np.int64)
    cut = len(scores) - want
    return np.argpartition(scores, cut)[cut:]


def _scores(codes: np.ndarray, weights: np.ndarray, ids: np.ndarray, active: np.ndarray,
            allowed: np.ndarray | None) -> np.ndarray:
    scores = np.einsum("ij,j->i", codes, weights)  # int8 x int32 -> int32, ~3x less memory traffic than float32
    mask = active if allowed is None else active & np.isin(ids, allowed)
    if not mask.all():
        scores[~mask] = _FLOOR
    return scores


class VectorMatrix:
    """Every chunk's int8 code, in memory: the coarse pass of a large index's vector side.

    numpy has no fast int8 product (einsum; no BLAS for integers), so the codes
    are held in two parts: the first HEAD_DIMS (the strongest principal
    directions) rank every chunk, and the best HEAD_CANDIDATES of those are
    ranked again on all of them. The time and recall of that split: see
    docs/scale.md#the-vector-sides-numbers.
    """

    def __init__(self, generation: int, codebook: stored_codes.Codebook, ids: np.ndarray, head: np.ndarray,
                 tail: np.ndarray, active: np.ndarray, floats: np.ndarray | None = None):
        self.generation = generation
        self.codebook = codebook
        self.ids = ids  # int64 chunk ids, ascending
        self.head = head  # int8 (n, HEAD_DIMS): the first code dimensions
        self.tail = tail  # int8 (n, code_dims - HEAD_DIMS): the rest
        self.active = active  # bool: lifecycle is 'active'
        # float32 (n, dimension), unit rows, in the order of `ids`: held instead of the codes
        # when they fit FLOAT_MATRIX_BYTES; then `exact` ranks and `distances` answers.
        self.floats = floats

    @classmethod
    def load(cls, conn, generation: int) -> VectorMatrix | None:
        """Read every block into preallocated arrays (peak = the matrix). Call inside a read
        transaction so the count and the blocks are one snapshot. None when there are no codes."""
        codebook = stored_codes.read_codebook(conn)
        if codebook is None:
            return None
        n = stored_codes.code_count(conn)
        exact = n * codebook.basis.shape[0] * 4 <= FLOAT_MATRIX_BYTES
        # Held beside the floats, the codes would only take memory: exact search needs none.
        split = 0 if exact else min(HEAD_DIMS, codebook.code_dims)
        rest = 0 if exact else codebook.code_dims - split
        ids = np.empty(n, dtype=np.int64)
        head = np.empty((n, split), dtype=np.int8)
        tail = np.empty((n, rest), dtype=np.int8)
        active = np.empty(n, dtype=bool)
        at = 0
        for block in stored_codes.blocks(conn, codebook.code_dims):
            end = at + len(block.ids)
            ids[at:end], active[at:end] = block.ids, block.active
            if not exact:
                head[at:end], tail[at:end] = block.codes[:, :split], block.codes[:, split:]
            at = end
        floats = _load_floats(conn, ids) if exact else None
        return cls(generation, codebook, ids, head, tail, active, floats)

    def exact(self, query: np.ndarray, depth: int, allowed: np.ndarray | None = None) -> list[tuple[int, float]]:
        """(chunk_id, cosine distance) of the `depth` nearest active chunks from the float rows,
        nearest first, ties by chunk id (as the vec0 KNN orders them)."""
        scores = self._float_rows() @ np.asarray(query, dtype=np.float32)
        mask = self.active if allowed is None else self.active & np.isin(self.ids, allowed)
        depth = min(depth, int(mask.sum()))
        if depth <= 0:
            return []
        scores = np.where(mask, scores, -np.inf)
        top = np.argpartition(-scores, depth - 1)[:depth]
        top = top[np.lexsort((self.ids[top], -scores[top]))]
        return [(int(self.ids[i]), float(1.0 - scores[i])) for i in top]

    def distances(self, ids: list[int], query: np.ndarray) -> dict[int, float]:
        """Cosine distance of each of `ids` (those held) to the query, from the float rows."""
        positions = np.searchsorted(self.ids, ids)
        query = np.asarray(query, dtype=np.float32)
        floats = self._float_rows()
        return {c: float(1.0 - floats[p] @ query) for c, p in zip(ids, positions.tolist(), strict=True)
                if p < len(self.ids) and self.ids[p] == c}

    def _float_rows(self) -> np.ndarray:
        if self.floats is None:
            raise ValueError("this matrix holds codes, not float rows: rank with coarse")
        return self.floats

    def coarse(self, query: np.ndarray, want: int, allowed: np.ndarray | None = None) -> np.ndarray:
        """Chunk ids of the `want` best codes for the query (active, inside `allowed` if given)."""
        weights = self.codebook.query_weights(query)
        split = self.head.shape[1]
        scores = _scores(self.head, weights[:split], self.ids, self.active, allowed)
        if len(scores) > 2 * HEAD_CANDIDATES:
            rows = _best(scores, HEAD_CANDIDATES)
            scores = scores[rows]
        else:
            rows = np.arange(len(scores))
        live = scores > _FLOOR
        scores[live] += np.einsum("ij,j->i", self.tail[rows[live]], weights[split:])
        return self.ids[rows[_best(scores, want)]]


def _load_floats(conn, ids: np.ndarray) -> np.ndarray:
    """Every stored vector, normalized, in the order of `ids` (rows the snapshot lacks stay zero)."""
    floats: np.ndarray | None = None
    for chunk_id, blob in conn.execute("SELECT chunk_id, embedding FROM chunks_vec"):
        vector = np.frombuffer(blob, dtype=np.float32)
        if floats is None:
            floats = np.zeros((len(ids), len(vector)), dtype=np.float32)
        position = int(np.searchsorted(ids, chunk_id))
        if position < len(ids) and ids[position] == chunk_id:
            norm = float(np.linalg.norm(vector))
            floats[position] = vector / norm if norm else vector
    return floats if floats is not None else np.zeros((len(ids), 0), dtype=np.float32)


def streamed_coarse(conn, query: np.ndarray, want: int, allowed: np.ndarray | None = None) -> np.ndarray | None:
    """What VectorMatrix.coarse returns, reading the codes block by block from the file
    (nothing kept); None when the index has no codes. Each block's rows are ranked on the
    head dimensions and its best `want` on all of them (docs/scale.md#the-vector-sides-numbers)."""
    codebook = stored_codes.read_codebook(conn)
    if codebook is None:
        return None
    weights = codebook.query_weights(query)
    split = min(HEAD_DIMS, codebook.code_dims)
    kept_ids, kept_scores = [], []
    for block in stored_codes.blocks(conn, codebook.code_dims):
        scores = _scores(block.codes[:, :split], weights[:split], block.ids, block.active, allowed)
        rows = _best(scores, want)
        kept_ids.append(block.ids[rows])
        kept_scores.append(scores[rows] + np.einsum("ij,j->i", block.codes[rows, split:], weights[split:]))
    if not kept_ids:
        return np.empty(0, dtype=np.int64)
    ids, scores = np.concatenate(kept_ids), np.concatenate(kept_scores)
    return ids[_best(scores, want)]


def rescore(conn, ids: np.ndarray, query: np.ndarray, depth: int) -> list[tuple[int, float]]:
    """(chunk_id, cosine distance) of the `depth` nearest of `ids` by their stored float32 vectors,
    nearest first, ties by chunk id (as the vec0 KNN orders them).

    One vec0 point lookup per id: vec0 answers `chunk_id = ?` from its rowid map, but
    `chunk_id IN (...)` with a full scan."""
    query = np.asarray(query, dtype=np.float32)
    found: list[tuple[int, float]] = []
    for chunk_id in ids.tolist():
        row = conn.execute("SELECT embedding FROM chunks_vec WHERE chunk_id = ?", (chunk_id,)).fetchone()
        if row is None:
            continue  # deleted since the codes were read
        found.append((chunk_id, _stored_distance(row[0], query)))
    found.sort(key=lambda hit: (hit[1], hit[0]))
    return found[:depth]


class MatrixCache:
    """One in-memory copy of the codes per serving process, rebuilt off the query path when the index changes;
    beside it the query terms' document counts (`counts`), kept while the index's generation stays."""

    def __init__(self, open_connection) -> None:
        self._open = open_connection  # () -> a connection of its own, for the builder thread
        self.counts = CountCache()
        self._matrix: VectorMatrix | None = None
        self._building = False
        self._last_build = 0.0
        self._lock = threading.Lock()
        self._epoch = 0  # moves when the index file is replaced: a build begun before is discarded

    def current(self, generation: int, chunk_count: int) -> VectorMatrix | None:
        """The matrix if it matches `generation`; else None, starting a rebuild if due."""
        if chunk_count < MIN_CHUNKS:
            return None
        with self._lock:
            matrix = self._matrix
            if matrix is not None and matrix.generation == generation:
                return matrix
            # A stale matrix is never used again: free it now, so a rebuild never holds two.
            self._matrix = None
            due = not self._building and time.monotonic() - self._last_build >= REBUILD_PAUSE_S
            if due:
                self._building = True
        if due:
            threading.Thread(target=self._build, name="minirag-vectors", daemon=True).start()
        return None

    def clear(self) -> None:
        """Forget the matrix: the index file it mirrored was replaced by another one."""
        with self._lock:
            self._matrix = None
            self._epoch += 1
        self.counts.clear()

    def build_now(self) -> VectorMatrix | None:
        """Build synchronously (benchmarks, tests, a warm-up); also what the thread runs."""
        epoch = self._epoch
        conn = self._open()
        try:
            # The generation is read inside the same snapshot as the codes.
            conn.execute("BEGIN")
            generation = int(conn.execute(
                "SELECT COALESCE((SELECT value FROM meta WHERE key = ?), 0)", (META_GENERATION,)).fetchone()[0])
            matrix = VectorMatrix.load(conn, generation)
            conn.execute("COMMIT")
        finally:
            conn.close()
        with self._lock:
            if epoch == self._epoch:
                self._matrix = matrix
        return matrix

    def _build(self) -> None:
        started = time.monotonic()
        try:
            matrix = self.build_now()
            if matrix is not None:
                log.info("vector codes: %d chunks in %.1f s", len(matrix.ids), time.monotonic() - started)
        except Exception:  # noqa: BLE001 - the codes in the file keep answering meanwhile
            log.exception("could not load the vector codes into memory")
        finally:
            with self._lock:
                self._building = False
                self._last_build = time.monotonic()
