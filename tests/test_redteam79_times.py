"""Red team 79: file times an attacker (or an old archive) can give a file.

A file's stat is stored beside its bytes as nanoseconds in SQLite's signed 64-bit INTEGER. tmpfs,
btrfs and XFS keep 64-bit seconds, so `touch -d 1600-01-01` (or a tar entry with such a date)
gives an mtime before 1677-09-21, the first nanosecond a signed 64-bit number can hold: the
file failed at every sync with "unexpected error: OverflowError ... please report it" and was
never indexed. A time in the future was already stored as unknown (the racy rule)."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest

from minirag.results import payload

_BEFORE_1677_NS = -(10**20)  # year -1199: far past what an int64 of nanoseconds holds
_AFTER_2262_NS = 10**20  # year 5138


@pytest.fixture
def wide_time_root():
    """A folder on a file system that keeps times outside 1677..2262 (tmpfs); skipped where none is."""
    base = Path("/dev/shm")
    if not base.is_dir() or not os.access(base, os.W_OK):
        pytest.skip("no writable /dev/shm")
    root = Path(tempfile.mkdtemp(prefix="rt79-times-", dir=base))
    try:
        probe = root / "probe"
        probe.write_text("x")
        os.utime(probe, ns=(_BEFORE_1677_NS, _BEFORE_1677_NS))
        if probe.stat().st_mtime_ns != _BEFORE_1677_NS:
            pytest.skip("this /dev/shm clamps file times")
        probe.unlink()
        yield root
    finally:
        shutil.rmtree(root, ignore_errors=True)


def test_a_file_dated_before_1677_or_after_2262_is_indexed_and_kept_in_sync(make_app, wide_time_root):
    old = wide_time_root / "old.md"
    old.write_text("# Scroll\n\nThe ancient scroll tells of pelicans.\n")
    future = wide_time_root / "future.md"
    future.write_text("# Letter\n\nA letter from the future about herons.\n")
    os.utime(old, ns=(_BEFORE_1677_NS, _BEFORE_1677_NS))
    os.utime(future, ns=(_AFTER_2262_NS, _AFTER_2262_NS))
    app = make_app(base_dirs=[str(wide_time_root)])

    first = payload(app.sync())
    assert (first["failed"], first["ingested"]) == (0, 2), first
    assert {hit["source"] for hit in payload(app.query("pelicans scroll"))["results"]} >= {str(old)}

    again = payload(app.sync())
    assert (again["failed"], again["ingested"], again["skipped"]) == (0, 0, 2), again

    # An edit that keeps the size and the date is still seen (the time is unknown, so the bytes are hashed).
    old.write_text("# Scroll\n\nThe ancient scroll tells of flamingo.\n")
    os.utime(old, ns=(_BEFORE_1677_NS, _BEFORE_1677_NS))
    edited = payload(app.sync())
    assert (edited["failed"], edited["ingested"]) == (0, 1), edited
    assert "flamingo" in payload(app.read(str(old)))["text"]
    states = {entry.source: entry.state for entry in app.list_files().files}
    assert states == {str(old): "indexed", str(future): "indexed"}
