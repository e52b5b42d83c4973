"""A stop (the first Ctrl-C, a server shutting down) during embedding writes the files whose chunks
are all embedded before the run ends: the next run embeds again at most the files half-embedded."""

from __future__ import annotations

import threading

import pytest
from conftest import write

from minirag.encoder import Encoder
from minirag.ingest.progress import Progress
from minirag.ingest.sync import run_sync

FILES, SECTIONS = 60, 12
GATE_TIMEOUT_S = 60


def _notes(docs) -> None:
    for n in range(FILES):
        write(docs / f"note{n:03}.md", f"# Note {n}\n\n" + "\n\n".join(
            f"## Part {n}.{i}\n\nHarbour {n} keeps lighthouse {i} of {n * 7 + i} stones and {i * 13} gulls."
            for i in range(SECTIONS)))


class _AfterConversions:
    """The real encoder, whose second call waits until every file is converted: as with a real model,
    whose embedding is slower than the conversions, the files wait converted and the group is full."""

    def __init__(self, real, converted: threading.Event):
        self.real, self.converted, self.calls = real, converted, 0
        self.after_vectors = None  # runs after each batch's vectors are kept

    def __getattr__(self, name):
        return getattr(self.real, name)

    def embed_documents(self, texts, on_batch=None, **kwargs):
        self.calls += 1
        if self.calls == 2 and not self.converted.wait(GATE_TIMEOUT_S):
            raise TimeoutError("the conversions never ended")
        if self.after_vectors is not None and kwargs.get("on_vectors") is not None:
            keep, hook = kwargs["on_vectors"], self.after_vectors
            kwargs["on_vectors"] = lambda rows, vectors: (keep(rows, vectors), hook())
        return self.real.embed_documents(texts, on_batch, **kwargs)


@pytest.fixture
def slow_app(make_config, encoder, monkeypatch):
    from minirag.app import App

    converted = threading.Event()
    app = App(make_config(), encoder=_AfterConversions(encoder, converted))
    prepare, seen, lock = app.pipeline.prepare_file, [0], threading.Lock()

    def counted(*args, **kwargs):
        try:
            return prepare(*args, **kwargs)
        finally:
            with lock:
                seen[0] += 1
                if seen[0] == FILES:
                    converted.set()

    monkeypatch.setattr(app.pipeline, "prepare_file", counted)
    yield app
    app.close()


def test_a_stop_mid_group_writes_the_files_already_embedded(slow_app, docs):
    _notes(docs)
    first = Progress()

    def stop_halfway(p: Progress) -> None:
        if p.chunks_embedded >= FILES * SECTIONS // 2:
            p.stop.set()

    run_sync(slow_app.pipeline, list(slow_app.config.roots), progress=first, on_change=stop_halfway)
    assert first.stop.is_set() and first.done < FILES
    assert slow_app.index.stats().chunk_count == first.chunks_written
    # What the stop left unwritten of what it embedded: at most the files it was embedding.
    lost = first.chunks_embedded - first.chunks_written
    print(f"first run: {first.chunks_embedded} embedded, {first.chunks_written} written, {lost} lost")
    assert first.done > 0 and lost <= Encoder.MAX_BATCH_SIZE + SECTIONS, (first.chunks_embedded, first.chunks_written)
    second = run_sync(slow_app.pipeline, list(slow_app.config.roots))
    total = slow_app.index.stats().chunk_count
    print(f"second run: {second.chunks_embedded} embedded of {total}")
    assert second.done == FILES - first.done and not second.failed
    # The vectors of the files left unwritten were kept (store/pending.py): none is embedded twice.
    assert first.chunks_embedded + second.chunks_embedded - total == 0 and second.chunks_reused == lost


def test_ctrl_c_mid_group_writes_the_files_already_embedded_then_interrupts(slow_app, docs):
    """Ctrl-C stops the model run in hand at once (interruptible.py), and the group's files, embedded
    whole before it, were lost with it: the next run embedded them again."""
    import os
    import signal

    _notes(docs)
    first = Progress()
    pressed: list[int] = []

    def ctrl_c_halfway(p: Progress) -> None:
        if p.chunks_embedded >= FILES * SECTIONS // 2 and not pressed:
            pressed.append(p.chunks_embedded)
            os.kill(os.getpid(), signal.SIGINT)

    with pytest.raises(KeyboardInterrupt):
        run_sync(slow_app.pipeline, list(slow_app.config.roots), progress=first, on_change=ctrl_c_halfway)
    assert pressed and 0 < first.done < FILES
    assert slow_app.index.stats().chunk_count == first.chunks_written
    lost = first.chunks_embedded - first.chunks_written
    print(f"first run: {first.chunks_embedded} embedded, {first.chunks_written} written, {lost} lost")
    assert lost <= Encoder.MAX_BATCH_SIZE + SECTIONS, (first.chunks_embedded, first.chunks_written)
    second = run_sync(slow_app.pipeline, list(slow_app.config.roots))
    assert second.done == FILES - first.done and not second.failed
    assert first.chunks_embedded + second.chunks_embedded - slow_app.index.stats().chunk_count == 0
    assert second.chunks_reused == lost


def test_a_cancelled_job_whose_model_run_was_stopped_writes_the_files_already_embedded(slow_app, docs):
    """A sync job's cancellation stops the model run in hand too (its RunBound): ModelRunStopped came
    out of the encoder, past the group, and the group's whole files were lost with it."""
    from minirag.errors import ModelRunStopped

    _notes(docs)
    first = Progress()

    def cancel_halfway() -> None:
        if first.chunks_embedded >= FILES * SECTIONS // 2:
            first.stop.set()  # SyncJob.cancel: the stop, then the bound, which ends the run in hand so
            raise ModelRunStopped("the model run was stopped: cancelled by sync_cancel")

    slow_app.pipeline.encoder.after_vectors = cancel_halfway
    run_sync(slow_app.pipeline, list(slow_app.config.roots), progress=first)
    assert first.stop.is_set() and 0 < first.done < FILES
    assert slow_app.index.stats().chunk_count == first.chunks_written
    lost = first.chunks_embedded - first.chunks_written
    assert lost <= Encoder.MAX_BATCH_SIZE + SECTIONS, (first.chunks_embedded, first.chunks_written)
    slow_app.pipeline.encoder.after_vectors = None
    second = run_sync(slow_app.pipeline, list(slow_app.config.roots))
    assert second.done == FILES - first.done and not second.failed


def test_a_model_run_past_its_limit_with_no_stop_asked_still_fails_the_run(slow_app, docs):
    from minirag.errors import ModelRunStopped

    _notes(docs)

    def overdue() -> None:
        raise ModelRunStopped("the model run went on past its limit")

    slow_app.pipeline.encoder.after_vectors = overdue
    with pytest.raises(ModelRunStopped):
        run_sync(slow_app.pipeline, list(slow_app.config.roots), progress=Progress())
