"""argparse CLI. No subcommand (or `serve`) runs the MCP server on stdio.

Every command parses its arguments, calls one App method and prints the
result; --json prints the same object the matching MCP tool returns. Exit status: 0 success, 1 failure
(`ingest`/`sync` fail when any file failed); `status` exits 0 even on a
configuration error, since it is the command that reports one; `watch` runs
until Ctrl-C and then exits 130.
"""

from __future__ import annotations

import argparse
import codecs
import contextlib
import dataclasses
import difflib
import errno
import io
import json
import logging
import math
import os
import re
import select
import shlex
import shutil
import signal
import stat
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

from minirag._compat.python import options_taking_values, subcommands
from minirag.display import (
    LogLine,
    a_name,
    display_width,
    escaped_json,
    fit_width,
    fit_width_keeping_end,
    for_terminal,
    is_utf8,
    message_line,
    on_one_line,
    printable,
    shown,
)
from minirag.errors import InvalidArgument, MiniragError, NotFound, OutputUnwritable, exhausted

PROGRESS_INTERVAL_S = 10.0  # a plain progress line this often when stderr is not a terminal
MIN_PROGRESS_INTERVAL_S = 1.0  # a line a second is already more than a log wants; shorter floods stderr
MAX_PROGRESS_INTERVAL_S = 86_400.0  # a day; longer waits overflow the timer (and say nothing)
log = logging.getLogger("minirag")


class _Parser(argparse.ArgumentParser):
    """argparse with a usage error as one line (exit 2) rather than the usage block."""

    parsing: list[str] = []  # the arguments being parsed, for the hint of a file named like an option

    def error(self, message: str):
        hint = _did_you_mean(message) or _file_named_like_an_option(self.parsing, self.prog)
        self.exit(2, f"minirag: error: {message}{hint} (see `{self.prog} --help`)\n")


def _file_named_like_an_option(arguments: list[str], prog: str) -> str:
    """`; -notes.md names a file: put -- before it` where an argument read as an unknown option names
    a file or folder (argparse reads any `-x` as an option, and then asks for the PATH it took)."""
    named = next((arg for arg in arguments if arg.startswith("-") and arg != "--" and os.path.lexists(arg)), None)
    if named is None:
        return ""
    return f"; {named} names a file: put -- before it (`{prog} -- {shlex.quote(named)}`)"


def _did_you_mean(message: str) -> str:
    """` (did you mean 'query'?)` after argparse's refusal of a choice (a command, a value of a
    closed set) close to one of those it lists; "" when none is close."""
    if (refused := re.search(r"invalid choice: '([^']*)' \(choose from (.*)\)$", message)) is None:
        return ""
    choices = re.findall(r"'([^']*)'", refused.group(2))
    close = difflib.get_close_matches(refused.group(1), choices, n=1)
    return f" (did you mean '{close[0]}'?)" if close else ""


def _unrecognized(extras: list[str], command: argparse.ArgumentParser | None) -> str:
    """argparse's words for arguments no option takes, with the option each unknown one was likely
    meant to be (`--topk` for --top-k) among the command's own."""
    message = f"unrecognized arguments: {' '.join(extras)}"
    if command is None:
        return message
    known = [flag for action in command._actions for flag in action.option_strings]  # noqa: SLF001
    meant: dict[str, str] = {}
    for extra in extras:
        if extra.startswith("-") and (close := difflib.get_close_matches(extra.split("=", 1)[0], known, n=1)):
            meant.setdefault(close[0], extra)
    return message + (f" (did you mean {', '.join(meant)}?)" if meant else "")


class _Version(argparse.Action):
    """--version, with the version read only when asked (see minirag.__getattr__)."""

    def __init__(self, option_strings, dest=argparse.SUPPRESS, default=argparse.SUPPRESS, help=None):
        super().__init__(option_strings, dest=dest, default=default, nargs=0, help=help)

    def __call__(self, parser, namespace, values, option_string=None):
        from minirag import __version__

        sys.stdout.write(f"minirag {__version__}\n")
        parser.exit()


def _common(parser: argparse.ArgumentParser) -> None:
    from minirag.config import setting_flags

    group = parser.add_argument_group("configuration (override the environment)")
    for flag in setting_flags():
        if flag.command is None:
            _add_flag(group, flag)
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    parser.add_argument("-v", "--verbose", action="store_true",
                        help="more on stderr: each file as it is ingested (or excluded), the time each "
                             "stage took, and other informational log lines")


def _add_flag(parser, flag) -> None:
    """A setting's flag (config.Flag), as its row in SETTINGS describes it."""
    if flag.switch:  # absent is None, not False: the variable then decides
        options = {"action": "store_true", "default": None}
    else:
        options = {"action": "append" if flag.repeatable else "store", "metavar": flag.metavar}
    parser.add_argument(flag.name, dest=flag.key, help=flag.help, **options)


