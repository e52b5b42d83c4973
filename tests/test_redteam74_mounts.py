"""A drive mounted on a folder inside a root (a NAS share at docs/share), unmounted between two syncs,
leaves an empty folder on the root's filesystem. A root left so is kept (ingest/mounts.py), but the
folder inside one was read as emptied: the second sync deleted every document the drive held,
and the drive mounted again had each of them converted and embedded anew."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from conftest import write

from minirag.ingest.sync import run_sync


def _sync(app):
    return run_sync(app.pipeline, list(app.config.roots))


def _sources(app) -> set[str]:
    return {row.source for row in app.index.list_sources()}


@pytest.fixture
def drive(docs, tmp_path):
    """docs/share with a drive (a tmpfs: a filesystem of its own) bind-mounted on it; yields (the mount
    point, unmount, mount again). A bind mount alone keeps its source's filesystem, so st_dev too."""
    held = tmp_path / "drive"
    held.mkdir()
    share = docs / "share"
    share.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(held)], capture_output=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.decode().strip()}")
    mounted = [False]

    def mount() -> None:
        subprocess.run(["mount", "--bind", str(held), str(share)], check=True)
        mounted[0] = True

    def unmount() -> None:
        subprocess.run(["umount", str(share)], check=True)
        mounted[0] = False

    try:
        mount()
        yield share, unmount, mount
    finally:
        if mounted[0]:
            subprocess.run(["umount", str(share)], check=False)
        subprocess.run(["umount", str(held)], check=False)


def test_a_drive_unmounted_from_a_folder_inside_a_root_keeps_its_documents_indexed(app, docs, drive):
    share, unmount, mount = drive
    top = write(docs / "top.md", "# Top\n\nOn the root's own disk.")
    on_drive = {str(write(share / "a.md", "# A\n\nApples on the share.")),
                str(write(share / "deep" / "b.md", "# B\n\nBananas deeper on the share."))}
    assert _sync(app).done == 3
    unmount()
    result = _sync(app)
    assert (result.deleted, result.failed) == (0, 0)
    assert result.unread == 1 and any("unmounted" in w and str(share) in w for w in result.warnings), result.warnings
    assert _sources(app) == {str(top), *on_drive}
    mount()
    again = _sync(app)
    assert (again.done, again.skipped, again.deleted) == (0, 3, 0)


def test_a_folder_inside_a_root_emptied_on_the_roots_own_disk_is_read_as_emptied(app, docs):
    top = write(docs / "top.md", "# Top\n\nStays.")
    gone = write(docs / "share" / "a.md", "# A\n\nDeleted by hand.")
    assert _sync(app).done == 2
    gone.unlink()
    assert _sync(app).deleted == 1
    assert _sources(app) == {str(top)}


@pytest.mark.parametrize("scope", ["the files", "the drive folder", "the root"])
def test_a_sync_of_paths_after_the_unmount_keeps_the_drives_documents(app, docs, drive, scope):
    """What the watcher runs when polling sees the drive's files go: a sync of those paths, or of a
    folder at or above the mount point."""
    share, unmount, _mount = drive
    on_drive = {str(write(share / "a.md", "# A\n\nApples on the share.")),
                str(write(share / "deep" / "b.md", "# B\n\nBananas deeper on the share."))}
    assert _sync(app).done == 2
    unmount()
    paths = {"the files": sorted(on_drive), "the drive folder": [str(share)], "the root": [str(docs)]}[scope]
    result = run_sync(app.pipeline, list(app.config.roots), paths=[Path(p) for p in paths])
    assert (result.deleted, result.failed) == (0, 0)
    assert _sources(app) == on_drive


def test_a_drive_folder_that_became_a_plain_folder_is_forgotten_and_emptying_it_deletes(app, docs, drive):
    share, unmount, _mount = drive
    write(share / "a.md", "# A\n\nApples on the share.")
    assert _sync(app).done == 1
    unmount()
    plain = write(share / "c.md", "# C\n\nCherries copied onto the root's own disk.")
    result = _sync(app)
    assert (result.done, result.deleted) == (1, 1)  # no longer empty: read as it is
    plain.unlink()
    result = _sync(app)
    assert (result.deleted, result.unread) == (1, 0)
    assert _sources(app) == set()
