"""e2e81: what an agent met using minirag over MCP on a mixed folder of Debian docs.

Two stdio clients on one index each start a server of their own: client A's `sync_start` gave a
jobId that client B's `sync_status` called "unknown", as if it were mistyped, while A's sync ran on
the index B reads. B's refusal now says whose sync runs and where a jobId is known."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from conftest import write
from test_server import connected, ok, refused

from minirag.app import App
from minirag.config import load_config
from minirag.server import ServerState


@pytest.fixture
def make_state(tmp_path, docs, model_path, encoder):
    write(docs / "tides.md", "# Tides\n\nThe moon's gravity raises two tidal bulges a day.\n")
    states = []

    def make() -> ServerState:
        config = load_config(env={}, base_dirs=[str(docs)], db_path=str(tmp_path / "index.db"), model_path=model_path)
        states.append(ServerState.from_config(config, App(config, encoder=encoder)))
        return states[-1]

    yield make
    for state in states:
        state.close()


HOLD_LOCK = """
import sys, time
from pathlib import Path
from minirag.store.lock import SyncLock
lock = SyncLock(Path(sys.argv[1])).acquire()
print("held", flush=True)
time.sleep(120)
"""


@pytest.mark.anyio
async def test_a_jobid_of_another_process_s_sync_is_refused_naming_that_sync(make_state, tmp_path):
    state = make_state()
    async with connected(state) as client:
        await ok(client, "sync_start", wait=True)
        other = subprocess.Popen([sys.executable, "-c", HOLD_LOCK, str(tmp_path / "index.db")],
                                 stdout=subprocess.PIPE, text=True)
        try:
            assert other.stdout.readline().strip() == "held"
            said = await refused(client, "sync_status", jobId="sync-1-0badc0de")
        finally:
            other.kill()
            other.wait()
    assert f"pid {other.pid}" in said
    assert "only to the server that started it" in said
    assert "\n" not in said


@pytest.mark.anyio
async def test_an_unknown_jobid_with_no_sync_running_is_refused_as_before(make_state):
    async with connected(make_state()) as client:
        said = await refused(client, "sync_status", jobId="sync-9-0badc0de")
    assert said.startswith("sync_status: unknown jobId 'sync-9-0badc0de'")
    assert "pid" not in said


SINTEL_TXT = Path(__file__).parent / "fixtures" / "docs" / "txt_sintel_subtitles_en.txt"


@pytest.mark.anyio
async def test_a_webvtt_file_saved_as_txt_gives_no_hit_that_is_only_its_header(make_state, docs):
    """The .txt copy of Sintel's captions answered "Sintel subtitles dialogue" with `WEBVTT` alone, its
    first hit: the header stood as a chunk of its own. The .vtt reader leaves the header out; so does
    the transcript chunker now."""
    write(docs / "sintel.txt", SINTEL_TXT.read_text())
    async with connected(make_state()) as client:
        await ok(client, "sync_start", wait=True)
        found = await ok(client, "query_documents", query="Sintel subtitles dialogue", topK=5)
        page = await ok(client, "read_file", filePath=str(docs / "sintel.txt"))
    hits = [hit for hit in found["results"] if hit["source"].endswith("sintel.txt")]
    assert hits
    assert all(" --> " in hit["text"] and "WEBVTT" not in hit["text"] for hit in hits)
    assert "WEBVTT" not in page["text"]
    assert page["text"].startswith("00:00:18.700 --> 00:00:21.500\nThis blade has a dark past.")
