"""Every long piece of work can be stopped: a watcher's pass inside a model run that never ends (Ctrl-C,
SIGTERM, a server's client closing stdin), and a conversion in hand when the call that asked for it is
cancelled. Real processes: the CLI under a signal, the server on stdio."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import in_this_process
from test_hostile_model_folder import (
    MARK_MODEL_RUNS,
    SERVE_UNPROBED,
    _began,
    _ended,
    _indexed_then_endless,
    _wait_until_it_runs_the_endless_graph,
    folder,  # noqa: F401 - a fixture
)
from test_isolation import docx_slow
from test_server_stdio import TIMEOUT_S, RawServer

pytestmark = pytest.mark.slow  # each test starts minirag in a process of its own

# `minirag` as run from a terminal, its model loaded without the short run that measures its vectors'
# width: the first run of the endless graph is then a pass's batch, in the middle of its files.
CLI_UNPROBED = MARK_MODEL_RUNS + """import sys
from minirag.cli import main
from minirag.encoder import Encoder
Encoder._probe = lambda self: 384  # the tiny model's width (tests/helpers/models.py)
sys.exit(main())"""


# A converter worker's CPU seconds once it converts a slow DOCX: past its start (its imports and the DOCX
# parser's, about half of it since they leave pandas out), a small part of the conversion's minutes. Each
# test that waits pays it in CPU, and on busy shared cores several times it in wall time.
CONVERTING_CPU_S = 1.5


def _synced_with_a_model_that_ends(run_cli, env: dict[str, str], model: Path, tiny_model_dir: Path) -> str:
    """`minirag sync` once the model ends again: what it says (refused, were the lock still held). In this
    process: the one stopped has ended, and the lock it held is a file's, which this process takes too."""
    import shutil

    shutil.copy(tiny_model_dir / "model.onnx", model / "model.onnx")
    again = run_cli("sync", env=in_this_process(env))
    assert again.returncode == 0, (again.stdout, again.stderr)
    return again.stdout


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_minirag_watch_inside_a_model_run_that_never_ends_stops_at_the_first_signal(folder, tmp_path,  # noqa: F811
                                                                                    tiny_model_dir, signum, run_cli):
    """Ctrl-C set the watcher's stop and nothing more: a pass inside a run that never ends went on, and
    only a second Ctrl-C (or SIGKILL) ended `minirag watch`."""
    env = _indexed_then_endless(folder, tmp_path)
    (tmp_path / "docs" / "b.md").write_text("# Beavers\n\nBeavers build dams.\n")
    proc = subprocess.Popen([sys.executable, "-c", CLI_UNPROBED, "watch", "--poll"], env=env,
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    _stopped_by_one_signal(proc, signum, lambda: _wait_until_it_runs_the_endless_graph(proc, _began(env)),
                           "whose pass runs a graph that never ends")
    # The lock released, and b.md's group left unwritten: the next sync does it.
    assert "2 files: 1 ingested, 1 unchanged" in _synced_with_a_model_that_ends(run_cli, env, folder, tiny_model_dir)


def test_a_watching_server_whose_pass_never_ends_ends_when_its_client_closes_stdin(folder, tmp_path,  # noqa: F811
                                                                                  tiny_model_dir, run_cli):
    """The watcher's passes ran under no bound: the server's close waited a minute for its thread, closed
    the index under it, and the process ended with ONNX Runtime still running."""
    env = _indexed_then_endless(folder, tmp_path) | {"MINIRAG_WATCH": "poll"}
    (tmp_path / "docs" / "b.md").write_text("# Beavers\n\nBeavers build dams.\n")
    server = RawServer(env, "3600", run=("-c", SERVE_UNPROBED))
    try:
        server.initialize()
        _wait_until_it_runs_the_endless_graph(server.proc, _began(env))
    finally:
        stderr = _ended(server, "the watcher's model run went on")
    assert server.proc.returncode == 0 and "Traceback" not in stderr, stderr
    assert "2 files: 1 ingested, 1 unchanged" in _synced_with_a_model_that_ends(run_cli, env, folder, tiny_model_dir)


def _converters(pid: int) -> list[int]:
    """The convert workers (convert_worker.py) the process `pid` started, still running."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
            with open(f"/proc/{entry}/cmdline", "rb") as cmdline:
                command = cmdline.read()
        except OSError:
            continue
        if int(fields[1]) == pid and fields[0] != "Z" and b"minirag.ingest.convert_worker" in command:
            found.append(int(entry))
    return found


def _cpu_seconds(pid: int) -> float:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _gone(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] in ("Z", "X")
    except OSError:
        return True


def test_a_cancelled_ingest_file_ends_the_conversion_in_hand(tmp_path, model_path):
    """notifications/cancelled stopped an ingest's model run, but its conversion (a worker process) ran
    to its end first: minutes for a slow document, up to MINIRAG_CONVERT_TIMEOUT. The worker is ended
    now, nothing of the file is written, and the next call converts it."""
    slow, server = _server_of_a_slow_docx(tmp_path, model_path)
    try:
        server.initialize()
        workers = _converting(server, slow)
        server.send({"method": "notifications/cancelled", "params": {"requestId": 9, "reason": "user pressed Esc"}})
        deadline = time.monotonic() + 30
        while not _gone(workers[0]):
            if time.monotonic() > deadline:
                pytest.fail("the cancelled ingest's conversion went on")
            time.sleep(0.1)
        # The cancelled call's thread reaps the worker, then clears its mark of a conversion begun (listed
        # as "failed" meanwhile): a loaded machine runs that thread later than this one's next calls.
        deadline = time.monotonic() + 30
        while (listed := json.loads(server.call("list_files")["content"][0]["text"]))["files"][0]["state"] == "failed":
            if time.monotonic() > deadline:
                break  # a mark left for good: the assertion below says so
            time.sleep(0.1)
        slow.write_bytes(docx_slow(16 * 1024))  # the same name, quick to convert: the next call does it
        again = server.call("ingest_file", filePath=str(slow))
        stderr = server.close().decode()
    finally:
        if server.proc.poll() is None:
            server.proc.kill()
            server.proc.wait()
    # Nothing of it written, and no mark of a conversion begun and never finished ("failed") left.
    assert [f["state"] for f in listed["files"]] == ["not_indexed"], listed
    assert not again["isError"], again
    assert server.proc.returncode == 0 and "Traceback" not in stderr, stderr



@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_minirag_watch_inside_a_slow_conversion_stops_at_the_first_signal(tmp_path, model_path, signum, run_cli):
    """A signal while the watcher's pass converts a slow document ends the conversion in hand (its
    worker process with it) and the command, in one line, leaving the file as it was."""
    from test_server_stdio import CONFIG_VARS

    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "slow.docx").write_bytes(docx_slow(12 * 1024 * 1024))
    env = {k: v for k, v in os.environ.items() if k not in CONFIG_VARS} | {
        "MODEL_PATH": model_path, "BASE_DIR": str(docs), "DB_PATH": str(tmp_path / "index.db"),
        "PYTHONPATH": str(Path(__file__).parent.parent)}
    proc = subprocess.Popen([sys.executable, "-m", "minirag", "watch", "--poll"], env=env, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    workers: list[int] = []

    def converting() -> None:
        deadline = time.monotonic() + 120
        while not _converters(proc.pid) or _cpu_seconds(_converters(proc.pid)[0]) < CONVERTING_CPU_S:
            assert proc.poll() is None and time.monotonic() < deadline, "no conversion ran"
            time.sleep(0.1)
        workers.extend(_converters(proc.pid))

    _stopped_by_one_signal(proc, signum, converting, "converting a slow document")
    assert _gone(workers[0]), "the conversion's worker outlived the command"
    listed = run_cli("list", "--json", env=in_this_process(env))  # (the command has ended: no lock between them)
    assert [f["state"] for f in json.loads(listed.stdout)["files"]] == ["not_indexed"], (listed.stdout, listed.stderr)


def test_a_server_whose_client_leaves_mid_conversion_ends_without_waiting_for_it(tmp_path, model_path):
    """Its client gone (stdin closed), the server cancels the calls still running once they have had
    SETTLE_S: an ingest_file in a slow conversion then waited for the conversion's end (minutes)."""
    slow, server = _server_of_a_slow_docx(tmp_path, model_path)
    try:
        server.initialize()
        workers = _converting(server, slow)
    finally:
        stderr = _ended(server, "it waited for the conversion of a call its client left")
    assert server.proc.returncode == 0 and "Traceback" not in stderr, stderr
    assert _gone(workers[0]), "the conversion's worker outlived the server"

