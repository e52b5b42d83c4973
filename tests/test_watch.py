"""Watch mode with real files, a real watcher (OS notifications through watchfiles), the real
model and a real index: every kind of change ends with the index holding what the disk
holds, each final content embedded once, and nothing lost while another process holds the
sync lock. Waits poll with deadlines; the debounce is shortened for tests."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from conftest import ROOT, write
from helpers.encoders import CountingEncoder
from helpers.patience import Deadline, slowdown

from minirag.app import App
from minirag.ingest.watch import EventFilter, Watcher, watched_folders
from minirag.results import pass_report, payload
from minirag.store import connection as db

DEBOUNCE = 0.3
TUNING = {"debounce": DEBOUNCE, "lock_retry": 0.2, "reconcile_every": 3600.0}
DEADLINE = 20.0


def eventually(predicate, timeout: float = DEADLINE, what: str = "condition"):
    """`predicate()` once true; an AssertionError after `timeout` seconds, longer on a loaded machine
    (helpers/patience.py: a worker's first pass, its imports included, took over 20 s there)."""
    deadline = Deadline(timeout)
    while not deadline.passed():
        value = predicate()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


class Watching:
    """An App watching its roots in the background, with every pass it ran."""

    def __init__(self, app: App, counting: CountingEncoder, polling: bool = False, debounce: float = DEBOUNCE,
                 poll_interval: float = 0.2):
        self.app, self.counting, self.reports, self.debounce = app, counting, [], debounce
        app.start_watching(on_pass=self.reports.append, polling=polling, **{**TUNING, "debounce": debounce},
                           poll_interval=poll_interval)
        eventually(lambda: self.reports, what="the initial pass")

    def sources(self) -> set[str]:
        return {row.source for row in self.app.index.list_sources()}

    def text(self, path: Path) -> str:
        return self.app.read(str(path)).text

    def settle(self) -> None:
        """Wait until the watcher has nothing queued or running, and still so a debounce later
        (an event that arrives in that window is queued, so the last wait covers its pass)."""
        def idle() -> bool:
            state = self.app.watch_state()
            return state.queued == 0 and state.running is None and state.waiting_for_lock is None

        eventually(idle, what="the watcher to go idle")
        time.sleep(self.debounce + 0.2)
        eventually(idle, what="the watcher to go idle")

    def passes_since(self, count: int) -> list:
        return self.reports[count:]


@pytest.fixture
def watching(make_config, encoder, monkeypatch):
    from minirag.ingest import watch

    monkeypatch.setattr(watch, "ROOT_CHECK_S", 0.5)  # a root made again is watched again sooner
    apps = []

    def start(polling: bool = False, debounce: float = DEBOUNCE, poll_interval: float = 0.2, **flags) -> Watching:
        counting = CountingEncoder(encoder)
        app = App(make_config(**flags), encoder=counting)
        apps.append(app)
        return Watching(app, counting, polling, debounce, poll_interval)

    yield start
    for app in apps:
        app.close()


# --- the kinds of change --------------------------------------------------------------------


def test_a_created_file_is_indexed(watching, docs):
    w = watching()
    path = write(docs / "notes" / "new.md", "# New\n\nA freshly created note about lighthouses.")
    eventually(lambda: str(path) in w.sources(), what="the new file")
    assert "lighthouses" in w.text(path)


def test_a_modified_file_is_reindexed_with_its_new_text(watching, docs):
    path = write(docs / "a.md", "# Alpha\n\nApples grow in orchards.")
    w = watching()
    write(path, "# Alpha\n\nApricots replaced the apples.")
    eventually(lambda: "Apricots" in w.text(path), what="the new text")
    assert "Apples grow" not in w.text(path)


@pytest.mark.slow  # waits on real timeouts or file events: about a second
def test_an_atomic_save_reindexes_the_file_once_and_never_the_temp_file(watching, docs):
    path = write(docs / "a.md", "# Alpha\n\nThe first draft of the alpha page.")
    w = watching()
    before, embedded = len(w.reports), len(w.counting.embedded)
    temp = docs / "a.md.tmp"
    temp.write_text("# Alpha\n\nThe second draft, saved atomically by an editor.")
    os.replace(temp, path)
    eventually(lambda: "second draft" in w.text(path), what="the saved text")
    w.settle()
    assert w.sources() == {str(path)}
    assert sum(r.progress.done for r in w.passes_since(before)) == 1
    new = w.counting.embedded[embedded:]
    assert len(new) == len(set(new)) and any("second draft" in t for t in new)


def test_a_renamed_file_is_indexed_under_its_new_name_only(watching, docs):
    old = write(docs / "draft.md", "# Plan\n\nThe plan is to build a windmill.")
    w = watching()
    embedded = len(w.counting.embedded)
    new = docs / "final.md"
    os.rename(old, new)
    eventually(lambda: w.sources() == {str(new)}, what="the rename")
    assert "windmill" in w.text(new)
    assert w.counting.embedded[embedded:] == []  # the same text: its stored vectors are reused


@pytest.mark.slow  # waits on real timeouts or file events: about a second
def test_files_and_folders_moved_between_folders_follow_their_new_paths(watching, docs):
    moved = write(docs / "inbox" / "memo.md", "# Memo\n\nThe memo concerns the harbour budget.")
    write(docs / "projects" / "alpha" / "spec.md", "# Spec\n\nAlpha needs a copper roof.")
    write(docs / "projects" / "alpha" / "deep" / "notes.md", "# Notes\n\nDeep notes on gutters.")
    w = watching()
    (docs / "archive").mkdir()
    os.rename(moved, docs / "archive" / "memo.md")
    os.rename(docs / "projects" / "alpha", docs / "archive" / "alpha")
    expected = {str(docs / "archive" / "memo.md"), str(docs / "archive" / "alpha" / "spec.md"),
                str(docs / "archive" / "alpha" / "deep" / "notes.md")}
    eventually(lambda: w.sources() == expected, what="the moves")
    write(docs / "archive" / "alpha" / "deep" / "notes.md", "# Notes\n\nGutters, revised after the move.")
    eventually(lambda: "revised after the move" in w.text(docs / "archive" / "alpha" / "deep" / "notes.md"),
               what="a change inside the moved folder")


def test_deleted_files_and_folders_leave_the_index(watching, docs):
    lone = write(docs / "lone.md", "# Lone\n\nA single file.")
    kept = write(docs / "kept.md", "# Kept\n\nThis one stays.")
    write(docs / "old" / "x.md", "# X\n\nxylophones")
    write(docs / "old" / "sub" / "y.txt", "yachts and yawls")
    w = watching()
    assert len(w.sources()) == 4
    lone.unlink()
    shutil.rmtree(docs / "old")
    eventually(lambda: w.sources() == {str(kept)}, what="the deletions")


@pytest.mark.slow
def test_a_burst_of_files_is_synced_in_at_most_three_passes_each_embedded_once(watching, docs):
    count = 150
    for i in range(count):
        write(docs / f"d{i % 5}" / f"f{i:03}.md", f"# File {i}\n\nOriginal body number {i}.")
    w = watching()
    before, embedded = len(w.reports), len(w.counting.embedded)
    for i in range(count):  # a checkout rewriting every file
        write(docs / f"d{i % 5}" / f"f{i:03}.md", f"# File {i}\n\nRewritten body number {i} after checkout.")
    eventually(lambda: all("Rewritten" in w.text(docs / f"d{i % 5}" / f"f{i:03}.md") for i in (0, count - 1)),
               what="the burst")
    w.settle()
    burst = w.passes_since(before)
    assert 1 <= len(burst) <= 3, [pass_report(r) for r in burst]
    assert sum(r.progress.done for r in burst) == count
    new = w.counting.embedded[embedded:]
    assert len(new) == len(set(new)) == count
    assert all("Rewritten" in w.text(docs / f"d{i % 5}" / f"f{i:03}.md") for i in range(count))


@pytest.mark.slow  # waits on real timeouts or file events: about a second
def test_a_file_still_being_written_is_indexed_once_with_its_final_content(watching, docs):
    # Gaps of half the quiet window, so a test thread the machine ran late does not make a gap
    # past it (that would be a finished write, rightly indexed), and the writes together outlast
    # it (a window timed from the first write, not restarted by each, would index a part).
    w = watching(debounce=1.2)
    before, embedded = len(w.reports), len(w.counting.embedded)
    path = docs / "report.md"
    with path.open("w") as handle:
        for part in ("# Report\n\nPART-ONE of the quarterly report.", " PART-TWO follows.", " PART-THREE ends it."):
            handle.write(part)
            handle.flush()
            time.sleep(w.debounce / 2)  # shorter than the quiet window: each write restarts it
    eventually(lambda: str(path) in w.sources(), what="the written file")
    w.settle()
    assert "PART-THREE" in w.text(path)
    assert sum(r.progress.done for r in w.passes_since(before)) == 1
    assert all("PART-THREE" in t for t in w.counting.embedded[embedded:])


@pytest.mark.slow  # waits on real timeouts or file events: about a second
def test_temp_files_and_skipped_folders_never_reach_the_index(watching, docs):
    w = watching()
    before = len(w.reports)
    for name in ("a.md~", ".#a.md", "~$report.docx", "#a.md#", "b.md.swp", "c.md.tmp"):
        (docs / name).write_text("scratch")
    write(docs / "node_modules" / "pkg" / "README.md", "# Package\n\nA dependency's readme.")
    write(docs / ".obsidian" / "workspace.md", "# Workspace\n\nEditor state.")
    real = write(docs / "real.md", "# Real\n\nThe only document here.")
    eventually(lambda: str(real) in w.sources(), what="the real file")
    w.settle()
    assert w.sources() == {str(real)}
    assert sum(r.progress.seen for r in w.passes_since(before)) == 1


# --- its own index ----------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("index_folder", [".minirag", "state"])
def test_an_index_living_under_a_root_never_makes_the_watcher_loop_on_its_own_writes(watching, docs, index_folder):
    neighbour = write(docs / "state" / "notes.md", "# Notes\n\nKept beside the index file.")
    w = watching(db_path=str(docs / index_folder / "index.db"))
    assert str(neighbour) in w.sources()
    write(docs / "a.md", "# Alpha\n\nA change that makes the index write.")
    eventually(lambda: str(docs / "a.md") in w.sources(), what="the change")
    w.settle()
    passes = len(w.reports)
    time.sleep(3 * DEBOUNCE + 0.5)  # the index's own WAL writes and checkpoints raise events meanwhile
    assert len(w.reports) == passes
    assert w.app.watch_state().queued == 0
    assert not any(s.startswith(str(docs / index_folder / "index.db")) for s in w.sources())
    write(neighbour, "# Notes\n\nEdited beside the index file.")
    eventually(lambda: "Edited beside" in w.text(neighbour), what="a document in the index's folder")


def test_the_event_filter_drops_index_files_temp_names_and_skipped_folders_by_name(tmp_path):
    root = tmp_path / "docs"
    keep = EventFilter([root], root / "state" / "index.db")
    dropped = ["state/index.db", "state/index.db-wal", "state/index.db-shm", "state/index.db.sync.lock",
               ".minirag/index.db", ".git/index", "node_modules/x/a.md", "sub/__pycache__/m.md",
               "a.md~", "sub/.#a.md", "~$b.docx", "#c.md#", "d.md.swp", "e.md.tmp", "f.pdf.part"]
    kept = ["a.md", "state/notes.md", "sub/deeper/b.txt", ".hidden-note.md", "folder"]
    assert [p for p in dropped if keep(None, str(root / p))] == []
    assert [p for p in kept if not keep(None, str(root / p))] == []
    assert not keep(None, str(tmp_path / "elsewhere" / "a.md"))
    assert not keep(None, str(root))
    named_like_it = EventFilter([root], root / "notes")  # an index named as a document begins
    assert named_like_it(None, str(root / "notes.md")) and not named_like_it(None, str(root / "notes-wal"))


# --- the sync lock -----------------------------------------------------------------------------


HOLD_LOCK = """
import sys
from pathlib import Path
from minirag.store.lock import SyncLock
lock = SyncLock(Path(sys.argv[1])).acquire()
print("held", flush=True)
sys.stdin.read()
lock.release()
"""


@pytest.mark.slow
def test_a_watcher_that_cannot_get_the_sync_lock_retries_and_loses_nothing(watching, docs, tmp_path):
    w = watching()
    holder = subprocess.Popen([sys.executable, "-c", HOLD_LOCK, str(tmp_path / "index.db")], cwd=ROOT,
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        first = write(docs / "first.md", "# First\n\nWritten while another process syncs.")
        state = eventually(lambda: (s := w.app.watch_state()).waiting_for_lock and s,
                           what="the watcher to wait for the lock")
        assert f"pid {holder.pid}" in state.waiting_for_lock and state.queued >= 1
        second = write(docs / "second.md", "# Second\n\nWritten while the watcher waits.")
        first.unlink()
        time.sleep(1.0)  # several refused retries
        assert w.sources() == set()
    finally:
        holder.communicate("", timeout=10)
    eventually(lambda: w.sources() == {str(second)}, what="the queued changes after the lock is released")
    # The pass that got the lock reports it when it ends, just after its rows are committed.
    eventually(lambda: w.app.watch_state().waiting_for_lock is None, what="the wait to be reported over")


# --- start, reconciliation, status --------------------------------------------------------------


def test_changes_made_while_nobody_watched_are_synced_when_watching_starts(watching, make_app, docs):
    app = make_app()
    path = write(docs / "a.md", "# Alpha\n\nIndexed by a plain sync.")
    app.sync()
    write(path, "# Alpha\n\nChanged while nobody watched.")
    added = write(docs / "b.md", "# Beta\n\nBeta.")
    w = watching()
    assert w.reports[0].kind == "initial"
    assert "nobody watched" in w.text(path) and str(added) in w.sources()


@pytest.mark.parametrize("polling", [False, True], ids=["notifications", "polling"])
def test_a_file_saved_while_the_watches_are_first_set_up_is_synced(make_config, encoder, docs, monkeypatch,
                                                                   polling):
    """The first pass reads every root; a file saved after it read the file and before the watches
    were up (the walk of a large tree; polling, the first poll's look at every file) raised no
    event, so its old text stayed until the next reconcile (five minutes; an hour here)."""
    from minirag.ingest import watch

    path = write(docs / "a.md", "# Alpha\n\nThe text the watcher starts with.")
    first_pass = threading.Event()
    listing = watch.watched_folders

    def listing_then_a_save(roots, *rest):
        folders = listing(roots, *rest)
        if not path.read_text().endswith("herons."):
            first_pass.wait(2)  # the first pass has read the file (it waits for the watches, once fixed)
            write(path, "# Alpha\n\nSaved while the watches were set up: a note about herons.")
        return folders

    monkeypatch.setattr(watch, "watched_folders", listing_then_a_save)
    app = App(make_config(), encoder=encoder)
    try:
        app.start_watching(on_pass=lambda _report: first_pass.set(), polling=polling, poll_interval=0.2, **TUNING)
        eventually(first_pass.is_set, what="the first pass")
        eventually(lambda: "herons" in app.read(str(path)).text, what="the text saved as the watches were set up")
    finally:
        app.close()


@pytest.mark.slow
def test_a_root_deleted_and_made_again_is_watched_again(watching, docs):
    # Watches belong to the folder, not its path: the new folder has none until they are set up again.
    w = watching()
    first = write(docs / "a.md", "# Alpha\n\nWritten before the root went away.")
    eventually(lambda: str(first) in w.sources(), what="the first file")
    shutil.rmtree(docs)
    docs.mkdir()
    again = write(docs / "b.md", "# Beta\n\nWritten into the root made again.")
    eventually(lambda: str(again) in w.sources(), what="a file in the root made again")
    later = write(docs / "sub" / "c.md", "# Gamma\n\nWritten once the root is watched again.")
    eventually(lambda: str(later) in w.sources(), what="a later file")
    assert str(first) not in w.sources()


def test_the_only_root_moved_away_is_said_at_once_its_documents_kept_and_watched_again_once_back(watching, docs):
    """An unmounted drive, a folder renamed away for a moment: with no root left to watch, the
    watcher waited for it in silence, so nothing said the index no longer followed the folder."""
    kept = write(docs / "kept.md", "# Kept\n\nA note about otters.")
    w = watching()
    w.settle()
    count = len(w.reports)
    away = docs.parent / "away"
    docs.rename(away)
    said = eventually(lambda: [r for r in w.passes_since(count) if any(str(docs) in x for x in r.progress.warnings)],
                      what="a pass saying the root is gone")
    assert said[0].progress.deleted == 0 and w.sources() == {str(kept)}
    away.rename(docs)
    write(kept, "# Kept\n\nA note about beavers, once the root is back.")
    eventually(lambda: "beavers" in w.text(kept), what="an edit once the root is back")


@pytest.mark.parametrize("how", ["copy keeping its time", "older file moved over it", "edited twice in a second"])
def test_polling_sees_a_file_replaced_by_an_older_one_or_saved_twice_in_a_second(watching, docs, tmp_path, how):
    """watchfiles' poller kept each file's mtime in whole seconds and saw a change only when it
    grew: a backup put back (`cp -p`, `rsync -a`, an older draft moved over the file) or a second
    save within the same second (an editor's format-on-save) left the old text indexed."""
    path = write(docs / "notes.md", "# Notes\n\nThe first text, about otters.")
    w = watching(polling=True)
    w.settle()
    day_ago = time.time() - 86400
    if how == "edited twice in a second":
        for _ in range(20):  # the first save seen and synced, the second in the same second of mtime
            while time.time() % 1 > 0.1:
                time.sleep(0.01)
            second = int(time.time())
            write(path, f"# Notes\n\nSaved at {second}, about herons.")
            eventually(lambda: f"Saved at {second}" in w.text(path), what="the first save")  # noqa: B023
            if int(time.time()) == second:
                write(path, "# Notes\n\nSaved again in that second, about beavers.")
                break
    else:
        older = write(tmp_path / "older.md", "# Notes\n\nThe older text put back, about beavers.")
        os.utime(older, (day_ago, day_ago))
        if how == "copy keeping its time":
            shutil.copy2(older, path)
        else:
            older.rename(path)
    eventually(lambda: "beavers" in w.text(path), what="the text put back")


@pytest.mark.parametrize("poll", [False, True], ids=["notifications", "polling"])
def test_a_same_size_rewrite_whose_mtime_is_put_back_is_reindexed(watching, docs, monkeypatch, poll):
    """A watcher's pass trusts a file's stat as a sync does: a rewrite of the same size whose mtime
    was set back (rsync -t, tar -x, cp -p) kept its old text, unless its ctime is compared too."""
    from minirag.ingest import pipeline

    monkeypatch.setattr(pipeline, "RACY_NS", 0)  # every stat trusted at once: only the stat tells
    path = write(docs / "a.md", "# Alpha\n\nThe secret word is pineapple.")
    hour_ago = time.time_ns() - 3600 * 10**9
    os.utime(path, ns=(hour_ago, hour_ago))
    w = watching(polling=poll)
    w.settle()
    write(path, "# Alpha\n\nThe secret word is watermelo.")  # same size
    os.utime(path, ns=(hour_ago, hour_ago))
    eventually(lambda: "watermelo" in w.text(path), what="the rewritten text")


@pytest.mark.parametrize("polling", [False, True], ids=["notifications", "polling"])
def test_a_folder_replaced_by_a_file_of_its_name_takes_its_documents_out(watching, docs, polling):
    """Polling, the folder's own look fails (not a directory) rather than finding it empty: what
    it held must still be reported gone, or its documents are served on."""
    held = [write(docs / "sub" / f"n{i}.md", f"# Note {i}\n\nA note about harbour {i}.") for i in range(5)]
    w = watching(polling=polling)
    eventually(lambda: {str(p) for p in held} <= w.sources(), what="the folder's documents")
    w.settle()
    shutil.rmtree(docs / "sub")
    write(docs / "sub", "a plain file under the folder's name")
    eventually(lambda: not any(s.startswith(str(docs / "sub")) for s in w.sources()), what="the documents gone")


def _unlistable_while_mode_000(monkeypatch, folder: Path) -> None:
    """`folder` cannot be listed while its mode is 000, as for a user; root (which these tests may
    run as) lists through it, so for root os.scandir of that one folder fails then as a user's would."""
    if os.geteuid() != 0:
        return
    real_scandir = os.scandir

    def scandir(path="."):
        if os.path.abspath(path) == str(folder) and folder.stat().st_mode & 0o777 == 0:
            raise PermissionError(13, "Permission denied", str(path))
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", scandir)


@pytest.mark.parametrize("polling", [False, True], ids=["notifications", "polling"])
def test_a_folder_unreadable_when_watching_starts_is_read_and_watched_once_it_can_be(watching, docs, monkeypatch,
                                                                                   polling):
    """chmod 000 then restored: the folder had no watch (it could not be listed), and making it
    readable again changed nothing the watcher acted on, so its files stayed out of the index and
    later changes in it unseen until the next reconcile (five minutes; an hour here)."""
    locked = docs / "locked"
    inside = write(locked / "inside.md", "# Inside\n\nA note about otters.")
    _unlistable_while_mode_000(monkeypatch, locked)
    locked.chmod(0)
    try:
        w = watching(polling=polling)
        w.settle()
        assert str(inside) not in w.sources()
    finally:
        locked.chmod(0o755)
    eventually(lambda: str(inside) in w.sources(), what="the files of the folder once readable")
    later = write(locked / "later.md", "# Later\n\nA note about beavers.")
    eventually(lambda: str(later) in w.sources(), what="a file written later in it")


@pytest.mark.slow  # waits on real timeouts or file events: about a second
def test_while_one_root_is_gone_the_others_are_watched_and_it_is_again_once_back(watching, docs, tmp_path):
    other = tmp_path / "other"
    other.mkdir()
    w = watching(base_dirs=[str(docs), str(other)])
    kept = write(other / "kept.md", "# Kept\n\nIn the root that goes away.")
    eventually(lambda: str(kept) in w.sources(), what="the file in the other root")
    shutil.rmtree(other)  # an unmounted drive: its documents stay indexed (docs/watch.md)
    here = write(docs / "here.md", "# Here\n\nWritten while the other root is gone.")
    eventually(lambda: str(here) in w.sources(), what="a file in the root still there")
    other.mkdir()
    back = write(other / "back.md", "# Back\n\nWritten after the other root came back.")
    eventually(lambda: str(back) in w.sources(), what="a file in the root that came back")
    assert w.app.watch_state().mode == "notifications"


@pytest.mark.slow  # waits on real timeouts or file events: about a second
def test_a_root_made_again_is_watched_again_while_dropped_events_stream_elsewhere(watching, docs, tmp_path):
    # watchfiles yields nothing for a batch its filter empties: the root check must not wait on one.
    other = tmp_path / "other"
    other.mkdir()
    w = watching(base_dirs=[str(docs), str(other)])
    stop = threading.Event()

    def stream() -> None:  # a busy cache folder: every event is dropped by name
        while not stop.is_set():
            write(docs / ".cache" / "state.tmp", str(time.monotonic()))
            time.sleep(0.05)

    streaming = threading.Thread(target=stream, daemon=True)
    streaming.start()
    try:
        time.sleep(0.5)
        shutil.rmtree(other)
        other.mkdir()
        back = write(other / "back.md", "# Back\n\nWritten while dropped events kept coming.")
        eventually(lambda: str(back) in w.sources(), what="a file in the root made again")
    finally:
        stop.set()
        streaming.join()


@pytest.mark.slow  # waits on real timeouts or file events: about a second
def test_status_shows_the_watcher_what_it_last_did_and_what_is_queued(watching, docs):
    w = watching()
    path = write(docs / "a.md", "# Alpha\n\nAlpha.")
    eventually(lambda: str(path) in w.sources(), what="the file")
    w.settle()
    watch = payload(w.app.status())["watch"]  # as status shows it
    assert watch["watching"] is True and watch["mode"] == "notifications"
    assert watch["queued"] == 0 and watch["passes"] >= 2
    assert watch["lastPass"]["kind"] == "changes" and watch["lastPass"]["ingested"] == 1
    assert payload(w.app.sync_status(None))["watch"]["passes"] == watch["passes"]


def test_a_read_only_app_refuses_to_watch(make_app):
    from minirag.errors import IndexUnavailable

    app = make_app()
    app.sync()
    with pytest.raises(IndexUnavailable, match="watch is refused"):
        make_app(read_only=True).start_watching()


# --- the CLI and the OS watch limit (real subprocesses) -----------------------------------------


def _cli_env(docs: Path, tmp_path: Path, model_dir: Path) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("BASE_DIRS", "MINIRAG_READ_ONLY", "MINIRAG_WATCH")}
    env.update({"BASE_DIR": str(docs), "DB_PATH": str(tmp_path / "cli.db"), "MODEL_PATH": str(model_dir)})
    return env


def _sources(db_path: Path) -> set[str]:
    """The sources in an index another process writes (empty while it is still being created)."""
    if not db_path.exists():
        return set()
    conn = db.connect(db_path, read_only=True)
    try:
        return {r[0] for r in conn.execute("SELECT source FROM sources")}
    except db.OperationalError:
        return set()
    finally:
        conn.close()


@pytest.mark.slow
def test_ctrl_c_stops_minirag_watch_between_files_with_exit_130_and_one_line(docs, tmp_path, model_dir):
    for i in range(40):  # ~120 chunks: a first group of 32 is written, then the signal lands
        write(docs / f"f{i:03}.md", f"# File {i}\n\n" + " ".join(f"word{i}x{j}" for j in range(60)))
    proc = subprocess.Popen([sys.executable, "-m", "minirag", "watch", "--json"], cwd=ROOT,
                            env=_cli_env(docs, tmp_path, model_dir), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        eventually(lambda: _sources(tmp_path / "cli.db"), timeout=60, what="the initial pass to write a file")
        proc.send_signal(signal.SIGINT)
        stdout, stderr = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, stderr
    assert "Traceback" not in stderr
    lines = stderr.strip().splitlines()
    assert lines[0].startswith("minirag: watching") and lines[-1].startswith("minirag: interrupted")
    assert len(lines) == 2, stderr
    conn = db.connect(tmp_path / "cli.db", read_only=True)
    try:  # every source that made it in is whole
        empty = conn.execute("SELECT count(*) FROM sources s WHERE NOT EXISTS "
                             "(SELECT 1 FROM chunks c WHERE c.source_id = s.id)").fetchone()[0]
        assert empty == 0 and conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    finally:
        conn.close()
    *events, last = [json.loads(line) for line in stdout.splitlines()]
    assert all(event["kind"] == "initial" for event in events)
    assert last["error"].startswith("interrupted")  # a JSON reader learns why the stream ended


WATCH_UNDER_LIMIT = """
import sys, threading
from pathlib import Path
from minirag.app import App
from minirag.results import pass_report, payload
from minirag.config import load_config

stop = threading.Event()
def on_pass(report):
    print(report.kind, report.progress.done, flush=True)
    if report.kind == "changes":
        stop.set()
app = App(load_config(env={}, base_dirs=[sys.argv[1]], db_path=sys.argv[2], model_path=sys.argv[3]))
app.watch(stop, on_pass=on_pass, poll_interval=0.3, debounce=0.1, reconcile_every=3600)
app.close()
"""


def _can_lower_the_watch_limit() -> bool:
    if not sys.platform.startswith("linux") or shutil.which("unshare") is None:
        return False
    probe = subprocess.run(["unshare", "-Ur", "sh", "-c", "echo 3 > /proc/sys/user/max_inotify_watches"],
                           capture_output=True, timeout=10)
    return probe.returncode == 0


@pytest.mark.skipif(not _can_lower_the_watch_limit(),
                    reason="needs Linux user namespaces to lower the inotify limit for one process")
@pytest.mark.slow
def test_at_the_os_watch_limit_the_watcher_warns_with_the_fix_and_polls(docs, tmp_path, model_dir):
    for i in range(6):  # more folders than the lowered limit allows watches
        write(docs / f"folder{i}" / "note.md", f"# Note {i}\n\nNote {i}.")
    (tmp_path / "watch.py").write_text(WATCH_UNDER_LIMIT)
    script = (f"echo 3 > /proc/sys/user/max_inotify_watches && exec {sys.executable} {tmp_path / 'watch.py'} "
              f"{docs} {tmp_path / 'limit.db'} {model_dir}")
    proc = subprocess.Popen(["unshare", "-Ur", "sh", "-c", script], cwd=ROOT, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=_cli_env(docs, tmp_path, model_dir))
    try:
        assert proc.stdout.readline().split()[0] in ("initial", "reconcile")
        time.sleep(1.0)  # past the polling scanner's first snapshot
        write(docs / "folder5" / "late.md", "# Late\n\nSeen by polling.")
        stdout, stderr = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, stderr
    assert "limit on file watches is reached" in stderr
    # The limit met is this user namespace's (a container's), not the system-wide setting it reads the same
    # way from outside: the line names that one, at its value, and how to raise it.
    assert "user.max_inotify_watches is 3" in stderr
    assert stderr.count("limit on file watches") == 1
    assert str(docs / "folder5" / "late.md") in _sources(tmp_path / "limit.db")


UNMOUNT_AND_MOUNT_AGAIN = """
import json, subprocess, sys, threading, time
from pathlib import Path
from minirag.app import App
from minirag.config import load_config
from minirag.ingest import watch

watch.ROOT_CHECK_S = 0.5
docs, db, model, polling = Path(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4] == "polling"
notes = {f"n{i}.md": f"# Note {i}\\n\\nA note about harbour {i}." for i in range(3)}

drive = Path(db).parent / "drive"  # the drive's own filesystem, its notes written once
drive.mkdir()
subprocess.run(["mount", "-t", "tmpfs", "tmpfs", str(drive)], check=True)
for name, text in notes.items():
    (drive / name).write_text(text)

def mount():  # the drive appears at docs with its notes in it, as a drive does: never empty, never half written
    subprocess.run(["mount", "--bind", str(drive), str(docs)], check=True)

sys.path.insert(0, str(Path.cwd() / "tests"))
from helpers.patience import Deadline

reports = []
def wait_for_pass(count):  # a pass that never came ends the run: the next step would race it
    deadline = Deadline(20)
    while len(reports) < count:
        if deadline.passed():
            sys.exit(f"pass {count} did not come: {len(reports)} passes")
        time.sleep(0.05)
    time.sleep(0.5)

mount()
app = App(load_config(env={}, base_dirs=[str(docs)], db_path=db, model_path=model))
app.start_watching(on_pass=reports.append, debounce=0.1, reconcile_every=3600, polling=polling, poll_interval=0.2)
wait_for_pass(1)
subprocess.run(["umount", str(docs)], check=True)  # the mount point is left: an empty folder
wait_for_pass(2)
time.sleep(1.5)  # polling, the files gone from the root's listing come as changes too
print(json.dumps({"unmounted": len(app.index.list_sources()),
                  "warnings": [w for r in reports[1:] for w in r.progress.warnings]}), flush=True)
mount()
wait_for_pass(3)
app.stop_watching()
print(json.dumps({"mounted": len(app.index.list_sources()),
                  "embedded": [r.progress.chunks_embedded for r in reports[2:]]}), flush=True)
app.close()
"""


def _can_mount() -> bool:
    if not sys.platform.startswith("linux") or shutil.which("unshare") is None:
        return False
    probe = subprocess.run(["unshare", "-Urm", "sh", "-c", "mount -t tmpfs tmpfs /mnt"], capture_output=True, timeout=10)
    return probe.returncode == 0


@pytest.mark.skipif(not _can_mount(), reason="needs Linux user and mount namespaces to mount a drive at the root")
@pytest.mark.parametrize("mode", ["notifications", "polling"])
def test_a_drive_unmounted_from_the_root_keeps_its_documents_and_mounted_again_costs_no_embedding(docs, tmp_path,
                                                                                                 model_dir, mode):
    """Unmounted, a drive leaves its mount point behind: an empty folder, on another filesystem
    than the documents were indexed from. The pass over every root took that for every document
    deleted, and the drive mounted again had each of them converted and embedded anew. Polling, the
    files gone from the root's listing came as changes, whose pass deleted them too."""
    (tmp_path / "mounts.py").write_text(UNMOUNT_AND_MOUNT_AGAIN)
    run = subprocess.run(["unshare", "-Urm", sys.executable, str(tmp_path / "mounts.py"), str(docs),
                          str(tmp_path / "mounts.db"), str(model_dir), mode],
                         cwd=ROOT, capture_output=True, text=True, timeout=120 * slowdown())
    assert run.returncode == 0, run.stderr[-2000:]
    unmounted, mounted = (json.loads(line) for line in run.stdout.splitlines())
    assert unmounted["unmounted"] == 3
    assert any(str(docs) in w and "unmounted" in w for w in unmounted["warnings"]), unmounted["warnings"]
    assert mounted == {"mounted": 3, "embedded": [0] * len(mounted["embedded"])}


# --- configuration ---------------------------------------------------------------------------------


@pytest.mark.parametrize(("value", "flag", "expected"), [
    ("", None, (False, False)), ("1", None, (True, False)), ("on", None, (True, False)),
    ("poll", None, (True, True)), ("0", True, (True, False)), ("poll", True, (True, True)),
    ("1", False, (False, False)),
])
def test_minirag_watch_and_the_watch_flag_turn_watching_on_and_poll_makes_it_poll(docs, value, flag, expected):
    from minirag.config import load_config

    config = load_config(env={"BASE_DIR": str(docs), "MINIRAG_WATCH": value}, watch=flag)
    assert (config.watch, config.watch_polling) == expected


def test_a_bad_minirag_watch_value_names_the_accepted_ones(docs):
    from minirag.config import ConfigError, load_config

    with pytest.raises(ConfigError, match="MINIRAG_WATCH must be one of .* or poll, got 'sometimes'"):
        load_config(env={"BASE_DIR": str(docs), "MINIRAG_WATCH": "sometimes"})


def test_a_storm_of_deleted_non_documents_asks_for_indexed_sources_once(tmp_path):
    """20,000 deleted build files each scanned every indexed source: minutes at 100% CPU."""
    from minirag.ingest.watch import Watcher, _Pending

    calls = []

    def indexed_under(paths):
        calls.append(len(paths))
        return {p for p in paths if p.endswith("old-folder")}

    watcher = Watcher([tmp_path], tmp_path / "index.db", lambda paths, progress: None, indexed_under=indexed_under)
    gone = {str(tmp_path / f"build{n}.o"): _Pending(0.0, 0.0, None, False) for n in range(5000)}
    gone[str(tmp_path / "old-folder")] = _Pending(0.0, 0.0, None, False)
    gone[str(tmp_path / "gone.md")] = _Pending(0.0, 0.0, None, False)
    assert sorted(watcher._scopes(gone)) == [str(tmp_path / "gone.md"), str(tmp_path / "old-folder")]
    assert calls == [5001]


def test_the_apps_indexed_under_finds_files_and_folders_that_held_sources(app, docs):
    write(docs / "sub" / "a.md", "# A\n\nApples.")
    write(docs / "sub-other.md", "# B\n\nBananas.")
    app.sync()
    indexed_under = app._make_watcher(None, None, None, {})._indexed_under
    asked = [str(docs / "sub"), str(docs / "sub" / "a.md"), str(docs / "su"), str(docs / "nothing"),
             str(docs / "sub-other.md"), str(docs)]
    assert indexed_under(asked) == {str(docs / "sub"), str(docs / "sub" / "a.md"), str(docs / "sub-other.md"),
                                    str(docs)}


def _sources_or_none(w: Watching) -> set[str] | None:
    try:
        return w.sources()
    except Exception:  # noqa: BLE001 - the index file is gone until the watcher's next pass makes it
        return None


def test_after_the_index_file_is_deleted_the_next_change_rebuilds_it_from_every_root(watching, docs):
    first = [write(docs / f"n{i}.md", f"# Note {i}\n\nA note about harbour number {i}.") for i in range(3)]
    w = watching()
    eventually(lambda: w.sources() == {str(p) for p in first}, what="the initial pass")
    db = w.app.config.db_path
    for suffix in ("", "-wal", "-shm"):
        Path(f"{db}{suffix}").unlink(missing_ok=True)
    later = write(docs / "later.md", "# Later\n\nWritten after the index file was deleted.")
    every = {str(p) for p in [*first, later]}
    eventually(lambda: _sources_or_none(w) == every, what="a new index holding every file, not only the changed one")


@pytest.mark.slow
def test_a_root_replaced_by_a_link_outside_is_unreadable_to_the_watcher_and_nothing_is_deleted(watching, docs,
                                                                                              tmp_path):
    note = write(docs / "note.md", "# Note\n\nA note about gardening.")
    w = watching()
    eventually(lambda: w.sources() == {str(note)}, what="the initial pass")
    outside = tmp_path / "outside"
    write(outside / "note.md", "# Secret\n\nThe payroll of every employee.")
    write(outside / "other.md", "# Other\n\nMore outside text.")
    count = len(w.reports)
    docs.rename(tmp_path / "moved-away")
    docs.symlink_to(outside, target_is_directory=True)
    eventually(lambda: any(r.progress.unread for r in w.passes_since(count)), what="a pass that found the root replaced")
    write(outside / "third.md", "# Third\n\nA change seen through the link.")
    time.sleep(DEBOUNCE * 3)
    w.settle()
    assert w.sources() == {str(note)}
    assert "gardening" in w.text(note)
    assert not any(r.progress.deleted for r in w.passes_since(count))


# --- what gets a watch ------------------------------------------------------------------------


def test_the_watched_folders_are_the_roots_and_the_folders_the_scan_reads(tmp_path):
    """One watch a folder, never through a link (its target may be `/`) nor below a folder the
    scan skips; a root inside another root is watched once."""
    root, outside = tmp_path / "root", tmp_path / "outside"
    for folder in ("a/b/c", "a/d", "node_modules/pkg/lib", ".git/objects/ab", "e"):
        (root / folder).mkdir(parents=True)
    (outside / "x" / "y").mkdir(parents=True)
    (root / "a" / "out").symlink_to(outside, target_is_directory=True)
    (root / "e" / "loop").symlink_to(root, target_is_directory=True)
    write(root / "a" / "note.md", "# Note\n\nText.")

    found = watched_folders([root, root / "a"])

    expected = {root, root / "a", root / "a" / "b", root / "a" / "b" / "c", root / "a" / "d", root / "e"}
    assert sorted(found) == sorted(str(folder) for folder in expected)


@pytest.mark.parametrize("polling", [False, True], ids=["notifications", "polling"])
def test_a_link_to_a_folder_outside_the_roots_gets_no_watch_and_its_changes_no_pass(watching, docs, tmp_path,
                                                                                   polling):
    """A recursive watch would follow the link and watch (or poll) every folder behind it, and each
    change there would cost a pass that reads nothing."""
    outside = tmp_path / "outside"
    for n in range(3):
        write(outside / f"d{n}" / "deep" / "x.md", "# Outside\n\nText kept outside the roots.")
    (docs / "out").symlink_to(outside, target_is_directory=True)
    w = watching(polling=polling)
    w.settle()
    count = len(w.reports)
    write(outside / "d1" / "deep" / "x.md", "# Outside\n\nChanged outside the roots.")
    write(outside / "d2" / "deep" / "new.md", "# New\n\nMade outside the roots.")
    (outside / "d0" / "made").mkdir()
    time.sleep(DEBOUNCE * 3 + 0.5)
    w.settle()
    assert w.passes_since(count) == []
    inside = write(docs / "inside.md", "# Inside\n\nA note about herons.")
    eventually(lambda: str(inside) in w.sources(), what="a change inside the root")


def test_folders_made_while_watching_are_watched_from_then_on(watching, docs):
    """Each folder gets its watch once it appears, files written into it before that are found,
    and later changes deep inside it are seen."""
    w = watching_with_watches_up(watching)  # the folders made below raise events
    deep = docs / "new" / "inner" / "deepest"
    deep.mkdir(parents=True)
    first = write(deep / "first.md", "# First\n\nWritten the moment its folder was made.")
    side = write(docs / "new" / "side.md", "# Side\n\nBeside the inner folder.")
    eventually(lambda: {str(first), str(side)} <= w.sources(), what="the files in the new folders")
    w.settle()
    later = write(deep / "later.md", "# Later\n\nA note about kingfishers.")
    eventually(lambda: str(later) in w.sources(), what="a file made later in the deepest new folder")
    write(first, "# First\n\nRewritten: now about otters.")
    eventually(lambda: "otters" in w.text(first), what="the rewritten file")


def test_once_the_watches_are_up_each_folder_no_pass_has_read_since_it_got_one_is_queued(tmp_path):
    """A folder's watch is set some time after the folder appeared (a tree's walk, then a watch a
    folder): files written into it meanwhile raised no event, so a pass reads it once the watch is
    up; so does a folder made while the watches were set up, which then needs a watch too."""
    root = tmp_path / "root"
    for name in ("old", "new", "made-meanwhile", ".git"):
        (root / name).mkdir(parents=True)
    watcher = Watcher([root], tmp_path / "index.db", run_pass=lambda scopes, progress: None)
    listed = [str(root), str(root / "old"), str(root / "new")]

    assert watcher._folders_unwatched([root], listed, watched={str(root), str(root / "old")})
    assert set(watcher.state().queued_paths) == {str(root / "new"), str(root / "made-meanwhile")}

    first = Watcher([root], tmp_path / "index.db", run_pass=lambda scopes, progress: None)
    assert not first._folders_unwatched([root], [*listed, str(root / "made-meanwhile")], watched=set())
    assert first.state().queued_paths == ()  # the first pass reads every root


def watching_with_watches_up(watching) -> Watching:
    """A watcher past its first pass whose watches are set (ROOT_CHECK_S is 0.5 s here)."""
    w = watching()
    w.settle()
    time.sleep(1.0)
    return w


def a_new_folder_is_watched(w: Watching, folder: Path) -> None:
    """`folder` made, a file written into it at once, then another later: both are synced."""
    folder.mkdir()
    first = write(folder / "first.md", "# First\n\nWritten as its folder was made.")
    eventually(lambda: str(first) in w.sources(), what="the file in the new folder")
    w.settle()
    later = write(folder / "later.md", "# Later\n\nA note about kingfishers.")
    eventually(lambda: str(later) in w.sources(), what="a file made later in the new folder")


@pytest.mark.parametrize("poll_interval", [None, 1.5])
def test_a_file_changed_in_a_watched_folder_while_the_watches_are_set_up_again_is_synced(watching, docs,
                                                                                        monkeypatch, poll_interval):
    """A folder appearing sets every watch up again: the old watches are gone before the new
    ones are up (the walk of the whole tree, then a watch a folder), so a file written then into
    a folder that was watched all along raises no event. It must still be synced before the next
    reconcile (an hour here). Polling (a poll every 1.5 s here, a read of the old watches waits
    0.5 s), the old watches see the file only at their next poll, after their last read had been
    taken: the new watches took it for how things were."""
    from minirag.ingest import watch

    (docs / "old").mkdir()
    w = watching_with_watches_up(
        watching if poll_interval is None else lambda: watching(polling=True, poll_interval=poll_interval))
    listing = watch.watched_folders
    written: list[Path] = []

    def listing_then_a_write(roots, *rest):
        folders = listing(roots, *rest)
        if (docs / "new").exists() and not written:  # the walk after the new folder's event
            written.append(write(docs / "old" / "gap.md", "# Gap\n\nWritten while no watch was up."))
        return folders

    monkeypatch.setattr(watch, "watched_folders", listing_then_a_write)
    (docs / "new").mkdir()
    eventually(lambda: written, what="the watches to be set up again")
    eventually(lambda: str(written[0]) in w.sources(), what="the file written in the gap")


def test_a_file_changed_while_a_folder_vanished_during_the_walk_is_synced(watching, docs, monkeypatch):
    """A build making and deleting a scratch folder: it is listed, gone before its watch is set, and
    every watch is set up again; a change made meanwhile in a folder watched all along is lost."""
    from minirag.ingest import watch

    (docs / "old").mkdir()
    w = watching_with_watches_up(watching)
    listing = watch.watched_folders
    written: list[Path] = []

    def listing_a_folder_then_gone(roots, *rest):
        folders = listing(roots, *rest)
        if (docs / "scratch").exists() and not written:
            shutil.rmtree(docs / "scratch")  # deleted between the walk and its watch
            written.append(write(docs / "old" / "meanwhile.md", "# Meanwhile\n\nWritten while no watch was up."))
        return folders

    monkeypatch.setattr(watch, "watched_folders", listing_a_folder_then_gone)
    (docs / "scratch").mkdir()
    eventually(lambda: written, what="the watches to be set up again")
    eventually(lambda: str(written[0]) in w.sources(), what="the file written meanwhile")


def test_a_folder_made_with_a_scratch_files_name_is_watched_as_the_scan_reads_it(watching, docs):
    """The scan reads a folder named like a scratch file (`notes.bak`, `photos.tmp`): only files
    are scratch by name. Its "added" event was dropped by that name, so it got no watch of its own
    and what was written into it later was never seen (until the next reconcile: an hour here)."""
    w = watching_with_watches_up(watching)
    a_new_folder_is_watched(w, docs / "notes.bak")
    # Moved out of the root: its "deleted" event had been dropped by that name, and its files served on.
    w.settle()
    (docs / "notes.bak").rename(docs.parent / "notes.bak")
    eventually(lambda: not any("notes.bak" in source for source in w.sources()), what="the folder's files gone")


def test_a_folder_whose_name_is_not_utf8_leaves_the_other_folders_watched(watching, docs):
    """Linux allows any bytes in a name (an old archive unpacked): the scan skips such a folder as
    unreadable. Handed to watchfiles, its name (lone surrogates) could not be passed to Rust
    (UnicodeEncodeError): no watch was set at all, retried every 30 s for ever."""
    os.mkdir(os.path.join(os.fsencode(docs), b"caf\xe9"))
    w = watching_with_watches_up(watching)
    note = write(docs / "note.md", "# Note\n\nA note about herons.")
    eventually(lambda: str(note) in w.sources(), what="a file made beside the folder")
    assert w.app.watch_state().notification_error is None


def test_a_file_whose_name_is_not_utf8_changing_costs_its_batch_not_the_notifications(watching, docs):
    """watchfiles cannot hand such a name to Python and gives up the batch holding it: taken for
    notifications being unavailable, that fell back to polling, which failed on the name too, and
    then retried every 30 s, so every edit of the root waited half a minute."""
    w = watching_with_watches_up(watching)
    with open(os.path.join(os.fsencode(docs), b"caf\xe9.md"), "ab") as handle:
        handle.write(b"# Caf\xe9\n")
    note = write(docs / "note.md", "# Note\n\nA note about herons.")
    eventually(lambda: str(note) in w.sources(), what="the file written beside it")
    state = w.app.watch_state()
    assert state.mode == "notifications" and state.notification_error is None


def test_an_edit_reaches_every_name_of_the_file_and_a_deleted_target_takes_its_links_along(watching, docs):
    """A link and a hard link are indexed under their own paths; an edit raises an event for the name
    it was made through only, so the other names served the old text (and a link to a deleted file
    the deleted text) until the next pass over every root."""
    target = write(docs / "target.md", "# Target\n\nThe first words about herons.")
    (docs / "link.md").symlink_to("target.md")
    os.link(target, docs / "hard.md")
    w = watching_with_watches_up(watching)
    target.write_text("# Target\n\nThe second words about egrets.")  # in place: the hard link shares it

    def everywhere(words: str) -> bool:
        return all(words in w.app.read(str(docs / name)).text for name in ("target.md", "link.md", "hard.md"))

    eventually(lambda: everywhere("egrets"), what="the edit under every name")
    target.unlink()
    eventually(lambda: str(docs / "link.md") not in w.sources(), what="the link to the deleted file gone")
    assert str(docs / "hard.md") in w.sources()  # the file itself, under its other name


def test_a_repositorys_gitignore_above_the_root_is_watched_too(watching, docs):
    """The rules of a repository's .gitignore above a root apply to it, but only the roots were
    watched: a file it newly ignores stayed served until the next pass over every root."""
    (docs.parent / ".git").mkdir()  # the repository's top, above the root
    kept, secret = write(docs / "kept.md", "# Kept\n\nOn herons."), write(docs / "secret.md", "# Secret\n\nOn egrets.")
    w = watching_with_watches_up(watching)
    assert {str(kept), str(secret)} <= set(w.sources())
    (docs.parent / ".gitignore").write_text(f"{docs.name}/secret.md\n")
    eventually(lambda: str(secret) not in w.sources(), what="the file the repository's rules now leave out gone")
    assert str(kept) in w.sources()


def test_batches_lost_one_a_second_have_every_root_looked_at_every_ten_seconds_not_later_and_later(
        docs, tmp_path, monkeypatch):
    """Each lost batch had pushed the look it asked for ten seconds further: after N of them, 10 N s."""
    from minirag.ingest import watch

    clock = [1000.0]
    monkeypatch.setattr(watch.time, "monotonic", lambda: clock[0])
    w = watch.Watcher([docs], tmp_path / "index.db", lambda _paths, _progress: None)
    w._reconcile_at = float("inf")  # the first pass is done
    looks = []
    for _second in range(60):
        w._lost_batch(RuntimeError("Unable to decode path"))
        if clock[0] >= w._reconcile_at:  # the pass over every root runs, and sets the next one
            looks.append(clock[0])
            w._reconcile_at = clock[0] + w.reconcile_every
        clock[0] += 1.0
    assert looks == [1000.0 + 10 * n for n in range(6)], looks


def test_a_tree_over_half_the_watch_limit_is_watched_again_without_polling(watching, docs, monkeypatch):
    """The watches being replaced are kept until the new ones are up, and the OS limit counts
    both: where both sets do not fit, the new set is made alone (and every root synced for what
    changed between), not given up for polling."""
    import watchfiles

    real, live = watchfiles.watch, []

    def limited(*paths, **kwargs):  # room for one set of watches only
        if live:
            raise OSError("OS file watch limit reached. about [...] (os error 28)")

        def watches():
            live.append(paths)
            try:
                yield from real(*paths, **kwargs)
            finally:
                live.remove(paths)
        return watches()

    monkeypatch.setattr(watchfiles, "watch", limited)
    w = watching_with_watches_up(watching)
    a_new_folder_is_watched(w, docs / "new")
    assert w.app.watch_state().mode == "notifications"
