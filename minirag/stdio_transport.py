"""The MCP stdio transport, with the requests the SDK would drop answered.

JSON allows a lone UTF-16 surrogate escape (`"\\ud800"`) in a string, and a client
may send one (a truncated emoji, a bad paste). The SDK's parser rejects such a
line and answers nothing, so the client waits for that request forever. Here
such a line is parsed with the standard library, which accepts it, every lone
surrogate becomes U+FFFD, and the request goes on. Every other line reaches the
SDK untouched.

A request whose id is no string or integer (an object, a float, true, null) the
SDK reads as a notification, dropping the id, and answers nothing: such a line is
answered here with an invalid-request error of id null instead. A request whose
params are no JSON object (an array, a string, a number) the SDK cannot read as
a request; its error went out with id null, which the client cannot match to its
request: it is answered here with its own id, invalid params (-32602), saying so.

A line the SDK cannot read at all (not JSON, JSON nested past its parser's
depth limit, JSON that is no JSON-RPC message) it passes on as an exception
that the server only logs: the client, whose request id was lost with the
line, waits forever. Here each such line is answered with a JSON-RPC error of
id null (parse error -32700, invalid request -32600), and the server reads on:
JSON it refuses is no parse error here (a batch; an integer longer than its parser
reads, said as such: an invalid request as the id, invalid params under the id elsewhere);
a blank line, which carries no message, is skipped. A client that closes its end
of stdout has gone away: the server ends as when stdin closes.

A line is read at most `max_line_chars` characters at a time, and the lines waiting
for the server hold at most that many together: a line longer is skipped as it is
read and answered with an invalid-request error (under its id when the line names
one before anything nested). It had been read whole first, whatever its length.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import logging
import os
import queue
import re
import select
import signal
import stat
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import anyio
import mcp_types as types
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage
from pydantic import ValidationError

from minirag._compat.mcp import last_context, lowlevel_server
from minirag.display import escaped_json, shown
from minirag.in_flight import SETTLE_S, AnsweredWrites, InFlight, WrappedStream
from minirag.ingest.text_repair import without_lone_surrogates as text_without_lone_surrogates
from minirag.tool_arguments import described

INVALID_REQUEST = -32600
INVALID_PARAMS = -32602
MAX_DETAIL = 200
BOM = "\ufeff"
#: Characters of slack over the data an ingest_data carries (its other arguments, the envelope).
LINE_SLACK_CHARS = 256 * 1024
_LOOK_S = 0.25  # how often a wait looks whether stdout's reader is still there
_SKIP_CHARS = 1 << 20  # the rest of an over-long line is read and dropped this many characters at a time

log = logging.getLogger(__name__)

_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
# An "id" key whose value starts as neither a string nor an integer: only such lines are parsed to look closer.
_ODD_ID = re.compile(r'"id"\s*:\s*(?!"|-?\d+\s*[,}])')
# A "params" key whose value starts as neither an object nor null: only such lines are parsed to look closer.
_ODD_PARAMS = re.compile(r'"params"\s*:\s*(?!\{|null\b)')


def repair(line: str) -> str:
    """`line` with each lone surrogate in its JSON strings replaced by U+FFFD."""
    if not _SURROGATE_ESCAPE.search(line):
        return line
    try:
        # The walk takes two frames a level: past ~500 levels (which json.loads reads) it ran out of
        # stack and the RecursionError ended the server. The SDK's parser reads far fewer levels.
        return json.dumps(without_lone_surrogates(json.loads(line)), ensure_ascii=False) + "\n"
    except (ValueError, RecursionError):
        return line  # not JSON at all, or nested past Python's stack: the SDK's parser refuses it


def without_lone_surrogates(value):
    """`value` (parsed JSON) with each lone surrogate in its strings, keys included, made U+FFFD."""
    if isinstance(value, str):
        return text_without_lone_surrogates(value)
    if isinstance(value, list):
        return [without_lone_surrogates(v) for v in value]
    if isinstance(value, dict):
        return {without_lone_surrogates(k): without_lone_surrogates(v) for k, v in value.items()}
    return value


def _parsed_object(line: str, hint: re.Pattern[str]) -> dict | None:
    """`line` as a JSON object, when `hint` (a cheap test that skips the parse for ordinary lines)
    finds it and it parses to one; else None, and the SDK's parser answers it."""
    if not hint.search(line):
        return None
    try:
        message = json.loads(line)
    except (ValueError, RecursionError):
        return None
    return message if isinstance(message, dict) else None