# The server, each query_documents call stuck (as under a model whose graph never ends) until cancelled.
SERVE_STUCK = """import sys
import threading
from minirag.app import App
from minirag.cli import main
from minirag.server_state import ServerState
never = threading.Event()
App.query = lambda self, *args, **kwargs: never.wait(600)
ServerState.load_model_early = lambda self: None
sys.exit(main())"""


def test_a_cancellation_reaches_its_request_while_the_backlog_is_full(tmp_path, model_path):
    """With MAX_IN_FLIGHT requests stuck and one more written, the server stopped reading stdin until a
    request ended: the client's notifications/cancelled, behind that one, was never read, and nothing
    ended. (Already from 40 stuck calls: stdin's reader waited for one of the 40 worker threads they
    held.) Cancellations are read past the requests waiting for room now, past a flood of others too,
    and one naming a request still waiting drops it."""
    from test_server_stdio import CONFIG_VARS

    from minirag.in_flight import MAX_IN_FLIGHT

    docs = tmp_path / "docs"
    docs.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in CONFIG_VARS} | {
        "MODEL_PATH": model_path, "BASE_DIR": str(docs), "DB_PATH": str(tmp_path / "index.db"),
        "PYTHONPATH": str(Path(__file__).parent.parent)}
    server = RawServer(env, run=("-c", SERVE_STUCK))
    answers = []
    try:
        server.initialize()
        for n in range(MAX_IN_FLIGHT):
            server.send({"id": f"q{n}", "method": "tools/call",
                         "params": {"name": "query_documents", "arguments": {"query": f"otters {n}"}}})
        for n in range(3):  # no room for them: the backlog is full
            server.send({"id": f"waiting{n}", "method": "ping"})
        for n in range(2000):  # cancellations of nothing
            server.send({"method": "notifications/cancelled", "params": {"requestId": f"none{n}"}})
        for cancelled in ("waiting1", "q0", "q1"):
            server.send({"method": "notifications/cancelled", "params": {"requestId": cancelled, "reason": "stuck"}})
        for _ in range(2):
            answers.append(json.loads(server.lines.get(timeout=TIMEOUT_S)))
        server.send({"id": "after", "method": "ping"})
        answers.append(json.loads(server.lines.get(timeout=TIMEOUT_S)))
    except Exception as exc:  # noqa: BLE001 - queue.Empty: said as what it means
        pytest.fail(f"the cancellations behind a full backlog never reached their requests ({type(exc).__name__}; "
                    f"answered: {answers})")
    finally:
        server.proc.kill()
        server.proc.wait()
    # waiting1, cancelled while it waited for room, never ran: the room went to waiting0 and waiting2.
    assert answers == [{"jsonrpc": "2.0", "id": name, "result": {}} for name in ("waiting0", "waiting2", "after")], \
        answers


