"""The server as a subprocess: raw stdio (nothing but JSON-RPC on stdout), the SDK's stdio
client, and streamable HTTP."""

from __future__ import annotations

import contextlib
import json
import os
import queue
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from minirag import __version__

pytestmark = pytest.mark.slow  # each test starts the server in a process of its own, or shares one (SharedServer)

ROOT = Path(__file__).resolve().parent.parent
CONFIG_VARS = {"BASE_DIR", "BASE_DIRS", "DB_PATH", "CACHE_DIR", "MODEL_NAME", "MODEL_PATH", "MINIRAG_READ_ONLY",
               "MAX_FILE_SIZE", "CHUNK_TOKEN_BUDGET", "RAG_HYBRID_WEIGHT", "RAG_GROUPING", "RAG_MAX_DISTANCE",
               "RAG_MAX_FILES", "ALLOW_PRIVATE_URLS"}
TIMEOUT_S = 60


@pytest.fixture
def server_env(tmp_path, model_path) -> dict[str, str]:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "tides.md").write_text("# Tides\n\nThe moon's gravity raises two tidal bulges a day.\n")
    env = {k: v for k, v in os.environ.items() if k not in CONFIG_VARS}
    return env | {"MODEL_PATH": model_path, "BASE_DIR": str(docs), "DB_PATH": str(tmp_path / "index.db")}


class RawServer:
    """`python -m minirag` on pipes, spoken to one JSON-RPC line at a time."""

    def __init__(self, env: dict[str, str], *args: str, run: tuple[str, ...] = ("-m", "minirag")):
        self.proc = subprocess.Popen([sys.executable, *run, *args], env=env, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.lines: queue.Queue[bytes] = queue.Queue()
        self.raw: list[bytes] = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        self._next_id = 0

    def _read(self) -> None:
        for line in self.proc.stdout:
            self.raw.append(line)
            self.lines.put(line)

    def read_to_end(self) -> None:
        """Wait until every line the ended server wrote is in `lines` (its stdout read to its end)."""
        self._reader.join(TIMEOUT_S)
        assert not self._reader.is_alive(), "the server's stdout did not end"

    def send(self, message: dict) -> None:
        self.proc.stdin.write(json.dumps({"jsonrpc": "2.0", **message}).encode() + b"\n")
        self.proc.stdin.flush()

    def request(self, method: str, params: dict) -> dict:
        self._next_id += 1
        self.send({"id": self._next_id, "method": method, "params": params})
        while True:
            message = json.loads(self.lines.get(timeout=TIMEOUT_S))
            if message.get("id") == self._next_id:
                return message

    def call(self, tool: str, **arguments) -> dict:
        return self.request("tools/call", {"name": tool, "arguments": arguments})["result"]

    def initialize(self, client: str = "raw") -> dict:
        """The handshake every session opens with; initialize's reply."""
        reply = self.request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                            "clientInfo": {"name": client, "version": "0"}})
        self.send({"method": "notifications/initialized"})
        return reply

    def replies_to(self, lines: list[bytes]) -> list[dict]:
        """Each raw line written as it stands, and the one reply it gets."""
        replies = []
        for line in lines:
            self.proc.stdin.write(line + b"\n")
            self.proc.stdin.flush()
            replies.append(json.loads(self.lines.get(timeout=TIMEOUT_S)))
        return replies

    def close(self) -> bytes:
        self.proc.stdin.close()
        self.proc.wait(TIMEOUT_S)
        return self.proc.stderr.read()


class SharedServer(RawServer):
    """One server for the tests that only write lines, check their answers and that it serves on (a
    start is ~2.5 s of CPU, most of it the MCP SDK's import): its stderr read as it comes, each test
    looking at what came during it. Ids from 10,000 up, past the ones the tests write raw."""

    def __init__(self, env: dict[str, str]):
        super().__init__(env)
        self.env = env
        self.err: list[bytes] = []
        self._err_reader = threading.Thread(target=self._read_err, daemon=True)
        self._err_reader.start()
        self.initialize()
        self._next_id = 10_000

    def _read_err(self) -> None:
        for line in self.proc.stderr:
            self.err.append(line)

    def begin(self) -> int:
        """Where this test's stderr starts; drops any answer an earlier test left unread."""
        with contextlib.suppress(queue.Empty):
            while True:
                self.lines.get_nowait()
        return len(self.err)

    def stderr_since(self, mark: int) -> bytes:
        return b"".join(self.err[mark:])

    def read_err_to_end(self) -> None:
        """Wait until every line the ended server wrote to stderr is in `err`."""
        self._err_reader.join(TIMEOUT_S)
        assert not self._err_reader.is_alive(), "the server's stderr did not end"


@pytest.fixture(scope="module")
def shared_server(tmp_path_factory, tiny_model_dir):
    """The module's SharedServer with server_env's settings: a function that starts it on first use,
    and again where a test left it dead. Each one must end cleanly, with no traceback on stderr."""
    tmp_path = tmp_path_factory.mktemp("shared-server")
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "tides.md").write_text("# Tides\n\nThe moon's gravity raises two tidal bulges a day.\n")
    env = {k: v for k, v in os.environ.items() if k not in CONFIG_VARS}
    env |= {"MODEL_PATH": str(tiny_model_dir), "BASE_DIR": str(docs), "DB_PATH": str(tmp_path / "index.db")}
    started: list[SharedServer] = []

    def server() -> SharedServer:
        if not started or started[-1].proc.poll() is not None:
            started.append(SharedServer(env))
        return started[-1]

    yield server
    for each in started:
        with contextlib.suppress(OSError):
            each.proc.stdin.close()
        try:
            each.proc.wait(TIMEOUT_S)
        except subprocess.TimeoutExpired:
            each.proc.kill()
            each.proc.wait()
            pytest.fail("the shared server did not end once stdin closed")
        each.read_err_to_end()
        stderr = each.stderr_since(0)
        assert each.proc.returncode == 0 and b"Traceback" not in stderr, stderr