def odd_id_reply(line: str) -> types.JSONRPCError | None:
    """The error answering `line` when it is a request whose id is no string or integer, else None."""
    message = _parsed_object(line, _ODD_ID)
    if message is None or "method" not in message or "id" not in message:
        return None
    request_id = message["id"]
    if isinstance(request_id, str) or (isinstance(request_id, int) and not isinstance(request_id, bool)):
        return None
    return types.JSONRPCError(jsonrpc="2.0", id=None, error=types.ErrorData(
        code=INVALID_REQUEST, message="Invalid Request: the id must be a string or an integer, got "
                                      + shown(json.dumps(request_id), 60)))


def odd_params_reply(line: str) -> types.JSONRPCError | None:
    """The error answering `line` when it is a request (of a usable id) whose params are no JSON
    object, else None."""
    message = _parsed_object(line, _ODD_PARAMS)
    if message is None or not isinstance(message.get("method"), str):
        return None
    request_id, params = message.get("id"), message.get("params")
    if not isinstance(request_id, (str, int)) or isinstance(request_id, bool) or params is None \
            or isinstance(params, dict):
        return None
    return types.JSONRPCError(jsonrpc="2.0", id=request_id, error=types.ErrorData(
        code=INVALID_PARAMS, message=f"Invalid params: {shown(message['method'], 60)}'s params must be a JSON "
                                     f"object, got {described(params)}"))


#: The most digits of an integer the SDK's parser reads (a longer one is its "number out of range").
SDK_INT_DIGITS = 4300
# Tried only where a run of digits begins: tried from each digit, a run just short of the limit
# was scanned again from each of its digits (quadratic in the run's length).
_LONG_NUMBER = re.compile(rf"(?<!\d)\d{{{SDK_INT_DIGITS + 1}}}")


class _Digits(str):
    """An integer of more digits than SDK_INT_DIGITS, kept as its text."""


def _integer(text: str) -> int | _Digits:
    return _Digits(text) if len(text.lstrip("-")) > SDK_INT_DIGITS else int(text)


def _long_numbers(value) -> Iterator[_Digits]:
    if isinstance(value, _Digits):
        yield value
    elif isinstance(value, list):
        for item in value:
            yield from _long_numbers(item)
    elif isinstance(value, dict):
        for item in value.values():
            yield from _long_numbers(item)


def number_or_batch_reply(line: str) -> types.JSONRPCError | None:
    """The error answering `line` when it is valid JSON the SDK refuses as unreadable, else None: a
    batch (a JSON array, which MCP 2025-06-18 no longer takes) or a message holding an integer too
    long for its parser (a -32700 'number out of range' there, though the line is JSON)."""
    batch = line.lstrip().startswith("[")
    if not batch and not _LONG_NUMBER.search(line):
        return None
    try:
        message = json.loads(line, parse_int=_integer)
    except (ValueError, RecursionError):
        return None  # not JSON: the SDK's parse error says so
    if isinstance(message, list):
        return types.JSONRPCError(jsonrpc="2.0", id=None, error=types.ErrorData(
            code=INVALID_REQUEST, message="Invalid Request: a batch (a JSON array of messages) is not taken: MCP "
                                          "2025-06-18 dropped JSON-RPC batching; send each message on a line of its own"))
    long = next(_long_numbers(message), None)
    if not isinstance(message, dict) or long is None:
        return None
    digits = f"{len(long.lstrip('-')):,} digits"
    request_id = message.get("id")
    if isinstance(request_id, _Digits) or not isinstance(request_id, (str, int)) or isinstance(request_id, bool):
        what = f"the id is an integer of {digits}" if isinstance(request_id, _Digits) else f"a number of {digits}"
        return types.JSONRPCError(jsonrpc="2.0", id=None, error=types.ErrorData(
            code=INVALID_REQUEST, message=f"Invalid Request: {what}, more than the {SDK_INT_DIGITS:,} this server "
                                          "reads (a string id has no such limit)"))
    return types.JSONRPCError(jsonrpc="2.0", id=request_id, error=types.ErrorData(
        code=INVALID_PARAMS, message=f"Invalid params: a number of {digits}, more than the {SDK_INT_DIGITS:,} this "
                                     "server reads"))


