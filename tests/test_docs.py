"""The documentation stays true to the code: the generated references are current, every
variable the code reads is in the settings table, the README's client snippets parse, the
README fits on a screen or two, and every relative link lands on a file."""

from __future__ import annotations

import importlib.util
import json
import re
import tomllib
from pathlib import Path

import pytest

from minirag.config import SETTING

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
README_LIMIT = 12 * 1024


def _gen_docs():
    spec = importlib.util.spec_from_file_location("gen_docs", ROOT / "scripts" / "gen_docs.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _fenced(text: str, language: str) -> list[str]:
    return re.findall(rf"^```{language}\n(.*?)^```$", text, flags=re.S | re.M)


gen_docs = _gen_docs()


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