def test_requests_held_past_a_full_backlog_are_bounded_and_released_in_order():
    """The requests read while the backlog is full are held, at most MAX_HELD (and held_chars characters)
    of them; past that the reader waits, as it waited for room before. Notifications never wait."""
    import anyio
    import mcp_types as types
    from anyio import wait_all_tasks_blocked
    from mcp.shared.message import SessionMessage

    from minirag.in_flight import MAX_HELD, InFlight

    def request(n: int) -> SessionMessage:
        return SessionMessage(types.JSONRPCRequest(jsonrpc="2.0", id=n, method="ping"))

    async def main() -> None:
        flight = InFlight(limit=1, held_chars=10 * MAX_HELD)
        assert await flight.take(request(0), 10) is not None  # room: handed on at once
        for n in range(1, MAX_HELD + 1):
            assert await flight.take(request(n), 10) is None  # held
        taken: list = []
        async with anyio.create_task_group() as tasks:
            async def one_more() -> None:
                taken.append(await flight.take(request(MAX_HELD + 1), 10))

            tasks.start_soon(one_more)
            await wait_all_tasks_blocked()
            assert taken == []  # the reader waits: the held ones are at their bound
            note = SessionMessage(types.JSONRPCNotification(jsonrpc="2.0", method="notifications/cancelled",
                                                            params={"requestId": 5}))
            assert await flight.take(note, 10, "its tag") == ("its tag", note)  # never waits; drops held request 5
            await wait_all_tasks_blocked()
            assert taken == [None]  # room among the held: the 17th is held
            flight.sent(types.JSONRPCResponse(jsonrpc="2.0", id=0, result={}))  # request 0 answered: room
            _tag, released = await flight.released()
            assert released.message.id == 1

    anyio.run(main)


