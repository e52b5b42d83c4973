"""Real bind mounts for the tests that need one (root and mount privileges; skipped elsewhere)."""

from __future__ import annotations

import contextlib
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest


@contextlib.contextmanager
def bind_mount(*, read_only: bool = False) -> Iterator[tuple[Path, Path]]:
    """(a folder, the same folder mounted at a second path). Made outside pytest's own temp
    folders, which a concurrent pytest run may rename under a mount."""
    top = Path(tempfile.mkdtemp(prefix="minirag-mount-"))
    source, mount = top / "rw", top / "ro" if read_only else top / "bound"
    source.mkdir()
    mount.mkdir()
    done = subprocess.run(["mount", "--bind", str(source), str(mount)], capture_output=True)
    if done.returncode != 0:
        shutil.rmtree(top)
        pytest.skip(f"cannot bind-mount here: {done.stderr.decode().strip()}")
    try:
        if read_only:
            subprocess.run(["mount", "-o", "remount,bind,ro", str(mount)], check=True)
        yield source, mount
    finally:
        subprocess.run(["umount", str(mount)], check=False)
        shutil.rmtree(top, ignore_errors=True)


@contextlib.contextmanager
def full_tmpfs() -> Iterator[Path]:
    """A real 64 KiB tmpfs filled to the last byte, made outside pytest's own temp folders."""
    folder = Path(tempfile.mkdtemp(prefix="minirag-full-"))
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(folder)], capture_output=True)
    if done.returncode != 0:
        shutil.rmtree(folder)
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.decode().strip()}")
    try:
        with open(folder / "filler", "wb", buffering=0) as filler, contextlib.suppress(OSError):
            while True:
                filler.write(b"\0" * 4096)
        yield folder
    finally:
        subprocess.run(["umount", str(folder)], check=False)
        shutil.rmtree(folder, ignore_errors=True)