def _run_flags(parser: argparse.ArgumentParser, *, retries: bool) -> None:
    """The flags of a run over files. `retries`: the run tries again every file that failed before
    (`ingest`), so `--strict` has nothing to add there and is only taken, unlisted, as it once was."""
    parser.add_argument("--strict", action="store_true",
                        help=argparse.SUPPRESS if retries else
                        "exit 1 also when files that failed before still fail (for CI)")
    parser.add_argument("--progress-interval", type=_progress_interval, default=PROGRESS_INTERVAL_S, metavar="S",
                        help="when stderr is not a terminal, a progress line every S seconds "
                             f"({MIN_PROGRESS_INTERVAL_S:g} to {MAX_PROGRESS_INTERVAL_S:g}; "
                             f"default {PROGRESS_INTERVAL_S:g})")


def _progress_interval(value: str) -> float:
    """--progress-interval's seconds, refused (a usage error) outside one second to a day."""
    try:
        seconds = float(value)
    except ValueError:
        seconds = math.nan
    if not MIN_PROGRESS_INTERVAL_S <= seconds <= MAX_PROGRESS_INTERVAL_S:  # NaN fails this too
        raise argparse.ArgumentTypeError(f"must be a number of seconds from {MIN_PROGRESS_INTERVAL_S:g} to "
                                         f"{MAX_PROGRESS_INTERVAL_S:g}, got {value!r}")
    return seconds


def _whole_number(low: int, high: int | None = None) -> Callable[[str], int]:
    """An option's whole number, refused (a usage error naming the option as typed) outside `low`
    to `high`: App's refusals name the MCP tools' parameters (`topK`), and above the most it
    would silently cut the value to it."""
    wanted = f" from {low} to {high}" if high is not None else f", {low} or more"

    def parse(value: str) -> int:
        try:
            number = int(value) if value.isascii() and "_" not in value else None  # not `٣`, not `1_0`
        except ValueError:
            number = None
        if number is None or number < low or (high is not None and number > high):
            raise argparse.ArgumentTypeError(f"must be a whole number{wanted}, got {value!r}")
        return number

    return parse


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="minirag",
        description="Local-first hybrid search over your documents, in one SQLite file. "
        "With no command, serves MCP over stdio.",
    )
    parser.add_argument("--version", action=_Version,
                        help="show program's version number and exit")
    from minirag.config import DEFAULT_TOP_K, MAX_NEIGHBORS, MAX_TOP_K, setting_flags

    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    def add(name: str, help_text: str) -> argparse.ArgumentParser:
        p = sub.add_parser(name, help=help_text, description=help_text)
        _common(p)
        return p

    p = add("serve", "run the MCP server (stdio by default)")
    p.add_argument("--http", metavar="HOST:PORT", help="serve streamable HTTP instead (default host 127.0.0.1)")
    p = add("ingest", "index files and folders (recursive); unchanged files are skipped")
    p.add_argument("paths", nargs="+", metavar="PATH", help="files or folders inside the roots; a folder takes the sync lock "
                   "as a sync does (refused while one runs), files alone never wait")
    p.add_argument("--force", action="store_true", help="re-ingest even unchanged files")
    _run_flags(p, retries=True)
    p = add("ingest-url", "fetch an http(s) URL and index it")
    p.add_argument("url", metavar="URL", help="an http(s) URL of a public host (see ALLOW_PRIVATE_URLS)")
    p.add_argument("--source", help="source id to store it under (default: the URL)")
    p.add_argument("--title", help="title to index it under (default: the page's own)")
    p = add("ingest-data", "index text read from stdin under a source id you choose")
    p.add_argument("--source", required=True, help="source id to store it under (not shaped like a file path)")
    p.add_argument("--format", choices=("text", "markdown", "html"), default="text", help="how to read the text")
    p.add_argument("--title", help="title to index it under")
    p = add("sync", "reconcile the index with the roots: add new/changed, skip unchanged, drop deleted")
    p.add_argument("path", nargs="?", help="only this file or folder inside the roots")
    _run_flags(p, retries=False)
    add("watch", "sync, then keep the index in sync as files change, until Ctrl-C")
    p = add("query", "hybrid search")
    p.add_argument("text", metavar="QUERY", help="words or a question")
    p.add_argument("--top-k", type=_whole_number(1, MAX_TOP_K), default=DEFAULT_TOP_K,
                   help=f"results (1-{MAX_TOP_K}; default {DEFAULT_TOP_K})")
    p.add_argument("--scope", help="only sources at or under this path (or id prefix)")
    p.add_argument("--collection", help="only this collection (a named root; see `minirag collections`)")
    p = add("read", "print an indexed document rebuilt from its sections, whole or a page at a time")
    p.add_argument("file_path", nargs="?", metavar="PATH",
                   help="an indexed file (a link's `guide.md#anchor` reads from the heading it names)")
    p.add_argument("--source", help="a data/url source id instead of a path")
    p.add_argument("--offset", type=_whole_number(0), default=0, help="start at this character (a page's nextOffset)")
    p.add_argument("--max-chars", type=_whole_number(1),
                   help="at most this many characters, ending at a paragraph or line break when one is near "
                        "(default: to the end)")
    p = add("read-neighbors", "print the chunks around one chunk")
    p.add_argument("--file-path", help="the indexed file holding the chunk")
    p.add_argument("--source", help="a data/url source id instead of a path")
    p.add_argument("--chunk-index", type=_whole_number(0), required=True,
                   help="the chunk's chunkIndex (from a query result)")
    for side in ("before", "after"):
        p.add_argument(f"--{side}", type=_whole_number(0, MAX_NEIGHBORS), default=1,
                       help=f"chunks to show {side} it (0-{MAX_NEIGHBORS}; default 1)")
    p = add("list", "every file under the roots with its ingestion state, plus data/url sources")
    p.add_argument("--scope", help="only sources at or under this path (or id prefix)")
    p.add_argument("--collection", help="only this collection (a named root)")
    p.add_argument("--ignored", action="store_true",
                   help="also list the files and folders ignore rules leave out, with the rule")
    add("collections", "the collections (named roots): description, indexed files and chunks, last sync")
    add("status", "configuration and index health")
    add("doctor", "check the SQLite driver, model, roots and index; exit 1 if anything is broken")
    p = add("delete", "remove a source from the index (the file on disk is untouched)")
    p.add_argument("file_path", nargs="?", metavar="PATH", help="an indexed file")
    p.add_argument("--source", help="a data/url source id instead of a path")
    p = add("backup", "copy the index to DEST with SQLite's online backup API (safe while serving)")
    p.add_argument("dest", metavar="DEST", help="the copy's file name, or an existing folder to put it in")
    for flag in setting_flags():  # the one command that takes it, after that command's own options
        if flag.command is not None:
            _add_flag(sub.choices[flag.command], flag)
    return parser


