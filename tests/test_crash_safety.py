"""A CLI sync SIGKILLed at several points leaves a consistent index: every source wholly
old or wholly new, FTS and vector rows one to one with chunks, and the next sync takes
the (kernel-released) lock and finishes the work."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import ROOT
from helpers.index_checks import assert_tables_in_step

from minirag.config import load_config
from minirag.ingest.pipeline import Pipeline, file_hash
from minirag.ingest.scan import walk_roots
from minirag.ingest.sync import run_sync
from minirag.store import connection as db
from minirag.store.index import Index
from minirag.store.lock import lock_path_for

pytestmark = pytest.mark.slow  # kills a syncing process at many points

FILES = 80
# Small chunks make many chunks for little embedding work, so a sync spans several
# write transactions (pipeline.GROUP_CHUNKS each): about 880 chunks, 3 groups.
ENV = {"CHUNK_TOKEN_BUDGET": "16"}
WORDS = ["river", "mountain", "signal", "packet", "ledger", "orbit", "harvest", "copper", "lantern", "meadow", "falcon", "quartz"]
TIMEOUT_S = 90


def version_text(i: int, tag: str) -> str:
    rng = random.Random(f"{i}-{tag}")
    sections = (f"## Part {j} {tag}\n\n" + " ".join(rng.choice(WORDS) for _ in range(20)) for j in range(5))
    return f"# File {i} {tag}\n\n" + "\n\n".join(sections) + "\n"


def write_version(docs: Path, tag: str) -> dict[str, str]:
    """Write every file at version `tag`; returns source -> content hash."""
    hashes = {}
    for i in range(FILES):
        path = docs / f"file{i:03}.md"
        data = version_text(i, tag).encode()
        path.write_bytes(data)
        hashes[str(path)] = file_hash(data)
    return hashes


def expected_chunks(config, encoder, tmp_path: Path, tag: str) -> dict[str, list[str]]:
    """The chunk texts each file of the current version is cut into (no embedding)."""
    scratch = Index(tmp_path / f"scratch-{tag}.db")
    try:
        pipeline = Pipeline(scratch, encoder, config)
        return {f.source: [c.text for c in pipeline.prepare_file(f, None, force=True).chunked.chunks]
                for f in walk_roots(config.roots)}
    finally:
        scratch.close()


def cli_sync(docs: Path, db_path: Path, model_dir: Path) -> subprocess.Popen:
    env = {k: v for k, v in os.environ.items() if k not in {"BASE_DIRS", "BASE_DIR", "MINIRAG_READ_ONLY"}}
    return subprocess.Popen(
        [sys.executable, "-m", "minirag", "sync", "--base-dir", str(docs), "--db-path", str(db_path),
         "--model-path", str(model_dir), "--json"],
        env={**env, **ENV}, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )


def holds_lock(db_path: Path, pid: int) -> bool:
    try:
        return json.loads(lock_path_for(db_path).read_bytes()[1:] or b"{}").get("pid") == pid
    except (OSError, ValueError):
        return False


def new_count(db_path: Path, new_hashes: dict[str, str]) -> int:
    conn = db.connect(db_path, read_only=True)
    try:
        rows = conn.execute("SELECT source, content_hash FROM sources").fetchall()
    finally:
        conn.close()
    return sum(new_hashes.get(source) == digest for source, digest in rows)


def check_consistent(db_path: Path, versions: dict[str, tuple[dict, dict]]) -> dict[str, str]:
    """Every invariant a crash must not break; returns source -> 'old' | 'new'."""
    conn = db.connect(db_path, read_only=True)
    try:
        q = conn.execute
        assert_tables_in_step(conn)
        state = {}
        for source_id, source, digest in q("SELECT id, source, content_hash FROM sources"):
            texts = [r[0] for r in q("SELECT text FROM chunks WHERE source_id = ? ORDER BY ord", (source_id,))]
            ords = [r[0] for r in q("SELECT ord FROM chunks WHERE source_id = ? ORDER BY ord", (source_id,))]
            assert ords == list(range(len(texts))), source
            matched = [tag for tag, (hashes, chunks) in versions.items()
                       if hashes[source] == digest and chunks[source] == texts]
            assert matched, f"{source} is neither wholly old nor wholly new"
            state[source] = matched[0]
        return state
    finally:
        conn.close()


def polled(ready) -> bool:
    """`ready()`, False where its read met the live sync mid-change: a read-only open made while the
    writer creates, recovers or removes its -wal and -shm can fail (SQLITE_READONLY_RECOVERY, a side
    file gone between the check and the open); the poll just looks again."""
    try:
        return ready()
    except db.DatabaseError:
        return False


def kill_when(proc: subprocess.Popen, ready) -> None:
    deadline = time.monotonic() + TIMEOUT_S
    while not polled(ready):
        if proc.poll() is not None:
            pytest.fail(f"sync finished before the kill point; grow the corpus\n{proc.communicate()}")
        if time.monotonic() > deadline:
            proc.kill()
            pytest.fail("kill point never reached")
        time.sleep(0.01)
    proc.send_signal(signal.SIGKILL)
    proc.communicate(timeout=TIMEOUT_S)
    assert proc.returncode == -signal.SIGKILL


def test_a_sync_killed_at_any_point_leaves_every_source_wholly_old_or_new_and_the_next_sync_finishes(
        docs, tmp_path, model_dir, encoder):
    db_path = tmp_path / "index.db"
    config = load_config(env=ENV, base_dirs=[str(docs)], db_path=str(db_path), model_path=str(model_dir),
                         cwd=tmp_path)
    old_hashes = write_version(docs, "old")
    old_chunks = expected_chunks(config, encoder, tmp_path, "old")
    index = Index(db_path)
    try:
        assert run_sync(Pipeline(index, encoder, config), list(config.roots)).done == FILES
    finally:
        index.close()
    new_hashes = write_version(docs, "new")
    new_chunks = expected_chunks(config, encoder, tmp_path, "new")
    versions = {"old": (old_hashes, old_chunks), "new": (new_hashes, new_chunks)}
    assert set(check_consistent(db_path, versions).values()) == {"old"}

    kill_points = [
        ("as soon as it holds the lock", lambda p: holds_lock(db_path, p.pid)),
        ("after its first write commits", lambda p: new_count(db_path, new_hashes) > before),
        ("half way through", lambda p: new_count(db_path, new_hashes) >= FILES // 2),
    ]
    for label, ready in kill_points:
        before = new_count(db_path, new_hashes)
        proc = cli_sync(docs, db_path, model_dir)
        kill_when(proc, lambda ready=ready, proc=proc: ready(proc))
        state = check_consistent(db_path, versions)
        assert len(state) == FILES, label
        assert list(state.values()).count("new") >= before, label  # nothing committed is lost

    assert 0 < new_count(db_path, new_hashes) < FILES
    proc = cli_sync(docs, db_path, model_dir)  # the dead holder's lock is gone with its process
    stdout, stderr = proc.communicate(timeout=TIMEOUT_S)
    assert proc.returncode == 0, stderr
    assert "another sync is already running" not in stderr
    result = json.loads(stdout)
    assert (result["failed"], result["ingested"] + result["skipped"]) == (0, FILES)
    assert set(check_consistent(db_path, versions).values()) == {"new"}
    conn = db.connect(db_path, read_only=True)
    try:
        chunk_total = conn.execute("SELECT count(*) FROM chunks").fetchone()[0]
    finally:
        conn.close()
    assert chunk_total == sum(len(c) for c in new_chunks.values())
