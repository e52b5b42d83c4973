"""The sync lock is written at every sync, so what sits at its path must be a plain file of
its own: a symlink, a hard link or a FIFO planted there is refused in one line and whatever it
points at is left as it was. Through the real CLI on a real index."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from conftest import write
from helpers.held_sync import held_sync

from minirag import cli
from minirag.errors import FileAccessError, SyncLocked
from minirag.store.lock import SyncLock, lock_path_for

USER_FILE = "my thesis, chapter 1\n" * 50


@pytest.fixture
def world(cli_env, tmp_path):
    victim = tmp_path / "thesis.txt"
    victim.write_text(USER_FILE)
    return cli_env.with_name(cli_env.name + ".sync.lock"), victim


def sync(capsys) -> tuple[int, str]:
    code = cli.main(["sync"])
    return code, capsys.readouterr().err


def plant_symlink(lock, victim):
    lock.symlink_to(victim)


def plant_dangling_symlink(lock, victim):
    lock.symlink_to(victim.with_name("not-yet-there.txt"))


def plant_hard_link(lock, victim):
    os.link(victim, lock)


def plant_fifo(lock, victim):
    os.mkfifo(lock)


@pytest.mark.parametrize("plant", [plant_symlink, plant_dangling_symlink, plant_hard_link, plant_fifo])
def test_a_lock_path_that_is_not_a_plain_file_of_its_own_is_refused_and_left_untouched(world, capsys, plant):
    lock, victim = world
    plant(lock, victim)
    before, victim_before = os.lstat(lock), os.stat(victim).st_mtime_ns
    code, err = sync(capsys)
    assert code == 1 and err.count("\n") == 1 and "Traceback" not in err, err
    assert err.startswith("minirag: error: the sync lock ") and "refusing to write through it" in err
    assert victim.read_text() == USER_FILE and os.stat(victim).st_mtime_ns == victim_before
    assert not victim.with_name("not-yet-there.txt").exists()
    after = os.lstat(lock)
    assert (after.st_mode, after.st_ino, after.st_size) == (before.st_mode, before.st_ino, before.st_size)


def test_a_plain_lock_file_still_works_and_records_its_holder(world, capsys):
    lock, _victim = world
    assert sync(capsys)[0] == 0
    with SyncLock(lock.with_name("index.db")):
        assert b'"pid"' in lock.read_bytes()


def test_a_symlinked_lock_is_refused_by_the_lock_itself(tmp_path):
    target = tmp_path / "target"
    target.write_text("keep")
    (tmp_path / "index.db.sync.lock").symlink_to(target)
    with pytest.raises(FileAccessError, match="is a symbolic link"):
        SyncLock(tmp_path / "index.db").acquire()
    assert target.read_text() == "keep"


def test_a_lock_whose_holder_record_cannot_be_written_is_let_go_and_says_why(tmp_path, monkeypatch):
    """A full disk at the holder record (a new lock file has no block yet) must not leave the
    lock held: a server would refuse every later sync, and every CLI sync, until it restarts."""
    import errno

    from minirag.store import lock as lock_module

    real_write = os.write

    def full_disk(fd, data):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(lock_module.os, "write", full_disk)
    with pytest.raises(FileAccessError, match="No space left on device") as caught:
        SyncLock(tmp_path / "index.db").acquire()
    assert str(tmp_path / "index.db.sync.lock") in str(caught.value) and "\n" not in str(caught.value)
    monkeypatch.setattr(lock_module.os, "write", real_write)
    with SyncLock(tmp_path / "index.db"):  # free again: not "another sync is already running"
        pass


# --- the lock file removed or replaced while a sync holds it ------------------------------------
# A kernel lock lives on the file, not on its name: with the file deleted (an `rm` of a "stale"
# lock, a `git clean -x`, a folder restored from a copy) the next sync made a new one, locked it
# and ran beside the first. Two CLI syncs both reported "300 ingested" of the same 300 files.


def _delete(lock_path: Path) -> None:
    lock_path.unlink()


def _replace(lock_path: Path) -> None:
    fresh = lock_path.with_name(lock_path.name + ".new")
    fresh.write_bytes(b"")
    os.replace(fresh, lock_path)


def _many_documents(docs: Path, count: int) -> None:
    for number in range(count):
        write(docs / f"note{number:02d}.md", f"# Note {number}\n\nA note about the harbour, number {number}.\n")


@pytest.mark.parametrize("remove", [_delete, _replace])
def test_a_sync_whose_lock_file_goes_while_it_runs_stops_rather_than_run_beside_another(app, docs, remove):
    _many_documents(docs, 12)
    lock_path = lock_path_for(app.config.db_path)
    others: list[SyncLock] = []

    def meanwhile(_progress) -> None:
        if not others:  # at the first file: the lock file goes, and another sync locks a new one
            remove(lock_path)
            others.append(SyncLock(app.config.db_path).acquire())

    with pytest.raises(FileAccessError) as caught:
        app.sync(on_change=meanwhile)
    message = str(caught.value)
    # stopped at the next file, so not every file was written beside the other sync
    assert app.index.conn.execute("SELECT COUNT(*) FROM sources").fetchone()[0] < 12
    assert f"the sync lock {lock_path} was deleted or replaced while this sync ran" in message
    assert "\n" not in message
    # The other sync's lock is its own, untouched: a third is still refused.
    with pytest.raises(SyncLocked):
        SyncLock(app.config.db_path).acquire()
    others[0].release()
    done = app.sync()
    assert done.failed == 0 and app.index.conn.execute("SELECT COUNT(*) FROM sources").fetchone()[0] == 12


def test_a_sync_of_one_large_file_whose_lock_file_goes_stops_before_writing_it(app, docs):
    """Another writer could write the file's newer bytes while this one still embeds its older ones, and
    this one would then write those over them: the lock is checked between encoder batches too."""
    paragraphs = [f"Paragraph {n} tells of the harbour, its ships and the tide of day {n}." for n in range(1500)]
    write(docs / "large.md", "# Large\n\n" + "\n\n".join(paragraphs) + "\n")
    lock_path = lock_path_for(app.config.db_path)
    others: list[SyncLock] = []
    batches: list[float] = []

    def meanwhile(progress) -> None:
        if progress.bytes_partial:
            batches.append(progress.bytes_partial)
            if not others:  # inside the file's embedding: the lock file goes, another sync takes a new one
                _delete(lock_path)
                others.append(SyncLock(app.config.db_path).acquire())

    with pytest.raises(FileAccessError, match="was deleted or replaced while this sync ran"):
        app.sync(on_change=meanwhile)
    others[0].release()
    assert len(batches) == 1  # stopped at the next encoder batch
    assert app.index.conn.execute("SELECT COUNT(*) FROM sources").fetchone()[0] == 0


def test_a_sync_whose_lock_file_goes_before_it_drops_deleted_files_drops_none(app, docs, monkeypatch):
    """The files a sync found gone are dropped after its files are read: a sync whose lock went by
    then (another one may have indexed them again, put back) must not delete what that one wrote."""
    from minirag.ingest.pipeline import Pipeline

    _many_documents(docs, 3)
    app.sync()
    (docs / "note01.md").unlink()
    lock_path = lock_path_for(app.config.db_path)
    others: list[SyncLock] = []
    read_files = Pipeline.run_files

    def then_the_lock_file_goes(self, *args, **kwargs):
        read_files(self, *args, **kwargs)
        _delete(lock_path)
        others.append(SyncLock(app.config.db_path).acquire())

    monkeypatch.setattr(Pipeline, "run_files", then_the_lock_file_goes)
    with pytest.raises(FileAccessError, match="was deleted or replaced while this sync ran"):
        app.sync()
    others[0].release()
    sources = {row[0] for row in app.index.conn.execute("SELECT source FROM sources")}
    assert str(docs / "note01.md") in sources


def test_a_sync_job_whose_lock_file_goes_fails_saying_so(app, docs, monkeypatch):
    _many_documents(docs, 4)
    gone = held_sync(monkeypatch)  # let go once the lock file is gone
    job = app.start_sync()  # the lock is taken before this returns
    lock_path_for(app.config.db_path).unlink()
    gone.set()
    assert job.wait(60)
    assert job.state == "failed" and "was deleted or replaced while this sync ran" in (job.error or "")


def test_a_lock_file_deleted_between_its_open_and_its_lock_is_not_taken_for_the_lock(tmp_path, monkeypatch):
    """The file opened is deleted and another process makes and locks a new one before this one
    locks the old: each would hold "the" lock."""
    from minirag.store import lock as lock_module

    db_path = tmp_path / "index.db"
    real_try_lock = lock_module._try_lock
    others: list[SyncLock] = []
    raced = []

    def deleted_first(fd: int) -> bool:
        if not raced:
            raced.append(True)
            lock_path_for(db_path).unlink()
            others.append(SyncLock(db_path).acquire())
        return real_try_lock(fd)

    monkeypatch.setattr(lock_module, "_try_lock", deleted_first)
    with pytest.raises(SyncLocked):
        SyncLock(db_path).acquire()
    others[0].release()
    with SyncLock(db_path) as mine:
        assert mine.intact()


@pytest.mark.parametrize("record", [b'{"pid": 12, "started": "yesterday"}', b'{"pid": 12, "started": Infinity}',
                                    b"[1, 2]", b"7", b'{"pid": 12, "started": null}'])
def test_a_held_lock_whose_holder_record_is_not_minirags_still_refuses_in_one_line(tmp_path, record):
    """The record is read from a file anyone who can write the index's folder can write (a shared
    folder): what it holds must not turn the refusal into an internal error."""
    db_path = tmp_path / "index.db"
    with SyncLock(db_path):
        lock_path_for(db_path).write_bytes(b"\0" + record)
        with pytest.raises(SyncLocked, match="another sync is already running against this index") as caught:
            SyncLock(db_path).acquire()
    assert "\n" not in str(caught.value)


# Every write of a sync is made under the lock: not only the files it ingests and those it drops,
# but what it records beside them (a touched file's new stat, a failure, a conversion's mark while
# it runs). Those had no check of their own: a sync whose lock file went on writing them, beside
# the sync that locked a new file, until its next file's check.


def _touched(docs: Path, app) -> None:
    import time

    _many_documents(docs, 1)  # the one file's stat is recorded after its check, at the run's end
    for age in (1000, 500):  # old enough that the stat is trusted, then the same bytes touched
        for path in docs.iterdir():
            os.utime(path, (time.time() - age, time.time() - age))
        if age == 1000:
            app.sync()


def _failing(docs: Path, app) -> None:
    for name in ("a.docx", "b.docx", "c.docx"):
        (docs / name).write_bytes(b"not a zip at all")


@pytest.mark.parametrize("setup", [_touched, _failing])
def test_a_sync_whose_lock_file_goes_writes_nothing_after_it_went(app, docs, setup):
    """What this sync wrote once its lock file was gone (and another sync locked a new one) is
    seen as the index file's data_version moving past the moment the lock went."""
    from minirag.store import connection as db

    setup(docs, app)
    lock_path = lock_path_for(app.config.db_path)
    watcher = db.connect(app.config.db_path)
    others: list[SyncLock] = []
    version_when_gone: list[int] = []

    def meanwhile(_progress) -> None:
        if not others:  # at the first file: the lock file goes, another sync locks a new one
            _delete(lock_path)
            others.append(SyncLock(app.config.db_path).acquire())
            version_when_gone.append(watcher.execute("PRAGMA data_version").fetchone()[0])

    with pytest.raises(FileAccessError, match="was deleted or replaced while this sync ran"):
        app.sync(on_change=meanwhile)
    others[0].release()
    assert version_when_gone, "the sync never reached its first file"
    assert watcher.execute("PRAGMA data_version").fetchone()[0] == version_when_gone[0]
    watcher.close()
    done = app.sync()  # the next sync does the rest
    assert done.failed + done.still_failing == (3 if setup is _failing else 0)


