"""The CLI's commands and main(). No subcommand (or `serve`) runs the MCP server on stdio.

Every command parses its arguments (cli_parser.py), calls one App method and prints the
result (cli_output.py); --json prints the same object the matching MCP tool returns. Exit status: 0 success, 1 failure
(`ingest`/`sync` fail when any file failed); `status` exits 0 even on a
configuration error, since it is the command that reports one; `watch` runs
until Ctrl-C and then exits 130.
"""

from __future__ import annotations

import argparse
import atexit
import codecs
import contextlib
import dataclasses
import gc
import logging
import os
import select
import shlex
import signal
import stat
import sys
import threading
import time
from collections.abc import Callable, Sequence

from minirag.cli_output import (
    ProgressLine,
    emit,
    escape_what_output_cannot_encode,
    fmt_collections,
    fmt_deleted,
    fmt_dict,
    fmt_list,
    fmt_neighbors,
    stdout_json,
    stdout_to_null,
)
from minirag.cli_parser import build_parser, command_first, parse_args
from minirag.display import (
    LogLine,
    a_name,
    for_terminal,
    is_utf8,
    message_line,
    printable,
    shown,
)
from minirag.errors import (
    IndexUnavailable,
    InvalidArgument,
    MiniragError,
    NotFound,
    PathOutsideRoots,
    exhausted,
)

log = logging.getLogger("minirag")


def _config(args: argparse.Namespace):
    from minirag.config import load_config_from

    return load_config_from(args)


def _run_files(args, runner, nothing_found: str | None = None) -> int:
    """`nothing_found`: said where the run found no file at all (and removed none)."""
    from minirag.ingest.progress import Progress

    progress = Progress()
    display = ProgressLine(args.progress_interval)
    display.start(progress)
    try:
        runner(progress, display)
    except KeyboardInterrupt as exc:  # Ctrl-C, SIGTERM: main() says it, with what the run leaves
        exc.add_note(_left_by_stop(args.command, progress))
        raise
    finally:
        display.close()
    from minirag.results import run_summary

    if not args.json:  # what went wrong goes to stderr; the summary is the command's output
        for warning in progress.warnings:
            sys.stderr.write(f"warn: {for_terminal(a_name(warning))}\n")
        if args.verbose and progress.timings:
            sys.stderr.write("minirag: " + ", ".join(f"{stage} {seconds:.2f} s" for stage, seconds
                                                      in sorted(progress.timings.items())) + "\n")
        if progress.outside_roots:  # a root left off this command's line: its files went, their vectors too
            sys.stderr.write("minirag: note: the files of roots this command was not given are dropped from the "
                             "index; give every root to every command (or set BASE_DIRS once) to keep them\n")
        if progress.still_failing:  # not warned about again; after a limit is raised, naming them retries
            from minirag.ingest.progress import plural

            sys.stderr.write(f"minirag: {plural(progress.still_failing, 'file')} still failing, not tried again "
                             "(the same bytes failed before): `minirag list` says why; `minirag ingest PATH` "
                             "tries again\n")
        if nothing_found and progress.found_nothing:
            sys.stderr.write(f"minirag: {for_terminal(a_name(nothing_found))}\n")
    others = progress.other_types_line()
    emit(args, progress, lambda p: f"{p.counts()} in {p.elapsed_seconds()} s{p.git_words()}" + (f"\n{others}" if others else ""),
          shaped=run_summary(progress) if args.json else None)
    if progress.incomplete or (args.strict and progress.still_failing):
        return 1
    return 0


def _left_by_stop(command: str, progress) -> str:
    """What a stopped ingest or sync leaves: each file is written whole or not at all, so those done
    stay indexed and the same command, run again, skips them; the vectors embedded for files not
    written are kept (store/pending.py), and that run reuses them."""
    from minirag.ingest.progress import plural

    done = progress.done
    kept = (f"{plural(done, 'file')} indexed before the stop {'stays' if done == 1 else 'stay'} indexed"
            if done else "no file was indexed before the stop")
    said = f"{kept}: run `minirag {command}` again for the rest"
    unwritten = progress.chunks_embedded - (progress.chunks_written - progress.chunks_reused)
    if unwritten > 0:
        said += (f"; the {plural(unwritten, 'chunk')} embedded for files not finished {'is' if unwritten == 1 else 'are'}"
                 " kept, not embedded again")
    return said


