"""A second Ctrl-C that comes before the first one's cancellation reached a write call (the event
loop busy in between) was taken for asyncio's second interrupt: the loop ended, its teardown then
cancelled the call and waited STOPPED_WITHIN_S for it, and only a third Ctrl-C quit. A write call
in hand (started, not ended) makes a second Ctrl-C quit at once, as it does once the call is
being waited for (test_progress84_second_signal)."""

from __future__ import annotations

import signal
import sys
import time

import pytest
from test_progress84_second_signal import _said_until, ended_interrupted, tides_env
from test_server_stdio import RawServer

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
    docs, env = tides_env(tmp_path, model_path)
    server = RawServer(env, run=("-c", SERVE_BUSY_THEN_STUCK))
    try:
        server.initialize()
        server.send({"id": "busy", "method": "tools/call",
                     "params": {"name": "ingest_file", "arguments": {"filePath": str(docs / "tides.md")}}})
        _said_until(server, b"loop busy")
        server.proc.send_signal(signal.SIGINT)
        time.sleep(0.5)  # both within the loop's busy seconds: the first one's cancellation is still on its way
        server.proc.send_signal(signal.SIGINT)
    except BaseException:
        server.proc.kill()
        raise
    ended_interrupted(server, "a second Ctrl-C left the server waiting for the write call it had not yet cancelled")
