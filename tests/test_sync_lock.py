"""The sync lock is written at every sync, so what sits at its path must be a plain file of
its own: a symlink, a hard link or a FIFO planted there is refused in one line and whatever it
points at is left as it was. Through the real CLI on a real index."""

from __future__ import annotations

import os

import pytest

from minirag import cli
from minirag.errors import FileAccessError
from minirag.store.lock import SyncLock

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
