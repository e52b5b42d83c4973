"""A new user runs `minirag ingest ~/docs` from another folder (the root is then the working folder)
or names a folder and a mistyped file: the ingest is refused in one line, and the working folder
is left as it was. It had kept a `.minirag` folder holding a .gitignore and a sync lock, though
nothing was indexed."""

from __future__ import annotations

import os

import pytest
from conftest import write


@pytest.fixture
def first_run(tmp_path, model_dir, monkeypatch):
    """A working folder with no index yet and no root named: the root is the working folder."""
    for name in ("BASE_DIR", "BASE_DIRS", "DB_PATH", "MODEL_NAME", "MINIRAG_READ_ONLY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("MODEL_PATH", str(model_dir))
    here, elsewhere = tmp_path / "project", tmp_path / "docs"
    write(here / "notes" / "a.md", "# Otters\n\nSea otters hold hands while they sleep.\n")
    write(elsewhere / "b.md", "# Beavers\n\nBeavers build dams.\n")
    return here, elsewhere


def test_e2e84_a_folder_outside_the_roots_is_refused_leaving_no_index_folder(first_run, run_cli):
    here, elsewhere = first_run
    done = run_cli("ingest", str(elsewhere), cwd=here)
    assert done.returncode == 1 and done.stderr.count("\n") == 1, done.stderr
    assert done.stderr.startswith(f"minirag: error: path outside configured document roots: {elsewhere}"), done.stderr
    assert sorted(os.listdir(here)) == ["notes"]


def test_e2e84_a_folder_with_a_mistyped_file_is_refused_leaving_no_index_folder(first_run, run_cli):
    here, _ = first_run
    done = run_cli("ingest", "notes", "notes/typo.md", cwd=here)
    assert done.returncode == 1 and "no such file or directory" in done.stderr, done.stderr
    assert sorted(os.listdir(here)) == ["notes"]
    assert run_cli("ingest", "notes", cwd=here).returncode == 0  # and the folder alone is indexed
    assert sorted(os.listdir(here / ".minirag")) == [".gitignore", "index.db", "index.db.sync.lock"]
