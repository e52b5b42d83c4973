"""argparse CLI. No subcommand (or `serve`) runs the MCP server on stdio.

Every command parses its arguments, calls one App method and prints the
result; --json prints the same object the matching MCP tool returns. Exit status: 0 success, 1 failure
(`ingest`/`sync` fail when any file failed); `status` exits 0 even on a
configuration error, since it is the command that reports one; `watch` runs
until Ctrl-C and then exits 130.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import re
import shlex
import sys
import time
from collections.abc import Callable, Sequence

from minirag import __version__
from minirag.display import for_terminal, is_utf8, on_one_line, printable
from minirag.errors import InvalidArgument, MiniragError

PROGRESS_MIN_FILES = 5
log = logging.getLogger("minirag")


class _Parser(argparse.ArgumentParser):
    """argparse with a usage error as one line (exit 2) rather than the usage block."""

    def error(self, message: str):
        self.exit(2, f"minirag: error: {message} (see `{self.prog} --help`)\n")


def _common(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("configuration (override the environment)")
    group.add_argument("--base-dir", action="append", dest="base_dirs", metavar="DIR",
                       help="document root (repeatable); replaces BASE_DIR/BASE_DIRS")
    group.add_argument("--db-path", help="index file (DB_PATH); default <first root>/.minirag/index.db")
    group.add_argument("--cache-dir", help="model cache directory (CACHE_DIR)")
    group.add_argument("--model-name", help="embedding model id (MODEL_NAME)")
    group.add_argument("--model-path", help="local model directory with model.onnx + tokenizer.json (MODEL_PATH)")
    group.add_argument("--read-only", action="store_true", default=None,
                       help="never write or create the index (MINIRAG_READ_ONLY)")
    group.add_argument("--litestream-config", metavar="FILE",
                       help="Litestream configuration replicating the index: Litestream runs its checkpoints "
                            "(MINIRAG_LITESTREAM_CONFIG; docs/backups.md)")
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    parser.add_argument("-v", "--verbose", action="store_true", help="log progress details to stderr")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="minirag",
        description="Local-first hybrid search over your documents, in one SQLite file. "
        "With no command, serves MCP over stdio.",
    )
    parser.add_argument("--version", action="version", version=f"minirag {__version__}")
    from minirag.config import DEFAULT_TOP_K

    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    def add(name: str, help_text: str) -> argparse.ArgumentParser:
        p = sub.add_parser(name, help=help_text, description=help_text)
        _common(p)
        return p

    p = add("serve", "run the MCP server (stdio by default)")
    p.add_argument("--http", metavar="HOST:PORT", help="serve streamable HTTP instead (default host 127.0.0.1)")
    p.add_argument("--watch", action="store_true", default=None,
                   help="keep the index in sync as files change (MINIRAG_WATCH; =poll to poll)")
    p.add_argument("--token", help="bearer token HTTP clients must send (MINIRAG_HTTP_TOKEN, which `ps` cannot "
                                   "see, is safer); required to bind a non-loopback address")
    p = add("ingest", "index files and folders (recursive); unchanged files are skipped")
    p.add_argument("paths", nargs="+", metavar="PATH", help="files or folders inside the roots")
    p.add_argument("--force", action="store_true", help="re-ingest even unchanged files")
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
    p = add("watch", "sync, then keep the index in sync as files change, until Ctrl-C")
    p.add_argument("--poll", action="store_true", default=None,
                   help="poll every few seconds instead of OS notifications (network drives, WSL /mnt)")
    p = add("query", "hybrid search")
    p.add_argument("text", metavar="QUERY", help="words or a question")
    p.add_argument("--top-k", type=int, default=DEFAULT_TOP_K, help=f"results (1-100; default {DEFAULT_TOP_K})")
    p.add_argument("--scope", help="only sources at or under this path (or id prefix)")
    p = add("read", "print a whole indexed document, rebuilt from its sections")
    p.add_argument("file_path", nargs="?", metavar="PATH", help="an indexed file")
    p.add_argument("--source", help="a data/url source id instead of a path")
    p = add("read-neighbors", "print the chunks around one chunk")
    p.add_argument("--file-path", help="the indexed file holding the chunk")
    p.add_argument("--source", help="a data/url source id instead of a path")
    p.add_argument("--chunk-index", type=int, required=True, help="the chunk's chunkIndex (from a query result)")
    p.add_argument("--before", type=int, default=1, help="chunks to show before it")
    p.add_argument("--after", type=int, default=1, help="chunks to show after it")
    p = add("list", "every file under the roots with its ingestion state, plus data/url sources")
    p.add_argument("--scope", help="only sources at or under this path (or id prefix)")
    add("status", "configuration and index health")
    add("doctor", "check the SQLite driver, model, roots and index; exit 1 if anything is broken")
    p = add("delete", "remove a source from the index (the file on disk is untouched)")
    p.add_argument("file_path", nargs="?", metavar="PATH", help="an indexed file")
    p.add_argument("--source", help="a data/url source id instead of a path")
    p = add("backup", "copy the index to DEST with SQLite's online backup API (safe while serving)")
    p.add_argument("dest", metavar="DEST", help="the copy's file name, or an existing folder to put it in")
    return parser


def _config(args: argparse.Namespace):
    from minirag.config import load_config_from

    return load_config_from(args)


def _emit(args: argparse.Namespace, payload: dict, human: Callable[[dict], str]) -> None:
    if args.json:
        sys.stdout.write(json.dumps(payload, ensure_ascii=False, indent=2) + "\n")
    else:
        sys.stdout.write(for_terminal(human(payload).rstrip("\n")) + "\n")


class _Progress:
    """A one-line live count on stderr, only when stderr is a terminal and the run is not tiny."""

    def __init__(self):
        self.enabled = sys.stderr.isatty()
        self._last = 0.0
        self._shown = False

    def __call__(self, progress) -> None:
        now = time.monotonic()
        if not self.enabled or progress.seen < PROGRESS_MIN_FILES or now - self._last < 0.2:
            return
        self._last, self._shown = now, True
        current = progress.current or ""
        current = for_terminal(current if len(current) <= 50 else "…" + current[-49:])
        of_total = f"[{progress.finished}/{progress.total}] " if progress.total else ""
        sys.stderr.write(f"\r\x1b[K{of_total}{progress.counts()}  {current}")
        sys.stderr.flush()

    def close(self) -> None:
        if self._shown:
            sys.stderr.write("\r\x1b[K")


def _run_files(args, runner) -> int:
    from minirag.ingest.progress import Progress

    progress, display = Progress(), _Progress()
    try:
        runner(progress, display)
    finally:
        display.close()
    payload = progress.to_dict()
    payload.pop("currentFile", None)

    if not args.json:  # what went wrong goes to stderr; the summary is the command's output
        for warning in payload["warnings"]:
            sys.stderr.write(f"warn: {for_terminal(on_one_line(warning))}\n")
    others = progress.other_types_line()
    _emit(args, payload, lambda p: f"{progress.counts()} in {p['elapsedSeconds']} s" + (f"\n{others}" if others else ""))
    return 1 if progress.incomplete else 0


def _cmd_ingest(args, app) -> int:
    return _run_files(args, lambda progress, bar: app.ingest_paths(args.paths, progress, on_change=bar,
                                                                   force=args.force))


def _cmd_sync(args, app) -> int:
    return _run_files(args, lambda progress, bar: app.sync(args.path, progress, on_change=bar))


def _cmd_watch(args, app) -> int:
    import signal
    import threading

    stop, display = threading.Event(), _Progress()

    def on_pass(report) -> None:
        display.close()
        progress = report.progress
        if args.json:
            sys.stdout.write(json.dumps(report.to_dict(), ensure_ascii=False) + "\n")
            sys.stdout.flush()
        elif report.kind == "initial" or progress.done or progress.deleted or progress.incomplete or args.verbose:
            what = f"{report.paths} change{'s' * (report.paths != 1)}" if report.kind == "changes" else report.kind
            lines = [*(f"warn: {for_terminal(on_one_line(w))}" for w in progress.warnings),
                     f"minirag: {time.strftime('%H:%M:%S')} {what}: {progress.counts()} in {report.seconds:.2f} s"]
            sys.stderr.write("\n".join(lines) + "\n")

    def interrupt(_signum, _frame) -> None:
        if stop.is_set():
            raise KeyboardInterrupt  # a second Ctrl-C does not wait for the file in progress
        stop.set()

    def started() -> None:
        sys.stderr.write(f"minirag: watching {', '.join(map(str, app.config.roots))}; Ctrl-C stops\n")

    previous = signal.signal(signal.SIGINT, interrupt)
    try:
        app.watch(stop, on_start=started, on_pass=on_pass, on_change=display, polling=args.poll)
    finally:
        signal.signal(signal.SIGINT, previous)
        display.close()
    sys.stderr.write("minirag: interrupted; stopped watching (what was synced stays)\n")
    return 130


def _fmt_query(payload: dict, scope: str | None = None) -> str:
    if not payload["results"]:
        if scope:
            return (f"no results under {on_one_line(scope)}; `minirag list --scope {shlex.quote(on_one_line(scope))}` "
                    "shows what is indexed there")
        return "no results (is anything indexed? try `minirag status`)"
    lines = []
    for rank, hit in enumerate(payload["results"], 1):
        distance = "keyword-only" if hit["distance"] is None else f"distance {hit['distance']:.3f}"
        pages = f" p. {hit['pages']}" if hit.get("pages") else ""
        lines.append(f"{rank}. {on_one_line(hit['source'])} #{hit['chunkIndex']}{pages}  "
                     f"(score {hit['score']:.4f}, {distance})")
        # A chunk's text opens with its breadcrumb (title > headings) when it has a title: shown
        # once, as the heading line, not again as the snippet's first words.
        first, _, rest = hit["text"].partition("\n")
        heading, body = (first, rest) if hit["title"] and first.startswith(hit["title"]) and rest.strip() else (
            hit["title"], hit["text"])
        if heading:
            lines.append(f"   {on_one_line(heading)}")
        if not hit["source"].lower().endswith(".txt"):  # plain text's backslashes are its own
            body = _MARKDOWN_ESCAPE.sub(r"\1", body)
        snippet = " ".join(body.split())
        lines.append(f"   {snippet[:300]}{'…' if len(snippet) > 300 else ''}")
    return "\n".join(lines)


# Backslash escapes the Markdown conversion adds (`toml\_str`): read as the characters they escape.
_MARKDOWN_ESCAPE = re.compile(r"\\([\\`*_{}\[\]()#+\-.!|~<>])")


def _scope(value: str | None) -> str | None:
    """A CLI scope that names a path on disk is resolved against the current directory, as every
    CLI path is; anything else (a data or url source id prefix) is kept as written."""
    if value is None or "://" in value or os.path.isabs(value):
        return value
    resolved = os.path.abspath(value)
    return resolved if os.path.exists(resolved) else value


def _cmd_query(args, app) -> int:
    scope = _scope(args.scope)
    _emit(args, app.query(args.text, top_k=args.top_k, scope=scope), lambda p: _fmt_query(p, scope))
    return 0


def _key(args, app) -> str:
    return app.source_key(file_path=getattr(args, "file_path", None), source=args.source)


def _cmd_read(args, app) -> int:
    _emit(args, app.read(_key(args, app)), lambda p: p["text"])
    return 0


def _cmd_neighbors(args, app) -> int:
    payload = app.neighbors(_key(args, app), args.chunk_index, args.before, args.after)
    _emit(args, payload, lambda p: "\n\n".join(
        f"--- #{c['chunkIndex']}{' (hit)' if c['isTarget'] else ''}\n{c['text']}" for c in p["chunks"]))
    return 0


def _cmd_list(args, app) -> int:
    _emit(args, app.list_files(_scope(args.scope)), lambda p: "\n".join(
        f"{f['state']:<13} {f['chunkCount']:>6}  {on_one_line(f['source'])}"
        + "".join(f"  ({on_one_line(f[key])})" for key in ("reason", "note") if key in f)
        for f in p["files"]) or "no files")
    return 0


def _cmd_delete(args, app) -> int:
    _emit(args, app.delete(_key(args, app)), lambda p: f"deleted {on_one_line(p['source'])} ({p['deletedChunks']} chunks)")
    return 0


def _fmt_dict(payload: dict) -> str:
    """One `key: value` line a field (the keys are the --json names), values written for reading."""
    return "\n".join(f"{k}: {on_one_line(_readable(v))}" for k, v in payload.items())


def _readable(value) -> str:
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, dict):
        return ", ".join(f"{k}={_readable(v)}" for k, v in value.items()) or "-"
    if isinstance(value, (list, tuple)):
        joiner = "; " if any(isinstance(v, dict) for v in value) else ", "
        return joiner.join(_readable(v) for v in value) or "-"
    return str(value)


def _cmd_ingest_url(args, app) -> int:
    _emit(args, app.ingest_url(args.url, source=args.source, title=args.title), _fmt_dict)
    return 0


def _cmd_ingest_data(args, app) -> int:
    app.refuse_if_read_only("ingest-data")  # before waiting on stdin
    content = sys.stdin.read()
    _emit(args, app.ingest_data(content, args.source, args.format, args.title), _fmt_dict)
    return 0


def _cmd_backup(args, app) -> int:
    _emit(args, app.backup(args.dest), _fmt_dict)
    return 0


COMMANDS = {
    "ingest": _cmd_ingest, "sync": _cmd_sync, "watch": _cmd_watch, "query": _cmd_query, "read": _cmd_read,
    "read-neighbors": _cmd_neighbors, "list": _cmd_list, "delete": _cmd_delete,
    "ingest-url": _cmd_ingest_url, "ingest-data": _cmd_ingest_data, "backup": _cmd_backup,
}


def _status(args) -> int:
    from minirag.app import App
    from minirag.config import ConfigError

    try:
        config = _config(args)
    except ConfigError as exc:
        _emit(args, {"version": __version__, "configError": str(exc)}, _fmt_dict)
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
    return 0 if result["ok"] else 1


def _serve(args) -> int:
    from minirag.server import serve

    return serve(args)


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; every failure is one line on stderr (exit 1; usage errors 2; Ctrl-C 130)."""
    verbose = "-v" in (argv if argv is not None else sys.argv[1:]) or "--verbose" in (argv or sys.argv[1:])
    try:
        return _run(argv)
    except KeyboardInterrupt:
        sys.stderr.write("minirag: interrupted\n")
        return 130
    except MiniragError as exc:
        sys.stderr.write(f"minirag: error: {for_terminal(_one_line(exc))}\n")
        return 1
    except Exception as exc:  # noqa: BLE001 - a bug still gets one line; -v shows the traceback
        if verbose:
            log.exception("internal error")
        sys.stderr.write(f"minirag: internal error: {type(exc).__name__}: {for_terminal(_one_line(exc))} "
                         "(rerun with -v for the details, and please report it)\n")
        return 1


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split()) or type(exc).__name__


def _run(argv: Sequence[str] | None) -> int:
    parser = build_parser()
    argv = list(sys.argv[1:] if argv is None else argv)
    for arg in argv:
        if not is_utf8(arg):  # bytes the locale could not decode, passed on as lone surrogates
            raise InvalidArgument(f"the argument {printable(arg)!r} is not valid UTF-8")
    if not argv or (argv[0].startswith("-") and argv[0] not in ("-h", "--help", "--version")):
        argv = ["serve", *argv]  # no command: serve stdio, with whatever flags were given
    args = parser.parse_args(argv)
    logging.basicConfig(stream=sys.stderr, level=logging.INFO if getattr(args, "verbose", False) else logging.WARNING,
                        format="minirag: %(levelname)s: %(message)s")
    if args.command == "serve":
        return _serve(args)
    if args.command == "status":
        return _status(args)
    if args.command == "doctor":
        return _doctor(args)
    from minirag.app import App
    from minirag.config import ConfigError

    try:
        app = App(_config(args))
    except ConfigError as exc:
        sys.stderr.write(f"minirag: configuration error: {for_terminal(_one_line(exc))}\n")
        return 1
    try:
        return COMMANDS[args.command](args, app)
    finally:
        app.close()