def test_stdio_server_answers_initialize_sync_ingest_and_query_with_only_json_rpc_on_stdout(server_env):
    """Its sync job says on stderr that it started and how it ended: a client's MCP log view is the
    server's stderr, and a 45 s sync_start of 119 files wrote nothing there, so a user who asked an agent
    to index a folder could not see it happen. stdout stays the protocol throughout. (One server for both:
    a start is ~2.5 s of CPU.)"""
    docs = Path(server_env["BASE_DIR"])
    server = RawServer(server_env)
    try:
        init = server.initialize()
        tools = server.request("tools/list", {})["result"]["tools"]
        job = server.call("sync_start", wait=True)["structuredContent"]
        (docs / "currents.md").write_text("# Currents\n\nThe Gulf Stream carries warm water north.\n")
        ingested = server.call("ingest_file", filePath=str(docs / "currents.md"))
        found = server.call("query_documents", query="moon gravity", topK=5)
        missing = server.call("read_file", source="nope")
    finally:
        stderr = server.close().decode()
    assert init["result"]["serverInfo"]["name"] == "minirag", stderr
    assert "untrusted" in init["result"]["instructions"]
    assert len(tools) == 13
    assert job["state"] == "succeeded", stderr
    assert f"minirag: {job['jobId']}: syncing every root\n" in stderr, stderr
    assert (f"minirag: {job['jobId']} succeeded: 1 file: 1 ingested, 0 unchanged, 0 removed, 0 failed; 1 chunk "
            f"(1 embedded, 0 reused) in ") in stderr, stderr
    assert "WARNING" not in stderr and "Traceback" not in stderr, stderr
    assert ingested["structuredContent"]["chunkCount"] == 1
    assert found["structuredContent"]["results"][0]["source"].endswith("tides.md")
    assert missing["isError"] is True
    assert server.proc.returncode == 0
    for line in server.raw:
        assert json.loads(line)["jsonrpc"] == "2.0", line


def test_flags_without_a_command_start_the_stdio_server_with_those_flags(server_env, tmp_path):
    other = tmp_path / "other"
    other.mkdir()
    server = RawServer(server_env, "--base-dir", str(other), "--read-only")
    try:
        server.initialize("t")
        status = server.call("status")["structuredContent"]
    finally:
        stderr = server.close()
    assert server.proc.returncode == 0, stderr
    assert status["roots"] == [str(other)] and status["readOnly"] is True


@pytest.mark.anyio
async def test_the_sdk_stdio_client_sees_a_broken_configuration_through_status(server_env):
    env = server_env | {"BASE_DIRS": "not json"}
    params = StdioServerParameters(command=sys.executable, args=["-m", "minirag"], env=env)
    async with Client(params) as client:
        names = {t.name for t in (await client.list_tools()).tools}
        health = await client.call_tool("status", {})
        query = await client.call_tool("query_documents", {"query": "tides"})
    assert len(names) == 13
    assert health.structured_content["version"] == __version__
    assert "BASE_DIRS" in health.structured_content["configError"]
    assert query.is_error and "configuration error" in query.content[0].text


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _wait_for_port(port: int, proc: subprocess.Popen) -> None:
    deadline = time.monotonic() + TIMEOUT_S
    while time.monotonic() < deadline:
        assert proc.poll() is None, proc.stderr.read()
        with socket.socket() as sock:
            if sock.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise TimeoutError(f"nothing listening on {port}")


def _lines_into(stream, lines: queue.SimpleQueue) -> None:
    """Each line of `stream` put in `lines` as it comes, then "" at its end."""
    for line in stream:
        lines.put(line)
    lines.put("")


