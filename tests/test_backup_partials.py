"""A `minirag backup` killed outright (SIGKILL) cannot remove its partial copy: the next backup to
the same DEST removes it, and never the partial of a backup that is still alive (here: stopped
with SIGSTOP in the middle of its copy)."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import ROOT

PADDING_BYTES = 40 * 1024 * 1024  # copied and integrity-checked: long enough to catch mid-copy
WAIT_S = 120


@pytest.fixture
def large_index(indexed) -> Path:
    path = indexed.config.db_path
    indexed.close()
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("INSERT INTO meta (key, value) VALUES ('padding', ?)", ("p" * PADDING_BYTES,))
    conn.close()
    return path


def backup_caught_mid_copy(index: Path, dest: Path) -> tuple[subprocess.Popen, Path]:
    """A real `minirag backup` process, stopped (SIGSTOP) once its partial copy exists."""
    proc = subprocess.Popen([sys.executable, "-m", "minirag", "backup", str(dest), "--db-path", str(index)],
                            cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + WAIT_S
    while time.monotonic() < deadline and proc.poll() is None:
        partial = [p for p in dest.parent.iterdir() if p.name.endswith(".partial")]
        if partial and partial[0].stat().st_size > 0:
            proc.send_signal(signal.SIGSTOP)
            return proc, partial[0]
        time.sleep(0.002)
    proc.kill()
    pytest.fail(f"the backup ended before its partial copy was seen: {proc.wait()}")


def test_the_next_backup_removes_the_partial_copy_a_killed_backup_left(large_index, run_cli, tmp_path):
    dest = tmp_path / "backups" / "index.db"
    dest.parent.mkdir()
    proc, partial = backup_caught_mid_copy(large_index, dest)
    proc.kill()  # SIGKILL: no handler runs, the partial stays
    proc.wait()
    assert partial.exists()
    result = run_cli("backup", dest, "--db-path", large_index)
    assert result.returncode == 0, result
    assert sorted(p.name for p in dest.parent.iterdir()) == ["index.db"]


def test_the_partial_copy_of_a_backup_still_running_is_left_alone(large_index, run_cli, tmp_path):
    dest = tmp_path / "backups" / "index.db"
    dest.parent.mkdir()
    proc, partial = backup_caught_mid_copy(large_index, dest)
    try:
        result = run_cli("backup", dest, "--db-path", large_index)
        assert result.returncode == 0, result
        assert partial.exists()
    finally:
        os.kill(proc.pid, signal.SIGCONT)
    _, err = proc.communicate(timeout=WAIT_S)
    assert proc.returncode == 0, err
    assert sorted(p.name for p in dest.parent.iterdir()) == ["index.db"]
    conn = sqlite3.connect(dest)
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    conn.close()


def test_files_that_only_look_like_partial_copies_are_left_alone(indexed, run_cli, tmp_path):
    dest = tmp_path / "backups" / "index.db"
    dest.parent.mkdir()
    others = [dest.parent / "index.db.notes.partial", dest.parent / "other.db.abcdefgh.partial"]
    for path in others:
        path.write_text("mine")
    result = run_cli("backup", dest, "--db-path", indexed.config.db_path)
    assert result.returncode == 0, result
    assert all(path.read_text() == "mine" for path in others)
