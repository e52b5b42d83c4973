"""Write the generated references from the code, so they cannot drift from it:

    docs/configuration.md   from SETTINGS in minirag/config.py
    docs/cli.md             from minirag.cli_parser.build_parser()

    uv run python scripts/gen_docs.py           # rewrite both
    uv run python scripts/gen_docs.py --check   # exit 1 naming the stale ones (tests/test_docs.py checks the same)
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from minirag.cli_parser import build_parser  # noqa: E402
from minirag.config import SETTINGS, Setting  # noqa: E402

REGENERATE = "uv run python scripts/gen_docs.py"


def _banner(source: str) -> str:
    return f"<!-- Generated from {source} by scripts/gen_docs.py; do not edit: change the code, then run `{REGENERATE}`. -->\n"


def _cell(text: str) -> str:
    """Table-safe Markdown: pipes escaped, and `<`/`>` outside code spans (`<first root>` is no HTML tag)."""
    parts = text.replace("|", "\\|").replace("\n", " ").split("`")
    for i in range(0, len(parts), 2):
        parts[i] = parts[i].replace("<", "&lt;").replace(">", "&gt;")
    return "`".join(parts)


def _table(header: tuple[str, ...], rows: list[tuple[str, ...]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(_cell(c) for c in row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


# --- docs/configuration.md ---------------------------------------------------------------


def configuration_md() -> str:
    own = [s for s in SETTINGS if s.read_by == "minirag"]
    others = [s for s in SETTINGS if s.read_by != "minirag"]

    def flag(s: Setting) -> str:
        return ", ".join(f"`{f.strip()}`" for f in s.flag.split(",")) if s.flag else ""

    return "".join([
        _banner("SETTINGS in minirag/config.py"),
        "# Configuration\n\n",
        "Every setting is an environment variable; most also have a command-line flag. "
        "Flags win over environment variables, which win over the defaults. The document roots "
        "follow the same rule a level deeper: `--base-dir` (repeatable) > `BASE_DIRS` > `BASE_DIR` > "
        "the current directory, each level replacing the ones below it. An MCP client passes "
        "settings in the `env` block of its server entry (see the README's client snippets).\n\n",
        "An invalid value is a configuration error, one line naming the variable and what it accepts; "
        "`minirag status` and the `status` tool still answer and report it as `configError`.\n\n",
        "A path setting (`BASE_DIR`, `BASE_DIRS`, `DB_PATH`, `CACHE_DIR`, `MODEL_PATH`) may start with `~`; "
        "a relative one is taken from the working folder. minirag expands no `$VARIABLE`: many clients pass "
        "`env` values as written (Codex, Cursor), so one that holds a set variable and names nothing on disk "
        "is refused, giving the path written out, rather than made as a folder named `${HOME}`.\n\n",
        "## Settings\n\n",
        _table(("variable", "flag", "default", "accepts", "meaning"),
               [(f"`{s.name}`", flag(s), s.default, s.accepts, s.meaning) for s in own]),
        "\n## The model an index remembers\n\n",
        "The first ingest records the model in the index (and the `MODEL_PATH` it was written with, if "
        "any). With neither `MODEL_NAME` nor `MODEL_PATH` named, every command and the server use that "
        "model, found on the local disk (`MODEL_PATH`, the offline-model package, the model cache); a "
        "new index uses the default. Naming a different model than the index's is refused before "
        "anything is downloaded, in one line naming both models and the two ways out: name the "
        "index's model (or none), or re-index into a new `DB_PATH`. See [models.md](models.md).\n\n",
        "## Read by the libraries minirag uses\n\n",
        _table(("variable", "read by", "default", "accepts", "meaning"),
               [(f"`{s.name}`", s.read_by, s.default, s.accepts, s.meaning) for s in others]),
    ])


# --- docs/cli.md -------------------------------------------------------------------------

CLI_INTRO = """\
# Command line

`minirag COMMAND [arguments] [options]`. `minirag-mcp` is the same program under the
name minirag-mcp's users have in their client configurations (see
[compatibility.md](compatibility.md)).

- With no command, `minirag` is an MCP server on stdio; flags with no command
  (`minirag --base-dir ~/docs`) serve stdio with those flags. `minirag --version`
  prints the version.
- `--json` prints the same object the matching MCP tool returns (`list` and
  `read` whole, where the tools page by the response budget). A command that
  fails or is stopped (Ctrl-C, SIGTERM, SIGHUP) prints instead one object on one
  line, `{"error": "interrupted"}`, holding its stderr line's message (without
  `minirag: error: `) under `error`, the key a failed sync job's JSON uses, so a
  program reading the JSON never gets empty input; the exit status stays as
  below. `watch --json` ends its passes with that line. A usage error (exit 2)
  is only on stderr.