def _stopped(exc: BaseException, what: str) -> str:
    """`what` (`interrupted`), and after it the note a stopped run added (_left_by_stop)."""
    notes = getattr(exc, "__notes__", None)
    return f"{what}; {notes[-1]}" if notes else what


def _cmd_ingest(args, app) -> int:
    try:
        return _run_files(args, lambda progress, bar: app.ingest_paths(args.paths, progress, on_change=bar,
                                                                       force=args.force))
    except PathOutsideRoots as exc:
        if app.config.roots_named or len(args.paths) != 1:
            raise
        path = os.path.abspath(args.paths[0])
        root = path if os.path.isdir(path) else os.path.dirname(path)
        # Only where no root was named: another --base-dir would replace the roots given.
        raise PathOutsideRoots(f"{exc}; with no root named (--base-dir, BASE_DIR, BASE_DIRS) the root is the "
                               f"working folder: to index {a_name(path)}, name {'it' if root == path else 'its folder'}"
                               f": `minirag ingest {shlex.quote(a_name(path))} --base-dir {shlex.quote(a_name(root))}`"
                               ) from None


def _cmd_sync(args, app) -> int:
    from minirag.ingest.progress import nothing_found

    where = args.path or ", ".join(str(root) for root in app.config.roots)
    return _run_files(args, lambda progress, bar: app.sync(args.path, progress, on_change=bar),
                      nothing_found=nothing_found(where))


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
    stop, display, reader_gone = threading.Event(), ProgressLine(), threading.Event()

    def reader_left() -> None:  # `minirag watch --json | head -1`: nobody reads the passes any more
        stdout_to_null()
        reader_gone.set()
        stop.set()

    def on_pass(report) -> None:
        display.close()
        progress = report.progress
        if args.json:
            from minirag.results import pass_report

            try:
                sys.stdout.write(stdout_json(pass_report(report)) + "\n")
                sys.stdout.flush()
            except BrokenPipeError:
                reader_left()
        elif report.kind == "initial" or progress.done or progress.deleted or progress.incomplete or args.verbose:
            what = f"{report.paths} change{'s' * (report.paths != 1)}" if report.kind == "changes" else report.kind
            lines = [*(f"warn: {for_terminal(a_name(w))}" for w in progress.warnings),
                     f"minirag: {time.strftime('%H:%M:%S')} {what}: {progress.counts()} in {report.seconds:.2f} s{progress.git_words()}"]
            sys.stderr.write("\n".join(lines) + "\n")

    def interrupt(_signum, _frame) -> None:
        if stop.is_set():
            raise KeyboardInterrupt  # a second Ctrl-C does not wait for the encoder batch in progress
        stop.set()

    def started() -> None:
        from minirag.security import roots_named

        sys.stderr.write(f"minirag: watching {roots_named(app.config.roots, a_name)}; Ctrl-C stops\n")

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


def _scope(values: list[str] | None) -> tuple[str, ...]:
    """The CLI's scopes (--scope, repeatable). One that names a path on disk is resolved against the
    current directory, as every CLI path is; anything else (a data or url source id prefix) is kept
    as written."""
    return tuple(_one_scope(value) for value in values or ())


def _one_scope(value: str) -> str:
    if not value.strip() or "://" in value or os.path.isabs(value):
        return value  # an empty one is App's to refuse, not the current folder
    resolved = os.path.abspath(value)
    return resolved if os.path.exists(resolved) else value


def _cmd_query(args, app) -> int:
    from minirag.cli_output import stdout_columns
    from minirag.results import query_result, query_text

    scope = _scope(args.scope)
    if given := [flag for flag, value in (("--include", args.include), ("--exclude", args.exclude)) if value]:
        # Settings every command takes (as their variables are), but only a sync (or list) acts on them.
        sys.stderr.write(f"minirag: note: {' and '.join(given)} {'choose' if len(given) > 1 else 'chooses'} what a "
                         "sync indexes, not what a query answers from: narrow a query with --scope or --collection\n")
    # --json is the tool's object, within the response budget; the text shows a snippet per hit
    # and no sections, so every hit asked for is shown.
    result = query_result(app.query(args.text, top_k=args.top_k, scope=scope or None, collection=args.collection),
                          app.config.max_response_tokens if args.json else None)
    emit(args, result, lambda r: _nothing_indexed(app) if _unanswered(r, scope, args.collection, app) else
         f"no results {_under_nothing(args.scope)}" if not r["results"] and _under_nothing(args.scope) else
         query_text(r, scope, app.config.max_distance, args.text, app.term_weights(args.text) if r["results"] else None,
                    stdout_columns()),
         shaped=result)
    return 0