def _config(args: argparse.Namespace):
    from minirag.config import load_config_from

    return load_config_from(args)


def _emit(args: argparse.Namespace, value, human: Callable[[Any], str], shaped: dict | None = None) -> None:
    """--json: `value` as results.py shapes it (`shaped` when given), the object the matching tool
    returns; otherwise `human(value)`."""
    if args.json:
        from minirag.results import payload

        _write_out(_json(payload(value) if shaped is None else shaped, indent=2) + "\n")
    else:
        _write_out(for_terminal(human(value).rstrip("\n")) + "\n")


_MARKED_ENCODINGS = ("utf-16", "utf-32", "utf-8-sig")


def _stdout_to_null() -> None:
    """stdout's reader went away: what is left goes to the null device, so the flush at exit fails no more."""
    os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


def _write_out(text: str) -> None:
    """`text` on stdout, all of it, or OutputUnwritable. A write into a file whose disk fills can
    take part of the bytes and return, and CPython's text layer then drops the rest without a word
    (a cut-off file, invalid JSON, exit 0): each write's count is checked here, so the next one
    meets the disk's error. A reader that went away (`| head`) has had what it wanted: the rest
    is dropped, as a closed pipe always was."""
    stream = sys.stdout
    buffer = getattr(stream, "buffer", None)
    try:
        # A caller's own text stream, not a file; or an encoding that marks its start (UTF-16), which
        # only the stream's own encoder writes once, as Python does.
        if buffer is None or codecs.lookup(stream.encoding or "utf-8").name in _MARKED_ENCODINGS:
            stream.write(text)
            stream.flush()
            return
        stream.flush()
        data = memoryview(text.replace("\n", os.linesep).encode(stream.encoding or "utf-8", stream.errors or "strict"))
        while data:
            written = buffer.write(data)
            if not written:
                raise OSError(errno.EAGAIN, os.strerror(errno.EAGAIN))
            data = data[written:]
        buffer.flush()
    except BrokenPipeError:
        _stdout_to_null()
    except OSError as exc:
        raise OutputUnwritable(f"cannot write the output ({exc.strerror or exc})") from None


def _json(value, indent: int | None = None) -> str:
    """`value` as JSON for stdout: its characters as they are where stdout is UTF-8, else \\u
    escapes, which every encoding can carry (a JSON reader gets the same strings either way); what
    a terminal acts on as escapes either way (display.escaped_json)."""
    encoding = getattr(sys.stdout, "encoding", None) or "utf-8"
    return escaped_json(json.dumps(value, ensure_ascii=codecs.lookup(encoding).name != "utf-8", indent=indent))


def _escape_what_output_cannot_encode() -> None:
    """stdout and stderr in an encoding that cannot write every character (PYTHONIOENCODING=ascii, a
    Latin-1 locale, a Windows console's code page when redirected): a character it lacks is
    written as its escape (\\xe9), as Python already does on stderr, instead of failing the command
    after its work is done."""
    for stream in (sys.stdout, sys.stderr):
        if isinstance(stream, io.TextIOWrapper):
            stream.reconfigure(errors="backslashreplace")


def _columns() -> int:
    """The width of the terminal stderr writes to; else COLUMNS, stdout's, or 80."""
    try:
        columns = os.get_terminal_size(sys.stderr.fileno()).columns
    except (OSError, ValueError, AttributeError):
        columns = 0
    return columns or shutil.get_terminal_size().columns  # a pseudo-terminal may report 0