- `query` without `--json` shows each hit's heading and 300 characters of its
  text: the stretch that holds the most of the query's words, matched as the
  keyword side matches them (stemmed; Chinese and Japanese by character pairs)
  and each weighed by how few chunks hold it, so a table's row named by a rare
  word is shown rather than the headings every chunk repeats. `…` marks a cut.
  A hit's first line names its pages after its chunk index (`#4 p. 12-13`), or
  for a spreadsheet its sheet and rows (`#4 Staff: rows 12–40`; a CSV file's
  `rows 12–40`), as `read-neighbors`' frame lines do (`--- #4 Staff: rows 12–40 (hit)`).
- Relative paths, including `--scope`, resolve against the current directory; a
  relative `--scope` that names nothing on disk is kept as a data/url source id
  prefix (an absolute one that matches nothing is refused: [search.md](search.md)). An
  empty path, `--scope` or `--base-dir` (`""`) is refused, never read as the
  current directory, as is a blank `--db-path`, `--cache-dir`, `--model-path` or
  `--litestream-config` (`" "`, which named a file of spaces there) and a
  `--title` holding a control character (a title is one line).
- Exit status: 0 on success; 1 on any failure, reported as one line on stderr
  (`minirag: error: ...`, or `minirag: configuration error: ...` for a setting;
  never a traceback; `-v` adds the details of an internal error; memory running out,
  under `ulimit -v` or not, is `minirag: error: out of memory ...`, and file descriptors running out
  (`ulimit -n`) `too many open files ...`, for the command or for each file, no internal error); 2 for a usage error
  (a mistyped command or option is named with the one meant: `--topk` → `--top-k`); 130 after Ctrl-C; 143 after SIGTERM and 129 after
  SIGHUP, which stop a command as Ctrl-C does (a backup's partial copy is removed,
  the index closed), with one line saying which; a stopped `ingest` or `sync` says too how many files
  it indexed before the stop (each is written whole or not at all: they stay), how many chunks it
  had embedded for files not finished (kept: the next run does not embed them again), and that the
  same command run again does the rest. `ingest` and `sync` exit 1 if any
  file failed, a folder could not be read, or a file named on its own is no document
  (`ingest style.css`: its type is said) (each gets a `warn:` line on stderr;
  the summary line is the output). `sync` counts a file that failed before and
  has not changed as still failing, without either, unless `--strict` is given:
  then it fails the run too, for CI; `ingest` tries the files it is given again; `status` exits 0 even with a broken
  configuration and reports it as `configError`; `doctor` exits 1 if any check
  failed; `watch` runs until Ctrl-C.
