"""`minirag status` run while a long sync works in another terminal says that sync is running (and
who runs it), so counts that are still growing and a lastSync of '-' are not read as the whole,
finished index. Through the real CLI, beside a real sync lock held by another process."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

from helpers.held_sync import held_sync

ROOT = Path(__file__).resolve().parent.parent

HOLD = textwrap.dedent("""
    import sys
    from pathlib import Path
    from minirag.store.lock import SyncLock
    with SyncLock(Path(sys.argv[1])):
        print("held", flush=True)
        sys.stdin.read()
""")


def test_e2e84_status_beside_another_processs_sync_names_it_and_not_once_it_ends(cli_env, run_cli):
    def status(*flags: str) -> str:
        done = run_cli("status", *flags)
        assert done.returncode == 0, done.stderr
        return done.stdout

    assert run_cli("sync").returncode == 0
    assert "syncRunning" not in status() and "syncRunning" not in json.loads(status("--json"))
    sync = subprocess.Popen([sys.executable, "-c", HOLD, str(cli_env)], cwd=ROOT, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True)
    try:
        assert sync.stdout is not None and sync.stdout.readline() == "held\n"
        # Each command is a process of its own, reading the clock as it runs: the time running may
        # have moved by a second from one to the next.
        holder = re.escape(f"a sync (pid {sync.pid}, running for ") + r"\d+m\d\ds\)"
        said = json.loads(status("--json"))
        assert re.fullmatch(holder, said["syncRunning"]), said
        assert said["sourceCount"] == 1  # what it has committed so far, still counted
        lines = [line for line in status().splitlines() if line.startswith("syncRunning: ")]
        assert len(lines) == 1 and re.fullmatch(f"syncRunning: {holder}", lines[0]), lines
        doctor = run_cli("doctor", "--json")
        index = next(check for check in json.loads(doctor.stdout)["checks"] if check["name"] == "index")
        assert index["ok"] and re.search(
            f"; {holder} is writing it: the counts are what it has committed so far$", index["detail"]), index
    finally:
        sync.communicate("", timeout=30)
    assert sync.returncode == 0
    assert "syncRunning" not in json.loads(status("--json"))
    assert "is writing it" not in run_cli("doctor").stdout


def test_e2e84_status_of_a_server_names_its_own_running_sync_job(app, docs, monkeypatch):
    (docs / "a.md").write_text("# Otters\n\nSea otters hold hands while they sleep.\n")
    app.sync()
    go = held_sync(monkeypatch)
    job = app.start_sync()
    try:
        running = app.status().sync_running
    finally:
        go.set()
        assert job.wait(60)
    assert running == f"sync job {job.job_id} of this server (pid {os.getpid()})", running
    assert app.status().sync_running is None


def test_e2e84_doctor_counts_one_source_and_one_chunk_in_the_singular(cli_env, run_cli):
    assert run_cli("sync").returncode == 0
    index = next(line for line in run_cli("doctor").stdout.splitlines() if line.startswith("[ok] index: "))
    assert f"{cli_env}: 1 source, 1 chunk, " in index, index