class _Progress:
    """The live line of a run on stderr. On a terminal it shows at once and is redrawn in place
    (twice a second, and at every change); otherwise one plain line is written every `interval`
    seconds, so a piped or scheduled run shows it is alive."""

    def __init__(self, interval: float = PROGRESS_INTERVAL_S):
        self.terminal = sys.stderr.isatty()
        self.interval = interval
        self._lock = threading.Lock()
        self._progress = None
        self._stop = threading.Event()
        self._ticker: threading.Thread | None = None
        self._last = 0.0
        self._shown = False

    def start(self, progress) -> None:
        """Show the line from now on, whether or not the run reports a change."""
        self._progress = progress
        self._ticker = threading.Thread(target=self._tick, name="minirag-progress", daemon=True)
        self._ticker.start()

    def _tick(self) -> None:
        period = 0.5 if self.terminal else self.interval
        if self.terminal:
            self._draw(self._progress)
        while not self._stop.wait(period):
            if self.terminal:
                self._draw(self._progress)
            else:
                self._plain(self._progress)

    def __call__(self, progress) -> None:
        if self.terminal and time.monotonic() - self._last >= 0.2:
            self._draw(progress)

    def _write_line(self, line: str) -> None:
        with self._lock:
            sys.stderr.write(("\r\x1b[K" if self._shown else "") + for_terminal(a_name(line)) + "\n")
            sys.stderr.flush()
            self._shown = False

    def _plain(self, progress) -> None:
        self._write_line(f"minirag: {time.strftime('%H:%M:%S')} {progress.live_line()}")

    def _draw(self, progress) -> None:
        if not self.terminal or progress is None:
            return
        with self._lock:
            self._last, self._shown = time.monotonic(), True
            status = for_terminal(a_name(progress.live_line()))  # it names the file under OCR
            # Kept off the last column: a line that wraps leaves a row behind at every redraw.
            columns = _columns() - 1
            # The file in hand takes the room the counts leave, cut from its start: its name is at its end.
            room = min(50, columns - display_width(status) - 2)
            current = fit_width_keeping_end(for_terminal(a_name(progress.current or "")), room) if room >= 12 else ""
            line = fit_width(f"{status}  {current}" if current else status, columns)
            sys.stderr.write(f"\r\x1b[K{line}")
            sys.stderr.flush()

    def close(self) -> None:
        self._stop.set()
        if self._ticker is not None:
            self._ticker.join()
        with self._lock:
            if self._shown:
                sys.stderr.write("\r\x1b[K")
                self._shown = False


def _run_files(args, runner) -> int:
    from minirag.ingest.progress import Progress

    progress = Progress()
    display = _Progress(args.progress_interval)
    display.start(progress)
    try:
        runner(progress, display)
    finally:
        display.close()
    from minirag.results import run_summary

    if not args.json:  # what went wrong goes to stderr; the summary is the command's output
        for warning in progress.warnings:
            sys.stderr.write(f"warn: {for_terminal(a_name(warning))}\n")
        if args.verbose and progress.timings:
            sys.stderr.write("minirag: " + ", ".join(f"{stage} {seconds:.2f} s" for stage, seconds
                                                      in sorted(progress.timings.items())) + "\n")
        if progress.still_failing:  # not warned about again; after a limit is raised, naming them retries
            from minirag.ingest.progress import plural

            sys.stderr.write(f"minirag: {plural(progress.still_failing, 'file')} still failing, not tried again "
                             "(the same bytes failed before): `minirag list` says why; `minirag ingest PATH` "
                             "tries again\n")
    others = progress.other_types_line()
    _emit(args, progress, lambda p: f"{p.counts()} in {p.elapsed_seconds()} s" + (f"\n{others}" if others else ""),
          shaped=run_summary(progress) if args.json else None)
    if progress.incomplete or (args.strict and progress.still_failing):
        return 1
    return 0


def _cmd_ingest(args, app) -> int:
    return _run_files(args, lambda progress, bar: app.ingest_paths(args.paths, progress, on_change=bar,
                                                                   force=args.force))


def _cmd_sync(args, app) -> int:
    return _run_files(args, lambda progress, bar: app.sync(args.path, progress, on_change=bar))


def _when_reader_leaves(stream, then: Callable[[], None], stop: threading.Event) -> None:
    """Calls `then` once the pipe `stream` writes into has no reader left (`| head -1` after its
    line), which a quiet watch would otherwise learn only when its next pass writes. A terminal or
    a file has no reader to lose; where poll() is missing (Windows), the next write tells."""
    try:
        fd = stream.fileno()
        if not hasattr(select, "poll") or not stat.S_ISFIFO(os.fstat(fd).st_mode):
            return
    except (OSError, ValueError):
        return
    poller = select.poll()
    poller.register(fd, 0)  # a pipe's writer is told POLLERR (or POLLHUP) whatever it asks for

    def wait() -> None:
        while not stop.is_set():
            if any(mask & (select.POLLERR | select.POLLHUP) for _, mask in poller.poll(500)):
                then()
                return

    threading.Thread(target=wait, name="minirag-stdout-reader", daemon=True).start()