def _under_nothing(scopes: list[str] | None) -> str:
    """For an answer that found nothing: the scopes given as relative paths that name nothing in the
    working folder (kept as source id prefixes, which nothing started with either), said as such; ""
    where there are none. Each is looked up once: as many lookups as scopes given."""
    kept = [value for value in scopes or () if value.strip() and _one_scope(value) == value
            and "://" not in value and not os.path.isabs(value)]
    if not kept:
        return ""
    named = " or ".join(a_name(value) for value in kept)
    return (f"under {named}: no source id starts with it, and no file or folder {named} is in {a_name(os.getcwd())} "
            "(a path scope is taken from the working folder)")


def _unanswered(result: dict, scope: tuple[str, ...], collection: str | None, app) -> bool:
    """Whether a query found nothing because nothing is indexed under the roots (not its scope, not a
    distance cap, not a language only the keyword side reads)."""
    return (not result["results"] and "note" not in result and not scope and collection is None and app.config.max_distance is None
            and not any(c.chunk_count for c in app.list_collections().collections))


def _nothing_indexed(app) -> str:
    from minirag.security import roots_named

    roots = roots_named(app.config.roots, a_name)
    return (f"no results: nothing is indexed under {roots} (`minirag list` shows each file and why it was left "
            "out; `minirag sync` indexes what is there)")


def _key(args, app) -> str:
    return app.source_key(file_path=getattr(args, "file_path", None), source=args.source)


def _cmd_read(args, app) -> int:
    page = app.read(_key(args, app), args.offset, args.max_chars, budgeted=False)
    emit(args, page, lambda p: p.text)
    if page.next_offset is not None and not args.json:
        sys.stderr.write(f"minirag: {page.total_chars - page.next_offset} more characters: "
                         f"--offset {page.next_offset}\n")
    return 0


def _cmd_neighbors(args, app) -> int:
    window = app.neighbors(_key(args, app), args.chunk_index, args.before, args.after)
    emit(args, window, fmt_neighbors)
    return 0


def _cmd_list(args, app) -> int:
    from dataclasses import replace

    from minirag.results import files_slice

    whole = app.list_files(_scope(args.scope) or None, args.collection, ignored=args.ignored)
    end = len(whole.files) if args.limit is None else min(len(whole.files), args.offset + args.limit)
    listing = replace(whole, files=whole.files[args.offset:end])
    emit(args, listing, lambda value: f"no files {_under_nothing(args.scope)}"
         if not whole.files and _under_nothing(args.scope) else fmt_list(value),
         shaped=files_slice(whole, args.offset, args.limit) if args.json else None)
    if end < len(whole.files) and not args.json:
        sys.stderr.write(f"minirag: {len(whole.files) - end} more files: --offset {end}\n")
    return 0


def _cmd_collections(args, app) -> int:
    emit(args, app.list_collections(), fmt_collections)
    return 0


def _cmd_delete(args, app) -> int:
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
    emit(args, deleted, fmt_deleted)
    if args.file_path is not None and not args.json and _under_a_root(key, app.config.roots) and os.path.isfile(key):
        sys.stderr.write("minirag: note: the file is still there, so the next sync indexes it again; to keep it "
                         "out, name it in a .minignore at its root (docs/documents.md, ignore rules)\n")
    return 0


def _under_a_root(path: str, roots) -> bool:
    """Whether `path` lies under one of `roots` and leads into one, where a sync finds it (a root no
    longer configured is not synced, nor a link out of the roots followed)."""
    import pathlib

    from minirag.security import containing_root, is_under

    return (any(is_under(path, str(root), os.sep) for root in roots)
            and containing_root(pathlib.Path(os.path.realpath(path)), roots) is not None)


def _cmd_ingest_url(args, app) -> int:
    emit(args, app.ingest_url(args.url, source=args.source, title=args.title), fmt_dict)
    return 0


