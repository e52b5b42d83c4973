"""The vector side of a query: sqlite-vec's vec0 KNN, or int8 codes re-scored on large indexes.

sqlite-vec's vec0 scan is exact but grows with the index (its cost: see
docs/scale.md#the-vector-sides-numbers). Past codes.CODES_FROM_CHUNKS chunks
the index also holds an int8 code of every vector (store/codes.py): the
query ranks all codes with one integer product (code_product.py), then
re-scores the best 1.5 x depth: exactly, from the stored float32 vectors,
or in a serving process of a mid-size index from float16 copies it holds.
A serving process keeps the codes in memory (a quarter of the floats' size)
and rebuilds that copy in the background whenever the index's write
generation moves (any process); until a fresh copy is ready, or in a
one-shot CLI query, the codes are read block by block straight from the
file, so results always reflect the current file.
"""

from __future__ import annotations

import logging
import threading
import time

import numpy as np

from minirag.search import code_product
from minirag.search.code_product import to_rows
from minirag.search.keyword import CountCache
from minirag.search.scope import Scopes
from minirag.store import codes as stored_codes
from minirag.store.index import META_GENERATION

log = logging.getLogger(__name__)

MIN_CHUNKS = stored_codes.CODES_FROM_CHUNKS  # below it, the vec0 scan
REBUILD_PAUSE_S = 2.0  # at most one rebuild this often while a sync keeps writing
# A serving process whose index's vectors fit this many bytes as float16 keeps them beside the
# codes, and re-scores in memory: 128 MB is ~170k chunks of 384-d (why: see
# docs/scale.md#the-vector-sides-numbers).
ROWS_BYTES = 128 * 1024 * 1024
# Codes re-scored from those rows: in memory a re-score costs next to nothing, so many more than
# from the file, which keeps near-ties the codes cannot tell apart (docs/scale.md#the-vector-sides-numbers).
ROWS_RESCORED = 1000
# Codes read from the file and multiplied at once: one ONNX Runtime call per 64 blocks, not per block.
STREAM_ROWS = 65_536


def rescore_depth(depth: int) -> int:
    """Candidates re-scored exactly for a vector side of `depth` (40 for topK 10); the recall
    this keeps: see docs/scale.md#the-vector-sides-numbers."""
    return depth + depth // 2


def scoped_chunks_sql(scope: Scopes) -> str:
    return f"SELECT c.id FROM chunks c JOIN sources s ON s.id = c.source_id WHERE {scope.sql}"


def vec0_candidates(conn, vector: np.ndarray, depth: int, scope: Scopes | None) -> list[tuple[int, float]]:
    """(chunk_id, distance) of the nearest active chunks by the vec0 KNN, nearest first.

    vec0's text-metadata range filters fail on larger tables (sqlite-vec 0.1.9:
    "Could not filter metadata fields"), so a scope is a `chunk_id IN (...)`
    constraint inside the KNN. MATERIALIZED keeps SQLite from flattening the
    KNN into the outer query, which vec0 rejects (one ORDER BY distance per KNN).
    """
    scope_filter = f"AND chunk_id IN ({scoped_chunks_sql(scope)})" if scope is not None else ""
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


def scoped_chunk_ids(conn, scope: Scopes) -> np.ndarray:
    return np.asarray([r[0] for r in conn.execute(scoped_chunks_sql(scope), scope.args)], dtype=np.int64)


def _best(scores: np.ndarray, want: int) -> np.ndarray:
    """Positions of the `want` highest scores (any order), never one masked out (-inf)."""
    want = min(want, int(np.count_nonzero(scores > -np.inf)))
    if want <= 0:
        return np.empty(0, dtype=np.int64)
    cut = len(scores) - want
    return np.argpartition(scores, cut)[cut:]


def _scores(rows: np.ndarray, weights: np.ndarray, ids: np.ndarray, active: np.ndarray,
            allowed: np.ndarray | None) -> np.ndarray:
    """Each code row's score for the query's weights; -inf for inactive rows and rows outside `allowed`."""
    scores = code_product.scores(rows, weights)
    mask = active if allowed is None else active & np.isin(ids, allowed)
    if not mask.all():
        scores[~mask] = -np.inf
    return scores


