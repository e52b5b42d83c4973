"""A backup's sweep of stale partial copies (store/partials.py) opens every name shaped like one in
DEST's folder, which may be a folder others write (a shared backups folder, /tmp)."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from minirag.errors import InvalidArgument
from minirag.store.backup import backup

DEADLINE_S = 60  # far past any backup of this index; only a hang reaches it


def test_a_fifo_named_like_a_partial_copy_does_not_hang_the_backup(indexed, tmp_path):
    """`mkfifo index.db.abcdefgh.partial` beside DEST made every later `minirag backup DEST` block for
    ever in the sweep's open(), which waited for a writer to the pipe. Now the sweep never waits on
    what it opens and takes only regular files for partial copies: the backup is made and the pipe
    left where it was."""
    source = indexed.config.db_path
    indexed.close()
    dest = tmp_path / "backups" / "index.db"
    dest.parent.mkdir()
    pipe = dest.parent / "index.db.abcdefgh.partial"
    os.mkfifo(pipe)
    outcome = _backup_unless_it_hangs(source, dest, pipe)
    assert outcome is not None, "the backup blocked on the pipe named like a partial copy"
    assert not isinstance(outcome, BaseException), outcome
    assert outcome.integrity == "ok" and dest.is_file()
    assert pipe.exists()


def test_a_fifo_put_in_place_of_an_earlier_backup_after_it_was_checked_is_refused(indexed, tmp_path, monkeypatch):
    """DEST is read to tell an earlier backup from another file: a pipe swapped in after the check
    that it is a regular file (simulated: the check is told it is one) blocked the backup in open()."""
    source = indexed.config.db_path
    indexed.close()
    dest = tmp_path / "index-copy.db"
    os.mkfifo(dest)
    real_is_file = Path.is_file
    monkeypatch.setattr(Path, "is_file", lambda self: True if self == dest else real_is_file(self))
    outcome = _backup_unless_it_hangs(source, dest, dest)
    assert outcome is not None, "the backup blocked on the pipe put in place of DEST"
    with pytest.raises(InvalidArgument, match="exists and is not a regular file"):
        raise outcome


def _backup_unless_it_hangs(source: Path, dest: Path, pipe: Path) -> object:
    """What `backup(source, dest)` returned or raised, made on a thread; None where it was still
    blocked after DEADLINE_S (on `pipe`: a writer is then opened to it, so that the thread ends)."""
    outcome: list = []

    def run() -> None:
        try:
            outcome.append(backup(source, dest))
        except BaseException as exc:  # noqa: BLE001 - handed to the test's thread
            outcome.append(exc)

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(DEADLINE_S)
    if worker.is_alive():
        os.close(os.open(pipe, os.O_WRONLY | os.O_NONBLOCK))
        worker.join(DEADLINE_S)
        return None
    return outcome[0]