def max_line_chars(max_file_size: int) -> int:
    """The longest line a client needs: an ingest_data of `max_file_size` bytes written as JSON, every
    byte of its text at most 3 characters there (é, 2 bytes, is `\\u00e9`), and the rest of the message."""
    return 3 * max_file_size + LINE_SLACK_CHARS


# The id of a request whose members before it are top-level strings (`{"jsonrpc": "2.0", "id": 7, ...`).
_LEADING_ID = re.compile(r'\s*\{\s*(?:"(?:jsonrpc|method)"\s*:\s*"[^"\\]*"\s*,\s*)*"id"\s*:\s*'
                         r'(-?\d{1,18}|"[^"\\]{0,200}")\s*[,}]')


@dataclass(frozen=True)
class _Overlong:
    """A line skipped for its length: its opening and how long it was found to be (at least)."""

    opening: str
    length: int


def overlong_reply(line: _Overlong, limit: int) -> types.JSONRPCError:
    found = _LEADING_ID.match(line.opening)
    request_id = None if found is None else json.loads(found.group(1))
    return types.JSONRPCError(jsonrpc="2.0", id=request_id, error=types.ErrorData(
        code=INVALID_REQUEST, message=f"Invalid Request: the message is over {limit:,} characters "
                                      f"({line.length:,} or more), longer than any this server takes "
                                      "(an ingest_data of MAX_FILE_SIZE bytes); it was not read"))


class _RepairedLines:
    """What the SDK's stdin reader iterates: the lines of `text`, repaired.

    A daemon thread reads them. A read blocked on a terminal or an idle pipe cannot be
    cancelled, and on one of anyio's worker threads it held the server's shutdown (and
    the interpreter's exit, which waits for those threads): Ctrl-C did nothing until the
    client, or a Ctrl-D, closed stdin. The reader owns `text` and closes it at the end.
    """

    def __init__(self, text, max_chars: int):
        self._write = None  # where a line answered here is answered (answer_on)
        self._last: str | None = None  # the line the SDK reads now (taken)
        self._max_chars = max_chars
        # The client waits, as on a pipe: 16 lines at most, and at most max_chars characters of them.
        self._lines: queue.Queue[str | _Overlong | None] = queue.Queue(maxsize=16)
        self._room = threading.Condition()
        self._queued_chars = 0
        threading.Thread(target=self._read, args=(text,), name="minirag-stdin", daemon=True).start()

    def _read(self, text) -> None:
        try:
            with text:
                while line := text.readline(self._max_chars + 1):
                    if len(line) > self._max_chars and not line.endswith("\n"):
                        length = len(line)
                        opening = line[:4096]
                        del line
                        while (rest := text.readline(_SKIP_CHARS)) and not rest.endswith("\n"):
                            length += len(rest)
                        self._put(_Overlong(opening, length + len(rest)))
                    else:
                        self._put(line)
        except (OSError, ValueError):  # stdin went away under the read
            pass
        finally:
            self._lines.put(None)

    def _put(self, line: str | _Overlong) -> None:
        size = len(line) if isinstance(line, str) else 0
        with self._room:
            self._room.wait_for(lambda: not self._queued_chars or self._queued_chars + size <= self._max_chars)
            self._queued_chars += size
        self._lines.put(line)

    def _get(self) -> str | _Overlong | None:
        line = self._lines.get()
        if isinstance(line, str):
            with self._room:
                self._queued_chars -= len(line)
                self._room.notify()
        return line

    async def __aiter__(self):
        # A limiter of its own: on the default one (40 threads), 40 calls stuck in their worker threads
        # (a model run that never ends) left stdin unread, their cancellations with it.
        reading = anyio.CapacityLimiter(1)
        while (line := await anyio.to_thread.run_sync(self._get, abandon_on_cancel=True, limiter=reading)) is not None:
            if isinstance(line, _Overlong):
                if self._write is not None:
                    await self._write.send(SessionMessage(overlong_reply(line, self._max_chars)))
                continue
            line = line.removeprefix(BOM)  # JSON lets a reader skip it; a Windows client writes one first
            if not line.strip():  # a blank line carries no message: nothing to answer
                continue
            if self._write is not None and (refusal := odd_id_reply(line) or odd_params_reply(line)
                                            or number_or_batch_reply(line)) is not None:
                await self._write.send(SessionMessage(refusal))
                continue
            self._last = repair(line)
            del line
            yield self._last

    def taken(self) -> str | None:
        """The line the SDK read last, once: what it handed on next (a message, or the exception
        its parser raised) came of that line, as it reads the next only once that is taken."""
        line, self._last = self._last, None
        return line

    def answer_on(self, write) -> None:
        """Answer the lines refused here on `write` (the SDK's write stream)."""
        self._write = write

    def release(self) -> None:
        """Wake a get() that a cancellation abandoned, so its worker thread can end."""
        with contextlib.suppress(queue.Full):  # full: lines are waiting, so no get() is blocked
            self._lines.put_nowait(None)