class VectorMatrix:
    """Every chunk's int8 code in memory (the coarse pass of a large index's vector side), and on a
    mid-size index each chunk's vector as float16 beside them, which re-score the best
    ROWS_RESCORED codes without reading the file.

    The codes are held as the uint8 rows code_product multiplies. The float16 rows are kept
    while they fit ROWS_BYTES; their cosine is within ~1e-4 of float32's (what they cost and
    save: docs/scale.md#the-vector-sides-numbers).
    """

    def __init__(self, generation: int, codebook: stored_codes.Codebook, ids: np.ndarray, codes: np.ndarray,
                 active: np.ndarray, rows: np.ndarray | None = None):
        self.generation = generation
        self.codebook = codebook
        self.ids = ids  # int64 chunk ids, ascending
        self.codes = codes  # uint8 (n, code_dims): code_product.to_rows of the stored codes
        self.active = active  # bool: lifecycle is 'active'
        self.rows = rows  # float16 (n, dimension), unit vectors in the order of `ids`; None past ROWS_BYTES

    @classmethod
    def load(cls, conn, generation: int) -> VectorMatrix | None:
        """Read every block into preallocated arrays (peak = the matrix). Call inside a read
        transaction so the count and the blocks are one snapshot. None when there are no codes."""
        codebook = stored_codes.read_codebook(conn)
        if codebook is None:
            return None
        n = stored_codes.code_count(conn)
        ids = np.empty(n, dtype=np.int64)
        codes = np.empty((n, codebook.code_dims), dtype=np.uint8)
        active = np.empty(n, dtype=bool)
        at = 0
        for block in stored_codes.blocks(conn, codebook.code_dims):
            end = at + len(block.ids)
            ids[at:end], active[at:end], codes[at:end] = block.ids, block.active, to_rows(block.codes)
            at = end
        held = n * codebook.basis.shape[0] * 2 <= ROWS_BYTES
        return cls(generation, codebook, ids, codes, active, _load_rows(conn, ids) if held else None)

    def coarse(self, query: np.ndarray, want: int, allowed: np.ndarray | None = None) -> np.ndarray:
        """Chunk ids of the `want` best codes for the query (active, inside `allowed` if given)."""
        return self.ids[self._best_codes(query, want, allowed)]

    def nearest(self, query: np.ndarray, depth: int, allowed: np.ndarray | None = None) -> list[tuple[int, float]]:
        """(chunk_id, cosine distance) of the `depth` nearest active chunks: the best ROWS_RESCORED
        codes re-scored from the float16 rows, nearest first, ties by chunk id (as the vec0 KNN
        orders them)."""
        rows = self._rows()
        positions = self._best_codes(query, max(ROWS_RESCORED, rescore_depth(depth)), allowed)
        scores = rows[positions].astype(np.float32) @ np.asarray(query, dtype=np.float32)
        order = np.lexsort((self.ids[positions], -scores))[:depth]
        return [(int(self.ids[positions[i]]), float(1.0 - scores[i])) for i in order.tolist()]

    def _best_codes(self, query: np.ndarray, want: int, allowed: np.ndarray | None) -> np.ndarray:
        return _best(_scores(self.codes, self.codebook.query_weights(query), self.ids, self.active, allowed), want)

    def distances(self, ids: list[int], query: np.ndarray) -> dict[int, float]:
        """Cosine distance of each of `ids` (those held) to the query, from the float16 rows."""
        rows, wanted = self._rows(), np.asarray(ids, dtype=np.int64)
        positions = np.searchsorted(self.ids, wanted)
        held = positions < len(self.ids)
        held[held] = self.ids[positions[held]] == wanted[held]
        scores = rows[positions[held]].astype(np.float32) @ np.asarray(query, dtype=np.float32)
        return {c: float(1.0 - s) for c, s in zip(wanted[held].tolist(), scores.tolist(), strict=True)}

    def _rows(self) -> np.ndarray:
        if self.rows is None:
            raise ValueError("this matrix holds codes only: re-score from the file (rescore)")
        return self.rows


def _load_rows(conn, ids: np.ndarray) -> np.ndarray:
    """Every stored vector, normalized, as float16 in the order of `ids` (rows the snapshot lacks stay zero)."""
    rows: np.ndarray | None = None
    for chunk_id, blob in conn.execute("SELECT chunk_id, embedding FROM chunks_vec"):
        vector = np.frombuffer(blob, dtype=np.float32)
        if rows is None:
            rows = np.zeros((len(ids), len(vector)), dtype=np.float16)
        position = int(np.searchsorted(ids, chunk_id))
        if position < len(ids) and ids[position] == chunk_id:
            norm = float(np.linalg.norm(vector))
            rows[position] = vector / norm if norm else vector
    return rows if rows is not None else np.zeros((len(ids), 0), dtype=np.float16)


def streamed_coarse(conn, query: np.ndarray, want: int, allowed: np.ndarray | None = None) -> np.ndarray | None:
    """What VectorMatrix.coarse returns, reading the codes block by block from the file
    (nothing kept beyond STREAM_ROWS codes at a time); None when the index has no codes."""
    codebook = stored_codes.read_codebook(conn)
    if codebook is None:
        return None
    weights = codebook.query_weights(query)
    kept_ids: list[np.ndarray] = []
    kept_scores: list[np.ndarray] = []
    pending: list[stored_codes.Block] = []
    pending_rows = 0

    def flush() -> None:
        ids = np.concatenate([b.ids for b in pending])
        rows = to_rows(np.concatenate([b.codes for b in pending]))
        scores = _scores(rows, weights, ids, np.concatenate([b.active for b in pending]), allowed)
        best = _best(scores, want)
        kept_ids.append(ids[best])
        kept_scores.append(scores[best])
        pending.clear()

    for block in stored_codes.blocks(conn, codebook.code_dims):
        pending.append(block)
        pending_rows += len(block.ids)
        if pending_rows >= STREAM_ROWS:
            flush()
            pending_rows = 0
    if pending:
        flush()
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
