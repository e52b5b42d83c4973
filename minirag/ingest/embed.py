"""The embed step: a vector for every chunk of a group of documents, each text embedded at most once."""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np

from minirag.ingest.progress import Progress
from minirag.store.index import Index, PreparedSource, text_hash


def with_vectors(documents: list, index: Index, encoder, progress: Progress | None = None,
                 on_batch: Callable[[int, int], None] | None = None) -> list[PreparedSource]:
    """Each document (ingest.pipeline.Document) with its vectors: reused by chunk-text hash where the
    index already holds them, embedded once per distinct text otherwise. `on_batch(done, of)` runs
    after each encoder batch of the texts to embed."""
    texts = [c.text for d in documents for c in d.chunked.chunks]
    hashes = [text_hash(t) for t in texts]
    known = index.vectors_for_hashes(hashes)
    missing: dict[str, str] = {}
    for h, t in zip(hashes, texts, strict=True):
        if h not in known:
            missing.setdefault(h, t)
    if missing:
        # One encoder call for the group, so its length-sorted batches pack across files; progress
        # moves per ONNX batch, inside one large file too.
        pending = list(missing.items())
        embedded, t0 = 0, time.perf_counter()

        def batch_done(done: int) -> None:
            nonlocal embedded
            if progress is not None:
                if progress.embed_started is None:
                    progress.embed_started = time.monotonic() - (time.perf_counter() - t0)
                progress.chunks_embedded += done - embedded
            embedded = done
            if on_batch is not None:
                on_batch(done, len(pending))

        vectors = encoder.embed_documents([text for _, text in pending], on_batch=batch_done)
        known.update(zip((h for h, _ in pending), vectors, strict=True))
        if progress is not None:
            progress.add_time("embed", time.perf_counter() - t0)
    if progress is not None:  # counted once the group's vectors are all in hand: a stopped group writes none
        progress.chunks_reused += len(hashes) - len(missing)
    out, position = [], 0
    for doc in documents:
        n = len(doc.chunked.chunks)
        matrix = (
            np.stack([known[h] for h in hashes[position : position + n]])
            if n else np.zeros((0, encoder.dimension), np.float32)
        )
        out.append(PreparedSource(doc.record, doc.chunked, matrix, doc.keyword_texts))
        position += n
    return out
