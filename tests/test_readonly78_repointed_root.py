"""A document root named through a symlink, and the link re-pointed at another folder while a server
runs: the configuration resolved the link once, at start, so the server goes on with the old folder.
What it serves must stay that folder's, and a sync must say that the root now leads elsewhere rather
than sync the old folder as if nothing happened."""

from __future__ import annotations

import os

import pytest
from conftest import write

from minirag.errors import MiniragError
from minirag.results import payload


@pytest.fixture
def linked_root(tmp_path):
    """(the link named as the root, its first target A, a second folder B), the link leading to A."""
    first, second = tmp_path / "A", tmp_path / "B"
    write(first / "notes.md", "# Otters\n\nSea otters hold hands while they sleep.\n")
    write(second / "notes.md", "# Vault\n\nThe zeppelin hangar code is kept here.\n")
    write(second / "more.md", "# More\n\nOnly folder B holds this marmalade.\n")
    link = tmp_path / "root"
    link.symlink_to(first, target_is_directory=True)
    return link, first, second


def _repoint(link, target) -> None:
    swap = link.with_name("root.new")
    swap.symlink_to(target, target_is_directory=True)
    os.replace(swap, link)


def test_a_sync_after_the_root_link_is_repointed_says_so_and_syncs_nothing(linked_root, make_app, tmp_path):
    """It synced the old folder again ("0 ingested, 1 unchanged") and the server went on serving it."""
    link, first, second = linked_root
    app = make_app(base_dirs=[str(link)], db_path=str(tmp_path / "index.db"))
    app.sync()
    _repoint(link, second)
    with pytest.raises(MiniragError) as caught:
        app.sync()
    message = str(caught.value)
    assert str(link) in message and str(second) in message and str(first) in message, message
    assert "restart" in message and "\n" not in message, message
    assert [f.source for f in app.list_files().files] == [str(first / "notes.md")]


def test_reads_after_the_root_link_is_repointed_never_serve_the_new_folder_under_the_old_index(
        linked_root, make_app, tmp_path):
    """Containment: what the index holds is the old folder's, read from there; the link's new target
    is outside the roots this server resolved, so nothing is read through it."""
    link, first, second = linked_root
    app = make_app(base_dirs=[str(link)], db_path=str(tmp_path / "index.db"))
    app.sync()
    _repoint(link, second)
    hits = payload(app.query("zeppelin hangar code"))["results"]
    assert {hit["source"] for hit in hits} <= {str(first / "notes.md")}
    assert "zeppelin" not in app.read(str(first / "notes.md")).text
    with pytest.raises(MiniragError, match="not indexed"):
        app.read(str(link / "notes.md"))
    with pytest.raises(MiniragError, match="outside configured document roots"):  # read_file's filePath
        app.source_key(file_path=str(link / "notes.md"), source=None)


def test_a_restarted_minirag_indexes_the_new_target_and_drops_the_old(linked_root, make_app, tmp_path):
    link, first, second = linked_root
    make_app(base_dirs=[str(link)], db_path=str(tmp_path / "index.db")).sync()
    _repoint(link, second)
    restarted = make_app(base_dirs=[str(link)], db_path=str(tmp_path / "index.db"))
    restarted.sync()
    assert sorted(f.source for f in restarted.list_files().files) == [str(second / "more.md"),
                                                                      str(second / "notes.md")]