# The stdio server, settling with a patience of 3 s (in_flight.SETTLE_S) once stdin closes: a call
# converting for minutes is cancelled after that, not after 10 s.
SERVE_SETTLING_SOON = """import sys
import minirag.in_flight as in_flight
from minirag.cli import main
in_flight.SETTLE_S = 3.0
sys.exit(main())"""


def _server_of_a_slow_docx(tmp_path: Path, model_path: str) -> tuple[Path, RawServer]:
    """A DOCX that converts for minutes, and a stdio server whose root holds it."""
    from test_server_stdio import CONFIG_VARS

    docs = tmp_path / "docs"
    docs.mkdir()
    slow = docs / "slow.docx"
    slow.write_bytes(docx_slow(12 * 1024 * 1024))
    env = {k: v for k, v in os.environ.items() if k not in CONFIG_VARS} | {
        "MODEL_PATH": model_path, "BASE_DIR": str(docs), "DB_PATH": str(tmp_path / "index.db"),
        "PYTHONPATH": str(Path(__file__).parent.parent)}
    return slow, RawServer(env, run=("-c", SERVE_SETTLING_SOON))


def _converting(server: RawServer, slow: Path) -> list[int]:
    """Ask the server to ingest `slow` (request id 9); its converter workers' PIDs once one has
    converted for CONVERTING_CPU_S of CPU."""
    server.send({"id": 9, "method": "tools/call", "params": {"name": "ingest_file", "arguments": {"filePath": str(slow)}}})
    deadline = time.monotonic() + 120
    while not (workers := _converters(server.proc.pid)) or _cpu_seconds(workers[0]) < CONVERTING_CPU_S:
        assert server.proc.poll() is None and time.monotonic() < deadline, "no conversion ran"
        time.sleep(0.1)
    return workers


def _stopped_by_one_signal(proc: subprocess.Popen, signum: int, ready: Callable[[], None], doing: str) -> None:
    """Once `ready()` returns, send `minirag watch` (`proc`) one `signum`: it must end with its exit
    status for it, saying so in one line (beside its 'watching' line)."""
    try:
        ready()
        proc.send_signal(signum)
        _, err = proc.communicate(timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        pytest.fail(f"one {signal.Signals(signum).name} did not stop a watch {doing}")
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == (130 if signum == signal.SIGINT else 143), err
    said = "interrupted; stopped watching" if signum == signal.SIGINT else "stopped by SIGTERM"
    lines = [line for line in err.strip().splitlines() if not line.startswith("minirag: watching ")]
    assert len(lines) == 1 and said in lines[0], err
