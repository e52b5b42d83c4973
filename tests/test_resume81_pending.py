"""A sync stopped inside a large file keeps the vectors it computed for it: the next sync embeds only
the chunks not embedded before (store/pending.py), after a stop, a Ctrl-C, or a SIGKILL."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time

import pytest
from conftest import ROOT, write

from minirag.ingest.progress import Progress
from minirag.ingest.sync import run_sync

PARAGRAPHS = 900
KILL_TIMEOUT_S = 120


def _book(paragraphs: int = PARAGRAPHS) -> str:
    """One large document whose every chunk text differs from every other."""
    return "# The keeper's log\n\n" + "\n\n".join(
        f"## Night {i}\n\nOn night {i} keeper {i * 7 % 101} lit lamp {i % 13} and counted {i * 31 % 997} "
        f"ships passing rock {i % 29}; the wind stood at {i % 11} from the {('north', 'south', 'east')[i % 3]}."
        for i in range(paragraphs))


class _Counting:
    """The real encoder, counting the texts it is asked to embed for documents."""

    def __init__(self, real):
        self.real, self.texts = real, 0

    def __getattr__(self, name):
        return getattr(self.real, name)

    def embed_documents(self, texts, on_batch=None, **kwargs):
        self.texts += len(texts)
        return self.real.embed_documents(texts, on_batch, **kwargs)


@pytest.fixture
def counted_app(make_config, encoder):
    from minirag.app import App

    app = App(make_config(), encoder=_Counting(encoder))
    yield app
    app.close()


def _pending_rows(path) -> int:
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        exists = conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'pending_vectors'").fetchone()
        return conn.execute("SELECT COUNT(*) FROM pending_vectors").fetchone()[0] if exists else 0
    finally:
        conn.close()


def _stop_at(share: float, how: str):
    pressed: list[int] = []

    def on_change(p: Progress) -> None:
        if p.chunks_to_embed > 100 and p.chunks_embedded >= share * p.chunks_to_embed and not pressed:  # in the book
            pressed.append(p.chunks_embedded)
            if how == "stop":
                p.stop.set()
            else:
                os.kill(os.getpid(), signal.SIGINT)

    return on_change


@pytest.mark.parametrize("how", ["stop", "ctrl-c"])
def test_a_sync_stopped_inside_a_large_file_embeds_only_what_it_had_not_the_next_time(counted_app, docs, how):
    write(docs / "book.md", _book())
    first = Progress()
    if how == "stop":
        run_sync(counted_app.pipeline, list(counted_app.config.roots), progress=first, on_change=_stop_at(0.5, how))
    else:
        with pytest.raises(KeyboardInterrupt):
            run_sync(counted_app.pipeline, list(counted_app.config.roots), progress=first,
                     on_change=_stop_at(0.5, how))
    assert first.done == 0 and counted_app.index.stats().chunk_count == 0
    embedded_before = first.chunks_embedded
    counted_app.pipeline.encoder.texts = 0
    second = run_sync(counted_app.pipeline, list(counted_app.config.roots))
    total = counted_app.index.stats().chunk_count
    print(f"first run: {embedded_before} embedded of {total}; second run: {second.chunks_embedded} embedded, "
          f"{second.chunks_reused} reused")
    assert second.done == 1 and 0 < embedded_before < total
    assert counted_app.pipeline.encoder.texts == second.chunks_embedded == total - embedded_before
    assert second.chunks_reused == embedded_before
    # Used, and the sync finished: none is kept.
    assert _pending_rows(counted_app.config.db_path) == 0


def test_a_sigkilled_sync_leaves_the_vectors_it_had_computed_for_the_next(tmp_path, docs, model_dir, counted_app):
    """`minirag sync`, killed outright inside a large file: what it had saved is whole, and reused."""
    write(docs / "book.md", _book(3 * PARAGRAPHS))
    db = counted_app.config.db_path
    counted_app.close()
    env = {**os.environ, "PYTHONPATH": str(ROOT), "MODEL_PATH": str(model_dir), "BASE_DIR": str(docs),
           "DB_PATH": str(db)}
    proc = subprocess.Popen([sys.executable, "-m", "minirag", "sync"], env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + KILL_TIMEOUT_S
        while proc.poll() is None and time.monotonic() < deadline:
            if db.exists() and _pending_rows(db) > 0:
                break
            time.sleep(0.05)
        killed = proc.poll() is None
        proc.send_signal(signal.SIGKILL)
    finally:
        proc.wait()
    assert killed, "the sync ended (or never saved a pending vector) before it could be killed"
    saved = _pending_rows(db)
    from minirag.app import App

    app = App(counted_app.config, encoder=counted_app.pipeline.encoder)
    try:
        app.pipeline.encoder.texts = 0
        second = app.sync()
        total = app.index.stats().chunk_count
        print(f"killed with {saved} vectors saved; then {second.chunks_embedded} embedded, "
              f"{second.chunks_reused} reused of {total}")
        assert second.done == 1 and second.chunks_reused >= saved > 0
        assert app.pipeline.encoder.texts == second.chunks_embedded == total - second.chunks_reused
    finally:
        app.close()


def test_pending_vectors_never_exceed_their_bound(counted_app, docs, monkeypatch):
    from minirag.store import pending

    monkeypatch.setattr(pending, "LIMIT", 100)
    write(docs / "book.md", _book())
    first = Progress()
    run_sync(counted_app.pipeline, list(counted_app.config.roots), progress=first, on_change=_stop_at(0.9, "stop"))
    assert first.chunks_embedded > 100
    assert _pending_rows(counted_app.config.db_path) == 100
    second = run_sync(counted_app.pipeline, list(counted_app.config.roots))
    assert second.chunks_reused == 100


def test_pending_vectors_of_another_model_are_never_used_and_are_dropped(counted_app, docs):
    from minirag.store import pending

    write(docs / "book.md", _book())
    run_sync(counted_app.pipeline, list(counted_app.config.roots), progress=Progress(), on_change=_stop_at(0.5, "stop"))
    saved = _pending_rows(counted_app.config.db_path)
    assert saved > 0
    # As another model would have saved them: the same texts, under its name.
    conn = counted_app.index.conn
    with conn:
        conn.execute("UPDATE pending_vectors SET model = 'another/model'")
    assert pending.lookup(conn, ["x"], counted_app.encoder.model_id, counted_app.encoder.dimension) == {}
    second = run_sync(counted_app.pipeline, list(counted_app.config.roots))
    assert second.chunks_reused == 0 and second.chunks_embedded == counted_app.index.stats().chunk_count
    assert _pending_rows(counted_app.config.db_path) == 0


def test_a_pending_vector_whose_bytes_are_not_whole_is_never_used(counted_app, docs):
    write(docs / "book.md", _book())
    run_sync(counted_app.pipeline, list(counted_app.config.roots), progress=Progress(), on_change=_stop_at(0.5, "stop"))
    conn = counted_app.index.conn
    with conn:
        conn.execute("UPDATE pending_vectors SET embedding = substr(embedding, 1, 8)")
    second = run_sync(counted_app.pipeline, list(counted_app.config.roots))
    assert second.chunks_reused == 0 and second.chunks_embedded == counted_app.index.stats().chunk_count


def test_doctor_accepts_an_index_holding_pending_vectors(counted_app, docs, run_cli, cli_env):
    from minirag.store import health

    write(docs / "book.md", _book())
    run_sync(counted_app.pipeline, list(counted_app.config.roots), progress=Progress(), on_change=_stop_at(0.5, "stop"))
    path = counted_app.config.db_path
    assert _pending_rows(path) > 0
    counted_app.close()
    assert health.out_of_step(path) == ()
    assert health.quick_check(path) == "ok"
    said = run_cli("doctor", env={"DB_PATH": str(path)})
    assert said.returncode == 0, said.stdout + said.stderr
    assert _pending_rows(path) > 0


def test_an_index_from_before_pending_vectors_is_upgraded_and_a_stopped_sync_keeps_them(make_app, docs):
    from minirag.store import schema
    from minirag.store.index import Index

    write(docs / "a.md", "# Alpha\n\nThe alpha page is about solar panels.")
    app = make_app()
    run_sync(app.pipeline, list(app.config.roots))
    app.close()
    path = app.config.db_path
    # As the minirag before this table left it: schema version 11, no pending_vectors.
    conn = sqlite3.connect(path)
    conn.execute("DROP TABLE pending_vectors")
    conn.execute("DELETE FROM migrations WHERE id >= 12")
    conn.execute("UPDATE meta SET value = '11' WHERE key = 'schema_version'")
    conn.commit()
    conn.close()
    with Index(path) as index:
        assert schema.schema_version(index.conn) == schema.SCHEMA_VERSION
        assert index.conn.execute("SELECT COUNT(*) FROM pending_vectors").fetchone()[0] == 0
    write(docs / "book.md", _book())
    app = make_app()
    first = Progress()
    run_sync(app.pipeline, list(app.config.roots), progress=first, on_change=_stop_at(0.5, "stop"))
    assert _pending_rows(path) > 0
    second = run_sync(app.pipeline, list(app.config.roots))
    assert second.chunks_reused >= first.chunks_embedded


def test_saving_as_it_goes_takes_at_most_its_share_of_the_embedding_time_and_a_stop_saves_all():
    """A save costs about the same a vector whatever the encoder: beside a fast one, the saves as it
    goes wait, so they never take more than SAVE_SHARE of the time; what they left is saved at a stop."""
    import numpy as np

    from minirag.store import pending

    now = [0.0]
    saved: list[int] = []

    def write(vectors) -> None:
        now[0] += 0.001 * len(vectors)  # 1 ms a vector saved
        saved.append(len(vectors))

    keeper = pending.PendingVectors(write, clock=lambda: now[0])
    vector = np.zeros(4, np.float32)
    for batch in range(1000):
        now[0] += 0.016  # a fast encoder: 16 vectors in 16 ms
        keeper.add((f"{batch}-{i}", vector) for i in range(16))
    embedding = 1000 * 0.016
    assert saved and keeper.spent <= pending.SAVE_SHARE * embedding + 0.001 * max(saved)
    keeper.flush()
    assert sum(saved) == 16_000 and not keeper.held