def test_a_sync_whose_lock_file_goes_while_it_reads_the_roots_git_state_records_nothing(app, docs, monkeypatch):
    """After its files a full sync asks git for each root's state (`git status`: seconds on a large
    work tree), then records it and the time of the sync: written after the lock's last check."""
    from minirag import gitstate
    from minirag.store import connection as db

    _many_documents(docs, 2)
    lock_path = lock_path_for(app.config.db_path)
    others: list[SyncLock] = []
    version_when_gone: list[int] = []
    real_root_states = gitstate.root_states
    watcher = db.connect(app.config.db_path)

    def slow_git(*args, **kwargs):
        states = real_root_states(*args, **kwargs)
        _delete(lock_path)
        others.append(SyncLock(app.config.db_path).acquire())
        version_when_gone.append(watcher.execute("PRAGMA data_version").fetchone()[0])
        return states

    monkeypatch.setattr(gitstate, "root_states", slow_git)
    with pytest.raises(FileAccessError, match="was deleted or replaced while this sync ran"):
        app.sync()
    others[0].release()
    assert watcher.execute("PRAGMA data_version").fetchone()[0] == version_when_gone[0]
    watcher.close()


def test_a_sync_start_refused_by_a_job_of_the_same_server_names_that_job(app, docs, monkeypatch):
    """The refusal named the holder by PID: the server's own, which a client cannot stop, while the job
    it can follow and cancel by its jobId went unsaid (a client that lost the jobId, or another agent
    of the same server, had no way to reach it)."""
    _many_documents(docs, 2)
    go = held_sync(monkeypatch)
    first = app.start_sync()
    try:
        with pytest.raises(SyncLocked) as caught:
            app.start_sync()
    finally:
        go.set()
        assert first.wait(60)
    assert str(caught.value) == (f"sync job {first.job_id} of this server (pid {os.getpid()}) is running: "
                                 "sync_status with that jobId follows it, sync_cancel stops it")


