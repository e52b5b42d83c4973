"""The converter child process: `python -m minirag.ingest.convert_worker`, started by isolation.py.

It reads requests on stdin and answers on the stdout it was started with; fd 1 is
pointed at stderr first, so a parser that prints cannot corrupt the answers. Each
request sets this process's own limits before the converter runs: an address-space
limit (RLIMIT_AS: an allocation past it is a MemoryError, or the process dies) and a
CPU-time limit counted from what this process has used so far (RLIMIT_CPU: SIGXCPU
ends it). It imports the converters only, never onnxruntime or the index, and exits
when its stdin closes (the parent gone).

Frames are an 8-byte big-endian length and a body: requests are pickles from the
parent; answers are JSON, so the parent never unpickles what a hostile file steered.
Before its answer, a request may bring progress frames: `{"page": i, "pages": n}`, one as
OCR starts on each page (ingest/ocr.py); `{"progress": n}`, the pieces of the file done so far
(conversion_progress.py), at most one each PROGRESS_EVERY_S.
"""

from __future__ import annotations

import gc
import json
import logging
import os
import pickle
import resource
import signal
import struct
import sys
import threading
import time

from minirag._compat.markitdown import without_magika, without_pandas
from minirag._compat.python import abort
from minirag.display import LogLine
from minirag.errors import ConversionFailed, described
from minirag.ingest.conversion_progress import LISTENER
from minirag.ingest.quiet import converting, not_a_parsers

_HEADER = struct.Struct(">Q")
# Pieces done are told at most this often: a PDF of blank pages reads thousands a second, and each
# frame is a read for the parent. Well under in_flight.SETTLE_S, which a report must come within.
PROGRESS_EVERY_S = 0.5
# Bytes an answer may take beyond its text: the title, warnings and note.
ANSWER_OVERHEAD = 1024 * 1024


def max_answer_bytes() -> int:
    """The longest answer frame: a document's longest text (convert.MAX_TEXT_CHARS) with every
    character in its longest JSON form (a control character escaped, `\\u0001`: 6 bytes), and
    the rest. The parent refuses a longer one unread."""
    from minirag.ingest.text_limit import MAX_TEXT_CHARS

    return 6 * MAX_TEXT_CHARS + ANSWER_OVERHEAD


def read_frame(stream) -> bytes | None:
    header = stream.read(_HEADER.size)
    if len(header) < _HEADER.size:
        return None
    (size,) = _HEADER.unpack(header)
    body = stream.read(size)
    return body if len(body) == size else None


def write_frame(stream, body: bytes) -> None:
    stream.write(_HEADER.pack(len(body)) + body)
    stream.flush()


def _set_limits(memory_bytes: int, cpu_seconds: int) -> None:
    # Soft limits only, the hard ones left as inherited: an unprivileged process can never raise
    # a hard limit again, and the next request may bring other settings.
    usage = resource.getrusage(resource.RUSAGE_SELF)
    used = int(usage.ru_utime + usage.ru_stime) + 1
    _lower(resource.RLIMIT_CPU, used + cpu_seconds)
    _lower(resource.RLIMIT_AS, memory_bytes)


def _lower(which: int, soft: int) -> None:
    """The soft limit `soft`, or the hard one minirag was started under (`ulimit -v`, `ulimit -t`)
    where that is lower: asking past it is refused (ValueError) and failed every document."""
    hard = resource.getrlimit(which)[1]
    resource.setrlimit(which, (soft if hard == resource.RLIM_INFINITY else min(soft, hard), hard))


def _unlimit(which: int) -> None:
    """The soft limit back up to the hard one: an answer within the limits still goes back."""
    resource.setrlimit(which, (resource.getrlimit(which)[1],) * 2)


def _run(op: str, args: tuple):
    from minirag.ingest import convert

    if op == "document":
        return convert.convert_document(*args)
    if op == "fetched":
        body, mimetype, charset, url, max_bytes = args
        return convert.convert_fetched(body, mimetype=mimetype, charset=charset, url=url, max_bytes=max_bytes)
    if op == "data":
        return convert.convert_data(*args)
    if op == "probe":  # tests: what this process is and holds
        return convert.Converted(markdown=json.dumps({"pid": os.getpid(), "onnxruntime": "onnxruntime" in sys.modules,
                                                      "modules": sorted(sys.modules),
                                                      "frozen": gc.get_freeze_count()}))
    if op == "crash":  # tests: a converter that takes the process down, as Python's fatal errors do
        import faulthandler

        faulthandler.enable()
        abort()
    raise ValueError(f"unknown operation {op!r}")


def _preload(op: str, args: tuple) -> None:
    """Import a format's parser before the file's limits start: its first import costs CPU (markitdown
    pulls in its converters' libraries), which belongs to no file."""
    from minirag.ingest import convert
    from minirag.ingest.doc_names import split_suffix

    suffix = split_suffix(str(args[1]))[0] if op == "document" else ""
    loaded = len(sys.modules)
    if suffix == ".pdf":
        import pdfminer.high_level  # noqa: F401
    elif suffix in convert._MARKITDOWN:
        import markitdown.converters  # noqa: F401
    if len(sys.modules) != loaded:
        _freeze_what_is_loaded()