- A closed standard output (`>&-`) is refused before anything runs (`>/dev/null`
  discards the output instead), as is a closed standard input for `ingest-data`
  and the stdio server (and an empty one for `ingest-data`: `cat missing.md | minirag
  ingest-data --source notes` leaves `notes` as it was); a closed stderr only silences the warnings. Where stdout's
  encoding lacks a character (`PYTHONIOENCODING=ascii`, a Latin-1 locale, a Windows
  code page when redirected) it is written as an escape (`\\xe9`; `--json` uses
  JSON's `\\u00e9`, so a JSON reader gets the same text).
- File names are read as UTF-8. Where Python would read them in another encoding (a Latin-1 or
  EUC-JP locale, or `LC_ALL=C` with `PYTHONUTF8=0`), `minirag` starts itself again in Python's UTF-8
  mode (`PYTHONUTF8=1`): otherwise a sync there takes `café.md` for a name that is not UTF-8 and
  drops it from the index. Where that restart cannot happen (minirag used as a library), the
  configuration is refused in one line (`set PYTHONUTF8=1, or use a UTF-8 locale`).
- Text output shows what a document or a file name holds so that it cannot act on the terminal or
  pass for something else: terminal controls and direction overrides are escaped (`\\x1b`), a line
  break inside a name or a heading too (`\\n`, and `\\u2028`, which a line splitter breaks at); in a
  file name, path or id every character that shows as nothing or as a plain space is escaped
  (`pass\\u200bwords.md`, which printed exactly as `passwords.md`: zero-width spaces and joiners,
  direction marks, no-break spaces, tags, variation selectors), where in a document's text they are
  its own; and a line of a chunk shaped as `read-neighbors`' frame (`--- #7 (hit)`) is shown as
  `\\--- #7 (hit)`. `--json` carries every string exactly, quoted (as the MCP tools do: an agent
  passes a name back as it got it), with what a terminal acts on written as JSON's `\\u` escapes
  (DEL, C1 controls such as U+009B, a one-byte CSI, direction overrides, U+2028), which JSON itself
  leaves raw: a JSON reader gets the same strings.
- `query` in a terminal wraps each hit's heading, snippet and `also in` line to the terminal's width
  at word breaks, under their indent, and puts the scores under a source line they would push past
  it; piped or redirected, each is one line. No command writes colour codes.

## Examples

```bash
minirag ingest ~/docs/notes ~/docs/report.pdf     # files and folders, recursive
minirag sync                                      # reconcile with the roots
minirag watch                                     # sync, then follow changes until Ctrl-C
minirag ingest-url https://example.com/page --source page
echo "# Meeting" | minirag ingest-data --source notes/meeting-1 --format markdown
minirag query "changelog" --scope ~/docs/releases --top-k 5
minirag read ~/docs/notes.md                      # the whole document, rebuilt from sections
minirag read-neighbors ~/docs/notes.md --chunk-index 3 --before 2 --after 2
minirag list                                      # every file with its state
minirag delete ~/docs/old.md                      # from the index; the file stays
minirag status --json
minirag backup ~/backups/                         # online, consistent copy into an existing folder
minirag doctor                                    # what usually breaks: driver, model, roots, index
```
"""


def _subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


def _own_actions(parser: argparse.ArgumentParser) -> list[argparse.Action]:
    return [a for a in parser._actions
            if not isinstance(a, argparse._HelpAction) and a.help != argparse.SUPPRESS]


def _key(action: argparse.Action) -> tuple[str, ...]:
    return tuple(action.option_strings) or (action.dest,)


def _name(action: argparse.Action) -> str:
    if not action.option_strings:
        return action.metavar or action.dest
    flags = ", ".join(action.option_strings)
    return flags if action.nargs == 0 else f"{flags} {action.metavar or action.dest.upper()}"


def _meaning(action: argparse.Action) -> str:
    parts = [action.help or ""]
    if action.choices:
        parts.append("one of " + ", ".join(f"`{c}`" for c in action.choices))
    if action.required and action.option_strings:
        parts.append("required")
    if not action.option_strings and action.nargs in ("?", "*"):
        parts.append("optional")
    if not action.option_strings and action.nargs in ("+", "*"):
        parts.append("one or more")
    return "; ".join(p for p in parts if p)


def _default(action: argparse.Action) -> str:
    if action.nargs == 0 or action.default in (None, False, argparse.SUPPRESS):
        return ""
    return f"`{action.default}`"


def _rows(actions: list[argparse.Action]) -> list[tuple[str, str, str]]:
    return [(f"`{_name(a)}`", _default(a), _meaning(a)) for a in actions]


def _usage(name: str, actions: list[argparse.Action], has_common: bool) -> str:
    words = [f"minirag {name}"]
    for a in actions:
        if a.option_strings:
            word = _name(a).split(", ")[-1]
            words.append(word if a.required else f"[{word}]")
        else:
            label = a.metavar or a.dest
            words.append({"?": f"[{label}]", "+": f"{label} [{label} ...]"}.get(a.nargs, label))
    if has_common:
        words.append("[common options]")
    return " ".join(words)


def cli_md() -> str:
    commands = _subcommands(build_parser())
    shared = set.intersection(*({_key(a) for a in _own_actions(p)} for p in commands.values()))
    first = next(iter(commands.values()))
    common = [a for a in _own_actions(first) if _key(a) in shared]
    out = [_banner("minirag.cli_parser.build_parser()"), CLI_INTRO,
           "\n## Options every command takes\n\n",
           "They override the environment variables named in brackets (see "
           "[configuration.md](configuration.md)).\n\n",
           _table(("option", "default", "meaning"), _rows(common)),
           "\n## Commands\n\n",
           _table(("command", "what it does"), [(f"[`{n}`](#minirag-{n})", p.description or "")
                                                for n, p in commands.items()])]
    for name, parser in commands.items():
        own = [a for a in _own_actions(parser) if _key(a) not in shared]
        out.append(f"\n## minirag {name}\n\n{parser.description}\n\n"
                   f"```\n{_usage(name, own, bool(common))}\n```\n")
        if own:
            out.append("\n" + _table(("argument", "default", "meaning"), _rows(own)))
    return "".join(out)


GENERATED: dict[str, Callable[[], str]] = {
    "docs/configuration.md": configuration_md,
    "docs/cli.md": cli_md,
}


def stale() -> list[str]:
    """The generated files whose committed text differs from what the code generates now."""
    return [path for path, render in GENERATED.items()
            if not (ROOT / path).is_file() or (ROOT / path).read_text(encoding="utf-8") != render()]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 if a file is stale")
    args = parser.parse_args(argv)
    if args.check:
        found = stale()
        for path in found:
            print(f"{path} is stale: run `{REGENERATE}`", file=sys.stderr)
        return 1 if found else 0
    for path, render in GENERATED.items():
        (ROOT / path).write_text(render(), encoding="utf-8")
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
