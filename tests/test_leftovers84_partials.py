"""Leftovers 84: the partial files earlier releases named by their writer's process id and never locked
(`table.npy.<pid>.partial` for a model's derived files and the tokenizer's cache, `<key>.<pid>.<thread>.part`
for OCR's cache) are swept by the next write of their file once no live process has that id; one whose
writer still runs is kept."""

from __future__ import annotations

import subprocess
import sys

from minirag.store.partials import write_atomically


def _dead_pid() -> int:
    done = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True,
                          check=True)
    return int(done.stdout)


def test_leftovers84_a_partial_named_by_a_dead_writers_pid_is_swept(tmp_path):
    dead = _dead_pid()
    old = tmp_path / f"table.npy.{dead}.partial"
    old.write_bytes(b"half of an older release's table")
    write_atomically(tmp_path / "table.npy", lambda f: f.write(b"whole"))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["table.npy"]


def test_leftovers84_an_ocr_part_named_by_a_dead_writers_pid_is_swept(tmp_path):
    dead = _dead_pid()
    old = tmp_path / f"0123abcd.{dead}.140211.part"
    old.write_bytes(b'["half')
    write_atomically(tmp_path / "0123abcd.json", lambda f: f.write(b"[]"))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["0123abcd.json"]


def test_leftovers84_a_pid_partial_whose_writer_lives_is_kept_and_others_are_not_touched(tmp_path):
    writer = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        live = tmp_path / f"table.npy.{writer.pid}.partial"
        live.write_bytes(b"being written by an older release")
        unrelated = [tmp_path / f"scale.npy.{_dead_pid()}.partial", tmp_path / "table.npy.notapid.partial",
                     tmp_path / "table.npy.12.34.part"]
        for path in unrelated:
            path.write_bytes(b"not table.npy's")
        write_atomically(tmp_path / "table.npy", lambda f: f.write(b"whole"))
        assert live.exists() and all(path.exists() for path in unrelated)
    finally:
        writer.kill()
        writer.wait(30)
