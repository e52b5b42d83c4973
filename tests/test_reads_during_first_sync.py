"""Reads while the first sync of an index runs in another process: they say the index is being
built and by whom (its PID), not 'no index: run minirag sync first' beside that very sync, and they
answer from what it has committed as soon as it has."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from conftest import write
from helpers.held_sync import held_sync

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
        assert "is building it and has indexed no file yet" in str(raised.value), raised.value
        assert building in (app.status().index_error or "")
        Index(db_path).close()  # the sync made the file, and has indexed no file into it yet
        with pytest.raises(IndexUnavailable) as raised:
            app.query("otters")
        assert "is empty" in str(raised.value) and building in str(raised.value), raised.value
        # The file is there: what the sync has not done yet is index a file into it.
        assert "is building it and has indexed no file yet" in str(raised.value), raised.value
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


@pytest.mark.parametrize("pid", [0, -1])
def test_a_holder_record_naming_a_process_group_is_no_sync_running(make_app, tmp_path, pid):
    """os.kill(0, 0) signals the caller's own process group, os.kill(-1, 0) every process it may:
    each succeeds, so a record naming such a pid (the lock file holds what
    anyone who can write the index's folder wrote) read as a sync alive forever."""
    record = json.dumps({"pid": pid, "started": time.time() - 5})
    (tmp_path / "index.db.sync.lock").write_bytes(b"\0" + record.encode())
    with pytest.raises(IndexUnavailable) as raised:
        make_app().query("otters")
    assert "run `minirag sync`" in str(raised.value) and "building" not in str(raised.value)


def test_a_writer_open_before_a_newer_minirag_retokenized_the_index_writes_no_keywords_of_its_own_scheme(app, docs):
    """The keyword scheme was checked only when the index was opened: a server of this minirag, open
    while a newer one re-tokenized the keyword index (one write transaction, so a sync of the same
    minirag cannot write inside it), went on writing its own spelling of keywords into the newer
    table, which no later open re-tokenizes. Every write checks it now."""
    from minirag import keywords
    from minirag.store.index import META_KEYWORD_SCHEME

    write(docs / "a.md", "# Otters\n\nSea otters hold hands while they sleep.\n")
    app.sync()
    newer = textwrap.dedent(f"""
        import sqlite3, sys
        with sqlite3.connect(sys.argv[1]) as conn:
            conn.execute("UPDATE meta SET value = ? WHERE key = ?", ("{keywords.KEYWORD_SCHEME + 1}",
                                                                     "{META_KEYWORD_SCHEME}"))
    """)
    subprocess.run([sys.executable, "-c", newer, str(app.config.db_path)], check=True, timeout=60)
    write(docs / "b.md", "# Beavers\n\nBeavers build dams.\n")
    with pytest.raises(IndexUnavailable) as raised:
        app.ingest_file(str(docs / "b.md"))
    assert "written by a newer minirag" in str(raised.value), raised.value
    with pytest.raises(IndexUnavailable):
        app.ingest_data("# Note\n\nA note.", "notes/1")


def test_a_query_beside_the_servers_own_first_sync_job_names_that_job(app, docs, monkeypatch):
    write(docs / "a.md", "# Otters\n\nSea otters hold hands while they sleep.\n")
    go = held_sync(monkeypatch)
    job = app.start_sync()
    try:
        with pytest.raises(IndexUnavailable) as raised:
            app.query("otters")
    finally:
        go.set()
        assert job.wait(60)
    assert f"sync job {job.job_id} of this server (pid {os.getpid()}) is building it" in str(raised.value), raised.value
    assert app.query("otters").hits


LOADING_SYNC = textwrap.dedent("""
    import sys
    from minirag import cli, encoder

    real_init = encoder.Encoder.__init__

    def slow_load(self, *args, **kwargs):  # the model's load, held until the test lets it go
        print("loading", flush=True)
        sys.stdin.readline()
        real_init(self, *args, **kwargs)

    encoder.Encoder.__init__ = slow_load
    sys.exit(cli.main(sys.argv[1:]))
""")


@pytest.mark.parametrize(("command", "own_place"), [("sync", False), ("sync", True), ("watch", False)])
def test_a_read_while_a_first_sync_loads_its_model_says_the_index_is_being_built(make_app, docs, tmp_path, model_path,
                                                                                  command, own_place):
    """`minirag sync` (and `watch`, whose first pass is a sync) loaded the model before it took the
    sync lock: a read in those seconds (no index file yet) said "no index ...: run `minirag sync`"
    beside the very sync that was starting."""
    write(docs / "a.md", "# Otters\n\nSea otters hold hands while they sleep.\n")
    db_path = docs / ".minirag" / "index.db" if own_place else tmp_path / "index.db"
    app = make_app(db_path=str(db_path))
    sync = subprocess.Popen([sys.executable, "-c", LOADING_SYNC, command, "--base-dir", str(docs),
                             "--db-path", str(db_path), "--model-path", model_path],
                            cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert sync.stdout is not None and sync.stdout.readline() == "loading\n"
        with pytest.raises(IndexUnavailable) as raised:
            app.query("otters")
        assert f"a sync (pid {sync.pid}, running for 0m" in str(raised.value), raised.value
        assert "run `minirag sync`" not in str(raised.value)
        if command == "watch":
            sync.stdin.write("go\n")  # the model loads; the watch's first pass syncs, then it waits for changes
            sync.stdin.flush()
            _wait_for(lambda: _holds_otters(app))
    finally:
        if command == "watch":
            sync.send_signal(signal.SIGINT)
        _, err = sync.communicate("", timeout=120)
    assert sync.returncode == (130 if command == "watch" else 0), err
    assert app.query("otters").hits


def _holds_otters(app) -> bool:
    try:
        return bool(app.query("otters").hits)
    except IndexUnavailable:
        return False


def _wait_for(condition, seconds: float = 60.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "not in time"
        time.sleep(0.05)


def test_a_first_sync_whose_model_fails_to_load_leaves_no_lock_behind(docs, tmp_path):
    """The lock is taken before the model loads now: a model that cannot load must still leave
    nothing of the index behind, neither the folder made for it nor the lock file in a folder given."""
    from minirag import cli

    write(docs / "a.md", "# Otters\n\nSea otters hold hands while they sleep.\n")
    empty = tmp_path / "no-model"
    empty.mkdir()
    given = tmp_path / "given"
    given.mkdir()
    assert cli.main(["sync", "--base-dir", str(docs), "--db-path", str(given / "index.db"),
                     "--model-path", str(empty)]) == 1
    assert list(given.iterdir()) == []
    assert cli.main(["sync", "--base-dir", str(docs), "--model-path", str(empty)]) == 1
    assert not (docs / ".minirag").exists()
