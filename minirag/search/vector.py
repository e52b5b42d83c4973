"""The vector side of a query: sqlite-vec's vec0 KNN, or an in-memory matrix on large indexes.

sqlite-vec's vec0 scan is exact but costs ~80 ms at 100k chunks and ~800 ms
at 1M on two cores (scripts/bench.py); one float32 matrix-vector product in
numpy costs ~8 ms and ~75 ms. The matrix is a cache of the SQLite file, never
a second store: it is rebuilt in the background whenever the index's write
generation moves (any process), and until a fresh one is ready the caller
falls back to the vec0 scan, so results are always those of the current file.
Exact float32 cosine, so recall against the vec0 scan is 1.0.
"""

from __future__ import annotations

import logging
import threading
import time

import numpy as np

from minirag.search.scope import Scope

log = logging.getLogger(__name__)

#: Below this many chunks the vec0 scan is fast enough (~16 ms at 10k) and no
#: memory is spent on a copy (float32: 1.5 KB a 384-d chunk).
MIN_CHUNKS = 20_000
REBUILD_PAUSE_S = 5.0  # at most one rebuild this often while a sync keeps writing



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



def vector_distances(conn, ids: list[int], query: np.ndarray, matrix: VectorMatrix | None) -> dict[int, float]:
    """Cosine distance of each of `ids` to the query: for the chunks only the keyword side found.

    From the in-memory matrix when there is one, else from those rows of chunks_vec."""
    if not ids:
        return {}
    query = np.asarray(query, dtype=np.float32)
    if matrix is not None:
        positions = np.searchsorted(matrix.ids, ids)
        found = [(c, p) for c, p in zip(ids, positions, strict=True)
                 if p < len(matrix.ids) and matrix.ids[p] == c]
        return {c: float(1.0 - matrix.matrix[p] @ query) for c, p in found}
    out = {}
    for start in range(0, len(ids), 500):
        part = ids[start : start + 500]
        marks = ",".join("?" * len(part))
        for chunk_id, blob in conn.execute(f"SELECT chunk_id, embedding FROM chunks_vec WHERE chunk_id IN ({marks})",
                                           part):
            out[chunk_id] = float(1.0 - np.frombuffer(blob, dtype=np.float32) @ query)
    return out


def scoped_chunk_ids(conn, scope: Scope) -> np.ndarray:
    return np.asarray([r[0] for r in conn.execute(SCOPED_CHUNKS_SQL, scope.args)], dtype=np.int64)


class VectorMatrix:
    def __init__(self, generation: int, ids: np.ndarray, matrix: np.ndarray, active: np.ndarray):
        self.generation = generation
        self.ids = ids  # int64 chunk ids, ascending
        self.matrix = matrix  # float32 (n, dimension), unit rows
        self.active = active  # bool: lifecycle is 'active'
        self.all_active = bool(active.all())  # the usual case: no mask to apply

    @classmethod
    def load(cls, conn, generation: int, dimension: int) -> VectorMatrix:
        """Read every vector into one preallocated array (no transient copies: peak = the matrix).
        Call inside a read transaction so the count and the rows are one snapshot."""
        n = conn.execute("SELECT COUNT(*) FROM chunks").fetchone()[0]
        ids = np.empty(n, dtype=np.int64)
        matrix = np.empty((n, dimension), dtype=np.float32)
        active = np.empty(n, dtype=bool)
        count = 0
        for chunk_id, blob, lifecycle in conn.execute("SELECT chunk_id, embedding, lifecycle FROM chunks_vec"):
            if count == n:
                break  # chunks and vectors are written in one transaction; never more vectors than chunks
            ids[count] = chunk_id
            matrix[count] = np.frombuffer(blob, dtype=np.float32)
            active[count] = lifecycle == "active"
            count += 1
        return cls(generation, ids[:count], matrix[:count], active[:count])

    def nearest(self, query: np.ndarray, depth: int, allowed: np.ndarray | None = None) -> list[tuple[int, float]]:
        """(chunk_id, cosine distance) of the `depth` nearest active chunks, nearest first."""
        scores = self.matrix @ np.asarray(query, dtype=np.float32)
        if allowed is None and self.all_active:
            depth = min(depth, len(scores))
        else:
            mask = self.active if allowed is None else self.active & np.isin(self.ids, allowed)
            scores = np.where(mask, scores, -np.inf)
            depth = min(depth, int(mask.sum()))
        if depth <= 0:
            return []
        top = np.argpartition(-scores, depth - 1)[:depth]
        # Ties broken by chunk id, as the SQL side does.
        top = top[np.lexsort((self.ids[top], -scores[top]))]
        return [(int(self.ids[i]), float(1.0 - scores[i])) for i in top]


class MatrixCache:
    """One matrix per process, rebuilt off the query path when the index changes."""

    def __init__(self, open_connection):
        self._open = open_connection  # () -> a connection of its own, for the builder thread
        self._matrix: VectorMatrix | None = None
        self._building = False
        self._last_build = 0.0
        self._lock = threading.Lock()
        self._epoch = 0  # moves when the index file is replaced: a build begun before is discarded

    def current(self, generation: int, chunk_count: int, dimension: int) -> VectorMatrix | None:
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
            threading.Thread(target=self._build, args=(dimension,), name="minirag-vectors", daemon=True).start()
        return None

    def clear(self) -> None:
        """Forget the matrix: the index file it mirrored was replaced by another one."""
        with self._lock:
            self._matrix = None
            self._epoch += 1

    def build_now(self, dimension: int) -> VectorMatrix:
        """Build synchronously (benchmarks, tests, a warm-up); also what the thread runs."""
        epoch = self._epoch
        conn = self._open()
        try:
            # The generation is read inside the same snapshot as the vectors.
            conn.execute("BEGIN")
            generation = int(conn.execute(
                "SELECT COALESCE((SELECT value FROM meta WHERE key = 'generation'), 0)").fetchone()[0])
            matrix = VectorMatrix.load(conn, generation, dimension)
            conn.execute("COMMIT")
        finally:
            conn.close()
        with self._lock:
            if epoch == self._epoch:
                self._matrix = matrix
        return matrix

    def _build(self, dimension: int) -> None:
        started = time.monotonic()
        try:
            matrix = self.build_now(dimension)
            log.info("vector matrix: %d chunks in %.1f s", len(matrix.ids), time.monotonic() - started)
        except Exception:  # noqa: BLE001 - the vec0 scan keeps answering meanwhile
            log.exception("could not build the in-memory vector matrix")
        finally:
            with self._lock:
                self._building = False
                self._last_build = time.monotonic()