_LENIENT = json.JSONDecoder(strict=False)


def named_id(line: str | None) -> str | int | None:
    """The id of the request `line` holds, read as leniently as the standard library reads JSON (raw
    control characters in strings, anything after the object), when it is a string or an integer."""
    if line is None or '"id"' not in line:
        return None
    try:
        message, _end = _LENIENT.raw_decode(line.lstrip())
    except (ValueError, RecursionError):
        return None
    if not isinstance(message, dict) or "result" in message or "error" in message:
        return None  # a response (the server sends no requests to answer), or no message
    request_id = message.get("id")
    if isinstance(request_id, str) or (isinstance(request_id, int) and not isinstance(request_id, bool)):
        return request_id
    return None


def unreadable_reply(exc: Exception, line: str | None = None) -> types.JSONRPCError:
    """The JSON-RPC error answering a line the SDK could not read (`exc`, what its parser raised),
    under the id `line` names where one can be made out (JSON-RPC's null where none can)."""
    errors = exc.errors() if isinstance(exc, ValidationError) else []
    if errors and errors[0].get("type") == "json_invalid":
        code, what = types.PARSE_ERROR, "Parse error"
    else:
        code, what = INVALID_REQUEST, "Invalid Request: not a JSON-RPC 2.0 message"
    detail = errors[0].get("msg", "") if errors else str(exc)
    return types.JSONRPCError(jsonrpc="2.0", id=named_id(line), error=types.ErrorData(
        code=code, message=f"{what} ({shown(detail, MAX_DETAIL)})" if detail else what))


class _AnsweringReads(WrappedStream):
    """The SDK's read stream, with each unreadable line answered on `write` and left out.

    Duck-types the SDK's context receive stream (`last_context` included), which is all the
    server loop uses of it. `pump`, a task of its own, reads the client's messages and hands them
    on: a request once `flight` has room for it, which holds it meanwhile and reads on (a
    cancellation behind it must reach the request it names), everything else as it is read."""

    def __init__(self, inner, write, flight: InFlight, lines: _RepairedLines, stdin_closed: anyio.Event,
                 out_fd: int) -> None:
        self._inner = inner
        self._out_fd = out_fd
        self._stdin_closed = stdin_closed
        self._write = write
        self._flight = flight
        self._lines = lines
        # Unbuffered: the pump reads the next line only once the SDK took this one.
        self._handing, self._handed = anyio.create_memory_object_stream[Any](0)

        self.last_context = None  # the sender's context of the message received last, read with it

    async def pump(self) -> None:
        async with self._handing, anyio.create_task_group() as releasing:
            releasing.start_soon(self._release_held)
            try:
                await self._read_all()
            finally:
                releasing.cancel_scope.cancel()

    async def _read_all(self) -> None:
        while True:
            try:
                item = await self._inner.receive()
            except (anyio.EndOfStream, anyio.ClosedResourceError):
                self._stdin_closed.set()
                await self._settled_while_read()  # stdin closed: answer what was taken before the SDK cancels it
                return
            line, context = self._lines.taken(), last_context(self._inner)
            if isinstance(item, Exception):
                await self._write.send(SessionMessage(unreadable_reply(item, line)))
                continue
            taken = await self._flight.take(item, len(line) if line is not None else 0, context)
            del line
            if taken is not None:
                await self._handing.send(taken)

    async def _settled_while_read(self) -> None:
        """The requests taken, settled (InFlight.settled); not waited for once stdout has no reader
        left, who could read their answers (a client killed closes both its pipes)."""
        async with anyio.create_task_group() as waiting:
            async def settle() -> None:
                await self._flight.settled()
                waiting.cancel_scope.cancel()

            waiting.start_soon(settle)
            await _until_unread(self._out_fd)
            log.info("stdout has no reader left: the requests still open are cancelled")
            waiting.cancel_scope.cancel()

    async def _release_held(self) -> None:
        while True:
            await self._handing.send(await self._flight.released())

    async def receive(self):
        self.last_context, item = await self._handed.receive()
        return item

    def __aiter__(self):
        return self

    async def __anext__(self):
        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None


