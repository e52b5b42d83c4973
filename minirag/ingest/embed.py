"""The embed step: a vector for every chunk of a group of documents, each text embedded at most once."""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np

from minirag.ingest.progress import Progress
from minirag.store.index import Index, PreparedSource, text_hash

EMBED_SLICE = 64  # texts per encoder call: a few ONNX batches, so progress moves every second or two


def with_vectors(documents: list, index: Index, encoder, progress: Progress | None = None,
                 on_slice: Callable[[int, int], None] | None = None) -> list[PreparedSource]:
    """Each document (ingest.pipeline.Document) with its vectors: reused by chunk-text hash where the
    index already holds them, embedded once per distinct text otherwise. `on_slice(done, of)` runs
    after each slice of the texts to embed."""
    texts = [c.text for d in documents for c in d.chunked.chunks]
    hashes = [text_hash(t) for t in texts]
    known = index.vectors_for_hashes(hashes)
    missing: dict[str, str] = {}
    for h, t in zip(hashes, texts, strict=True):
        if h not in known:
            missing.setdefault(h, t)
    if missing:
        # In slices, longest first (so each slice pads to like lengths), so that a run's progress
        # moves per slice even inside one large file.
        pending = sorted(missing.items(), key=lambda item: -len(item[1]))
        for start in range(0, len(pending), EMBED_SLICE):
            part = pending[start:start + EMBED_SLICE]
            t0 = time.perf_counter()
            vectors = encoder.embed_documents([text for _, text in part])
            known.update(zip((h for h, _ in part), vectors, strict=True))
            if progress is not None:
                progress.add_time("embed", time.perf_counter() - t0)
                if progress.embed_started is None:
                    progress.embed_started = time.monotonic() - (time.perf_counter() - t0)
                progress.chunks_embedded += len(part)
            if on_slice is not None:
                on_slice(start + len(part), len(pending))
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