def test_a_sync_whose_lock_file_goes_starts_no_conversion_it_had_queued(app, docs, monkeypatch):
    """Files are converted ahead in threads, each conversion marked in the index while it runs (and the
    mark cleared after). A sync that lost its lock went on converting every file it had queued, up to
    64, writing each one's marks. A conversion thread that checked the lock just before it went may still
    write once; none after that."""
    from minirag.store.index import Index

    _many_documents(docs, 60)
    lock_path = lock_path_for(app.config.db_path)
    others: list[SyncLock] = []
    after: list[str] = []
    real_mark, real_unmark = Index.mark_converting, Index.unmark_converting

    def mark(self, source, state):
        real_mark(self, source, state)
        if others:
            after.append(source)

    def unmark(self, source, reason):
        real_unmark(self, source, reason)
        if others:
            after.append(source)

    def meanwhile(_progress) -> None:
        if not others:
            _delete(lock_path)
            others.append(SyncLock(app.config.db_path).acquire())

    monkeypatch.setattr(Index, "mark_converting", mark)
    monkeypatch.setattr(Index, "unmark_converting", unmark)
    with pytest.raises(FileAccessError, match="was deleted or replaced while this sync ran"):
        app.sync(on_change=meanwhile)
    others[0].release()
    assert len(after) <= 4, after  # at most one a converting thread


