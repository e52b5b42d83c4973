"""A file dated in the future (a tar entry, `touch -d`, a camera's clock) was read and hashed at every
sync (its mtime stored as unknown, the racy rule's guard against same-tick edits): its stat is
trusted now where its ctime, which every write moves, is old enough to trust; an edit is still seen."""

from __future__ import annotations

import os
import time

import pytest
from conftest import write

from minirag.ingest import pipeline
from minirag.ingest.scan import FoundFile

DAY_NS = 86_400 * 10**9


def _reads(monkeypatch) -> list[str]:
    """The files whose bytes the pipeline reads from now on."""
    read: list[str] = []
    real = pipeline.read_file_inside_roots

    def counted(source, *args, **kwargs):
        read.append(source)
        return real(source, *args, **kwargs)

    monkeypatch.setattr(pipeline, "read_file_inside_roots", counted)
    return read


@pytest.mark.skipif(not pipeline.CTIME_IS_CHANGE, reason="the ctime is the creation time here")
def test_a_future_dated_file_is_not_read_again_at_every_sync_and_an_edit_is_still_seen(app, docs, monkeypatch):
    # The file's ctime is as old as it may be while the test runs: the racy window shrunk to 1 ns,
    # where it is 3 s (the ctime moved when its mtime was set).
    monkeypatch.setattr(pipeline, "RACY_NS", 1)
    path = write(docs / "letter.md", "# Letter\n\nA letter from the future about herons.\n")
    future = time.time_ns() + 365 * DAY_NS
    os.utime(path, ns=(future, future))
    assert app.sync().done == 1
    read = _reads(monkeypatch)
    again = app.sync()
    assert (again.done, again.skipped) == (0, 1) and read == [], read  # the stat told
    # An edit of the same size that puts the same future date back: the ctime moved, so it is read.
    write(path, "# Letter\n\nA letter from the future about egrets.\n")
    os.utime(path, ns=(future, future))
    edited = app.sync()
    assert edited.done == 1 and read == [str(path)]
    assert "egrets" in app.read(str(path)).text


def test_a_future_mtime_beside_a_fresh_or_future_ctime_stays_unknown():
    now = time.time_ns()
    stat = os.stat(__file__)
    found = FoundFile.of(__file__, __file__, stat)

    def at(mtime_ns: int, ctime_ns: int):
        return pipeline.stored_stat(FoundFile(found.source, found.real, found.size, mtime_ns, ctime_ns, found.inode,
                                              read_ns=now))

    old = now - 60 * 10**9
    assert at(now + DAY_NS, old)[1:3] == ((now + DAY_NS, old) if pipeline.CTIME_IS_CHANGE else (None, old))
    assert at(now + DAY_NS, now - 10**9)[1:3] == (None, None)  # written a second ago: racy
    assert at(now + DAY_NS, now + DAY_NS)[1:3] == (None, None)  # a server's clock ahead
    assert at(pipeline.LATEST_NS + 1, old)[1] is None  # past what SQLite's INTEGER holds