@contextlib.contextmanager
def http_server(env: dict[str, str]):
    """A `minirag serve --http` process of `env`, yielded as (process, port) once it says it serves:
    its socket is bound then. A port another process took after _free_port found it free (its
    "cannot listen" line) is given up for another; a port answering is no proof (another test's
    server may hold it). Ends it at the block's end; its stderr is read all along."""
    for _ in range(5):
        port = _free_port()
        proc = subprocess.Popen([sys.executable, "-m", "minirag", "serve", "--http", f":{port}"], env=env,
                                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        said: queue.SimpleQueue[str] = queue.SimpleQueue()
        threading.Thread(target=_lines_into, args=(proc.stderr, said), daemon=True).start()
        lines = []
        while (line := said.get(timeout=TIMEOUT_S)) and "serving MCP at" not in line:
            lines.append(line)
        if line:
            break
        proc.wait(TIMEOUT_S)
        assert any("cannot listen" in seen for seen in lines), lines
    try:
        yield proc, port
    finally:
        proc.terminate()
        proc.wait(TIMEOUT_S)


@pytest.mark.anyio
async def test_serve_http_answers_over_streamable_http_on_the_loopback_host(server_env):
    with http_server(server_env) as (proc, port):
        async with Client(f"http://127.0.0.1:{port}/mcp") as client:
            await client.call_tool("ingest_file", {"filePath": str(Path(server_env["BASE_DIR"]) / "tides.md")})
            found = await client.call_tool("query_documents", {"query": "tidal bulges"})
    assert found.structured_content["results"][0]["source"].endswith("tides.md")
    assert proc.stdout.read() == ""


def test_a_request_holding_a_lone_surrogate_is_answered_not_dropped(shared_server):
    """JSON allows "\\ud800"; the SDK's parser refuses it and answered nothing: the client hung."""
    server = shared_server()
    server.begin()
    server.call("ingest_file", filePath=str(Path(server.env["BASE_DIR"]) / "tides.md"))
    server.proc.stdin.write(b'{"jsonrpc": "2.0", "id": 77, "method": "tools/call", "params": {"name": '
                            b'"query_documents", "arguments": {"query": "moon \\ud800 gravity"}}}\n')
    server.proc.stdin.flush()
    while True:
        answer = json.loads(server.lines.get(timeout=TIMEOUT_S))
        if answer.get("id") == 77:
            break
    after = server.call("query_documents", query="tides")
    assert "result" in answer and answer["result"]["isError"] is False
    assert after["isError"] is False


UNREADABLE = [  # (line, JSON-RPC error code): what a broken or hostile client may write
    (b"not json at all", -32700),
    (b"[" * 100_000 + b"]" * 100_000, -32700),  # past the parser's depth limit
    (b'{"x": ' * 100_000 + b'"\\ud800"' + b"}" * 100_000, -32700),  # deep, and a lone surrogate to repair
    # Deep enough for repair's walk to pass Python's recursion limit, not json.loads': the server died.
    (b'{"x": ' * 500 + b'"\\ud800"' + b"}" * 500, -32700),
    (b'{"jsonrpc": "2.0", "method": 7}', -32600),  # JSON, but no JSON-RPC message (nor an id to answer under)
]


def test_a_setting_that_is_not_utf8_is_a_configuration_error_the_server_reports(server_env, tmp_path):
    """Bytes that are no UTF-8 in a setting (a collection's description in another encoding) reached
    the server's instructions as lone surrogates, which no JSON can carry: initialize got no answer and
    the server died ('internal error: ExceptionGroup')."""
    described = {"docs": {"path": server_env["BASE_DIR"], "description": "Caf\udce9 menus"}}  # b'Caf\\xe9'
    env = server_env | {"BASE_DIRS": json.dumps(described, ensure_ascii=False)}
    server = RawServer(env)
    try:
        server.initialize()
        status = server.call("status")["structuredContent"]
        assert "BASE_DIRS" in status["configError"] and "not valid UTF-8" in status["configError"]
    finally:
        err = server.close()
    assert b"internal error" not in err


def test_an_unreadable_line_gets_a_json_rpc_error_and_the_server_reads_on(shared_server):
    """The SDK only logged a line it could not parse: the client, waiting on the id it sent, hung."""
    server = shared_server()
    mark = server.begin()
    server.proc.stdin.write(b"\n  \n")  # blank lines: no message, no answer
    replies = server.replies_to([line for line, _code in UNREADABLE])
    after = server.call("ingest_file", filePath=str(Path(server.env["BASE_DIR"]) / "tides.md"))
    stderr = server.stderr_since(mark)
    assert [(r.get("id", "absent"), r["error"]["code"]) for r in replies] == [(None, code) for _, code in UNREADABLE]
    assert all(len(r["error"]["message"]) < 300 for r in replies), replies
    assert replies[0]["error"]["message"].startswith("Parse error")
    assert "recursion limit" in replies[1]["error"]["message"]
    assert after["isError"] is False, (after, stderr)
    assert b"Traceback" not in stderr, stderr


def test_in_a_terminal_the_stdio_server_says_what_it_is_and_ctrl_c_quits(server_env):
    """The terminal holds stdin open: a read blocked on it used to hold the shutdown, so SIGINT did
    nothing until stdin closed (a client's open pipe the same)."""
    import pty
    import select

    pid, terminal = pty.fork()
    if pid == 0:  # the child: the server, with the pseudo-terminal as its stdin, stdout and stderr
        os.execve(sys.executable, [sys.executable, "-m", "minirag"], server_env)
    # Generous: on a loaded machine the server's imports alone took over 20 s, and a Ctrl-C typed
    # before its banner tests another thing (an interrupted import).
    said, deadline, status = b"", time.monotonic() + 90, (0, 0)
    try:
        while b"Ctrl-C quits" not in said and time.monotonic() < deadline:
            if select.select([terminal], [], [], 0.5)[0]:
                said += os.read(terminal, 4096)
        os.write(terminal, b"\x03")  # Ctrl-C typed at the terminal
        deadline = time.monotonic() + 30
        while (status := os.waitpid(pid, os.WNOHANG))[0] == 0 and time.monotonic() < deadline:
            if select.select([terminal], [], [], 0.05)[0]:
                with contextlib.suppress(OSError):  # EIO once the child has closed its side
                    said += os.read(terminal, 4096)
    finally:
        if status[0] == 0:  # still running: the test has failed, the child must not outlive it
            os.kill(pid, 9)
            os.waitpid(pid, 0)
        os.close(terminal)
    assert b"minirag --help" in said
    assert status[0] == pid and os.waitstatus_to_exitcode(status[1]) == 130, said.decode(errors="replace")


def test_a_ctrl_c_that_ended_a_string_exec_leaves_the_exit_status_as_minirag_gives_it(server_env, tmp_path):
    """Ctrl-C landing while a dataclass or namedtuple is being made (a string exec) made `python -m
    minirag` die by SIGINT after saying "stopping": CPython remembers such a KeyboardInterrupt, even
    caught, and ends a `-m` run by SIGINT at exit. Here the exec ends with one just before exit."""
    (tmp_path / "sitecustomize.py").write_text(
        "import minirag.cli as cli\n"
        "real = cli.main\n"
        "def main(argv=None):\n"
        "    code = real(argv)\n"
        "    try:\n"
        "        exec('raise KeyboardInterrupt')\n"
        "    except KeyboardInterrupt:\n"
        "        pass\n"
        "    return code\n"
        "cli.main = main\n", encoding="utf-8")
    env = server_env | {"PYTHONPATH": str(tmp_path)}
    done = subprocess.run([sys.executable, "-m", "minirag", "status"], env=env, capture_output=True, timeout=60)
    assert done.returncode == 0 and b"dbPath" in done.stdout, done


def _tgkill(pid: int, tid: int, signum: int) -> None:
    """A signal to one thread of another process, as the kernel picks one when the main thread blocks it."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    if libc.syscall(234, pid, tid, signum) != 0:  # SYS_tgkill on x86-64
        raise OSError(ctypes.get_errno(), "tgkill")


@pytest.mark.skipif(not sys.platform.startswith("linux") or os.uname().machine != "x86_64",
                    reason="tgkill by its x86-64 number")
def test_ctrl_c_landing_on_another_thread_still_stops_the_stdio_server(server_env):
    """The kernel gives a process's SIGINT to any thread when the main thread has it blocked, as
    glibc does while the main thread starts a thread. Python runs the handler only in the main
    thread, which slept in the event loop's epoll_wait until a client's next line: the terminal's
    Ctrl-C did nothing."""
    server = RawServer(server_env)
    try:
        server.initialize()
        server.request("tools/list", {})
        time.sleep(1)  # the start-up's work done, the event loop asleep in epoll_wait
        others = [int(t) for t in os.listdir(f"/proc/{server.proc.pid}/task") if int(t) != server.proc.pid]
        assert others
        for tid in reversed(others):  # a thread that ended since the listing (the model's early load) is passed over
            try:
                _tgkill(server.proc.pid, tid, signal.SIGINT)
                break
            except ProcessLookupError:
                continue
        else:
            pytest.fail("every thread but the main one ended before the signal")
        code = server.proc.wait(20)
    except subprocess.TimeoutExpired:
        code = None
    finally:
        if server.proc.poll() is None:
            server.proc.kill()
        server.proc.wait()
    assert code == 130


@pytest.mark.anyio
async def test_named_collections_budgets_and_pages_over_stdio_and_http(server_env, tmp_path):
    """The same agent's path through both transports: learn the collections, search one, read a
    long file page by page, with nothing but tools advertised."""
    notes = tmp_path / "notes"
    notes.mkdir()
    long_text = "".join(f"Paragraph {i} about tidal streams and harbour charts.\n\n" for i in range(600))
    (notes / "long.md").write_text(long_text)
    env = server_env | {"MINIRAG_MAX_RESPONSE_TOKENS": "2000", "BASE_DIRS": json.dumps({
        "tides": {"path": server_env["BASE_DIR"], "description": "Notes on tides"}, "harbour": str(notes)})}
    env.pop("BASE_DIR")
    with http_server(env) as (proc, port):
        for target in (StdioServerParameters(command=sys.executable, args=["-m", "minirag"], env=env),
                       f"http://127.0.0.1:{port}/mcp"):
            async with Client(target) as client:
                assert client.server_capabilities.resources is None and client.server_capabilities.prompts is None
                assert "tides: Notes on tides" in client.instructions and "harbour" in client.instructions
                await client.call_tool("sync_start", {"wait": True})
                listed = (await client.call_tool("list_collections", {})).structured_content["collections"]
                assert [(c["name"], c["fileCount"]) for c in listed] == [("tides", 1), ("harbour", 1)]
                found = (await client.call_tool("query_documents", {"query": "tidal", "collection": "harbour"})
                         ).structured_content
                assert found["results"] and {h["collection"] for h in found["results"]} == {"harbour"}
                pages, offset = [], 0
                while offset is not None:
                    page = await client.call_tool("read_file", {"filePath": str(notes / "long.md"), "offset": offset})
                    assert len(page.content[0].text) < 3 * 2000
                    pages.append(page.structured_content["text"])
                    offset = page.structured_content["nextOffset"]
                assert "".join(pages).split() == long_text.split() and len(pages) > 2
    assert proc.stdout.read() == ""


def test_building_the_server_under_the_cli_leaves_the_sdks_rich_log_handler_unmade(tmp_path):
    """MCPServer() sets up the SDK's logging with a rich handler that logging.basicConfig drops when the
    CLI has configured logging already: made anyway, it costs every server start ~55 ms of CPU."""
    code = ("import logging, sys; from minirag.cli import build_parser; "
            "logging.basicConfig(stream=sys.stderr, level=logging.WARNING); "
            "from minirag.server import build_server, load_state; "
            "build_server(load_state(build_parser().parse_args(['serve']), {})); "
            "print(sorted(m for m in sys.modules if m == 'rich' or m.startswith('rich.')))")
    env = {**os.environ, "BASE_DIR": str(tmp_path), "DB_PATH": str(tmp_path / "i.db")}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


BAD_IDS = [b'{"a": 1}', b"1.5", b"1e400", b"true", b"null", b"[7]"]


def test_a_request_whose_id_is_no_string_or_integer_gets_an_invalid_request_error(shared_server):
    """The SDK read such a request as a notification (its id dropped) and answered nothing: the client hung."""
    server = shared_server()
    mark = server.begin()
    replies = server.replies_to([b'{"jsonrpc": "2.0", "id": ' + bad + b', "method": "ping"}' for bad in BAD_IDS])
    nested = server.call("ingest_data", data='{"id": 1.5}', source="ids")  # an "id" inside arguments
    stderr = server.stderr_since(mark)
    assert [(r["id"], r["error"]["code"]) for r in replies] == [(None, -32600)] * len(BAD_IDS), replies
    assert "id must be a string or an integer" in replies[0]["error"]["message"]
    assert nested["isError"] is False, (nested, stderr)


def test_a_client_that_stops_reading_stdout_ends_the_server_quietly(server_env):
    """Writing a reply to a closed pipe raised BrokenPipeError out of the SDK's writer task: exit 1 and
    `internal error ... please report it`, for a client that merely went away."""
    proc = subprocess.Popen([sys.executable, "-m", "minirag"], env=server_env, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    ping = b'{"jsonrpc": "2.0", "id": 1, "method": "ping"}\n'
    try:
        proc.stdin.write(ping)
        proc.stdin.flush()
        proc.stdout.readline()  # the server is up and answering
        proc.stdout.close()
        for _ in range(20):  # the first reply that meets the closed pipe ends the server
            proc.stdin.write(ping)
            proc.stdin.flush()
            time.sleep(0.1)
    except BrokenPipeError:
        pass
    try:
        proc.wait(TIMEOUT_S)
    finally:
        proc.kill()
    stderr = proc.stderr.read()
    assert b"internal error" not in stderr, stderr
    assert proc.returncode == 0, stderr


HOSTILE_CALLS = [  # (the params of a tools/call, written raw; what its answer says)
    (b'{"name": "query_documents", "arguments": ["tides", 5]}',
     "tools/call: arguments must be a JSON object of named arguments ({\"name\": value, ...}), got an array"),
    (b'{"name": "query_documents", "arguments": "tides"}',
     "tools/call: arguments must be a JSON object of named arguments ({\"name\": value, ...}), got the "
     "string 'tides'"),
    (b'{"name": "query_documents", "arguments": {"query": "tides", "topK": NaN}}',
     "query_documents: topK must be a whole number, got NaN"),
    (b'{"name": "query_documents", "arguments": {"query": "tides", "topK": Infinity}}',
     "query_documents: topK must be a whole number, got Infinity"),
    (b'{"name": "query_documents", "arguments": {"query": "tides", "topK": 1e999}}',
     "query_documents: topK must be a whole number, got Infinity"),
    (b'{"name": "query_documents", "arguments": {"query": "tides", "topK": -1e308}}',
     "query_documents: topK must be a whole number, got -1e+308"),
    (b'{"name": "read_file", "arguments": {"source": "a\\u0000b"}}', "not indexed: a\\x00b"),
    (b'{"name": 7, "arguments": {}}', "tools/call: name must be a tool's name (a string), got 7"),
    (b'{"arguments": {"query": "tides"}}', "tools/call: name is required (the tool to call)"),
    (b'["query_documents", {"query": "tides"}]', "Invalid params: tools/call's params must be a JSON object, got an array"),
    (b'"query_documents"', "Invalid params: tools/call's params must be a JSON object, got the string 'query_documents'"),
    (b'null', 'tools/call: params are required: {"name": tool, "arguments": {...}}'),
    (b'{"name": "no_such_tool", "arguments": {}}', "no_such_tool: no such tool; the tools are: "),
    (b'{"name": "query_documents", "arguments": {"query": "%s"}}' % (b"q" * 10_000_000),
     "query is 10,000,000 characters; queries take at most 10,000"),
    (b'{"name": "query_documents", "arguments": {"query": "tides", "scope": ""}}', "scope is empty"),
    (b'{"name": "read_file", "arguments": {"source": "\\ud800"}}', "not indexed: \ufffd"),
    (b'{"name": "ingest_data", "arguments": {"data": "x", "source": "s", "meta": {"a": [1, {"b": null}]}}}',
     "ingest_data: unknown argument 'meta'"),
    (b'{"name": "read_chunk_neighbors", "arguments": {"source": "s", "chunkIndex": {"n": 0}}}',
     "read_chunk_neighbors: chunkIndex must be a whole number, got an object"),
    (b'{"name": "sync_start", "arguments": {"path": "/../../%s"}}' % (b"x" * 5000), "the path is 5007 bytes long"),
    (b'{"name": "status", "arguments": {}, "_meta": {"progressToken": {"a": 1}}}',
     "tools/call: _meta.progressToken must be a string or an integer, got an object"),
    (b'{"name": "status", "arguments": {}, "_meta": {"progressToken": 1.5}}',
     "tools/call: _meta.progressToken must be a string or an integer, got 1.5"),
    (b'{"name": "status", "arguments": {}, "_meta": {"progressToken": null}}',
     "tools/call: _meta.progressToken must be a string or an integer, got null"),
    (b'{"name": "status", "arguments": {}, "_meta": [1]}', "tools/call: _meta must be a JSON object, got an array"),
]


def test_hostile_tool_calls_each_get_one_clear_line_and_the_server_serves_on(shared_server):
    """Arguments as a JSON array got the SDK's bare 'Invalid request parameters' (-32602); NaN and
    Infinity, which Python's JSON reads, each get the argument's name."""
    server = shared_server()
    answers = []
    mark = server.begin()
    server.call("ingest_file", filePath=str(Path(server.env["BASE_DIR"]) / "tides.md"))
    for number, (params, _) in enumerate(HOSTILE_CALLS, start=100):
        server.proc.stdin.write(b'{"jsonrpc": "2.0", "id": %d, "method": "tools/call", "params": %s}\n'
                                % (number, params))
        server.proc.stdin.flush()
        while (answer := json.loads(server.lines.get(timeout=TIMEOUT_S))).get("id") != number:
            pass
        answers.append(answer)
    after = server.call("query_documents", query="tides")
    stderr = server.stderr_since(mark).decode()
    for answer, (params, expected) in zip(answers, HOSTILE_CALLS, strict=True):
        text = answer["result"]["content"][0]["text"] if "result" in answer else answer["error"]["message"]
        assert expected in text and "\n" not in text, (params, answer)
    assert after["isError"] is False
    assert "Traceback" not in stderr, stderr


def test_a_client_that_cancels_a_waiting_sync_start_stops_its_sync(server_env):
    """A client cancels a request it no longer wants answered (notifications/cancelled: Esc in Claude
    Code). For sync_start with wait: true the SDK dropped the answer, and with it the only jobId the
    client would have had, while the sync ran on holding the lock: every sync_start after it was
    refused as `another sync is already running` (this very process), with no job to cancel."""
    docs = Path(server_env["BASE_DIR"])
    for number in range(40):
        (docs / f"n{number}.md").write_text(f"# Note {number}\n\n" + f"harbour{number} tide " * 2000)
    server = RawServer(server_env)
    try:
        server.initialize()
        server.send({"id": 50, "method": "tools/call",
                     "params": {"name": "sync_start", "arguments": {"wait": True}, "_meta": {"progressToken": 50}}})
        while json.loads(server.lines.get(timeout=TIMEOUT_S)).get("method") != "notifications/progress":
            pass  # the job runs
        server.send({"method": "notifications/cancelled", "params": {"requestId": 50, "reason": "user pressed Esc"}})
        deadline = time.monotonic() + TIMEOUT_S
        while (again := server.call("sync_start"))["isError"] and time.monotonic() < deadline:
            time.sleep(0.2)
        first_ended = again["structuredContent"] if not again["isError"] else again
    finally:
        stderr = server.close().decode()
    assert not again["isError"], again
    assert "sync-1-" not in first_ended.get("jobId", ""), first_ended
    ended = [line for line in stderr.splitlines() if line.startswith("minirag: sync-1-") and ": syncing" not in line]
    assert ended and " cancelled: " in ended[0] and "40 ingested" not in ended[0], stderr


def _peak_rss_mib(pid: int) -> float:
    status = Path(f"/proc/{pid}/status").read_text()
    return int(status.split("VmHWM:")[1].split()[0]) / 1024


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads the peak memory from /proc")
def test_a_line_longer_than_any_message_can_be_is_refused_under_its_id_without_being_held(server_env):
    """A line was read whole before anything looked at it: a 200 MB line took the server from 237 MB
    to 787 MB (and 16 such lines could wait in its queue at once). The longest message a client needs
    is an ingest_data of MAX_FILE_SIZE bytes, written as JSON."""
    server = RawServer(server_env | {"MAX_FILE_SIZE": "1000"})
    line_mib = 64
    try:
        server.initialize()
        before = _peak_rss_mib(server.proc.pid)
        server.proc.stdin.write(b'{"jsonrpc": "2.0", "id": 77, "method": "tools/call", "params": {"name": '
                                b'"ingest_data", "arguments": {"source": "big", "data": "')
        for _ in range(line_mib):
            server.proc.stdin.write(b"a" * (1 << 20))
        server.proc.stdin.write(b'"}}}\n')
        server.proc.stdin.flush()
        refused = json.loads(server.lines.get(timeout=TIMEOUT_S))
        grown = _peak_rss_mib(server.proc.pid) - before
        fits = server.call("ingest_data", source="small", data="a" * 900)
    finally:
        stderr = server.close().decode()
    assert refused["id"] == 77 and refused["error"]["code"] == -32600, refused
    assert "over" in refused["error"]["message"] and "MAX_FILE_SIZE" in refused["error"]["message"], refused
    assert grown < line_mib / 2, (grown, stderr)
    assert fits["isError"] is False, fits


def test_a_number_too_long_to_read_and_a_batch_are_answered_as_what_they_are(shared_server):
    """A 5,000-digit id is valid JSON: it was answered -32700 'number out of range' (the SDK's parser
    reads integers of 4,300 digits at most). It is an invalid request now, saying why; a number that
    long elsewhere in a request is that request's invalid params, under its id. A batch (which MCP
    2025-06-18 dropped) is refused saying batches are not taken."""
    long_number = b"9" * 5000
    server = shared_server()
    mark = server.begin()
    replies = server.replies_to([
        b'{"jsonrpc": "2.0", "id": ' + long_number + b', "method": "ping"}',
        b'{"jsonrpc": "2.0", "id": -' + long_number + b', "method": "ping"}',
        b'{"jsonrpc": "2.0", "id": 8, "method": "tools/call", "params": {"name": "read_file", '
        b'"arguments": {"source": "x", "offset": ' + long_number + b'}}}',
        b'[{"jsonrpc": "2.0", "id": 9, "method": "ping"}]',
    ])
    after = server.call("ingest_data", data="still serving", source="after")
    stderr = server.stderr_since(mark)
    assert [(r["id"], r["error"]["code"]) for r in replies] == [(None, -32600), (None, -32600), (8, -32602),
                                                                 (None, -32600)], replies
    assert "the id is an integer of 5,000 digits" in replies[0]["error"]["message"], replies[0]
    assert "the id is an integer of 5,000 digits" in replies[1]["error"]["message"], replies[1]
    assert "a number of 5,000 digits" in replies[2]["error"]["message"], replies[2]
    assert "batch" in replies[3]["error"]["message"].lower(), replies[3]
    assert all(len(r["error"]["message"]) < 300 for r in replies), replies
    assert after["isError"] is False, (after, stderr)


def test_every_message_on_stdout_is_one_line_to_any_line_splitter(shared_server):
    """JSON writes U+2028, U+2029 and U+0085 raw inside a string, and Python's splitlines() (and a
    JavaScript source line) breaks there: a document or source id holding one put a raw line break in
    the structured content of read_file, query_documents and list_files, and a client reading stdout
    with splitlines() got half a message, then garbage. (Ingest makes U+0085 a line feed.)"""
    text = ("Line separators\u2028split\u2029paragraphs and next\u0085lines here, about the harbour tides. "
            "Right-to-left \u202eoverride\u202c too. ") * 5
    server = shared_server()
    mark = server.begin()
    stored = server.call("ingest_data", data=text, source="notes/a\u2028b")
    read = server.call("read_file", source="notes/a\u2028b")
    found = server.call("query_documents", query="harbour tides separators")
    listed = server.call("list_files")
    stderr = server.stderr_since(mark).decode()
    assert not stored["isError"] and not read["isError"] and not found["isError"], (stored, read, stderr)
    assert "\u2028" in read["structuredContent"]["text"] and "\u2029" in read["structuredContent"]["text"]
    assert listed["structuredContent"]["files"], listed
    for line in server.raw:
        assert len(line.decode().splitlines()) == 1, line[:300]


def test_a_client_that_does_not_read_stdout_holds_the_server_to_a_bounded_backlog(server_env):
    """Every request read was started at once and its answer held until stdout took it: a client
    that wrote requests and read nothing grew the server without bound (read_file of a 300-chunk
    document, unread: 441 MiB to 682 MiB in 60 s, 4,624 requests taken). Now the server takes a
    bounded number of requests ahead of the answers the client reads, then stops reading stdin,
    as a pipe does; every request it took is answered once the client reads again."""
    proc = subprocess.Popen([sys.executable, "-m", "minirag"], env=server_env, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    total = 5000
    sent = 0
    try:
        proc.stdin.write(b'{"jsonrpc": "2.0", "id": "init", "method": "initialize", "params": {"protocolVersion": '
                         b'"2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}}\n'
                         b'{"jsonrpc": "2.0", "method": "notifications/initialized"}\n')
        proc.stdin.flush()
        assert b'"id":"init"' in proc.stdout.readline()
        stdin = proc.stdin.fileno()
        os.set_blocking(stdin, False)
        stalled = 0
        while sent < total and stalled < 30:  # 3 s in which the server took nothing: it stopped reading
            try:
                os.write(stdin, b'{"jsonrpc": "2.0", "id": %d, "method": "ping"}\n' % sent)  # < PIPE_BUF: whole or not
            except BlockingIOError:
                stalled += 1
                time.sleep(0.1)
                continue
            sent, stalled = sent + 1, 0
        os.set_blocking(stdin, True)
        answered = set()
        while len(answered) < sent:
            answered.add(json.loads(proc.stdout.readline())["id"])
        proc.stdin.write(b'{"jsonrpc": "2.0", "id": "after", "method": "ping"}\n')
        proc.stdin.flush()
        after = json.loads(proc.stdout.readline())
        proc.stdin.close()
        proc.wait(TIMEOUT_S)
    finally:
        proc.kill()
    stderr = proc.stderr.read()
    assert sent < total, "the server read every request while its answers went unread"
    assert answered == set(range(sent))
    assert after == {"jsonrpc": "2.0", "id": "after", "result": {}}, (after, stderr)
    assert proc.returncode == 0 and b"Traceback" not in stderr, stderr


def test_requests_the_client_cancelled_leave_no_room_taken(server_env):
    """A cancelled request is never answered: it must close as the SDK settles it, or a client that
    cancelled as many requests as the server keeps open (in_flight.MAX_IN_FLIGHT) would have it read
    nothing more."""
    server = RawServer(server_env)
    count = 3 * 64
    try:
        server.initialize()
        server.call("ingest_file", filePath=str(Path(server_env["BASE_DIR"]) / "tides.md"))
        server.proc.stdin.write(b"".join(
            b'{"jsonrpc": "2.0", "id": "q%d", "method": "tools/call", "params": {"name": "query_documents", '
            b'"arguments": {"query": "moon tides %d"}}}\n{"jsonrpc": "2.0", "method": "notifications/cancelled", '
            b'"params": {"requestId": "q%d"}}\n' % (n, n, n) for n in range(count)))
        server.proc.stdin.flush()
        after = server.call("status")
    finally:
        stderr = server.close().decode()
    answered = [json.loads(line) for line in server.raw if b'"id":"q' in line]
    assert after["isError"] is False, (after, stderr)
    assert len(answered) < count - 64, "too few requests were still running when cancelled to test this"


NAMED_BUT_UNREADABLE = [  # (line, the id and code of its answer): a request the SDK cannot read that names its id
    (b'{"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": "read_file", '
     b'"arguments": {"source": "a\x00b"}}}', 4, -32700),  # a raw NUL in a string: JSON must escape it
    (b'{"jsonrpc": "2.0", "id": "tab", "method": "tools/call", "params": {"name": "read_file", '
     b'"arguments": {"source": "a\tb"}}}', "tab", -32700),
    (b'{"jsonrpc": "2.0", "id": 3, "method": "ping"}\x00', 3, -32700),  # trailing bytes
    (b'{"jsonrpc": "2.0", "id": 6, "method": "ping"}{"jsonrpc": "2.0", "id": 7, "method": "ping"}', 6, -32700),
    (b'{"jsonrpc": "1.0", "id": 13, "method": "ping"}', 13, -32600),
    (b'{"id": 14, "method": "ping"}', 14, -32600),
    (b'{"jsonrpc": "2.0", "id": "m", "method": 7}', "m", -32600),
]


def test_a_request_the_sdk_cannot_read_is_answered_under_the_id_it_names(shared_server):
    """The SDK answered each of these with id null (or not at all, for the BOM line, which a Windows
    client writes first), though the line names its id: the client, matching answers to ids, waited
    on it forever. JSON-RPC keeps id null for an id that cannot be made out."""
    server = shared_server()
    mark = server.begin()
    bom = server.replies_to([b'\xef\xbb\xbf{"jsonrpc": "2.0", "id": "bom", "method": "ping"}'])
    replies = server.replies_to([line for line, _id, _code in NAMED_BUT_UNREADABLE])
    after = server.call("status")
    stderr = server.stderr_since(mark).decode()
    assert bom == [{"jsonrpc": "2.0", "id": "bom", "result": {}}], bom
    assert [(r["id"], r["error"]["code"]) for r in replies] == [(i, c) for _l, i, c in NAMED_BUT_UNREADABLE], replies
    assert "control character" in replies[0]["error"]["message"], replies[0]
    assert all(len(r["error"]["message"]) < 300 for r in replies), replies
    assert after["isError"] is False and "Traceback" not in stderr, stderr


def test_requests_written_before_stdin_closed_are_all_answered(server_env):
    """Closing stdin cancelled every request still running: `minirag < requests.jsonl` answered
    initialize and nothing else, and a last line without its newline was never answered. The
    server now answers what it took (for a while) before it stops. The calls need no model: the while
    is SETTLE_S from stdin's end, which a model's load and an ingest could pass on a loaded machine."""
    lines = [
        {"id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                                                     "clientInfo": {"name": "pipe", "version": "0"}}},
        {"method": "notifications/initialized"},
        {"id": 2, "method": "tools/call", "params": {"name": "status", "arguments": {}}},
        {"id": 3, "method": "tools/call", "params": {"name": "list_files", "arguments": {}}},
        {"id": 4, "method": "ping"},
    ]
    stdin = b"\n".join(json.dumps({"jsonrpc": "2.0", **line}).encode() for line in lines)  # no final newline
    done = subprocess.run([sys.executable, "-m", "minirag"], env=server_env, input=stdin, capture_output=True,
                          timeout=TIMEOUT_S)
    answers = {m["id"]: m for m in map(json.loads, done.stdout.splitlines())}
    assert sorted(answers) == [1, 2, 3, 4], (done.stdout[-2000:], done.stderr[-2000:])
    assert all("result" in m for m in answers.values()), answers
    assert answers[2]["result"]["isError"] is False and done.returncode == 0, (answers[2], done.stderr)


def test_a_request_before_initialize_is_told_to_initialize_first(server_env):
    """The SDK answered a request sent before the handshake 'Invalid request parameters' and nothing
    more (data ''), which reads as a mistake in the params, not in the order of messages."""
    server = RawServer(server_env)
    try:
        early = [server.request("tools/list", {}),
                 server.request("tools/call", {"name": "status", "arguments": {}})]
        server.initialize()
        after = server.call("status")
    finally:
        stderr = server.close().decode()
    for answer in early:
        assert answer["error"]["code"] == -32602, answer
        assert "send initialize" in answer["error"]["message"], answer
    assert after["isError"] is False, (after, stderr)


UNREAD_REQUESTS = 40


def _unread_requests() -> bytes:
    lines = [{"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "unread", "version": "0"}}},
             {"jsonrpc": "2.0", "method": "notifications/initialized"}]
    lines += [{"jsonrpc": "2.0", "id": n, "method": "tools/list"} for n in range(1, UNREAD_REQUESTS + 1)]
    return b"".join(json.dumps(line).encode() + b"\n" for line in lines)


# The stdio server with a patience of 3 s where minirag's is SETTLE_S (10 s): for the requests still open
# once stdin closed (in_flight), and for a client that takes no answers off a full stdout (stdio_transport).
SERVE_IMPATIENT = """import sys
import minirag.in_flight as in_flight
import minirag.stdio_transport as stdio_transport
from minirag.cli import main
in_flight.SETTLE_S = stdio_transport.SETTLE_S = 3.0
sys.exit(main())"""


def _sent_requests_and_closed_stdin(server_env, run: tuple[str, ...] = ("-m", "minirag")) -> subprocess.Popen:
    """A stdio server whose client wrote _unread_requests() and closed stdin, its answers not yet read."""
    proc = subprocess.Popen([sys.executable, *run], env=server_env, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdin.write(_unread_requests())
    proc.stdin.close()
    return proc


def test_a_server_whose_answers_are_never_read_ends_once_stdin_closes(server_env):
    """A client that closed stdin and leaves the answers unread on a full stdout: Its stdout writer blocked in write() for ever on the full pipe, and the server with it."""
    proc = _sent_requests_and_closed_stdin(server_env | {"PYTHONPATH": str(Path(__file__).parent.parent)},
                                           ("-c", SERVE_IMPATIENT))
    try:
        proc.wait(TIMEOUT_S)
    except subprocess.TimeoutExpired:
        pytest.fail("the server did not end: its stdout writer waited for a client that reads nothing")
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        proc.stdout.close()
    stderr = proc.stderr.read().decode()
    assert proc.returncode == 0, stderr
    assert len(stderr.strip().splitlines()) == 1 and "answers" in stderr, stderr


def test_a_client_that_reads_its_answers_late_still_gets_every_one(server_env):
    """The writer gives up only on a client that reads nothing: one that reads later gets them all."""
    proc = _sent_requests_and_closed_stdin(server_env)
    try:
        time.sleep(2)  # reads nothing for a while, well under the writer's patience
        out = proc.stdout.read()
        proc.wait(TIMEOUT_S)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    err = proc.stderr.read().decode()
    answered = [json.loads(line)["id"] for line in out.splitlines()]
    assert answered == list(range(UNREAD_REQUESTS + 1)) and proc.returncode == 0, err
