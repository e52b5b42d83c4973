"""A folder on a file system that looks names up regardless of letter case (macOS's APFS and
Windows' NTFS by default), mounted for real through FUSE (helpers/casefold_fs.py): a path given in
another case than its folder lists opens the same file, and must name the same source a sync stores,
not a second one beside it. Skipped where nothing can mount such a folder (no fusepy, no libfuse 2,
no /dev/fuse, no right to mount); this machine's kernel has no CONFIG_UNICODE, so neither ext4's nor
tmpfs's casefold mounts, and XFS's ascii-ci is not built in either."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import write

HELPER = Path(__file__).parent / "helpers" / "casefold_fs.py"
OTTERS = "# Otters\n\nSea otters hold hands while they sleep.\n"


def _skip_unless_fuse() -> None:
    try:
        import fuse  # type: ignore[import-not-found]  # noqa: F401
    except (ImportError, OSError) as exc:  # OSError: fusepy without libfuse 2
        pytest.skip(f"no case-insensitive file system can be mounted here: fusepy with libfuse 2 is needed ({exc})")
    if not os.path.exists("/dev/fuse") or not (os.geteuid() == 0 or shutil.which("fusermount")):
        pytest.skip("no case-insensitive file system can be mounted here: no /dev/fuse or no right to mount")


@pytest.fixture
def folded(tmp_path):
    """(the folder written to, the same folder mounted case-insensitively)."""
    _skip_unless_fuse()
    backing, mount = tmp_path / "backing", tmp_path / "mount"
    backing.mkdir()
    mount.mkdir()
    server = subprocess.Popen([sys.executable, str(HELPER), str(backing), str(mount)], stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 20
    while not os.path.ismount(mount):
        if server.poll() is not None or time.monotonic() > deadline:
            server.kill()
            pytest.skip(f"no case-insensitive file system can be mounted here: {server.communicate()[1].strip()}")
        time.sleep(0.05)
    try:
        yield backing, mount
    finally:
        unmount = ["umount", str(mount)] if os.geteuid() == 0 else ["fusermount", "-u", str(mount)]
        subprocess.run(unmount, check=False, timeout=30)
        server.wait(timeout=30)


@pytest.fixture
def folded_app(folded, make_app, tmp_path):
    backing, mount = folded
    write(backing / "docs" / "Notes.md", OTTERS)
    write(backing / "docs" / "Sub" / "Deep.md", "# Beavers\n\nBeavers build dams.\n")
    return make_app(base_dirs=[str(mount / "docs")], db_path=str(tmp_path / "index.db")), mount / "docs"


def _sources(app) -> list[str]:
    return [row[0] for row in app.index.conn.execute("SELECT source FROM sources ORDER BY source")]


def test_a_file_ingested_by_another_case_of_its_name_is_the_source_a_sync_stores(folded_app):
    """`ingest_file /d/NOTES.md`, which opens `/d/Notes.md` there, stored a second source beside the
    one a sync stores: search showed the file twice until the next sync dropped the copy."""
    app, docs = folded_app
    assert (docs / "NOTES.md").read_text() == OTTERS  # the file system folds case, for real
    app.sync()
    listed = [str(docs / "Notes.md"), str(docs / "Sub" / "Deep.md")]
    assert _sources(app) == listed
    assert app.ingest_file(str(docs / "NOTES.md")).source == str(docs / "Notes.md")
    assert app.ingest_file(str(docs / "sub" / "DEEP.MD")).source == str(docs / "Sub" / "Deep.md")
    assert _sources(app) == listed
    assert app.read(str(docs / "notes.md")).source == str(docs / "Notes.md")
    assert {hit.source for hit in app.query("beavers dams", scope=str(docs / "SUB")).hits} == {listed[1]}


def test_a_sync_of_a_folder_named_in_another_case_keeps_the_listed_spelling(folded_app):
    app, docs = folded_app
    app.sync(str(docs / "SUB"))
    assert _sources(app) == [str(docs / "Sub" / "Deep.md")]
    app.sync()
    assert _sources(app) == [str(docs / "Notes.md"), str(docs / "Sub" / "Deep.md")]


def test_a_name_its_folder_lists_is_kept_even_beside_a_hard_link_spelled_in_another_case(make_app, docs):
    """On a file system that does not fold case both names are listed, and each is a file of its own
    (hard links of one inode here): neither is respelled as the other. A name that opens nothing is
    left as given, for its own refusal."""
    notes = write(docs / "Notes.md", "# Otters\n\nSea otters hold hands.\n")
    os.link(notes, docs / "NOTES.md")
    app = make_app()
    assert app.file_source(str(docs / "NOTES.md"))[0] == str(docs / "NOTES.md")
    assert app.file_source(str(docs / "Notes.md"))[0] == str(docs / "Notes.md")
    assert app.search_scope(str(docs / "notes.md")) == str(docs / "notes.md")
