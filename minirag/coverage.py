"""Whether the embedding model can read a query and the indexed corpus.

A model trained on one script (all-MiniLM-L6-v2: Latin) embeds text in another
into noise. Measured on lo-help-index-ru (2,082 Russian queries over Russian
pages), giving its vector ranking any weight in the fusion lowered nDCG@10 —
even for the queries written in Latin letters, because the pages they must
find are Russian. So the vector side votes only when the model reads both.
"""

from __future__ import annotations

SAMPLE_CHUNKS = 256  # spread evenly over chunk ids; deterministic


class CorpusCoverage:
    """Caches, per index state (largest chunk id), whether most chunks are readable."""

    def __init__(self) -> None:
        self._key: int | None = None
        self._readable = True

    def readable(self, conn, embedder) -> bool:
        if embedder.spec.scripts is None:
            return True
        largest = conn.execute("SELECT COALESCE(MAX(id), 0) FROM chunks").fetchone()[0]
        if largest != self._key:
            step = max(1, largest // SAMPLE_CHUNKS)
            ids = list(range(1, largest + 1, step))[:SAMPLE_CHUNKS]
            texts = [r[0] for r in conn.execute(
                f"SELECT text FROM chunks WHERE id IN ({','.join('?' * len(ids))})", ids)] if ids else []
            self._readable = not texts or 2 * sum(embedder.reads(t) for t in texts) >= len(texts)
            self._key = largest
        return self._readable


def vector_can_vote(conn, embedder, query: str, coverage: CorpusCoverage) -> bool:
    return embedder.reads(query) and coverage.readable(conn, embedder)
