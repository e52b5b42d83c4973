"""Reads while the first sync of an index runs in another process: they say the index is being
built and by whom (its PID), not 'no index: run minirag sync first' beside that very sync, and they
answer from what it has committed as soon as it has."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from conftest import write

from minirag.errors import IndexUnavailable
from minirag.store.index import Index

ROOT = Path(__file__).resolve().parent.parent

HOLD = textwrap.dedent("""
    import sys
    from pathlib import Path
    from minirag.store.lock import SyncLock
    with SyncLock(Path(sys.argv[1])):
        print("held", flush=True)
        sys.stdin.read()
""")


def test_reads_beside_a_first_sync_say_it_is_building_the_index_and_answer_once_it_has_written(app, docs):
    write(docs / "a.md", "# Otters\n\nSea otters hold hands while they sleep.\n")
    db_path = app.config.db_path
    # Another process holds the sync lock as a sync does while it loads its model and walks the roots.
    sync = subprocess.Popen([sys.executable, "-c", HOLD, str(db_path)], cwd=ROOT, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True)
    try:
        assert sync.stdout is not None and sync.stdout.readline() == "held\n"
        building = f"a sync (pid {sync.pid}, running for 0m"
        with pytest.raises(IndexUnavailable) as raised:
            app.query("otters")
        assert "no index at" in str(raised.value) and building in str(raised.value), raised.value
        assert "run `minirag sync`" not in str(raised.value)
        assert building in (app.status().index_error or "")
        Index(db_path).close()  # the sync made the file, and has written no file yet
        with pytest.raises(IndexUnavailable) as raised:
            app.query("otters")
        assert "is empty" in str(raised.value) and building in str(raised.value), raised.value
        app.ingest_file(str(docs / "a.md"))  # what is committed is answered at once
        assert app.query("otters").hits
    finally:
        sync.communicate("", timeout=30)
    assert sync.returncode == 0


def test_a_missing_index_with_no_sync_running_still_says_to_run_one(make_app, tmp_path):
    record = json.dumps({"pid": 999_999_999, "started": time.time() - 5})  # a sync that ended
    (tmp_path / "index.db.sync.lock").write_bytes(b"\0" + record.encode())
    with pytest.raises(IndexUnavailable) as raised:
        make_app().query("otters")
    assert "run `minirag sync`" in str(raised.value) and "building" not in str(raised.value)
