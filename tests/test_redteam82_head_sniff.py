"""Red team 82: the head a walk sniffs. A file named as a manual page (`ls.1`, `ls.1.gz`) or a note
(`README`, `NEWS`) is a document only if it begins as one, so the walk (and a refusal naming such a
file) read its first bytes before the document itself is read. The document is read through a
descriptor opened down from the root with no link followed (security.read_file_inside_roots); the
head was opened by its whole real path, with only its last part not followed, so a folder swapped
for a link out of the roots between the containment check and that open had its head read from
wherever the link led: a read of a file outside the roots, whose content then decided whether the
file inside them is a document. The race is simulated by making the swap before the sniff, as a
racing process makes it between the walk's resolve and the open. Now the head is opened as the
document is: what lies outside the roots is never opened."""

from __future__ import annotations

import gzip
import os

import pytest

from minirag.ingest import scan

PAGE = b".TH LS 1\n.SH NAME\nls \\- list directory contents\n"
NOTE = b"Release notes for the tide tables.\n"


def _swapped(tmp_path, name: str, inside: bytes, outside: bytes) -> str:
    """The real path of `name` in a root's folder (what the walk checked), after that folder was
    swapped for a link to a folder outside the roots holding `outside` under the same name."""
    folder = tmp_path / "docs" / "man"
    folder.mkdir(parents=True)
    (folder / name).write_bytes(inside)
    real = os.path.realpath(folder / name)
    elsewhere = tmp_path / "outside"
    elsewhere.mkdir()
    (elsewhere / name).write_bytes(outside)
    folder.rename(tmp_path / "moved-away")
    folder.symlink_to(elsewhere, target_is_directory=True)
    return real


@pytest.mark.parametrize(("name", "outside", "compression"), [
    ("ls.1", PAGE, ""), ("ls.1.gz", gzip.compress(PAGE), ".gz")], ids=["page", "compressed-page"])
def test_redteam82_a_manual_pages_head_is_never_read_through_a_folder_swapped_for_a_link(
        tmp_path, name, outside, compression):
    real = _swapped(tmp_path, name, b"not a page\n", outside)
    assert not scan.is_manual_page(real, compression)


def test_redteam82_a_notes_head_is_never_read_through_a_folder_swapped_for_a_link(tmp_path):
    real = _swapped(tmp_path, "NEWS", b"\x00\x01\x02\x03" * 64, NOTE)
    assert not scan.is_text_file(real, "")


def test_redteam82_an_unswapped_head_is_still_read(tmp_path):
    folder = tmp_path / "docs" / "man"
    folder.mkdir(parents=True)
    (folder / "ls.1").write_bytes(PAGE)
    (folder / "ls.8.gz").write_bytes(gzip.compress(PAGE))
    (folder / "NEWS").write_bytes(NOTE)
    assert scan.is_manual_page(os.path.realpath(folder / "ls.1"), "")
    assert scan.is_manual_page(os.path.realpath(folder / "ls.8.gz"), ".gz")
    assert scan.is_text_file(os.path.realpath(folder / "NEWS"), "")
