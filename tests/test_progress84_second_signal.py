"""A second Ctrl-C quits at once: the stdio server, its first Ctrl-C waiting STOPPED_WITHIN_S for a
write call stuck where its stop does not reach, went on waiting through a second one (and then for
the stuck thread at its exit), where a person pressing Ctrl-C twice expects to be out. The index it
leaves opens and answers: an uncommitted write is rolled back from the WAL, as after any crash."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from test_server_stdio import CONFIG_VARS, TIMEOUT_S, RawServer

# The stdio server, each ingest_file call stuck where no stop reaches (a lock, a hung mount), and a
# cancelled call's stop waited for far longer than the test waits for the server's end.
SERVE_STUCK_WRITE = """import sys
import threading
import minirag.server as server
from minirag.app import App
from minirag.cli import main
server.STOPPED_WITHIN_S = 600.0
never = threading.Event()
real_stop = server.interruptible.RunBound.stop
def stop(self, why):
    real_stop(self, why)
    print("asked to stop", file=sys.stderr, flush=True)
server.interruptible.RunBound.stop = stop
def stuck(self, *args, **kwargs):
    print("stuck", file=sys.stderr, flush=True)
    never.wait(600)
App.ingest_file = stuck
sys.exit(main())"""


def _said_until(server: RawServer, wanted: bytes) -> None:
    while wanted not in (said := server.proc.stderr.readline()):
        assert said, f"the server ended before saying {wanted!r}"


def tides_env(tmp_path: Path, model_path: str) -> tuple[Path, dict[str, str]]:
    """A folder of one note, and the environment a stdio server of that folder runs in."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "tides.md").write_text("# Tides\n\nThe moon raises two tidal bulges a day.\n")
    env = {k: v for k, v in os.environ.items() if k not in CONFIG_VARS} | {
        "MODEL_PATH": model_path, "BASE_DIR": str(docs), "DB_PATH": str(tmp_path / "index.db"),
        "PYTHONPATH": str(Path(__file__).parent.parent)}
    return docs, env


def ended_interrupted(server: RawServer, left_waiting: str) -> None:
    """The server, sent its second Ctrl-C, ends at once: exit 130, `minirag: interrupted` its last line."""
    try:
        server.proc.wait(TIMEOUT_S)
    except subprocess.TimeoutExpired:
        pytest.fail(left_waiting)
    finally:
        if server.proc.poll() is None:
            server.proc.kill()
            server.proc.wait()
    stderr = server.proc.stderr.read().decode()
    assert server.proc.returncode == 130, stderr
    assert stderr.splitlines()[-1:] == ["minirag: interrupted"] and "Traceback" not in stderr, stderr


@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT to a child process")
def test_progress84_a_second_ctrl_c_while_a_stuck_call_is_waited_for_quits_at_once(tmp_path, model_path, run_cli):
    docs, env = tides_env(tmp_path, model_path)
    assert run_cli("sync", env=env).returncode == 0
    server = RawServer(env, run=("-c", SERVE_STUCK_WRITE))
    try:
        server.initialize()
        server.send({"id": "stuck", "method": "tools/call",
                     "params": {"name": "ingest_file", "arguments": {"filePath": str(docs / "tides.md")}}})
        _said_until(server, b"stuck")
        server.proc.send_signal(signal.SIGINT)
        _said_until(server, b"asked to stop")  # the call cancelled: its stop is waited for
        server.proc.send_signal(signal.SIGINT)
    except BaseException:
        server.proc.kill()
        raise
    ended_interrupted(server, "a second Ctrl-C left the server waiting for a call stuck where its stop does not reach")
    found = run_cli("query", "tidal bulges", "--json", env=env)
    assert found.returncode == 0 and "tides.md" in found.stdout, (found.stdout, found.stderr)