def _cmd_watch(args, app) -> int:
    stop, display, reader_gone = threading.Event(), _Progress(), threading.Event()

    def reader_left() -> None:  # `minirag watch --json | head -1`: nobody reads the passes any more
        _stdout_to_null()
        reader_gone.set()
        stop.set()

    def on_pass(report) -> None:
        display.close()
        progress = report.progress
        if args.json:
            from minirag.results import pass_report

            try:
                sys.stdout.write(_json(pass_report(report)) + "\n")
                sys.stdout.flush()
            except BrokenPipeError:
                reader_left()
        elif report.kind == "initial" or progress.done or progress.deleted or progress.incomplete or args.verbose:
            what = f"{report.paths} change{'s' * (report.paths != 1)}" if report.kind == "changes" else report.kind
            lines = [*(f"warn: {for_terminal(a_name(w))}" for w in progress.warnings),
                     f"minirag: {time.strftime('%H:%M:%S')} {what}: {progress.counts()} in {report.seconds:.2f} s"]
            sys.stderr.write("\n".join(lines) + "\n")

    def interrupt(_signum, _frame) -> None:
        if stop.is_set():
            raise KeyboardInterrupt  # a second Ctrl-C does not wait for the encoder batch in progress
        stop.set()

    def started() -> None:
        sys.stderr.write(f"minirag: watching {', '.join(map(str, app.config.roots))}; Ctrl-C stops\n")

    if args.json:
        _when_reader_leaves(sys.stdout, reader_left, stop)
    previous = signal.signal(signal.SIGINT, interrupt)
    try:
        app.watch(stop, on_start=started, on_pass=on_pass, on_change=display, polling=args.poll)
    finally:
        signal.signal(signal.SIGINT, previous)
        display.close()
    if reader_gone.is_set():
        sys.stderr.write("minirag: stdout's reader went away; stopped watching (what was synced stays)\n")
        return 0
    return _failed(args.json, "interrupted; stopped watching (what was synced stays)", 130)


def _scope(value: str | None) -> str | None:
    """A CLI scope that names a path on disk is resolved against the current directory, as every
    CLI path is; anything else (a data or url source id prefix) is kept as written."""
    if value is None or not value.strip() or "://" in value or os.path.isabs(value):
        return value  # an empty one is App's to refuse, not the current folder
    resolved = os.path.abspath(value)
    return resolved if os.path.exists(resolved) else value


def _cmd_query(args, app) -> int:
    from minirag.results import query_result, query_text

    scope = _scope(args.scope)
    # --json is the tool's object, within the response budget; the text shows a snippet per hit
    # and no sections, so every hit asked for is shown.
    result = query_result(app.query(args.text, top_k=args.top_k, scope=scope, collection=args.collection),
                          app.config.max_response_tokens if args.json else None)
    _emit(args, result, lambda r: query_text(r, scope, app.config.max_distance, args.text,
                                             app.term_weights(args.text) if r["results"] else None), shaped=result)
    return 0


def _key(args, app) -> str:
    return app.source_key(file_path=getattr(args, "file_path", None), source=args.source)


def _source_choice_error(args: argparse.Namespace) -> str | None:
    """Why `read`, `read-neighbors` or `delete` was not given exactly one of a path and --source, in
    the CLI's own names (App's refusal names the MCP tools' filePath and source); None if it was."""
    if args.command not in ("read", "read-neighbors", "delete"):
        return None
    option, wanted = ("--file-path", "--file-path PATH") if args.command == "read-neighbors" else ("a PATH", "a PATH")
    if args.file_path is None and args.source is None:
        verb = "delete" if args.command == "delete" else "read"
        return f"name what to {verb}: {wanted} or --source ID"
    if args.file_path is not None and args.source is not None:
        return f"give {option} or --source, not both"
    return None


def _cmd_read(args, app) -> int:
    page = app.read(_key(args, app), args.offset, args.max_chars, budgeted=False)
    _emit(args, page, lambda p: p.text)
    if page.next_offset is not None and not args.json:
        sys.stderr.write(f"minirag: {page.total_chars - page.next_offset} more characters: "
                         f"--offset {page.next_offset}\n")
    return 0


def _cmd_neighbors(args, app) -> int:
    window = app.neighbors(_key(args, app), args.chunk_index, args.before, args.after)
    _emit(args, window, lambda w: "\n\n".join(
        f"--- #{c.chunk_index}{_pages(c.page_start, c.page_end)}{' (hit)' if c.is_target else ''}\n"
        + _FRAME_LIKE.sub(r"\\\g<0>", c.text) for c in w.chunks))
    return 0


# A line of a chunk's text shaped as the frame read-neighbors prints around each chunk: escaped as
# Markdown escapes a line (`\--- #7`), so no chunk passes for another's frame, the hit's even.
_FRAME_LIKE = re.compile(r"^--- #", re.MULTILINE)


def _pages(start: int | None, end: int | None) -> str:
    from minirag.results import page_label

    label = page_label(start, end)
    return f" p. {label}" if label else ""


