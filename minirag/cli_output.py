"""What the CLI writes: a command's result on stdout (text, or --json), all of it or an error, the
live progress line on stderr, and the text each command's result is written as."""

from __future__ import annotations

import argparse
import codecs
import errno
import io
import json
import os
import re
import shutil
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

from minirag.display import (
    a_name,
    display_width,
    escaped_json,
    fit_width,
    fit_width_keeping_end,
    for_terminal,
    on_one_line,
)
from minirag.errors import OutputUnwritable

PROGRESS_INTERVAL_S = 10.0  # a plain progress line this often when stderr is not a terminal
MIN_PROGRESS_INTERVAL_S = 1.0  # a line a second is already more than a log wants; shorter floods stderr
MAX_PROGRESS_INTERVAL_S = 86_400.0  # a day; longer waits overflow the timer (and say nothing)
TICKER_JOIN_S = 5.0  # how long a run's end waits for its progress line's last redraw


def emit(args: argparse.Namespace, value, human: Callable[[Any], str], shaped: dict | None = None) -> None:
    """--json: `value` as results.py shapes it (`shaped` when given), the object the matching tool
    returns; otherwise `human(value)`."""
    if args.json:
        from minirag.results import payload

        _write_out(stdout_json(payload(value) if shaped is None else shaped, indent=2) + "\n")
    else:
        _write_out(for_terminal(human(value).rstrip("\n")) + "\n")


_MARKED_ENCODINGS = ("utf-16", "utf-32", "utf-8-sig")


def stdout_to_null() -> None:
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
        stdout_to_null()
    except OSError as exc:
        raise OutputUnwritable(f"cannot write the output ({exc.strerror or exc})") from None


def stdout_json(value, indent: int | None = None) -> str:
    """`value` as JSON for stdout: its characters as they are where stdout is UTF-8, else \\u
    escapes, which every encoding can carry (a JSON reader gets the same strings either way); what
    a terminal acts on as escapes either way (display.escaped_json)."""
    encoding = getattr(sys.stdout, "encoding", None) or "utf-8"
    return escaped_json(json.dumps(value, ensure_ascii=codecs.lookup(encoding).name != "utf-8", indent=indent))


def escape_what_output_cannot_encode() -> None:
    """stdout and stderr in an encoding that cannot write every character (PYTHONIOENCODING=ascii, a
    Latin-1 locale, a Windows console's code page when redirected): a character it lacks is
    written as its escape (\\xe9), as Python already does on stderr, instead of failing the command
    after its work is done."""
    for stream in (sys.stdout, sys.stderr):
        if isinstance(stream, io.TextIOWrapper):
            stream.reconfigure(errors="backslashreplace")


def stdout_columns() -> int | None:
    """The width of the terminal stdout writes to; None where it writes to no terminal (a pipe, a
    file: lines are not wrapped for a reader that is a program) or one that reports no width."""
    try:
        return (os.get_terminal_size(sys.stdout.fileno()).columns or None) if sys.stdout.isatty() else None
    except (OSError, ValueError, AttributeError):
        return None


def _columns() -> int:
    """The width of the terminal stderr writes to; else COLUMNS, stdout's, or 80."""
    try:
        columns = os.get_terminal_size(sys.stderr.fileno()).columns
    except (OSError, ValueError, AttributeError):
        columns = 0
    return columns or shutil.get_terminal_size().columns  # a pseudo-terminal may report 0


class ProgressLine:
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
            from minirag import interruptible

            # Bounded: a ticker whose write to a full stderr does not come back holds no run's end.
            interruptible.join(self._ticker, TICKER_JOIN_S)
            if self._ticker.is_alive():  # in that write, holding the lock: nothing to clear here
                return
        with self._lock:
            if self._shown:
                sys.stderr.write("\r\x1b[K")
                self._shown = False


def _without_source(source: str, why: str) -> str:
    """A listing's reason without the `SOURCE: ` it starts with when it names the row's own source."""
    return why.removeprefix(f"{source}: ")


def _why(row) -> str:
    """A row's reason and note after a dash: a reason holds parentheses of its own (`not a valid .docx
    file (corrupt or truncated zip: ...)`), so parentheses around it nested; ASCII, as every line the CLI prints."""
    whys = [a_name(_without_source(row.source, why)) for why in (row.reason, row.note) if why is not None]
    return f"  -- {'; '.join(whys)}" if whys else ""


def fmt_list(listing) -> str:
    """A header, then one row a source: state, chunks indexed, source (and why, when left out, or
    what its conversion noted)."""
    rows = [f"{'STATE':<13} {'CHUNKS':>6}  SOURCE"] if listing.files else ["no files"]
    rows += [f"{f.state:<13} {f.chunk_count:>6}  {a_name(f.source)}" + _why(f) for f in listing.files]
    from minirag.ingest.progress import Progress

    others = Progress(other_types=Counter(dict(listing.other_types))).other_types_line()
    return "\n".join([*rows, *([others] if others else [])])


def fmt_collections(value) -> str:
    """One line a collection: its name, files and chunks indexed, last sync and root, each in its
    column; its description below."""
    collections = value.collections
    if not collections:
        return ""
    names = [on_one_line(c.name) for c in collections]
    files = _counted([c.file_count for c in collections], "file")
    chunks = _counted([c.chunk_count for c in collections], "chunk")
    syncs = [c.last_sync or "never" for c in collections]
    name_width, sync_width = max(map(display_width, names)), max(map(len, syncs))
    return "\n".join(
        f"{name}{' ' * (name_width - display_width(name))}  {files[i]} {chunks[i]} last sync {syncs[i]:<{sync_width}}  "
        f"{a_name(c.path)}" + (f"\n   {on_one_line(c.description)}" if c.description else "")
        for i, (name, c) in enumerate(zip(names, collections, strict=True)))


def _counted(counts: list[int], noun: str) -> list[str]:
    """`counts` as `N nouns,` cells of one width: the numbers right-aligned, the nouns after them."""
    width = max(len(str(n)) for n in counts)
    cells = [f"{n:>{width}} {noun}{'s' * (n != 1)}," for n in counts]
    return [cell.ljust(width + len(noun) + 3) for cell in cells]


def fmt_neighbors(window) -> str:
    """Each chunk of a read-neighbors window under a frame line: its index, pages or sheet rows, and
    whether it is the hit."""
    from minirag.results import rows_text, sheet_rows

    return "\n\n".join(
        f"--- #{c.chunk_index}{_pages(c.page_start, c.page_end)}{rows_text(sheet_rows(c.rows) if c.rows else {})}{' (hit)' if c.is_target else ''}\n"
        + _FRAME_LIKE.sub(r"\\\g<0>", c.text) for c in window.chunks)


# A line of a chunk's text shaped as the frame read-neighbors prints around each chunk: escaped as
# Markdown escapes a line (`\--- #7`), so no chunk passes for another's frame, the hit's even.
_FRAME_LIKE = re.compile(r"^--- #", re.MULTILINE)


def _pages(start: int | None, end: int | None) -> str:
    from minirag.results import page_label

    label = page_label(start, end)
    return f" p. {label}" if label else ""


def fmt_deleted(deleted) -> str:
    from minirag.ingest.progress import plural

    return f"deleted {a_name(deleted.source)} ({plural(deleted.deleted_chunks, 'chunk')})"


def fmt_dict(value) -> str:
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
