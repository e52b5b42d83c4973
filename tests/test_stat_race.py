"""A file swapped between the walk's stat and the read (a rename over it: git checkout, rsync, a
save by rename) must not leave the index holding one file's bytes under the other's size and
mtime: the next sync trusts that stat, and a file that then holds the other version is never read
again (its index stays the wrong text until it changes once more)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from minirag.ingest.pipeline import file_hash

SWAP_SECONDS = 3.0

_SWAPPER = """
import os, sys, time
a, b, name, seconds = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
tmp = name + ".swap~"
end = time.monotonic() + seconds
while time.monotonic() < end:
    for version in (b, a):
        os.link(version, tmp)
        os.replace(tmp, name)
"""


def _version(path: Path, text: str, mtime_s: int) -> tuple[int, int, str]:
    path.write_text(text, encoding="utf-8")
    os.utime(path, ns=(mtime_s * 10**9, mtime_s * 10**9))
    st = path.stat()
    return st.st_size, st.st_mtime_ns, file_hash(path.read_bytes())


@pytest.mark.slow
def test_a_file_swapped_between_its_stat_and_its_read_is_stored_with_the_stat_of_the_bytes_read(app, docs, tmp_path):
    versions = tmp_path / "versions"
    versions.mkdir()
    # Two versions of one note, each with a stat of its own (old mtimes, so the stat is trusted).
    a = _version(versions / "a", "# Alpha\n\nThe first version, about apples.\n", 1_600_000_000)
    b = _version(versions / "b", "# Beta\n\nThe second version, longer, about bananas and pears.\n", 1_650_000_000)
    name = docs / "note.md"
    os.link(versions / "a", name)
    app.sync()  # the first conversion starts what later ones reuse
    swapper = subprocess.Popen([sys.executable, "-c", _SWAPPER, str(versions / "a"), str(versions / "b"), str(name),
                                str(SWAP_SECONDS)])
    mismatched, syncs = [], 0
    try:
        deadline = time.monotonic() + SWAP_SECONDS
        while time.monotonic() < deadline:
            app.sync()
            syncs += 1
            row = app.index.conn.execute("SELECT size, mtime_ns, content_hash FROM sources WHERE source = ?",
                                         (str(name),)).fetchone()
            if row is not None and tuple(row) not in (a, b):
                mismatched.append(tuple(row))
    finally:
        swapper.wait(timeout=SWAP_SECONDS + 10)
    assert syncs >= 5
    assert mismatched == [], f"{len(mismatched)} of {syncs} syncs stored one version's stat with another's bytes"
