"""A real `minirag sync` over real documents of tests/fixtures/docs, SIGKILLed again and again at
pseudo-random moments: while it re-tokenizes the keyword index (an index whose keyword scheme is
stale, as after an upgrade, is re-tokenized by the first write open), while it converts, embeds,
commits and checkpoints after a commit, and while it closes. After every kill the index opens,
passes `doctor` (SQLite's checks and the tables in step) and keeps every source whole; then one
sync run to its end leaves every file indexed exactly once, as a sync into a fresh index does."""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import ROOT
from helpers.index_checks import assert_tables_in_step

from minirag.config import load_config
from minirag.doctor import run_checks
from minirag.store import connection as db

pytestmark = pytest.mark.slow  # many real syncs, each killed

FIXTURE_DOCS = Path(__file__).parent / "fixtures" / "docs"
KILLS = 4  # each kind of moment once: inside the re-tokenize, after its commit, and two at random
SEED = 20261204
CONVERTED = {"docx_headings_table.docx", "pdf_multipage_pdflatex_outline.pdf"}
TIMEOUT_S = 300


def cli_sync(docs: Path, db_path: Path, model_dir: Path) -> subprocess.Popen:
    env = {k: v for k, v in os.environ.items() if k not in {"BASE_DIRS", "BASE_DIR", "MINIRAG_READ_ONLY"}}
    return subprocess.Popen(
        [sys.executable, "-m", "minirag", "sync", "--base-dir", str(docs), "--db-path", str(db_path),
         "--model-path", str(model_dir), "--json"],
        env=env, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def sync_here(docs: Path, db_path: Path, model_dir: Path, capsys, monkeypatch) -> dict:
    """The same `minirag sync` run to its end in this process: what a sync into a fresh index leaves."""
    from minirag import cli

    for name in ("BASE_DIRS", "BASE_DIR", "MINIRAG_READ_ONLY"):
        monkeypatch.delenv(name, raising=False)
    capsys.readouterr()
    assert cli.main(["sync", "--base-dir", str(docs), "--db-path", str(db_path), "--model-path", str(model_dir),
                     "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def finish(proc: subprocess.Popen) -> dict:
    stdout, stderr = proc.communicate(timeout=TIMEOUT_S)
    assert proc.returncode == 0, stderr
    return json.loads(stdout)


def said(proc: subprocess.Popen, text: str) -> bool:
    """Read the process's stderr until a line holds `text` (True) or it ends (False)."""
    assert proc.stderr is not None
    return any(text in line for line in proc.stderr)


def by_hand(path: Path, sql: str, values: tuple = ()) -> None:
    conn = sqlite3.connect(path)
    conn.execute(sql, values)
    conn.commit()
    conn.close()


def what_is_indexed(path: Path) -> dict[str, tuple[str, int]]:
    """source -> (content hash, chunk count), checking the invariants a crash must not break."""
    conn = db.connect(path, read_only=True)
    try:
        q = conn.execute
        assert_tables_in_step(conn)
        indexed = {}
        for source_id, source, digest in q("SELECT id, source, content_hash FROM sources"):
            ords = [r[0] for r in q("SELECT ord FROM chunks WHERE source_id = ? ORDER BY ord", (source_id,))]
            assert ords == list(range(len(ords))), source  # whole: no chunk missing, none twice
            indexed[source] = (digest, len(ords))
        return indexed
    finally:
        conn.close()


def test_a_sync_killed_at_random_moments_never_leaves_an_index_that_opens_wrong(docs, tmp_path, model_dir, capsys,
                                                                                monkeypatch):
    # The text formats, and one of the converters run in a child process: the kills land in every
    # step of a sync, while a sync of every fixture would cost minutes a round.
    for name in sorted(os.listdir(FIXTURE_DOCS)):
        if Path(name).suffix in {".md", ".txt", ".csv", ".html"} or name in CONVERTED:
            shutil.copy(FIXTURE_DOCS / name, docs / name)
    db_path = tmp_path / "index.db"
    config = load_config(env={}, base_dirs=[str(docs)], db_path=str(db_path), model_path=str(model_dir),
                         cwd=tmp_path)
    started = time.monotonic()
    assert finish(cli_sync(docs, db_path, model_dir))["failed"] == 0
    whole_sync_s = time.monotonic() - started

    rng = random.Random(SEED)
    texts = sorted(p for p in docs.iterdir() if p.suffix in {".md", ".txt", ".csv", ".html"})
    for round_ in range(KILLS):
        # Work for the next sync: a stale keyword scheme (re-tokenized on open) and edited files.
        if round_ % 2 == 0:
            by_hand(db_path, "UPDATE meta SET value = '0' WHERE key = 'keyword_scheme'")
        for path in rng.sample(texts, 3):
            with path.open("a", encoding="utf-8") as f:
                f.write(f"\n\nEdit {round_}: {rng.random()}\n")
        proc = cli_sync(docs, db_path, model_dir)
        if round_ % 4 == 0:  # inside the re-tokenizing transaction
            assert said(proc, "re-tokenizing the keyword index"), round_
        elif round_ % 4 == 2:  # the re-tokenize committed: its checkpoint, then the sync
            assert said(proc, "rebuilt the keyword index"), round_
        else:
            time.sleep(rng.uniform(0.0, whole_sync_s))
        proc.send_signal(signal.SIGKILL)
        proc.communicate(timeout=TIMEOUT_S)

        what_is_indexed(db_path)
        check = next(c for c in run_checks(config).checks if c.name == "index")
        assert check.ok, (round_, check.detail, check.fix)

    result = sync_here(docs, db_path, model_dir, capsys, monkeypatch)  # kills are for the processes above
    assert result["failed"] == 0
    after = what_is_indexed(db_path)
    fresh_path = tmp_path / "fresh.db"
    assert sync_here(docs, fresh_path, model_dir, capsys, monkeypatch)["failed"] == 0  # the reference: no kill
    fresh = what_is_indexed(fresh_path)
    assert after == fresh
    assert len(after) == len(os.listdir(docs))
    conn = db.connect(db_path, read_only=True)
    try:
        assert conn.execute("SELECT value FROM meta WHERE key = 'keyword_scheme'").fetchone()[0] != "0"
        # The keyword rows are the ones a fresh index holds: nothing from before a re-tokenize is left.
        mine = conn.execute("SELECT s.source, c.ord, f.body FROM chunks_fts f JOIN chunks c ON c.id = f.rowid "
                            "JOIN sources s ON s.id = c.source_id ORDER BY 1, 2").fetchall()
    finally:
        conn.close()
    conn = db.connect(fresh_path, read_only=True)
    try:
        theirs = conn.execute("SELECT s.source, c.ord, f.body FROM chunks_fts f JOIN chunks c ON c.id = f.rowid "
                              "JOIN sources s ON s.id = c.source_id ORDER BY 1, 2").fetchall()
    finally:
        conn.close()
    assert mine == theirs
