"""Red team 79: a converter worker outlived a killed minirag.

The worker reads its next request from a pipe only between conversions. The stdio server keeps
SIGTERM's default action (a client's or a service manager's stop ends it where it stands), and
SIGKILL or the OOM killer end any minirag so: the conversion in hand then ran on, re-parented to
init, up to its CPU limit (MINIRAG_CONVERT_CPU_SECONDS, 120 s) and memory limit (2 GiB), since the
wall-clock limit is the parent's to enforce. Measured: a 17 MB HTML file's worker still converting
18 s after its `minirag sync` was SIGKILLed, its memory at 850 MB and growing. It now ends itself
once its parent is gone."""

from __future__ import annotations

import os
import signal
import time

import pytest
from test_bounds73_stops import _converting, _gone, _server_of_a_slow_docx
from test_server_stdio import TIMEOUT_S

pytestmark = pytest.mark.slow  # minirag in a process of its own


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGKILL])
def test_a_server_ended_by_a_signal_mid_conversion_leaves_no_worker_converting(tmp_path, model_path, signum):
    slow, server = _server_of_a_slow_docx(tmp_path, model_path)
    try:
        server.initialize()
        workers = _converting(server, slow)
        server.proc.send_signal(signum)
        server.proc.wait(TIMEOUT_S)
        deadline = time.monotonic() + TIMEOUT_S
        while not all(_gone(pid) for pid in workers) and time.monotonic() < deadline:
            time.sleep(0.1)
        left = [pid for pid in workers if not _gone(pid)]
    finally:
        if server.proc.poll() is None:
            server.proc.kill()
            server.proc.wait()
    for pid in left:  # this test's own leftovers, ended by their process ids
        os.kill(pid, signal.SIGKILL)
    assert not left, "the conversion's worker outlived the server"
