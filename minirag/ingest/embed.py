"""The embed step: a vector for every chunk of a group of documents, each text embedded at most once."""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, NoReturn

from minirag.display import message_line
from minirag.errors import MiniragError, ModelRunStopped
from minirag.ingest.progress import Progress
from minirag.store.index import Index, PreparedSource, text_hash

if TYPE_CHECKING:
    import numpy as np

    from minirag.store.pending import PendingVectors

log = logging.getLogger(__name__)


class EmbeddingStopped(Exception):
    """Raised by an `on_batch` to stop embedding a group (a stop was asked for): `with_vectors` then
    raises it again holding `complete`, the documents whose every chunk has its vector; and
    `interrupt`, the Ctrl-C (or SIGTERM) that stopped it instead, for the caller to raise again once
    it has written them."""

    def __init__(self, complete: list[PreparedSource] | None = None, interrupt: KeyboardInterrupt | None = None):
        super().__init__("embedding stopped")
        self.complete = complete or []
        self.interrupt = interrupt


def _to_embed(documents: list, hashes: list[str], known: dict) -> tuple[list[tuple[str, str, int]], set[int]]:
    """The texts to embed, once each, in the documents' order: (hash, text, its document's number);
    and the positions of the chunks embedded (the first of each text), the others reusing a vector."""
    pending: list[tuple[str, str, int]] = []
    taken: set[str] = set()
    embeds: set[int] = set()
    position = 0
    for number, doc in enumerate(documents):
        for chunk in doc.chunked.chunks:
            h = hashes[position]
            if h not in known and h not in taken:
                taken.add(h)
                embeds.add(position)
                pending.append((h, chunk.text, number))
            position += 1
    return pending, embeds


def with_vectors(documents: list, index: Index, encoder, progress: Progress | None = None,
                 on_batch: Callable[[int, int], None] | None = None,
                 save: Callable[[dict[str, np.ndarray]], None] | None = None) -> list[PreparedSource]:
    """Each document (ingest.pipeline.Document) with its vectors: reused by chunk-text hash where the
    index already holds them (with its chunks, or kept from a sync that stopped before writing them),
    embedded once per distinct text otherwise. `on_batch(done, of)` runs after each encoder batch of
    the texts to embed; an EmbeddingStopped it raises comes out holding the documents complete by
    then. `save(vectors)` keeps the vectors embedded, a few batches at a time and at a stop, for a
    next run should this one never write them (store/pending.py)."""
    texts = [c.text for d in documents for c in d.chunked.chunks]
    hashes = [text_hash(t) for t in texts]
    known = index.vectors_for_hashes(hashes)
    if missing := [h for h in hashes if h not in known]:
        known.update(index.pending_vectors(missing, encoder.model_id, encoder.dimension))
    from minirag.store.pending import PendingVectors  # numpy: not for a sync with nothing to embed

    saver = PendingVectors(save) if save is not None else None
    pending, embeds = _to_embed(documents, hashes, known)
    if progress is not None:
        progress.chunks_to_embed += len(pending)
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

    def keep(rows: list[int], vectors) -> None:
        made = [(pending[row][0], vector) for row, vector in zip(rows, vectors, strict=True)]
        known.update(made)
        if saver is not None:
            saver.add(made)

    with _saved_if_cut_short(saver):
        try:
            if pending:
                # One encoder call for the group, so its length-sorted batches pack across files; progress
                # moves per ONNX batch, inside one large file too; the batches run so that the group's
                # first files are whole first: a stop finds them so, and they are written.
                encoder.embed_documents([text for _, text, _ in pending], on_batch=batch_done,
                                        owners=[number for _, _, number in pending], on_vectors=keep)
        except ModelRunStopped:
            if progress is None or not progress.stop.is_set():
                raise  # the run went past its limit: no stop was asked for
            # A job's cancellation stops the model run in hand too (SyncJob.cancel): kept as a stop's.
            _stopped(documents, hashes, known, encoder, embeds, progress, len(pending) - embedded, t0, None)
        except (EmbeddingStopped, KeyboardInterrupt) as exc:
            # Ctrl-C lands in this thread, and the model run in hand stops at once (interruptible.py): the
            # files whole by then are kept as a stop's are (a second Ctrl-C leaves them too).
            _stopped(documents, hashes, known, encoder, embeds, progress, len(pending) - embedded, t0,
                     exc if isinstance(exc, KeyboardInterrupt) else None)
    if progress is not None and pending:
        progress.add_time("embed", time.perf_counter() - t0)
    return _prepared(list(_positions(documents)), hashes, known, encoder, embeds, progress)


@contextlib.contextmanager
def _saved_if_cut_short(saver: PendingVectors | None) -> Iterator[None]:
    """A stop, Ctrl-C, the run past its limit, any failure: the vectors `saver` holds are saved, for
    the next run (a failure to save them, the disk full or the lock lost, is said, and the run ends as
    it was ending). Else they are dropped: the documents are written next, with these vectors."""
    try:
        yield
    except BaseException:
        if saver is not None:
            try:
                saver.flush()
            except (MiniragError, OSError) as exc:
                log.warning("the vectors embedded since the last save were not kept: %s", message_line(exc))
        raise
    if saver is not None:
        saver.drop()


def _stopped(documents: list, hashes: list[str], known: dict, encoder, embeds: set[int], progress: Progress | None,
             left: int, t0: float, interrupt: KeyboardInterrupt | None) -> NoReturn:
    """EmbeddingStopped holding the documents whole by now; `left` of the texts to embed were not."""
    complete = [doc for doc, ready in _ready(documents, hashes, known) if ready]
    if progress is not None:
        progress.chunks_to_embed -= left  # not embedded by this run after all
        progress.add_time("embed", time.perf_counter() - t0)
    raise EmbeddingStopped(_prepared(complete, hashes, known, encoder, embeds, progress), interrupt) from None


def _positions(documents: list):
    """Each document with the position of its first chunk among the group's."""
    position = 0
    for doc in documents:
        yield doc, position
        position += len(doc.chunked.chunks)


def _ready(documents: list, hashes: list[str], known: dict):
    """Each (document, its first chunk's position) with whether every chunk of it has its vector."""
    for doc, position in _positions(documents):
        n = len(doc.chunked.chunks)
        yield (doc, position), all(h in known for h in hashes[position:position + n])


def _prepared(documents: list, hashes: list[str], known: dict, encoder, embeds: set[int],
              progress: Progress | None) -> list[PreparedSource]:
    """The (document, position) pairs with their vectors; the chunks they reuse (all but those at the
    positions in `embeds`) counted, as they are written."""
    import numpy as np

    out = []
    for doc, position in documents:
        n = len(doc.chunked.chunks)
        mine = hashes[position:position + n]
        if progress is not None:
            progress.chunks_reused += sum(1 for i in range(position, position + n) if i not in embeds)
        matrix = np.stack([known[h] for h in mine]) if n else np.zeros((0, encoder.dimension), np.float32)
        out.append(PreparedSource(doc.record, doc.chunked, matrix, doc.keyword_texts))
    return out
