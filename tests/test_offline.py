"""Nothing leaves the machine: with MODEL_PATH, ingest, sync and query work in a network
namespace with no interfaces, open no IP socket at all, and leave no telemetry behind."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT, write

pytestmark = pytest.mark.slow  # each test runs the CLI in its own network namespace or under strace

TIMEOUT_S = 120


def _unshare_works() -> bool:
    if shutil.which("unshare") is None:
        return False
    try:
        return subprocess.run(["unshare", "-n", "true"], capture_output=True, timeout=10).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


needs_netns = pytest.mark.skipif(not _unshare_works(), reason="`unshare -n` is unavailable or not permitted here")
needs_strace = pytest.mark.skipif(shutil.which("strace") is None, reason="strace is not installed (apt-get install strace)")


@pytest.fixture
def corpus(docs) -> Path:
    write(docs / "otters.md", "# Sea otters\n\nSea otters hold hands while sleeping so they do not drift apart.\n")
    write(docs / "more" / "kelp.txt", "Kelp forests grow up to half a metre a day in cold coastal water.\n")
    return docs


def run_cli(prefix: list[str], *args: str, corpus: Path, tmp_path: Path, model_dir: Path,
            stdin: str | None = None, env: dict | None = None) -> dict:
    base = {k: v for k, v in os.environ.items() if k not in {"BASE_DIRS", "BASE_DIR", "MINIRAG_READ_ONLY", "ORT_DISABLE_TELEMETRY"}}
    done = subprocess.run(
        [*prefix, sys.executable, "-m", "minirag", *args, "--base-dir", str(corpus),
         "--db-path", str(tmp_path / "index.db"), "--model-path", str(model_dir), "--json"],
        input=stdin, capture_output=True, text=True, timeout=TIMEOUT_S, cwd=ROOT, env={**base, **(env or {})},
    )
    assert done.returncode == 0, (args, done.stderr)
    return json.loads(done.stdout)


def exercise(prefix: list[str], corpus: Path, tmp_path: Path, model_dir: Path, env: dict | None = None) -> None:
    kw = {"corpus": corpus, "tmp_path": tmp_path, "model_dir": model_dir, "env": env}
    assert run_cli(prefix, "ingest", str(corpus / "otters.md"), **kw)["ingested"] == 1
    assert run_cli(prefix, "sync", **kw)["ingested"] == 1
    assert run_cli(prefix, "ingest-data", "--source", "note-1", stdin="Walruses use their tusks to haul out.",
                   **kw)["chunkCount"] == 1
    hits = run_cli(prefix, "query", "otters sleeping holding hands", **kw)["results"]
    assert hits and hits[0]["source"] == str(corpus / "otters.md")


@needs_netns
def test_ingest_sync_and_query_work_in_a_network_namespace_with_no_interfaces(corpus, tmp_path, model_dir):
    exercise(["unshare", "-n"], corpus, tmp_path, model_dir)


def _home(tmp_path: Path) -> dict[str, str]:
    """An empty home folder for the CLI's runs (where ONNX Runtime's telemetry would leave its files)."""
    home = tmp_path / "home"
    home.mkdir()
    return {"HOME": str(home), "XDG_CACHE_HOME": str(home / ".cache")}


def _no_telemetry_in(env: dict[str, str]) -> None:
    home = Path(env["HOME"])
    assert not (home / ".cache" / "Microsoft").exists(), sorted(str(p) for p in home.rglob("*"))


@needs_strace
def test_ingest_sync_and_query_open_no_ip_socket_and_leave_no_telemetry_files_in_home(corpus, tmp_path, model_dir):
    def strace(log: Path) -> list[str]:
        # -ff: one log per process, so every run's trace is kept.
        return ["strace", "-f", "-ff", "-qq", "-e", "trace=socket,connect", "-o", str(log)]

    def ip_calls(stem: str) -> list[str]:
        traces = "".join(p.read_text() for p in tmp_path.glob(stem + ".*"))
        return [line for line in traces.splitlines() if re.search(r"\b[AP]F_INET6?\b", line)]

    # Control: the trace does see an IP socket when one is opened.
    subprocess.run([*strace(tmp_path / "control"), sys.executable, "-c",
                    "import socket; socket.socket(socket.AF_INET, socket.SOCK_STREAM).close()"],
                   check=True, timeout=TIMEOUT_S)
    assert ip_calls("control"), "strace did not record the control socket"
    env = _home(tmp_path)  # the telemetry check below rides on the same runs: four fewer processes
    exercise(strace(tmp_path / "minirag"), corpus, tmp_path, model_dir, env=env)
    assert ip_calls("minirag") == []
    _no_telemetry_in(env)


@pytest.mark.skipif(shutil.which("strace") is not None, reason="checked with the runs under strace above")
def test_a_sync_and_a_query_leave_no_telemetry_files_in_home(corpus, tmp_path, model_dir):
    env = _home(tmp_path)
    exercise([], corpus, tmp_path, model_dir, env=env)
    _no_telemetry_in(env)
