"""listing82: `minirag list` pages as list_files does: --offset and --limit, and with --json the tool's shape
(`files`, `nextOffset`, `truncated`). It printed every file of the roots, 100,000 lines for 100,000 files,
with no way to ask for fewer."""

from __future__ import annotations

import json

import pytest
from conftest import write


@pytest.fixture
def run(run_cli, tmp_path, model_dir, docs):
    for n in range(25):
        write(docs / f"note-{n:03}.md", f"# Note {n}\n\nA short note.\n")

    def run(*args):
        env = {"BASE_DIRS": None, "MODEL_NAME": None, "MODEL_PATH": str(model_dir), "BASE_DIR": str(docs),
               "DB_PATH": str(tmp_path / "i.db")}
        return run_cli(*args, env=env, cwd=docs)

    assert run("sync").returncode == 0
    return run


def test_listing82_list_pages_with_offset_and_limit_and_json_gives_next_offset(run, docs):
    names = [str(docs / f"note-{n:03}.md") for n in range(25)]
    seen, offset, pages = [], 0, 0
    while offset is not None:
        page = json.loads(run("list", "--json", "--limit", "10", "--offset", offset).stdout)
        seen += [entry["source"] for entry in page["files"]]
        assert len(page["files"]) <= 10
        if "nextOffset" in page:
            assert page["truncated"] == {"field": "files", "leftOut": 25 - page["nextOffset"], "limit": 10,
                                         "next": f"pass --offset {page['nextOffset']} for the rest"}
        else:
            assert "truncated" not in page
        offset, pages = page.get("nextOffset"), pages + 1
    assert seen == names and pages == 3


def test_listing82_list_text_says_on_stderr_how_to_go_on(run, docs):
    cut = run("list", "--limit", "10", "--offset", "20")
    assert cut.returncode == 0
    rows = cut.stdout.splitlines()
    assert rows[0].startswith("STATE") and [row.split()[-1] for row in rows[1:]] == [
        str(docs / f"note-{n:03}.md") for n in range(20, 25)]
    assert cut.stderr == ""
    first = run("list", "--limit", "10")
    assert len(first.stdout.splitlines()) == 11
    assert first.stderr == "minirag: 15 more files: --offset 10\n"
    whole = run("list")
    assert len(whole.stdout.splitlines()) == 26 and whole.stderr == ""


def test_listing82_list_refuses_a_limit_below_one_in_one_line(run):
    for bad in ("0", "-3", "ten"):
        said = run("list", "--limit", bad)
        assert said.returncode == 2 and "--limit: must be a whole number, 1 or more" in said.stderr, said
        assert "Traceback" not in said.stderr