async def _until_unread(fd: int) -> None:
    """Returns once the pipe `fd` writes into has no reader left; never where that cannot be told (a
    terminal, a file, a socket, no poll(): the next write tells)."""
    try:
        told = hasattr(select, "poll") and stat.S_ISFIFO(os.fstat(fd).st_mode)
    except OSError:
        told = False
    if not told:
        await anyio.sleep_forever()
    poller = select.poll()
    poller.register(fd, 0)  # a pipe's writer is told POLLERR (or POLLHUP) whatever it asks for
    while not any(mask & (select.POLLERR | select.POLLHUP) for _, mask in poller.poll(0)):
        await anyio.sleep(_LOOK_S)


@contextlib.contextmanager
def _signals_wake_the_loop() -> Iterator[None]:
    """A signal wakes the event loop, whichever thread the kernel gives it to.

    Python runs signal handlers in the main thread only, and the kernel gives a
    process's SIGINT to another thread whenever the main thread has it blocked (as
    glibc does while the main thread starts one). The main thread then slept on in
    the loop's epoll_wait until the client's next line, and Ctrl-C did nothing. The
    wakeup fd is written by the C-level handler on any thread; the loop watching it
    returns to Python code, and Python runs the handler. Main thread only."""
    loop = asyncio.get_running_loop()
    read_end, write_end = os.pipe()
    os.set_blocking(read_end, False)
    os.set_blocking(write_end, False)
    previous = signal.set_wakeup_fd(write_end, warn_on_full_buffer=False)
    loop.add_reader(read_end, _drain, read_end)
    try:
        yield
    finally:
        loop.remove_reader(read_end)
        signal.set_wakeup_fd(previous)
        os.close(read_end)
        os.close(write_end)


def _drain(fd: int) -> None:
    with contextlib.suppress(BlockingIOError):
        while os.read(fd, 512):
            pass


