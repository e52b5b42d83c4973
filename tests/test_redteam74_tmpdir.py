"""SQLite keeps its temporary files (statement journals, sorts) in TMPDIR. With TMPDIR on a full
disk every sync failed with "no room to write the index <DB_PATH> ...; free disk space", naming the
index's disk, which had room: the user freed space where none was missing. The line must name the
folder that is full and the variable that chose it."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from helpers.mounts import full_tmpfs

pytestmark = pytest.mark.slow  # minirag runs in processes of its own (SQLite reads TMPDIR once a process)


@pytest.fixture
def full_folder():
    with full_tmpfs() as folder:
        yield folder


def test_a_full_tmpdir_is_named_as_what_has_no_room_not_the_index(tmp_path, model_path, full_folder):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_text("# Apples\n\nA crisp apple.\n", encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k not in ("SQLITE_TMPDIR",)}
    env |= {"MODEL_PATH": model_path, "BASE_DIR": str(docs), "DB_PATH": str(tmp_path / "index.db"),
            "TMPDIR": str(full_folder)}
    done = subprocess.run([sys.executable, "-m", "minirag", "sync"], env=env, capture_output=True, timeout=120)
    err = done.stderr.decode()
    assert done.returncode == 1, err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    assert str(full_folder) in err and "TMPDIR" in err, err
    assert "free disk space and retry" not in err, err
