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


def test_e2e84_with_no_root_named_an_outside_folder_is_told_how_to_make_it_the_root(first_run, run_cli):
    """`minirag ingest ~/docs`, the reference README's first command, run from another folder: the
    root is that folder, and the refusal says so and how to index the folder named."""
    here, elsewhere = first_run
    done = run_cli("ingest", str(elsewhere), cwd=here)
    assert done.stderr.rstrip("\n").endswith(
        f"; roots: {here}; with no root named (--base-dir, BASE_DIR, BASE_DIRS) the root is the working folder: "
        f"to index {elsewhere}, name it: `minirag ingest {elsewhere} --base-dir {elsewhere}`"), done.stderr
    assert run_cli("ingest", str(elsewhere), "--base-dir", str(elsewhere), cwd=here).returncode == 0


def test_e2e84_with_roots_named_an_outside_folder_gets_no_root_advice(first_run, run_cli):
    """Naming another --base-dir would replace the roots given (and a sync of them drops the rest)."""
    here, elsewhere = first_run
    done = run_cli("ingest", str(elsewhere), "--base-dir", str(here / "notes"), cwd=here)
    assert done.returncode == 1 and done.stderr.rstrip("\n").endswith(f"; roots: {here / 'notes'}"), done.stderr