def _without_source(source: str, why: str) -> str:
    """A listing's reason without the `SOURCE: ` it starts with when it names the row's own source."""
    return why.removeprefix(f"{source}: ")


def _why(row) -> str:
    """A row's reason and note after a dash: a reason holds parentheses of its own (`not a valid .docx
    file (corrupt or truncated zip: ...)`), so parentheses around it nested; ASCII, as every line the CLI prints."""
    whys = [a_name(_without_source(row.source, why)) for why in (row.reason, row.note) if why is not None]
    return f"  -- {'; '.join(whys)}" if whys else ""


def _cmd_list(args, app) -> int:
    _emit(args, app.list_files(_scope(args.scope), args.collection, ignored=args.ignored), _fmt_list)
    return 0


def _fmt_list(listing) -> str:
    """A header, then one row a source: state, chunks indexed, source (and why, when left out, or
    what its conversion noted)."""
    rows = [f"{'STATE':<13} {'CHUNKS':>6}  SOURCE"] if listing.files else ["no files"]
    rows += [f"{f.state:<13} {f.chunk_count:>6}  {a_name(f.source)}" + _why(f) for f in listing.files]
    from minirag.ingest.progress import Progress

    others = Progress(other_types=Counter(dict(listing.other_types))).other_types_line()
    return "\n".join([*rows, *([others] if others else [])])


def _cmd_collections(args, app) -> int:
    from minirag.ingest.progress import plural

    _emit(args, app.list_collections(), lambda value: "\n".join(
        f"{c.name}  {plural(c.file_count, 'file')}, {plural(c.chunk_count, 'chunk')}, "
        f"last sync {c.last_sync or 'never'}  {a_name(c.path)}"
        + (f"\n   {on_one_line(c.description)}" if c.description else "")
        for c in value.collections))
    return 0


def _cmd_delete(args, app) -> int:
    from minirag.ingest.progress import plural

    key = app.delete_key(file_path=args.file_path, source=args.source)
    try:
        deleted = app.delete(key)
    except NotFound:
        if args.file_path is not None and os.path.isdir(key):  # said "not indexed: DIR"
            raise InvalidArgument(
                f"{shown(key)} is a folder; delete removes one file (or one --source): to drop a folder's files "
                "from the index, leave the folder out with an ignore rule (a .minignore line, MINIRAG_EXCLUDE) "
                "and run `minirag sync`") from None
        raise
    _emit(args, deleted, lambda d: f"deleted {a_name(d.source)} ({plural(d.deleted_chunks, 'chunk')})")
    return 0


def _fmt_dict(value) -> str:
    """One `key: value` line a field of its --json shape, values written for reading."""
    from minirag.results import payload

    return "\n".join(f"{k}: {a_name(_readable(v)) if k == 'source' else on_one_line(_readable(v))}"
                     for k, v in payload(value).items())


def _readable(value) -> str:
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, dict):
        return ", ".join(f"{k}={_readable(v)}" for k, v in value.items() if v != "") or "-"  # "" is nothing said
    if isinstance(value, (list, tuple)):
        joiner = "; " if any(isinstance(v, dict) for v in value) else ", "
        return joiner.join(_readable(v) for v in value) or "-"
    return str(value)


def _cmd_ingest_url(args, app) -> int:
    _emit(args, app.ingest_url(args.url, source=args.source, title=args.title), _fmt_dict)
    return 0


def _cmd_ingest_data(args, app) -> int:
    app.refuse_if_read_only("ingest-data")  # before waiting on stdin
    content, warnings = _stdin_text()
    if not content.strip():  # `cat missing.md | minirag ingest-data`: the source it names must stay as it is
        raise InvalidArgument("standard input was empty or only white space: nothing to index (did the command "
                              "before the pipe fail?); `minirag delete --source ID` removes a source")
    result = app.ingest_data(content, args.source, args.format, args.title)
    _emit(args, dataclasses.replace(result, warnings=(*warnings, *result.warnings)), _fmt_dict)
    return 0


def _stdin_text() -> tuple[str, tuple[str, ...]]:
    """Standard input as text, read as a file's bytes are (ingest/text_decoding.decode_text): binary data
    is refused, and bytes that are not UTF-8 are decoded by their charset with a warning, where the
    locale's decoder passed them on as lone surrogates that SQLite cannot store."""
    raw = getattr(sys.stdin, "buffer", None)
    if raw is None:  # text already (a caller's io.StringIO)
        return sys.stdin.read(), ()
    from minirag.ingest.text_decoding import decode_text

    return decode_text(raw.read(), "standard input")


def _cmd_backup(args, app) -> int:
    _emit(args, app.backup(args.dest), _fmt_dict)
    return 0


COMMANDS = {
    "ingest": _cmd_ingest, "sync": _cmd_sync, "watch": _cmd_watch, "query": _cmd_query, "read": _cmd_read,
    "read-neighbors": _cmd_neighbors, "list": _cmd_list, "collections": _cmd_collections, "delete": _cmd_delete,
    "ingest-url": _cmd_ingest_url, "ingest-data": _cmd_ingest_data, "backup": _cmd_backup,
}