def test_a_lock_whose_new_index_folder_a_failed_first_sync_takes_away_meanwhile_is_still_taken(tmp_path, monkeypatch):
    """Two first syncs: one made the `.minirag` folder and its lock, and its model failed to load
    (abandon: the lock file and the folder it made go); the other had found the folder there, and its
    open of the lock file in it failed: 'cannot create the sync lock ...: No such file or directory;
    the index's folder must be writable', a refusal for a folder that was writable and is gone."""
    from minirag.store import lock as lock_module

    db_path = tmp_path / "docs" / ".minirag" / "index.db"
    first = SyncLock(db_path).acquire()
    real_make = lock_module.make_index_folder
    raced = []

    def abandoned_meanwhile(path) -> bool:
        made = real_make(path)
        if not raced:
            raced.append(True)
            first.abandon()  # between this sync's look at the folder and its open of the lock file in it
        return made

    monkeypatch.setattr(lock_module, "make_index_folder", abandoned_meanwhile)
    second = SyncLock(db_path).acquire()
    assert raced and second.intact()
    second.abandon()  # the folder it made again is taken away in turn
    assert not db_path.parent.exists()


def test_a_failed_first_sync_never_takes_the_gitignore_from_a_folder_another_process_wrote_into_meanwhile(
        tmp_path, monkeypatch):
    """abandon looked at the `.minirag` folder it made (only its .gitignore in it), then removed the
    .gitignore, then the folder: another process's index written in between stayed in a folder without
    its .gitignore, for git to pick up."""
    from minirag.store import lock as lock_module

    db_path = tmp_path / "docs" / ".minirag" / "index.db"
    folder = db_path.parent
    first = SyncLock(db_path).acquire()
    gitignore = (folder / ".gitignore").read_bytes()
    real_scandir = os.scandir

    def written_into_meanwhile(path):
        listing = list(real_scandir(path))  # what abandon sees: only its own .gitignore
        (folder / "index.db").write_bytes(b"another process's index")  # before abandon acts on it
        return iter(listing)

    monkeypatch.setattr(lock_module.os, "scandir", written_into_meanwhile)
    first.abandon()
    monkeypatch.undo()
    assert (folder / "index.db").read_bytes() == b"another process's index"
    assert (folder / ".gitignore").read_bytes() == gitignore


def test_a_failed_first_sync_leaves_a_gitignore_someone_changed_and_its_folder(tmp_path):
    db_path = tmp_path / "docs" / ".minirag" / "index.db"
    first = SyncLock(db_path).acquire()
    (db_path.parent / ".gitignore").write_text("*\n!notes.txt\n")
    first.abandon()
    assert (db_path.parent / ".gitignore").read_text() == "*\n!notes.txt\n"