def _cmd_ingest_data(args, app) -> int:
    app.refuse_if_read_only("ingest-data")  # before waiting on stdin
    if sys.stdin.isatty():  # typed at a terminal: a wait with no word looks hung
        end = "Ctrl-Z, then Enter," if sys.platform == "win32" else "Ctrl-D"
        sys.stderr.write(f"minirag: reading the text to index from the terminal; end it with {end} on a line of its own\n")
        sys.stderr.flush()
    content, warnings = _stdin_text(app.config.max_file_size)
    if not content.strip():  # `cat missing.md | minirag ingest-data`: the source it names must stay as it is
        raise InvalidArgument("standard input was empty or only white space: nothing to index (did the command "
                              "before the pipe fail?); `minirag delete --source ID` removes a source")
    result = app.ingest_data(content, args.source, args.format, args.title)
    emit(args, dataclasses.replace(result, warnings=(*warnings, *result.warnings)), fmt_dict)
    return 0


def _stdin_text(max_size: int) -> tuple[str, tuple[str, ...]]:
    """Standard input as text, read as a file's bytes are (ingest/text_decoding.decode_text): binary data
    is refused, and bytes that are not UTF-8 are decoded by their charset with a warning, where the
    locale's decoder passed them on as lone surrogates that SQLite cannot store. Past `max_size` bytes
    it is refused unread: an input that never ends (`yes |`) was held until memory ran out."""
    raw = getattr(sys.stdin, "buffer", None)
    data = sys.stdin.read(max_size + 1) if raw is None else raw.read(max_size + 1)  # None: a caller's StringIO
    if len(data) > max_size:
        raise InvalidArgument(f"standard input holds more than MAX_FILE_SIZE ({max_size}) bytes: nothing indexed")
    if isinstance(data, str):
        return data, ()
    from minirag.ingest.text_decoding import decode_text

    return decode_text(data, "standard input")


def _cmd_backup(args, app) -> int:
    emit(args, app.backup(args.dest), fmt_dict)
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

        emit(args, ConfigFailure(__version__, str(exc)), fmt_dict)
        return 0
    app = App(config)
    try:
        emit(args, app.status(), fmt_dict)
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
    emit(args, result, format_checks)
    return 0 if result.ok else 1


