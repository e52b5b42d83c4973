"""`minirag sync` in another process and the server's sync_start race for one index:
exactly one runs, the other is refused at once with the holder's PID."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path

import anyio
import pytest
from helpers.encoders import GatedEncoder
from mcp import Client

from minirag.app import App
from minirag.config import load_config
from minirag.server import ServerState, build_server
from minirag.store.lock import lock_path_for

pytestmark = pytest.mark.slow  # a minirag process and the server race for one index's lock

ROOT = Path(__file__).resolve().parent.parent
WORDS = ["river", "mountain", "signal", "packet", "ledger", "orbit", "harvest", "copper", "lantern", "meadow"]
FILES, SECTIONS = 6, 2  # each side's sync holds its lock until the test opens its gate, however small
TIMEOUT_S = 60

# `minirag sync` whose first embedding waits until the file named in argv[1] exists.
GATED_CLI = f"""
import sys, time
from pathlib import Path
from minirag.encoder import Encoder
gate, embed, deadline = Path(sys.argv[1]), Encoder.embed_documents, time.monotonic() + {TIMEOUT_S}
def gated(self, texts, on_batch=None, **kwargs):
    while not gate.exists() and time.monotonic() < deadline:
        time.sleep(0.01)
    return embed(self, texts, on_batch, **kwargs)
Encoder.embed_documents = gated
from minirag.cli import main
raise SystemExit(main(sys.argv[2:]))
"""


@pytest.fixture
def corpus(tmp_path) -> Path:
    docs = tmp_path / "docs"
    docs.mkdir()
    rng = random.Random(7)
    for i in range(FILES):
        sections = (f"## Part {j}\n\n" + " ".join(rng.choice(WORDS) for _ in range(80)) for j in range(SECTIONS))
        (docs / f"file{i:03}.md").write_text(f"# File {i}\n\n" + "\n\n".join(sections) + "\n")
    return docs


@pytest.fixture
def gated(encoder) -> GatedEncoder:
    return GatedEncoder(encoder)


@pytest.fixture
def state(corpus, tmp_path, model_path, gated):
    """The server, whose syncs wait in their first embedding until `gated.release()`."""
    config = load_config(env={}, base_dirs=[str(corpus)], db_path=str(tmp_path / "index.db"), model_path=model_path)
    state = ServerState.from_config(config, App(config, serving=True, encoder=gated))
    yield state
    gated.release()
    state.close()


def cli_sync(corpus: Path, db: Path, model_path: str, gate: Path | None = None) -> subprocess.Popen:
    """`minirag sync` in another process; with `gate`, its embedding waits until that file exists."""
    env = {k: v for k, v in os.environ.items() if k not in {"BASE_DIRS", "MINIRAG_READ_ONLY"}}
    command = ["-c", GATED_CLI, str(gate)] if gate else ["-m", "minirag"]
    return subprocess.Popen(
        [sys.executable, *command, "sync", "--base-dir", str(corpus), "--db-path", str(db),
         "--model-path", model_path, "--json"],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )


def wait_for_holder(db: Path, pid: int, proc: subprocess.Popen) -> None:
    lock = lock_path_for(db)
    deadline = time.monotonic() + TIMEOUT_S
    while time.monotonic() < deadline:
        assert proc.poll() is None, proc.communicate()
        try:
            if json.loads(lock.read_bytes()[1:] or b"{}").get("pid") == pid:
                return
        except (OSError, ValueError):
            pass
        time.sleep(0.02)
    raise TimeoutError(f"pid {pid} never took {lock}")


@pytest.mark.anyio
async def test_a_running_cli_sync_makes_sync_start_refuse_with_the_cli_pid(state, corpus, tmp_path, model_path):
    gate = tmp_path / "gate"
    proc = cli_sync(corpus, tmp_path / "index.db", model_path, gate)
    try:
        wait_for_holder(tmp_path / "index.db", proc.pid, proc)
        async with Client(build_server(state)) as client:
            refused = await client.call_tool("sync_start", {})
    finally:
        gate.touch()
        stdout, stderr = proc.communicate(timeout=TIMEOUT_S)
    assert refused.is_error
    assert f"pid {proc.pid}" in refused.content[0].text
    assert proc.returncode == 0, stderr
    assert json.loads(stdout)["ingested"] == FILES


@pytest.mark.anyio
async def test_a_running_sync_start_makes_the_cli_and_a_second_sync_start_refuse_with_our_pid(
        state, gated, corpus, tmp_path, model_path):
    async with Client(build_server(state)) as client:
        started = await client.call_tool("sync_start", {})
        job = state.app.jobs.get(started.structured_content["jobId"])
        proc = cli_sync(corpus, tmp_path / "index.db", model_path)
        _stdout, stderr = proc.communicate(timeout=TIMEOUT_S)
        again = await client.call_tool("sync_start", {})
        assert job.state == "running"
        gated.release()
        assert await anyio.to_thread.run_sync(job.wait, TIMEOUT_S)
        final = (await client.call_tool("sync_status", {"jobId": job.job_id})).structured_content
    assert proc.returncode == 1
    assert f"pid {os.getpid()}" in stderr and "another sync is already running" in stderr
    assert again.is_error and f"pid {os.getpid()}" in again.content[0].text
    assert (final["state"], final["ingested"]) == ("succeeded", FILES)
