"""The requests open when stdin closes are answered while their work goes on (in_flight.settled):
a fixed SETTLE_S from stdin's end had cut a piped ingest_file on a slow machine, its answer lost."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import anyio
import mcp_types as types
import pytest
from mcp.shared.message import SessionMessage
from test_server_stdio import CONFIG_VARS, TIMEOUT_S, RawServer

from minirag import interruptible
from minirag.in_flight import InFlight

PATIENCE_S = 0.2


def _request(n: int) -> SessionMessage:
    return SessionMessage(types.JSONRPCRequest(jsonrpc="2.0", id=n, method="tools/call"))


def _work_ended() -> None:
    """A piece of work ending, as a conversion's does (under the bound of its call)."""
    with interruptible.RunBound(None).stopping(lambda: None):
        pass


def test_a_request_whose_work_goes_on_is_waited_for_and_one_whose_work_stopped_is_not():
    """Past many times the patience, a request whose work keeps ending pieces is still waited for;
    once its work ends no more, the wait gives up on it within the patience, unanswered. Each look
    counts what ended since the last, so a loaded machine's late looks are no silence."""
    async def main() -> None:
        flight = InFlight()
        assert await flight.take(_request(1), 10) is not None
        settled = anyio.Event()

        async def settle() -> None:
            await flight.settled(PATIENCE_S)
            settled.set()

        async with anyio.create_task_group() as tasks:
            tasks.start_soon(settle)
            began = time.monotonic()
            while time.monotonic() - began < 10 * PATIENCE_S:  # at least this long: a slow machine makes it longer
                _work_ended()
                await anyio.sleep(0.01)
            assert not settled.is_set(), "the request was given up while its work went on"
            with anyio.fail_after(60):  # its work stopped: given up, unanswered
                await settled.wait()

    anyio.run(main)


def test_a_request_whose_work_never_stops_is_given_up_at_the_bound():
    async def main() -> None:
        flight = InFlight()
        assert await flight.take(_request(1), 10) is not None
        settled = anyio.Event()

        async def settle() -> None:
            await flight.settled(60.0, PATIENCE_S)
            settled.set()

        async with anyio.create_task_group() as tasks:
            tasks.start_soon(settle)
            with anyio.fail_after(60):
                while not settled.is_set():
                    _work_ended()
                    await anyio.sleep(0.01)

    anyio.run(main)


def test_the_wait_ends_as_the_last_open_request_is_answered():
    async def main() -> None:
        flight = InFlight()
        assert await flight.take(_request(1), 10) is not None
        settled = anyio.Event()

        async def settle() -> None:
            await flight.settled(60.0, 60.0)
            settled.set()

        async with anyio.create_task_group() as tasks:
            tasks.start_soon(settle)
            await anyio.wait_all_tasks_blocked()
            assert not settled.is_set()
            flight.sent(types.JSONRPCResponse(jsonrpc="2.0", id=1, result={}))
            with anyio.fail_after(60):
                await settled.wait()

    anyio.run(main)


# The patience the servers below settle with (in_flight.SETTLE_S): short, so that waiting past it is short
# too. A look counts the work ended since the last one, however late: a loaded machine is no silence.
SERVER_SETTLE_S = 3.0

# A server whose ingest_file, once it has ingested (a converter's start and the model's load may take
# seconds under load, none of its work ending meanwhile), goes on, its pieces of work ending, until the
# test's gate (a file) is there.
SERVE_SLOW_INGEST = """import os
import sys
import threading
from pathlib import Path
import minirag.in_flight as in_flight
from minirag import interruptible
from minirag.app import App
from minirag.cli import main

in_flight.SETTLE_S = float(os.environ["TEST_SETTLE_S"])
gate = Path(os.environ["TEST_GATE"])
ingest_file = App.ingest_file


def slow_ingest_file(self, *args, **kwargs):
    ingested = ingest_file(self, *args, **kwargs)
    print("ingesting", file=sys.stderr, flush=True)
    while not gate.exists():  # a slow machine's ingest: its batches keep ending, under the call's bound
        with interruptible.current().stopping(lambda: None):
            threading.Event().wait(0.01)
    return ingested


App.ingest_file = slow_ingest_file
sys.exit(main())"""