def _serve(args) -> int:
    from minirag.server_state import load_state

    state = load_state(args)
    if getattr(args, "http", None) is not None:
        # A shared server: its model loads while the MCP SDK is imported. On stdio the first request
        # that needs the model loads it: most sessions a client spawns a server for never search.
        state.load_model_early()
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
            sys.stdout.write(stdout_json(failure(message)) + "\n")
            sys.stdout.flush()
    return code


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; every failure is one line on stderr (exit 1; usage errors 2; Ctrl-C 130), and
    with --json one error object on stdout too."""
    if argv is None:
        _read_names_as_utf8()
        atexit.register(_ignore_stops_at_teardown)  # before any other: run after them all
    try:
        code = _main(argv)
        if argv is None:
            _end_at_a_stop(code)
    finally:
        if argv is None:
            # The process ends (a usage error's or --version's SystemExit too): the teardown's collections
            # skip what it made (the MCP SDK's models, the modules), which they would walk only to free
            # memory the exit frees. What a command opens its own `finally` closes; exits still run.
            gc.freeze()
    native = sys.modules.get("minirag.interruptible")
    if argv is None and native is not None and native.left_running():
        # A model run a second Ctrl-C left is still running: the interpreter's teardown would destroy
        # ONNX Runtime under it (SIGABRT), so the process ends here, its index closed, its output flushed.
        _end_process(code)
    return code


def _read_names_as_utf8() -> None:
    """Start this process again in Python's UTF-8 mode where its locale would have file names read in
    another encoding (a Latin-1 or EUC-JP locale; `C` with PYTHONUTF8=0): the index spells every name
    in UTF-8, and such a process takes `caf\u00e9.md` for a name that is not, or for another file. The
    converter processes it starts inherit the mode. Nothing has been read or written yet. Where the
    restart cannot happen, load_config refuses in one line: only a program Python read from a file
    (`minirag`, `-m minirag`, a script, a zipapp) can run again; one read from stdin or a pipe (`python
    -`, `python <(...)`) would find it at its end, and `-c` code may have read stdin itself."""
    if codecs.lookup(sys.getfilesystemencoding()).name == "utf-8":
        return
    if not sys.executable or os.environ.get("PYTHONUTF8") == "1" or not os.path.isfile(sys.argv[0]):
        return
    os.environ["PYTHONUTF8"] = "1"
    with contextlib.suppress(OSError):
        os.execv(sys.executable, [sys.executable, *sys.orig_argv[1:]])


def _main(argv: Sequence[str] | None) -> int:
    verbose = "-v" in (argv if argv is not None else sys.argv[1:]) or "--verbose" in (argv or sys.argv[1:])
    _fill_closed_descriptors()
    if argv is None:  # the process's own streams, not a caller's
        escape_what_output_cannot_encode()
    invocation = _Invocation()
    try:
        _CTRL_C.clear()
        _TERMINATED_BY.clear()
        return _run(argv, invocation)
    except _Terminated as exc:
        return _failed(invocation.json, _stopped(exc, f"stopped by {signal.Signals(exc.signum).name}"),
                       128 + exc.signum)
    except KeyboardInterrupt as exc:
        return _failed(invocation.json, _stopped(exc, "interrupted"), 130)
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
        argv = command_first(parser, argv)
    if (refusal := _closed_stream(argv)) is not None:
        raise InvalidArgument(refusal)
    args = parse_args(parser, argv)
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
    except (IndexUnavailable, PathOutsideRoots, NotFound) as exc:
        if app.config.db_path_named or (hint := _index_above_file(getattr(args, "file_path", None),
                                                                   app.config.db_path)) is None:
            raise
        raise type(exc)(f"{exc}{hint}") from None
    finally:
        app.close()
    if whole_process and args.command == "query":
        _end_process(code)
    return code


def _index_above_file(file_path: str | None, db_path) -> str | None:
    """Where a command given a file (read, read-neighbors, delete) found no index, or not the file, in
    the configuration it ran with (run from another folder, its root defaulting to that folder): the
    index in the nearest folder above the file, as the way to it; None where there is none or it is
    the one used."""
    from pathlib import Path

    from minirag.config import INDEX_DIRNAME, INDEX_FILENAME

    if not file_path or "://" in file_path:
        return None
    for folder in Path(os.path.abspath(file_path)).parents:  # as deep as the path: no loop over user data
        index = folder / INDEX_DIRNAME / INDEX_FILENAME
        with contextlib.suppress(OSError):
            if index.stat().st_size > 0:
                if os.path.abspath(index) == os.path.abspath(db_path):
                    return None
                return f"; an index above this file is {a_name(str(folder))}'s: give --base-dir {a_name(str(folder))} (or run the command there)"
    return None


def _end_at_a_stop(code: int) -> None:
    """The command is over, its result said and its index closed: what is left is the interpreter's
    teardown (the converter workers retiring, up to seconds). A stop signal then ends the process at
    once with the command's exit code. Raised there, it printed a traceback after the command's line:
    `timeout` sends its SIGTERM to the command and then to its process group, and uv passes one on too."""
    def end(_signum: int, _frame) -> None:
        _end_process(code)

    for name in ("SIGTERM", "SIGHUP", "SIGINT"):  # Windows has no SIGHUP
        if hasattr(signal, name):
            with contextlib.suppress(ValueError):  # not the main thread (no signals to take there)
                signal.signal(getattr(signal, name), end)


def _ignore_stops_at_teardown() -> None:
    """The process's last exit callback: from here on a stop signal is ignored. What is left is the
    interpreter freeing its modules, which it does with every signal put back to its default action
    first: a SIGTERM then (`timeout`'s, after a Ctrl-C's stop was said) killed the process, its exit
    status -15 in place of the command's. An ignored signal stays ignored through that."""
    for name in ("SIGTERM", "SIGHUP", "SIGINT"):  # Windows has no SIGHUP
        if hasattr(signal, name):
            with contextlib.suppress(ValueError):  # not the main thread (no signals to take there)
                signal.signal(getattr(signal, name), signal.SIG_IGN)


def _end_process(code: int) -> None:
    """End a one-shot query's process now: the index is closed and the output flushed, so all the
    interpreter's teardown would add is freeing each module and the ONNX runtime, ~0.04 s of the
    query's CPU (docs/benchmarks.md)."""
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):  # a closed pipe (`| head`): nothing more to say there
            stream.flush()
    os._exit(code)
