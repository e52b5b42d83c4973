"""A second Ctrl-C that comes before the first one's cancellation reached a write call (the event
loop busy in between) was taken for asyncio's second interrupt: the loop ended, its teardown then
cancelled the call and waited STOPPED_WITHIN_S for it, and only a third Ctrl-C quit. A write call
in hand (started, not ended) makes a second Ctrl-C quit at once, as it does once the call is
being waited for (test_progress84_second_signal)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from test_progress84_second_signal import _said_until
from test_server_stdio import CONFIG_VARS, TIMEOUT_S, RawServer

# The stdio server, whose ingest_file call, once started, holds the event loop for a few seconds (a
# busy loop: the first Ctrl-C's cancellation cannot reach the call meanwhile), then sticks where no stop reaches.
SERVE_BUSY_THEN_STUCK = """import sys
import threading
import time
import anyio.from_thread
import minirag.server as server
from minirag.app import App
from minirag.cli import main
server.STOPPED_WITHIN_S = 600.0
never = threading.Event()
def busy():
    print("loop busy", file=sys.stderr, flush=True)
    time.sleep(4)
def stuck(self, *args, **kwargs):
    anyio.from_thread.run_sync(busy)
    never.wait(600)
App.ingest_file = stuck
sys.exit(main())"""


@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT to a child process")
def test_leftovers86_a_second_ctrl_c_before_the_first_reached_a_write_call_quits_at_once(tmp_path, model_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "tides.md").write_text("# Tides\n\nThe moon raises two tidal bulges a day.\n")
    env = {k: v for k, v in os.environ.items() if k not in CONFIG_VARS} | {
        "MODEL_PATH": model_path, "BASE_DIR": str(docs), "DB_PATH": str(tmp_path / "index.db"),
        "PYTHONPATH": str(Path(__file__).parent.parent)}
    server = RawServer(env, run=("-c", SERVE_BUSY_THEN_STUCK))
    try:
        server.initialize()
        server.send({"id": "busy", "method": "tools/call",
                     "params": {"name": "ingest_file", "arguments": {"filePath": str(docs / "tides.md")}}})
        _said_until(server, b"loop busy")
        server.proc.send_signal(signal.SIGINT)
        time.sleep(0.5)  # both within the loop's busy seconds: the first one's cancellation is still on its way
        server.proc.send_signal(signal.SIGINT)
        server.proc.wait(TIMEOUT_S)
    except subprocess.TimeoutExpired:
        pytest.fail("a second Ctrl-C left the server waiting for the write call it had not yet cancelled")
    finally:
        if server.proc.poll() is None:
            server.proc.kill()
            server.proc.wait()
    stderr = server.proc.stderr.read().decode()
    assert server.proc.returncode == 130, stderr
    assert stderr.splitlines()[-1:] == ["minirag: interrupted"] and "Traceback" not in stderr, stderr
