"""Copy-the-file backups: whenever no write is in progress, the .db file alone holds every
committed row. Checked by copying only `index.db` (no -wal, no -shm) beside a running server
that has just written, and by pinning old WAL frames with a reader."""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

import pytest
from test_server_stdio import CONFIG_VARS, RawServer

from minirag.store import connection as db
from minirag.store.index import Index

DEADLINE_S = 60


def plain_copy(path: Path, dest_dir: Path) -> Path:
    """What `cp index.db backup/` does: the one file, nothing beside it."""
    dest_dir.mkdir(parents=True, exist_ok=True)
    target = dest_dir / path.name
    shutil.copyfile(path, target)
    return target


def rows(path: Path, sql: str, args=()) -> list:
    conn = db.connect(path)
    try:
        return conn.execute(sql, args).fetchall()
    finally:
        conn.close()


def serve_and_ingest(env: dict[str, str], tmp_path: Path) -> Path:
    """Start `minirag` over stdio, ingest one data source, copy index.db while the server idles."""
    server = RawServer(env)
    try:
        server.request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                      "clientInfo": {"name": "copy-test", "version": "0"}})
        server.send({"method": "notifications/initialized"})
        result = server.call("ingest_data", source="notes/tides", format="markdown",
                             data="# Tides\n\nThe moon's gravity raises two tidal bulges a day.\n")
        assert result["structuredContent"]["chunkCount"] == 1, result
        copy = plain_copy(Path(env["DB_PATH"]), tmp_path / "copy")
        assert server.proc.poll() is None  # the server was still running when the file was copied
    finally:
        server.close()
    return copy


@pytest.fixture
def server_env(tmp_path, model_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in CONFIG_VARS | {"MINIRAG_LITESTREAM_CONFIG"}}
    return env | {"MODEL_PATH": model_path, "BASE_DIR": str(docs), "DB_PATH": str(tmp_path / "index.db")}


@pytest.mark.slow
def test_a_plain_copy_of_the_db_file_beside_an_idle_server_holds_the_rows_it_just_ingested(server_env, tmp_path):
    copy = serve_and_ingest(server_env, tmp_path)
    assert rows(copy, "PRAGMA integrity_check") == [("ok",)]
    assert rows(copy, "SELECT kind FROM sources WHERE source = 'notes/tides'") == [("data",)]
    assert rows(copy, "SELECT COUNT(*) FROM chunks c JOIN chunks_vec v ON v.chunk_id = c.id")[0][0] == 1
    assert rows(copy, "SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH 'moon'") != []


@pytest.mark.slow
def test_with_a_litestream_config_the_server_leaves_the_wal_to_litestream(server_env, tmp_path):
    config = tmp_path / "litestream.yml"
    config.write_text(f"dbs:\n  - path: {server_env['DB_PATH']}\n")
    copy = serve_and_ingest(server_env | {"MINIRAG_LITESTREAM_CONFIG": str(config)}, tmp_path)
    # No checkpoint ran, so everything (here even the tables) is only in index.db-wal,
    # which a plain copy of index.db leaves behind.
    assert rows(copy, "SELECT name FROM sqlite_master WHERE name = 'sources'") == []


def test_a_reader_pinning_older_frames_delays_the_fold_until_it_lets_go(tmp_path):
    path = tmp_path / "index.db"
    with Index(path) as index:
        index.set_meta("before", "1")
        reader = db.connect(path, read_only=True)
        reader.execute("BEGIN")
        reader.execute("SELECT COUNT(*) FROM meta").fetchone()  # holds the snapshot before the next write
        index.set_meta("during", "1")
        assert index.checkpointer.pending
        assert rows(plain_copy(path, tmp_path / "early"), "SELECT value FROM meta WHERE key = 'during'") == []
        reader.execute("COMMIT")
        reader.close()
        deadline = time.monotonic() + DEADLINE_S
        while index.checkpointer.pending and time.monotonic() < deadline:
            time.sleep(0.02)
        assert not index.checkpointer.pending
        copy = plain_copy(path, tmp_path / "late")
        assert rows(copy, "SELECT value FROM meta WHERE key = 'during'") == [("1",)]


def test_touched_but_unchanged_files_have_their_stats_written_in_one_transaction(make_app, docs):
    (docs / "a.md").write_text("# A\n\nAlpha text.\n")
    (docs / "b.md").write_text("# B\n\nBeta text.\n")
    app = make_app()
    app.sync()
    generation = app.index.generation()
    for name in ("a.md", "b.md"):
        os.utime(docs / name, ns=(1_000_000_000, 1_000_000_000))  # same bytes, another mtime
    progress = app.sync()
    assert progress.skipped == 2
    stored = app.index.stored_states("file")
    for name in ("a.md", "b.md"):
        assert stored[str(docs / name)].mtime_ns == (docs / name).stat().st_mtime_ns
    assert app.index.generation() == generation  # nothing searchable changed: the vector matrix stays


@pytest.mark.slow  # a sync in a process of its own, under strace
@pytest.mark.skipif(shutil.which("strace") is None, reason="strace is not installed (apt-get install strace)")
def test_a_disk_that_fails_to_sync_the_fold_fails_the_sync_in_one_line_and_the_next_sync_finishes(
        server_env, tmp_path, encoder):
    """A fold that fails for another reason than a lock was taken for "another connection is
    checkpointing": the sync said it succeeded while index.db alone lacked its writes. Only the sync
    whose fsync fails runs in a process of its own (under strace); the syncs before and after it run here."""
    import subprocess
    import sys

    from minirag.app import App
    from minirag.config import load_config

    def sync_here() -> None:
        app = App(load_config(env=server_env), encoder=encoder)
        try:
            app.sync()
        finally:
            app.close()

    docs = Path(server_env["BASE_DIR"])
    (docs / "tides.md").write_text("# Tides\n\nThe moon pulls the sea twice a day.\n")
    sync = [sys.executable, "-m", "minirag", "sync"]
    sync_here()
    (docs / "otters.md").write_text("# Otters\n\nSea otters hold hands while they sleep.\n")
    failing = ["strace", "-f", "-qq", "-o", str(tmp_path / "strace.log"), "-e", "trace=fsync",
               "-e", "inject=fsync:error=EIO:when=2+", *sync]
    done = subprocess.run(failing, env=server_env, capture_output=True, text=True)
    assert "INJECTED" in (tmp_path / "strace.log").read_text()
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 1 and len(lines) == 1, done.stderr
    assert lines[0].startswith(f"minirag: error: the disk under the index {server_env['DB_PATH']} failed ("), lines
    sync_here()  # raises if it does not finish
    copy = plain_copy(Path(server_env["DB_PATH"]), tmp_path / "copy")
    assert rows(copy, "SELECT count(*) FROM sources") == [(2,)]