def _line_of(stream, what: str) -> bytes:
    """One line of `stream`, read on a thread that is done once it has it; a failure after 60 s."""
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(stream.readline()), daemon=True)
    reader.start()
    reader.join(60)
    if not got:
        pytest.fail(f"no {what} in 60 s")
    return got[0]


def _told(stderr, line: bytes) -> None:
    """Lines of stderr read up to `line` (the server may log others before it)."""
    while (said := _line_of(stderr, line.decode())).strip() != line:
        assert said, f"stderr ended before {line!r}"


@pytest.mark.slow
def test_a_piped_ingest_that_goes_on_past_settle_s_after_stdin_closed_is_answered(tmp_path, model_path):
    """`minirag < requests.jsonl` with an ingest_file that takes longer than SETTLE_S after stdin's
    end: the SDK cancelled it then, and its answer was lost."""
    gate, docs = tmp_path / "gate", tmp_path / "docs"
    docs.mkdir()
    (docs / "tides.md").write_text("# Tides\n\nThe moon's gravity raises two tidal bulges a day.\n")
    env = {k: v for k, v in os.environ.items() if k not in CONFIG_VARS} | {
        "MODEL_PATH": model_path, "BASE_DIR": str(docs), "DB_PATH": str(tmp_path / "index.db"),
        "TEST_GATE": str(gate), "TEST_SETTLE_S": str(SERVER_SETTLE_S), "PYTHONPATH": str(Path(__file__).parent.parent)}
    server = RawServer(env, run=("-c", SERVE_SLOW_INGEST))
    try:
        server.initialize()
        server.send({"id": "slow", "method": "tools/call",
                     "params": {"name": "ingest_file", "arguments": {"filePath": str(docs / "tides.md")}}})
        _told(server.proc.stderr, b"ingesting")
        server.proc.stdin.close()
        time.sleep(1.5 * SERVER_SETTLE_S)  # at least this long after stdin's end: a slow machine's ingest, going on
        gate.touch()
        answer = json.loads(server.lines.get(timeout=TIMEOUT_S))
        server.proc.wait(TIMEOUT_S)
    finally:
        if server.proc.poll() is None:
            server.proc.kill()
            server.proc.wait()
    stderr = server.proc.stderr.read().decode()
    assert answer["id"] == "slow" and answer["result"]["isError"] is False, (answer, stderr)
    assert server.proc.returncode == 0 and "Traceback" not in stderr, stderr


@pytest.mark.slow
@pytest.mark.skipif(sys.platform == "win32", reason="a pipe's writer told its reader left (poll)")
def test_a_server_whose_client_closed_both_pipes_ends_without_waiting_for_its_requests(tmp_path, model_path):
    """Nobody can read their answers: the requests still going on are not waited for (a client
    that was killed closes both)."""
    gate, docs = tmp_path / "gate", tmp_path / "docs"  # the gate is never opened: the ingest goes on
    docs.mkdir()
    (docs / "tides.md").write_text("# Tides\n\nThe moon's gravity raises two tidal bulges a day.\n")
    env = {k: v for k, v in os.environ.items() if k not in CONFIG_VARS} | {
        "MODEL_PATH": model_path, "BASE_DIR": str(docs), "DB_PATH": str(tmp_path / "index.db"),
        "TEST_GATE": str(gate), "TEST_SETTLE_S": str(SERVER_SETTLE_S), "PYTHONPATH": str(Path(__file__).parent.parent)}
    proc = subprocess.Popen([sys.executable, "-c", SERVE_SLOW_INGEST], env=env, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        lines = [{"id": 1, "method": "initialize", "params": {
                    "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}},
                 {"method": "notifications/initialized"},
                 {"id": 2, "method": "tools/call",
                  "params": {"name": "ingest_file", "arguments": {"filePath": str(docs / "tides.md")}}}]
        proc.stdin.write(b"".join(json.dumps({"jsonrpc": "2.0", **line}).encode() + b"\n" for line in lines))
        proc.stdin.flush()
        assert json.loads(_line_of(proc.stdout, "answer to initialize"))["id"] == 1
        _told(proc.stderr, b"ingesting")
        proc.stdout.close()
        proc.stdin.close()
        proc.wait(TIMEOUT_S)
    except subprocess.TimeoutExpired:
        pytest.fail("the server went on with requests whose answers nobody could read")
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    stderr = proc.stderr.read().decode()
    assert proc.returncode == 0 and "Traceback" not in stderr, stderr
