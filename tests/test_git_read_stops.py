"""The git read at the end of a full sync stops when the sync is stopped (a client's sync_cancel, a
server shutting down), not after git's own time limit for each root."""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest
from conftest import write

from minirag import gitsafe

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def slow_status_git(folder: Path, started: Path) -> None:
    """A `git` that is the real one, except that `status` says it began and then hangs."""
    folder.mkdir()
    real = shutil.which("git")
    script = folder / "git"
    script.write_text('#!/bin/sh\nfor a in "$@"; do\n  if [ "$a" = status ]; then\n'
                      f"    touch '{started}'\n    exec sleep 600\n  fi\ndone\nexec '{real}' \"$@\"\n")
    script.chmod(0o755)


def test_cancelling_a_sync_stops_the_git_read_in_hand(make_app, docs, tmp_path, monkeypatch):
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    subprocess.run(["git", "init", "-q", str(docs)], check=True, env=env)
    write(docs / "a.md", "# A\n\nSome text.\n")
    subprocess.run(["git", "-C", str(docs), "-c", "user.name=t", "-c", "user.email=t@example.com", "add", "."],
                   check=True, env=env)
    subprocess.run(["git", "-C", str(docs), "-c", "user.name=t", "-c", "user.email=t@example.com",
                    "commit", "-qm", "one"], check=True, env=env)
    started = tmp_path / "status-started"
    slow_status_git(tmp_path / "bin", started)
    monkeypatch.setenv("PATH", f"{tmp_path / 'bin'}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setattr(gitsafe, "GIT_TIMEOUT_S", 600)  # only the stop may end it in this test's time
    app = make_app()

    job = app.start_sync()
    deadline = time.monotonic() + 120
    while not started.exists() and not job.wait(0.05):
        assert time.monotonic() < deadline, "the sync never reached its git read"
    assert started.exists(), f"the sync ended without a git read: {job.state} {job.error}"
    app.cancel_sync(job.job_id)

    assert job.wait(60), "the sync went on waiting for git after it was cancelled"
    assert job.state == "cancelled"
    assert job.progress.git_state is None