def _freeze_what_is_loaded() -> None:
    """What imports made lives as long as the worker: frozen, the cyclic collector's full passes, which
    a parser's many objects bring on, no longer walk it. Only right after imports, between conversions,
    and after a collection: a cycle a conversion left, frozen, would never be freed."""
    gc.collect()
    gc.freeze()


def encode_answer(answer: dict, name: str, limit: int) -> bytes:
    """The answer frame's body; a refusal when it is over `limit` bytes (a title or warnings past
    ANSWER_OVERHEAD), so the parent gets one file's failure, not a frame it refuses unread."""
    body = json.dumps(answer, ensure_ascii=False).encode("utf-8", "surrogatepass")
    if len(body) <= limit:
        return body
    return json.dumps({"failed": f"{name}: refused: its conversion is {len(body):,} bytes, over the "
                                 f"{limit:,} one document may give; split it"}, ensure_ascii=False).encode(
        "utf-8", "surrogatepass")


class _Reports:
    """The pieces of the request in hand done (conversion_progress.advanced), sent to the parent as
    `{"progress": n}` frames, the first PROGRESS_EVERY_S after the request began, then at most one
    each PROGRESS_EVERY_S: a piece done is told with the next one sent, a hang tells nothing."""

    def __init__(self, answers) -> None:
        self._answers = answers
        self.began()

    def began(self) -> None:
        self._done = 0
        self._sent_at = time.monotonic()

    def advanced(self) -> None:
        self._done += 1
        now = time.monotonic()
        if now - self._sent_at >= PROGRESS_EVERY_S:
            self._sent_at = now
            write_frame(self._answers, json.dumps({"progress": self._done}).encode())


def serve(requests, answers) -> None:
    without_magika()
    without_pandas()
    from minirag.ingest import convert, ocr  # noqa: F401 - loaded before the first limit applies

    _freeze_what_is_loaded()
    limit = max_answer_bytes()
    ocr.PAGE_LISTENER.set(lambda page, pages: write_frame(answers, json.dumps({"page": page, "pages": pages}).encode()))
    reports = _Reports(answers)
    LISTENER.set(reports.advanced)

    while True:
        frame = read_frame(requests)
        if frame is None:
            return
        op, args, name, memory_bytes, cpu_seconds, env = pickle.loads(frame)  # noqa: S301 - from our parent
        for key, value in env.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
        retire = False
        reports.began()
        try:
            _preload(op, args)
            _set_limits(memory_bytes, cpu_seconds)
            with converting(name):  # the whole request, not only the parser calls convert.py marks
                converted = _run(op, args)
            answer = {"markdown": converted.markdown, "title": converted.metadata_title,
                      "warnings": list(converted.warnings), "note": converted.note,
                      "frontmatter": converted.frontmatter,
                      "rows": None if converted.rows is None else converted.rows.as_json()}
        except MemoryError:
            answer, retire = {"memory": name}, True
        except RecursionError:
            answer = {"failed": f"{name}: cannot convert (nested too deeply)"}
        except Exception as exc:  # noqa: BLE001 - one bad document never ends the worker's loop
            # Out of memory as a parser that caught Python's MemoryError, or a native library's
            # allocator (onnxruntime's std::bad_alloc), says it: the heap may be left torn.
            retire = any(words in str(exc) for words in ("MemoryError", "std::bad_alloc"))
            if retire:
                answer = {"memory": name}
            elif isinstance(exc, ConversionFailed):
                answer = {"failed": str(exc)}
            else:
                answer = {"failed": f"{name}: cannot convert ({described(exc)})"}
        # Neither limit past the file: the answer of a conversion that stayed within them still goes
        # back, and what the worker does before the next file's limits (reading its request, its
        # parser's first import) belongs to no file, where the CPU limit charged it to what this one left.
        _unlimit(resource.RLIMIT_AS)
        _unlimit(resource.RLIMIT_CPU)
        write_frame(answers, encode_answer(answer, name, limit))
        if retire:
            return


def _log_to_stderr() -> None:
    """Log records as the CLI shows them, but none a parser makes during a conversion (quiet.py).
    Without a handler, Python's last resort wrote every parser's warning bare, naming no file."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(LogLine())
    handler.addFilter(not_a_parsers)
    logging.getLogger().addHandler(handler)


# How often a worker looks whether its parent is still there.
PARENT_CHECK_S = 0.5


def _end_with(parent: int) -> None:
    """End this process once `parent` is gone (this one re-parented: its parent id changes). The
    request pipe says so only between conversions: a parent killed (SIGKILL, the OOM killer, the
    stdio server's default SIGTERM) left the conversion in hand running up to its CPU and memory
    limits, since its wall-clock limit is the parent's to enforce. Nothing of it is wanted then.
    (Windows keeps a dead parent's id: there the pipe alone tells.)"""
    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(PARENT_CHECK_S)
        os._exit(1)

    threading.Thread(target=watch, name="minirag-parent-watch", daemon=True).start()


def main() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is for the parent: it decides what stops
    _end_with(os.getppid())
    _log_to_stderr()
    with os.fdopen(os.dup(1), "wb") as answers:
        os.dup2(2, 1)
        serve(sys.stdin.buffer, answers)


if __name__ == "__main__":
    main()
