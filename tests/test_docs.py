"""The documentation stays true to the code: the generated references are current, every
variable the code reads is in the settings table, the README's client snippets parse, its
commands are the ones CI runs, it fits on a screen or two, and every relative link lands
on a file. (CI runs the README's commands themselves: scripts/readme_commands.py.)"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import json
import re
import shlex
import sys
import tomllib
from pathlib import Path

import pytest

from minirag.cli_parser import build_parser
from minirag.config import SETTING

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
README_LIMIT = 12 * 1024


def _script(name: str):
    spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def _fenced(text: str, language: str) -> list[str]:
    return re.findall(rf"^```{language}\n(.*?)^```$", text, flags=re.S | re.M)


gen_docs = _script("gen_docs")
readme_commands = _script("readme_commands")


@pytest.mark.parametrize("path", sorted(gen_docs.GENERATED))
def test_the_generated_reference_matches_what_the_code_generates_now(path):
    committed = (ROOT / path).read_text(encoding="utf-8")
    assert committed == gen_docs.GENERATED[path](), f"{path} is stale: run `{gen_docs.REGENERATE}` and commit it"


def test_every_environment_variable_the_code_reads_is_in_the_settings_table():
    read = set()
    for source in (ROOT / "minirag").rglob("*.py"):
        text = source.read_text(encoding="utf-8")
        read |= set(re.findall(r"""(?:env|environ)(?:\.get|\.setdefault|\.pop)?\(\s*["']([A-Z][A-Z0-9_]+)["']""", text))
        read |= set(re.findall(r"""(?:env|environ)\[\s*["']([A-Z][A-Z0-9_]+)["']\s*\]""", text))
        read |= set(re.findall(r"""getenv\(\s*["']([A-Z][A-Z0-9_]+)["']""", text))
    assert {"BASE_DIR", "DB_PATH", "MINIRAG_WATCH", "HF_HUB_OFFLINE"} <= read, "the scan finds nothing: fix it"
    assert sorted(read - set(SETTING)) == [], "add these to SETTINGS in minirag/config.py"


def test_the_readme_client_snippets_are_valid_json_and_toml():
    text = README.read_text(encoding="utf-8")
    snippets = [json.loads(block) for block in _fenced(text, "json")]
    snippets += [tomllib.loads(block) for block in _fenced(text, "toml")]
    assert len(snippets) >= 3, "the Claude Code, Cursor and Codex snippets are gone"
    for snippet in snippets:
        servers = snippet.get("mcpServers") or snippet.get("mcp_servers")
        assert servers and servers["minirag"]["command"], snippet


def test_the_readme_fits_on_a_screen_or_two():
    size = README.stat().st_size
    assert size <= README_LIMIT, f"README.md is {size} bytes, over {README_LIMIT}: move detail to docs/"


def test_every_relative_link_in_the_readme_and_docs_names_a_file_that_exists():
    broken = []
    for page in [README, *sorted((ROOT / "docs").glob("*.md"))]:
        text = page.read_text(encoding="utf-8")
        for target in re.findall(r"\]\(([^)\s]+)\)", text):
            if re.match(r"[a-z]+:", target) or target.startswith("#"):
                continue
            if not (page.parent / target.split("#")[0]).exists():
                broken.append(f"{page.relative_to(ROOT)} -> {target}")
    assert broken == []


def test_no_readme_command_that_ci_runs_installs_minirag_from_pypi_or_the_package_folder():
    runnable = [b.code for b in readme_commands.blocks(README.read_text(encoding="utf-8")) if b.runnable]
    assert len(runnable) >= 2, "the set-up and quick start blocks no longer run"
    pypi = re.compile(r"""(pip install|uv tool install|uvx( --from)?)\s+['"]?minirag\b|\./minirag\b""")
    assert [code for code in runnable if pypi.search(code)] == []


def test_the_readme_test_command_is_marked_not_run_because_ci_runs_it_before_the_readme_commands():
    found = readme_commands.blocks(README.read_text(encoding="utf-8"))
    tests = [b for b in found if "uv run pytest" in b.code]
    assert len(tests) == 1 and not tests[0].runnable and tests[0].skip_reason
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert "uv run pytest" in ci and "uv run python scripts/readme_commands.py" in ci
    assert ci.index("uv run pytest") < ci.index("uv run python scripts/readme_commands.py")


def test_a_marker_comment_right_before_a_fence_skips_or_slows_that_block_only():
    text = "<!-- not run: elsewhere -->\n```bash\nfalse\n```\n\n<!-- slow: a while -->\n\n```sh\ntrue\n```\n```bash\nls\n```\n"
    first, second, third = readme_commands.blocks(text)
    assert (first.runnable, first.skip_reason) == (False, "elsewhere")
    assert (second.runnable, second.slow_reason, second.code) == (True, "a while", "true\n")
    assert (third.runnable, third.skip_reason, third.slow_reason) == (True, None, None)


def test_every_claude_mcp_add_line_names_the_server_before_its_env_options():
    """Claude Code's `-e/--env` takes every word up to the next option or `--`, so a server name
    written after it is read as one more variable ("Invalid environment variable format: minirag");
    `claude mcp add NAME -e KEY=VALUE -- COMMAND` is the order that works."""
    lines = [line for page in [README, *sorted((ROOT / "docs").glob("*.md"))]
             for line in page.read_text(encoding="utf-8").splitlines() if "claude mcp add " in line]
    assert lines, "the Claude Code line is gone"
    wrong = []
    for line in lines:
        words = shlex.split(line[line.index("claude mcp add "):].split(" #")[0])[3:]
        words = words[:words.index("--")] if "--" in words else words
        taking_value = {"-s", "--scope", "-t", "--transport", "-H", "--header"}
        name_at = next(i for i, w in enumerate(words)
                       if not w.startswith("-") and (i == 0 or words[i - 1] not in taking_value | {"-e", "--env"}))
        if any(w in ("-e", "--env") for w in words[:name_at]):
            wrong.append(line.strip())
    assert wrong == []


def test_the_watch_table_names_every_field_of_the_watch_object():
    """docs/watch.md's table of `status`/`sync_status`'s `watch` object is written by hand."""
    from minirag.ingest.watch import WatchState
    from minirag.results import payload

    state = WatchState(watching=True, mode="polling", roots=("/r",), debounce_seconds=0.5, reconcile_every_seconds=300,
                       next_reconcile_in_seconds=1, passes=0, running=None, queued=0, queued_paths=(), last_pass=None,
                       poll_interval_seconds=5, waiting_for_lock="x", last_error="x", notification_error="x", warning="x")
    text = (ROOT / "docs" / "watch.md").read_text(encoding="utf-8")
    table = text[text.index("## What the server reports"):text.index("## How it works")]
    assert [key for key in payload(state) if f"`{key}`" not in table] == []


def test_the_inspect_page_names_every_table_and_column_of_an_index(tmp_path):
    """docs/inspect.md is a user's map of the file in the sqlite3 shell, written by hand."""
    from minirag.store.index import Index

    index = Index(tmp_path / "index.db")
    index.bind_model("a-model", 8)  # the vector table comes with the model
    conn = index.conn
    shadow = ("chunks_fts_", "chunks_vec_", "sqlite_")  # FTS5's and vec0's own tables
    tables = [name for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
              if not name.startswith(shadow)]
    text = (ROOT / "docs" / "inspect.md").read_text(encoding="utf-8")
    rows = {cells[0]: cells[1] for cells in (line.strip("|").split("|", 1) for line in text.splitlines()
                                             if line.startswith("| `"))}
    named = {table: row for cell, row in rows.items() for table in re.findall(r"`(\w+)`", cell)}
    assert [t for t in tables if t not in named] == []
    unnamed = [f"{table}.{column}" for table in ("sources", "parents", "chunks", "exclusions", "migrations", "chunks_fts")
               for (column,) in conn.execute(f"SELECT name FROM pragma_table_info('{table}')")
               if column != "id" and f"`{column}`" not in named[table]]
    index.close()
    assert unnamed == []


def test_every_minirag_or_rag_variable_the_docs_name_is_one_minirag_reads():
    """A variable renamed in the code and not in the docs is one a user sets for nothing (minirag
    warns about an unknown MINIRAG_*/RAG_* name, but only once it runs)."""
    from minirag.config import FOREIGN_ROOT, FOREIGN_STORE

    named = set()
    for page in [README, *sorted((ROOT / "docs").glob("*.md"))]:
        named |= set(re.findall(r"\b(?:MINIRAG|RAG)_[A-Z0-9_]*[A-Z0-9]\b", page.read_text(encoding="utf-8")))
    typo_example = {"RAG_HYBRID_WIEGHT"}  # compatibility.md: the warning a misspelt setting gets
    assert sorted(named - set(SETTING) - {FOREIGN_ROOT, FOREIGN_STORE} - typo_example) == []


def _documented_command_lines() -> list[tuple[str, list[str]]]:
    """Each `minirag ...` line of a shell block in README.md and docs/ (cli.md's usage lines, which
    are generated, aside), as the words after `minirag`."""
    found = []
    for page in [README, *sorted((ROOT / "docs").glob("*.md"))]:
        for block in re.findall(r"^```(?:bash|sh)\n(.*?)^```$", page.read_text(encoding="utf-8"), flags=re.S | re.M):
            for line in block.splitlines():
                for code in re.sub(r"\s#\s.*$", "", line).split("&&"):
                    code = re.sub(r"^(?:[A-Z_]+=\S*\s+)+", "", code.strip())  # `MINIRAG_WATCH=1 minirag serve`
                    match = re.match(r"(?:(?:uv run|uvx)(?:\s+--?[\w-]+(?:[ =](?!minirag\b)[^\s-]\S*)?)*\s+)?"
                                     r"(?:minirag|python3 \S*minirag\.pyz)\s+(.*)$", code)
                    if match and "…" not in code and "|" not in match.group(1):
                        found.append((f"{page.name}: {line.strip()}", shlex.split(match.group(1))))
    return found


def test_every_documented_command_line_is_one_the_cli_accepts():
    """A flag renamed or a command removed, and the README's or a page's example fails at once."""
    parser = build_parser()
    lines = _documented_command_lines()
    assert len(lines) >= 30, "the scan finds no examples: fix it"
    refused = []
    for where, words in lines:
        if words[0].startswith("-") and words[0] not in ("--version", "--help", "-h"):
            words = ["serve", *words]  # flags with no command serve stdio with those flags
        try:
            with contextlib.redirect_stderr(io.StringIO()) as err, contextlib.redirect_stdout(io.StringIO()):
                parser.parse_args(words)
        except SystemExit as exit_:
            if exit_.code:
                refused.append(f"{where} -> {err.getvalue().strip()}")
    assert refused == []


def test_the_readme_counts_the_test_documents_its_set_up_command_indexes():
    """The set-up line says how many documents it indexes; fixtures were added after it was written."""
    from minirag.ingest.scan import walk

    said = re.findall(r"the (\d+) test documents", README.read_text(encoding="utf-8"))
    docs = ROOT / "tests" / "fixtures" / "docs"
    there = list(walk(docs, [docs]))  # as a sync finds them: compressed ones, manual pages by their heads
    assert said and {int(n) for n in said} == {len(there)}


def test_the_list_files_row_names_every_field_of_a_listed_file():
    """docs/mcp-tools.md's tool table is written by hand: a listed file's fields had gone unnamed."""
    from minirag.ingest.listing import ListEntry
    from minirag.results import list_entry

    entry = ListEntry("/r/a.pdf", "file", "A", "failed", 1, 0, reason="x", lifecycle="superseded", note="x")
    text = (ROOT / "docs" / "mcp-tools.md").read_text(encoding="utf-8")
    row = next(line for line in text.splitlines() if line.startswith("| `list_files` |"))
    assert [key for key in list_entry(entry) if f"`{key}`" not in row] == []
