"""The CLI's command line: the argparse parser of every command and its flags, the flags' types,
and a usage error as one line."""

from __future__ import annotations

import argparse
import difflib
import math
import os
import re
import shlex
import sys
from collections.abc import Callable

from minirag._compat.python import options_taking_values, subcommands
from minirag.cli_output import MAX_PROGRESS_INTERVAL_S, MIN_PROGRESS_INTERVAL_S, PROGRESS_INTERVAL_S


class _Parser(argparse.ArgumentParser):
    """argparse with a usage error as one line (exit 2) rather than the usage block."""

    parsing: list[str] = []  # the arguments being parsed, for the hint of a file named like an option

    def error(self, message: str):
        hint = (_did_you_mean(message) or _file_named_like_an_option(self.parsing, self.prog)
                or _query_read_as_an_option(message, self.parsing, self))
        self.exit(2, f"minirag: error: {message}{hint} (see `{self.prog} --help`)\n")


def _file_named_like_an_option(arguments: list[str], prog: str) -> str:
    """`; -notes.md names a file: put -- before it` where an argument read as an unknown option names
    a file or folder (argparse reads any `-x` as an option, and then asks for the PATH it took)."""
    named = next((arg for arg in arguments if arg.startswith("-") and arg != "--" and os.path.lexists(arg)), None)
    if named is None:
        return ""
    return f"; {named} names a file: put -- before it (`{prog} -- {shlex.quote(named)}`)"


def _query_read_as_an_option(message: str, arguments: list[str], parser: argparse.ArgumentParser) -> str:
    """`; -Wall reads as an option: to search for it, put -- before it` where `query` lacks its QUERY
    because argparse took a one-word query opening with a dash (a flag searched for) as an option."""
    if not message.endswith("required: QUERY"):
        return ""
    takes_value = options_taking_values(parser)
    known = {flag for action in parser._actions for flag in action.option_strings}  # noqa: SLF001
    after_flag = False
    for arg in arguments[1:]:
        if after_flag:
            after_flag = False
        elif arg == "--":
            return ""
        elif arg.split("=", 1)[0] in known:
            after_flag = arg in takes_value
        elif arg.startswith("-"):
            return f"; {arg} reads as an option: to search for it, put -- before it (`{parser.prog} -- {shlex.quote(arg)}`)"
    return ""


# What other tools call a command, offered as minirag's word for it. Also matched as a slip of the
# finger: `serch` is `search`, not `serve` (a server waiting silently on a terminal).
_OTHER_WORDS = {
    "search": "query", "find": "query", "ask": "query", "grep": "query",
    "index": "ingest", "add": "ingest", "update": "sync", "reindex": "sync", "refresh": "sync",
    "rm": "delete", "remove": "delete", "show": "read", "cat": "read", "get": "read",
    "info": "status", "check": "doctor",
}


def _did_you_mean(message: str) -> str:
    """` (did you mean 'query'?)` after argparse's refusal of a choice (a command, a value of a
    closed set) close to one of those it lists, or to another tool's word for one; "" when none is close."""
    if (refused := re.search(r"invalid choice: '([^']*)' \(choose from (.*)\)$", message)) is None:
        return ""
    choices = re.findall(r"'([^']*)'", refused.group(2))
    words = {**{other: ours for other, ours in _OTHER_WORDS.items() if ours in choices},
             **{choice: choice for choice in choices}}
    close = difflib.get_close_matches(refused.group(1), list(words), n=1)
    return f" (did you mean '{words[close[0]]}'?)" if close else ""


def _unrecognized(extras: list[str], command: argparse.ArgumentParser | None) -> str:
    """argparse's words for arguments no option takes, with the option each unknown one was likely
    meant to be (`--topk` for --top-k) among the command's own."""
    message = f"unrecognized arguments: {' '.join(extras)}"
    if command is None:
        return message
    known = [flag for action in command._actions for flag in action.option_strings]  # noqa: SLF001
    # Options typed after `--`, which makes every argument after it a word: said so, not offered back.
    exact = [extra for extra in extras if extra.split("=", 1)[0] in known] if "--" in _Parser.parsing else []
    if exact:
        return f"{message}; options after -- are read as words, not options: put {', '.join(exact)} before the --"
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
                        help="more on stderr: informational log lines and an internal error's details; for "
                             "ingest, sync and watch, each file as it is ingested (or excluded) and the time "
                             "each stage took")


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
    p.add_argument("--scope", action="append",
                   help="only sources at or under this path (or id prefix); repeatable: under any of them")
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
    p.add_argument("path", nargs="?", metavar="PATH", help="the indexed file holding the chunk (as `read` takes it)")
    p.add_argument("--file-path", help="the same, as minirag-mcp's CLI names it")
    p.add_argument("--source", help="a data/url source id instead of a path")
    p.add_argument("--chunk-index", type=_whole_number(0), required=True,
                   help="the chunk's chunkIndex (from a query result)")
    for side in ("before", "after"):
        p.add_argument(f"--{side}", type=_whole_number(0, MAX_NEIGHBORS), default=1,
                       help=f"chunks to show {side} it (0-{MAX_NEIGHBORS}; default 1)")
    p = add("list", "every file under the roots with its ingestion state, plus data/url sources")
    p.add_argument("--scope", action="append",
                   help="only sources at or under this path (or id prefix); repeatable: under any of them")
    p.add_argument("--collection", help="only this collection (a named root)")
    p.add_argument("--ignored", action="store_true",
                   help="also list the files and folders ignore rules leave out, with the rule")
    p.add_argument("--offset", type=_whole_number(0), default=0,
                   help="skip this many files (a cut listing's nextOffset)")
    p.add_argument("--limit", type=_whole_number(1),
                   help="list at most this many files; how to list the rest goes to stderr (--json: nextOffset)")
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


def command_first(parser: argparse.ArgumentParser, argv: list[str]) -> list[str]:
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


def parse_args(parser: argparse.ArgumentParser, argv: list[str]) -> argparse.Namespace:
    """`argv`, its command first (command_first), parsed by build_parser()'s `parser`. A usage error
    (exit 2) for an argument no option takes, and for a read or delete not given exactly one of a
    path and --source."""
    _Parser.parsing = argv
    args, extras = parser.parse_known_args(argv)
    if extras:
        command = subcommands(parser).get(args.command)
        (command or parser).error(_unrecognized(extras, command))
    if (mistake := _source_choice_error(args)) is not None:
        subcommands(parser)[args.command].error(mistake)
    return args


def _source_choice_error(args: argparse.Namespace) -> str | None:
    """Why `read`, `read-neighbors` or `delete` was not given exactly one of a path and --source, in
    the CLI's own names (App's refusal names the MCP tools' filePath and source); None if it was.
    read-neighbors takes its PATH as `read` does, or as --file-path (minirag-mcp's spelling): the one
    given becomes args.file_path."""
    if args.command not in ("read", "read-neighbors", "delete"):
        return None
    option = wanted = "a PATH"
    if args.command == "read-neighbors":
        option = wanted = "a PATH (or --file-path)"
        if args.path is not None and args.file_path is not None:
            return f"give {option} or --source, not both"
        args.file_path = args.file_path if args.path is None else args.path
    if args.file_path is None and args.source is None:
        verb = "delete" if args.command == "delete" else "read"
        return f"name what to {verb}: {wanted} or --source ID"
    if args.file_path is not None and args.source is not None:
        return f"give {option} or --source, not both"
    return None