def _status(args) -> int:
    from minirag.app import App
    from minirag.config import ConfigError

    try:
        config = _config(args)
    except ConfigError as exc:
        from minirag import __version__
        from minirag.values import ConfigFailure

        _emit(args, ConfigFailure(__version__, str(exc)), _fmt_dict)
        return 0
    app = App(config)
    try:
        _emit(args, app.status(), _fmt_dict)
    finally:
        app.close()
    return 0


def _doctor(args) -> int:
    from minirag.app import App
    from minirag.config import ConfigError
    from minirag.doctor import config_failure, format_checks

    try:
        result = App(_config(args)).doctor()
    except ConfigError as exc:
        result = config_failure(exc)
    _emit(args, result, format_checks)
    return 0 if result.ok else 1


def _serve(args) -> int:
    from minirag.server_state import load_state

    state = load_state(args)
    state.load_model_early()  # while the MCP SDK is imported and the client says hello
    from minirag.server import serve

    return serve(args, state)


class _Terminated(KeyboardInterrupt):
    """SIGTERM or SIGHUP (a service manager stopping it, a closed terminal), raised in the main thread
    as Ctrl-C's KeyboardInterrupt is, so that every `finally` and rollback runs as after Ctrl-C: the
    signal's default action ends the process where it stands, leaving a backup's partial copy behind."""

    def __init__(self, signum: int):
        super().__init__(signum)
        self.signum = signum


_TERMINATED_BY: list[int] = []  # the stop signals that came, noted: an import may swallow what they raise


def _raise_terminated(signum: int, _frame) -> None:
    _TERMINATED_BY.append(signum)
    raise _Terminated(signum)


def _fill_closed_descriptors() -> None:
    """Point a standard descriptor the caller closed (`minirag sync 2>&-`) at the null device, as
    SQLite does for its own files: the next file opened (the sync lock, a model) would otherwise
    take its number and receive whatever a library or a converter's child writes to it. Python
    has set that stream to None; stderr gets the null device (nothing can be said anywhere),
    stdin and stdout are refused where they are needed (_closed_stream)."""
    for fd in (0, 1, 2):
        try:
            os.fstat(fd)
        except OSError:
            opened = os.open(os.devnull, os.O_RDWR)
            if opened != fd:  # an earlier number was free after all: not ours to fill
                os.close(opened)
    if sys.stderr is None:
        sys.stderr = open(os.devnull, "w")  # noqa: SIM115 - the process's stderr, open until it exits


def _closed_stream(argv: Sequence[str]) -> str | None:
    """Why the command cannot run with the standard streams it was given; None when it can."""
    if sys.stdout is None:
        return ("standard output is closed, so there is nowhere to write the output; redirect it "
                "instead (`>/dev/null` discards it)")
    command = argv[0] if argv else "serve"
    if sys.stdin is None and (command == "ingest-data" or (command == "serve" and not any(
            arg == "--http" or arg.startswith("--http=") for arg in argv))):
        what = "the MCP server reads its client's messages there" if command == "serve" else \
            "ingest-data reads the content to index there (`... | minirag ingest-data --source ID`)"
        return f"standard input is closed; {what}"
    return None


# Set by Ctrl-C. One that lands while a C extension initializes (onnxruntime, numpy: the model's first
# load) comes out of the import as an ImportError ("import numpy failed"), the interrupt lost.
_CTRL_C = threading.Event()


def _note_ctrl_c(signum: int, frame) -> None:
    """Ctrl-C, raised as KeyboardInterrupt as by default, and noted in _CTRL_C."""
    _CTRL_C.set()
    signal.default_int_handler(signum, frame)


class _Invocation:
    """What main() learns of the command line once it is parsed: whether --json was given."""

    def __init__(self) -> None:
        self.json = False


