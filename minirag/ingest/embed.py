"""The embed step: a vector for every chunk of a group of documents, each text embedded at most once."""

from __future__ import annotations

import time

import numpy as np

from minirag.ingest.progress import Progress
from minirag.store.index import Index, PreparedSource, text_hash


def with_vectors(documents: list, index: Index, encoder, progress: Progress | None = None) -> list[PreparedSource]:
    """Each document (ingest.pipeline.Document) with its vectors: reused by chunk-text hash where the
    index already holds them, embedded once per distinct text otherwise."""
    texts = [c.text for d in documents for c in d.chunked.chunks]
    hashes = [text_hash(t) for t in texts]
    known = index.vectors_for_hashes(hashes)
    missing: dict[str, str] = {}
    for h, t in zip(hashes, texts, strict=True):
        if h not in known:
            missing.setdefault(h, t)
    if missing:
        t0 = time.perf_counter()
        vectors = encoder.embed_documents(list(missing.values()))
        if progress is not None:
            progress.add_time("embed", time.perf_counter() - t0)
        known.update(zip(missing.keys(), vectors, strict=True))
    out, position = [], 0
    for doc in documents:
        n = len(doc.chunked.chunks)
        matrix = (
            np.stack([known[h] for h in hashes[position : position + n]])
            if n else np.zeros((0, encoder.dimension), np.float32)
        )
        out.append(PreparedSource(doc.record, doc.chunked, matrix))
        position += n
    return out
