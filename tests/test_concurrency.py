"""One index file, many users at once: a CLI sync, a CLI ingest of another folder, an App
answering queries and a second App writing data sources. Nobody sees an error (no
`database is locked`) and no row is lost."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from conftest import ROOT

from minirag.errors import IndexUnavailable
from minirag.results import payload
from minirag.store import connection as db

pytestmark = pytest.mark.slow  # several processes write one index at once

WORDS = ["river", "mountain", "signal", "packet", "ledger", "orbit", "harvest", "copper", "lantern", "meadow", "falcon", "quartz"]
SYNC_FILES, INGEST_FILES, DATA_SOURCES = 40, 20, 15
TIMEOUT_S = 120


def make_folder(folder: Path, count: int, seed: int) -> set[str]:
    folder.mkdir(parents=True, exist_ok=True)
    rng = random.Random(seed)
    for i in range(count):
        body = "\n\n".join(f"## Part {j}\n\n" + " ".join(rng.choice(WORDS) for _ in range(40)) for j in range(3))
        (folder / f"{folder.name}{i:03}.md").write_text(f"# {folder.name} {i}\n\n{body}\n")
    return {str(folder / f"{folder.name}{i:03}.md") for i in range(count)}


def cli(*args: str, roots: list[Path], db_path: Path, model_dir: Path) -> subprocess.Popen:
    env = {k: v for k, v in os.environ.items() if k not in {"BASE_DIRS", "BASE_DIR", "MINIRAG_READ_ONLY"}}
    flags = [f for r in roots for f in ("--base-dir", str(r))]
    return subprocess.Popen(
        [sys.executable, "-m", "minirag", *args, *flags, "--db-path", str(db_path), "--model-path", str(model_dir),
         "--json"], env=env, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )


def test_a_cli_sync_a_cli_ingest_a_querying_app_and_a_writing_app_share_one_index_without_errors_or_lost_rows(
        docs, tmp_path, make_app, model_dir):
    synced = make_folder(docs / "synced", SYNC_FILES, 1)
    ingested = make_folder(docs / "ingested", INGEST_FILES, 2)
    roots = [docs / "synced", docs / "ingested"]
    db_path = tmp_path / "index.db"
    reader = make_app(base_dirs=[str(r) for r in roots], db_path=str(db_path))
    writer = make_app(base_dirs=[str(r) for r in roots], db_path=str(db_path))
    assert writer.index.stats().source_count == 0  # the index exists (empty) before anyone queries it
    errors: list[str] = []
    queries = 0
    stop = threading.Event()

    def query_loop() -> None:
        nonlocal queries
        while not stop.is_set():
            try:
                reader.query(random.choice(WORDS) + " " + random.choice(WORDS), top_k=5)
                queries += 1
            except IndexUnavailable as exc:
                # Before the sync's first file lands, a query is told the index is being built: the
                # answer this race is owed (a slow machine's sync starts after the first queries).
                if "has indexed no file yet" not in str(exc):
                    errors.append(f"query: {type(exc).__name__}: {exc}")
            except Exception as exc:  # noqa: BLE001 - any error is the failure under test
                errors.append(f"query: {type(exc).__name__}: {exc}")
            time.sleep(0.01)

    def data_loop() -> None:
        for i in range(DATA_SOURCES):
            try:
                writer.ingest_data(f"# Note {i}\n\nThe {WORDS[i % len(WORDS)]} note number {i}.", f"note-{i}")
            except Exception as exc:  # noqa: BLE001
                errors.append(f"ingest_data: {type(exc).__name__}: {exc}")

    # Everything starts at once on a file that does not exist yet: creation races too.
    sync = cli("sync", roots=roots, db_path=db_path, model_dir=model_dir)
    # Files named one by one (a folder would take the sync lock, as a second sync, and be refused).
    ingest = cli("ingest", *sorted(map(str, (docs / "ingested").iterdir())), roots=roots, db_path=db_path,
                 model_dir=model_dir)
    threads = [threading.Thread(target=query_loop), threading.Thread(target=data_loop)]
    for thread in threads:
        thread.start()
    try:
        outputs = {name: proc.communicate(timeout=TIMEOUT_S) for name, proc in (("sync", sync), ("ingest", ingest))}
        threads[1].join(TIMEOUT_S)
    finally:
        stop.set()
        threads[0].join(TIMEOUT_S)
        for proc in (sync, ingest):
            if proc.poll() is None:
                proc.kill()

    for name, proc in (("sync", sync), ("ingest", ingest)):
        stdout, stderr = outputs[name]
        assert proc.returncode == 0, f"{name}: {stderr}"
        assert "locked" not in stderr and "Traceback" not in stderr, f"{name}: {stderr}"
        assert json.loads(stdout)["failed"] == 0, name
    assert errors == []
    assert queries > 0

    conn = db.connect(db_path, read_only=True)
    try:
        rows = dict(conn.execute(
            "SELECT s.source, (SELECT count(*) FROM chunks c WHERE c.source_id = s.id) FROM sources s"))
        chunk_ids = {r[0] for r in conn.execute("SELECT id FROM chunks")}
        fts_ids = {r[0] for r in conn.execute("SELECT rowid FROM chunks_fts")}
        vec_ids = {r[0] for r in conn.execute("SELECT chunk_id FROM chunks_vec")}
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    finally:
        conn.close()
    expected = synced | ingested | {f"note-{i}" for i in range(DATA_SOURCES)}
    assert set(rows) == expected
    assert all(count > 0 for count in rows.values()), {s: c for s, c in rows.items() if not c}
    assert chunk_ids == fts_ids == vec_ids
    hits = payload(reader.query("note number 7", top_k=20))["results"]
    assert "note-7" in {h["source"] for h in hits}