def _failed(as_json: bool, message: str, code: int, line: str | None = None) -> int:
    """Say why the command ended without its result: one line on stderr (`line`, by default
    `minirag: {message}`) and, with --json, one object on stdout holding `message` as `error`, the key a
    failed sync job's JSON holds it under, so a program reading the JSON gets input. Returns `code`."""
    sys.stderr.write((line or f"minirag: {message}") + "\n")
    if as_json:
        from minirag.results import failure

        with contextlib.suppress(OSError, ValueError):  # its reader gone (`| head`): the status says it
            sys.stdout.write(_json(failure(message)) + "\n")
            sys.stdout.flush()
    return code


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; every failure is one line on stderr (exit 1; usage errors 2; Ctrl-C 130), and
    with --json one error object on stdout too."""
    code = _main(argv)
    native = sys.modules.get("minirag.interruptible")
    if argv is None and native is not None and native.left_running():
        # A model run a second Ctrl-C left is still running: the interpreter's teardown would destroy
        # ONNX Runtime under it (SIGABRT), so the process ends here, its index closed, its output flushed.
        _end_process(code)
    return code


def _main(argv: Sequence[str] | None) -> int:
    verbose = "-v" in (argv if argv is not None else sys.argv[1:]) or "--verbose" in (argv or sys.argv[1:])
    _fill_closed_descriptors()
    if argv is None:  # the process's own streams, not a caller's
        _escape_what_output_cannot_encode()
    invocation = _Invocation()
    try:
        _CTRL_C.clear()
        _TERMINATED_BY.clear()
        return _run(argv, invocation)
    except _Terminated as exc:
        return _failed(invocation.json, f"stopped by {signal.Signals(exc.signum).name}", 128 + exc.signum)
    except KeyboardInterrupt:
        return _failed(invocation.json, "interrupted", 130)
    except MiniragError as exc:
        return _failed(invocation.json, message_line(exc), 1, line=f"minirag: error: {message_line(exc)}")
    except Exception as exc:  # noqa: BLE001 - a bug still gets one line; -v shows the traceback
        if (said := exhausted(exc)) is not None:  # no bug: the machine, or the limit minirag runs under, has no more
            return _failed(invocation.json, said, 1, line=f"minirag: error: {said}")
        # A stop that came while a C extension was imported, which raised ImportError instead.
        if _TERMINATED_BY:
            return _failed(invocation.json, f"stopped by {signal.Signals(_TERMINATED_BY[0]).name}",
                           128 + _TERMINATED_BY[0])
        if _CTRL_C.is_set():
            return _failed(invocation.json, "interrupted", 130)
        if verbose:
            log.exception("internal error")
        message = f"internal error: {type(exc).__name__}: {message_line(exc)}"
        return _failed(invocation.json, message, 1,
                       line=f"minirag: {message} (rerun with -v for the details, and please report it)")


def _command_first(parser: argparse.ArgumentParser, argv: list[str]) -> list[str]:
    """Flags given before the command (`minirag --base-dir X status`) move after it; with no command,
    `serve` (stdio) gets them."""
    commands = subcommands(parser)
    takes_value = options_taking_values(commands["serve"])
    i = 0
    while i < len(argv) and argv[i].startswith("-"):
        i += 2 if argv[i] in takes_value else 1
    if i < len(argv) and argv[i] in commands:
        return [argv[i], *argv[:i], *argv[i + 1:]]
    return ["serve", *argv]


def _run(argv: Sequence[str] | None, invocation: _Invocation) -> int:
    parser = build_parser()
    whole_process = argv is None  # run as the `minirag` program, not called from other code
    argv = list(sys.argv[1:] if argv is None else argv)
    # Before the command line is parsed (what is refused here is refused in JSON too); never serving.
    invocation.json = "--json" in argv and next((arg for arg in argv if not arg.startswith("-")), "serve") != "serve"
    for arg in argv:
        if not is_utf8(arg):  # bytes the locale could not decode, passed on as lone surrogates
            raise InvalidArgument(f"the argument '{printable(arg)}' is not valid UTF-8")
    if not argv or (argv[0].startswith("-") and argv[0] not in ("-h", "--help", "--version")):
        argv = _command_first(parser, argv)
    if (refusal := _closed_stream(argv)) is not None:
        raise InvalidArgument(refusal)
    _Parser.parsing = argv
    args, extras = parser.parse_known_args(argv)
    if extras:
        command = subcommands(parser).get(args.command)
        (command or parser).error(_unrecognized(extras, command))
    if (mistake := _source_choice_error(args)) is not None:
        subcommands(parser)[args.command].error(mistake)
    # Never when serving: on stdio, stdout carries the protocol's messages and nothing else.
    invocation.json = bool(getattr(args, "json", False)) and args.command != "serve"
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(LogLine())
    logging.basicConfig(level=logging.INFO if getattr(args, "verbose", False) else logging.WARNING, handlers=[handler])
    log.setLevel(logging.INFO if getattr(args, "verbose", False) else logging.NOTSET)  # even if logging was set up
    if args.command == "serve":
        return _serve(args)
    if whole_process:
        for name in ("SIGTERM", "SIGHUP"):  # Windows has no SIGHUP
            if hasattr(signal, name):
                signal.signal(getattr(signal, name), _raise_terminated)
        # (Not when serving: asyncio takes Ctrl-C over only from the default handler.)
        signal.signal(signal.SIGINT, _note_ctrl_c)
    if args.command == "status":
        return _status(args)
    if args.command == "doctor":
        return _doctor(args)
    from minirag.app import App
    from minirag.config import ConfigError

    try:
        app = App(_config(args), one_shot=args.command == "query")
    except ConfigError as exc:
        return _failed(invocation.json, f"configuration error: {message_line(exc)}", 1)
    try:
        code = COMMANDS[args.command](args, app)
    finally:
        app.close()
    if whole_process and args.command == "query":
        _end_process(code)
    return code


def _end_process(code: int) -> None:
    """End a one-shot query's process now: the index is closed and the output flushed, so all the
    interpreter's teardown would add is freeing each module and the ONNX runtime, ~0.04 s of the
    query's CPU (docs/benchmarks.md)."""
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):  # a closed pipe (`| head`): nothing more to say there
            stream.flush()
    os._exit(code)
