"""agent81: a sync's progress says how many chunks it has found to embed, not only how many it embedded.

The live line said `3400 of 3912 chunks embedded` (progress80), but `sync_status` and `minirag sync
--json` gave only `chunksEmbedded`: an agent polling a sync could not tell how far it had to go."""

from __future__ import annotations

import json
import threading

import pytest
from conftest import write
from test_progress import _long_document
from test_server import connected, ok

from minirag.app import App
from minirag.config import load_config
from minirag.server import ServerState


class _PausedAfterFirstBatch:
    """The real encoder, whose first encoder batch of a run waits, once reported, until `go` is set."""

    def __init__(self, encoder):
        self._encoder, self.paused, self.go = encoder, threading.Event(), threading.Event()

    def __getattr__(self, name):
        return getattr(self._encoder, name)

    def embed_documents(self, texts, *, on_batch=None, **kwargs):
        def reported(done: int) -> None:
            if on_batch is not None:
                on_batch(done)
            if not self.paused.is_set():
                self.paused.set()
                assert self.go.wait(60)

        return self._encoder.embed_documents(texts, on_batch=reported, **kwargs)


@pytest.mark.anyio
async def test_sync_status_says_how_many_chunks_a_running_sync_has_to_embed(tmp_path, docs, model_path, encoder):
    write(docs / "chapter.md", _long_document(300))
    paused = _PausedAfterFirstBatch(encoder)
    config = load_config(env={}, base_dirs=[str(docs)], db_path=str(tmp_path / "index.db"), model_path=model_path)
    state = ServerState.from_config(config, App(config, encoder=paused))
    try:
        async with connected(state) as client:
            job_id = (await ok(client, "sync_start"))["jobId"]
            assert paused.paused.wait(60)
            running = await ok(client, "sync_status", jobId=job_id)
            paused.go.set()
            assert state.app.jobs.get(job_id).wait(60)
            done = await ok(client, "sync_status", jobId=job_id)
    finally:
        paused.go.set()
        state.close()
    assert running["state"] == "running"
    assert 0 < running["chunksEmbedded"] < running["chunksToEmbed"], running
    assert list(running).index("chunksToEmbed") == list(running).index("chunksEmbedded") + 1
    assert done["state"] == "succeeded"
    assert done["chunksToEmbed"] == done["chunksEmbedded"] == done["chunksWritten"] > 64


def test_sync_json_ends_with_every_chunk_it_found_to_embed_embedded(cli_env, run_cli, docs):
    write(docs / "chapter.md", _long_document(100))
    first = json.loads(run_cli("sync", "--json").stdout)
    write(docs / "a.md", "# Otters\n\nSea otters hold hands while they sleep, and float on their backs.\n")
    again = json.loads(run_cli("sync", "--json").stdout)
    assert first["chunksToEmbed"] == first["chunksEmbedded"] == first["chunksWritten"] > 1
    assert again["chunksToEmbed"] == again["chunksEmbedded"] >= 1 and again["chunksWritten"] >= again["chunksEmbedded"]