class _OneLineWrites:
    """stdout as the SDK's writer sees it: each message it writes with the characters JSON leaves raw
    in a string and a line splitter breaks at (U+2028, U+2029, U+0085: Python's splitlines, a
    JavaScript source line) as \\u escapes, with C1 and direction controls (display.escaped_json): the
    same JSON, and one line to every reader of the line-delimited stream.

    Written to `fd` by a daemon thread of its own, a message at a time in the order given. A client
    that closed stdin and reads nothing leaves that write blocked for ever on the full pipe: on one of
    anyio's worker threads it held the server's end, and the interpreter's exit, which joins those
    threads. `stuck` tells when to give up on such a client."""

    def __init__(self, fd: int) -> None:
        self._fd = fd
        self._writes: queue.SimpleQueue[tuple[bytes, asyncio.AbstractEventLoop, asyncio.Future]] = queue.SimpleQueue()
        self._pending = 0  # messages handed to the thread and not yet written
        self._since = time.monotonic()  # when the client last took a message, or the first pending was handed over
        threading.Thread(target=self._write_all, name="minirag-stdout", daemon=True).start()

    async def write(self, text: str) -> None:
        loop = asyncio.get_running_loop()
        written = loop.create_future()
        if not self._pending:
            self._since = time.monotonic()
        self._pending += 1
        self._writes.put((escaped_json(text).encode("utf-8"), loop, written))
        await written

    async def flush(self) -> None:
        """Each message goes to the file descriptor whole: nothing is held here."""

    def stuck(self, patience: float, since: float) -> bool:
        """Whether a message has waited `patience` seconds with none taken meanwhile, counted from
        `since` at the earliest (time.monotonic)."""
        return self._pending > 0 and time.monotonic() - max(self._since, since) >= patience

    def _write_all(self) -> None:
        while True:
            data, loop, written = self._writes.get()
            error: OSError | None = None
            try:
                view = memoryview(data)
                while view:
                    view = view[os.write(self._fd, view):]
            except OSError as exc:  # BrokenPipeError: the client closed its end
                error = exc
            with contextlib.suppress(RuntimeError):  # the loop closed: nobody waits for it
                loop.call_soon_threadsafe(self._written, written, error)
            del data, loop, written, error

    def _written(self, written: asyncio.Future, error: OSError | None) -> None:
        self._pending -= 1
        self._since = time.monotonic()
        if written.done():  # the writer was cancelled meanwhile
            return
        if error is None:
            written.set_result(None)
        else:
            written.set_exception(error)


async def _give_up_when_unread(out: _OneLineWrites, stdin_closed: anyio.Event, delivery: anyio.CancelScope) -> None:
    """Once stdin has closed, end the transport (`delivery`) when its answers wait SETTLE_S with the
    client taking none: a client that reads answers gets them all, however long it takes."""
    await stdin_closed.wait()
    closed = time.monotonic()  # a client may start reading only once it has written all it had to
    while not out.stuck(SETTLE_S, closed):
        await anyio.sleep(0.25)
    log.warning("the client closed stdin and reads no answers (stdout full for %g s): stopping without them",
                SETTLE_S)
    delivery.cancel()


async def serve_stdio(server, max_line: int) -> None:
    """Serve `server` (an MCPServer) on stdin and stdout until stdin closes, reading lines of at
    most `max_line` characters (max_line_chars).

    Handing the SDK its stdin and stdout means it no longer points fd 0 at the null
    device and fd 1 at stderr while serving, so that is done here: a converter's child
    process reading stdin must get EOF, not the client's next request, and what one
    prints must not land in the protocol.
    """
    with _signals_wake_the_loop():
        await _serve_stdio(server, max_line)


async def _serve_stdio(server, max_line: int) -> None:
    reading = os.dup(0)
    saved = os.dup(0)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    lines = _RepairedLines(io.TextIOWrapper(os.fdopen(reading, "rb"), encoding="utf-8", errors="replace"),
                           max_line)
    writing = os.dup(1)
    saved_out = os.dup(1)
    os.dup2(2, 1)
    # The fd is never closed: the writer thread may still be blocked writing to it (a client that stopped
    # reading) after the transport ends; closed, its number could be reused under that write. One per serve.
    out = _OneLineWrites(writing)
    stdin_closed = anyio.Event()
    try:
        async with anyio.create_task_group() as watching:
            with anyio.CancelScope() as delivery:
                watching.start_soon(_give_up_when_unread, out, stdin_closed, delivery)
                async with stdio_server(stdin=lines, stdout=out) as (read, write):  # type: ignore[arg-type]  # duck-typed as AsyncFile
                    lines.answer_on(write)
                    lowlevel = lowlevel_server(server)  # what MCPServer.run_stdio_async runs, with this stdin
                    flight = InFlight()
                    reads = _AnsweringReads(read, write, flight, lines, stdin_closed, writing)
                    watching.start_soon(reads.pump)
                    await lowlevel.run(reads, AnsweredWrites(write, flight), lowlevel.create_initialization_options())
            watching.cancel_scope.cancel()
    except* (BrokenPipeError, ConnectionResetError):  # the SDK's stdout writer met a closed pipe
        log.info("the client closed stdout: stopping")
    finally:
        lines.release()
        os.dup2(saved, 0)
        os.close(saved)
        os.dup2(saved_out, 1)
        os.close(saved_out)
