"""Debian's debian-edu-doc-zh-cn (2.12.23~deb12u1) ships an EPUB zipped from outside its folder:
every member is under `epub/` (`epub/mimetype`, `epub/META-INF/container.xml`, `epub/OEBPS/...`).
Calibre reads it; minirag failed it as "not a valid EPUB (META-INF/container.xml: There is no item
named ...)". Now a book whose container document is missing at the root but stands in one folder
that holds it is read from that folder. The fixture keeps the real book's container, package
document and first chapter (tests/fixtures/README.md, e2e80/)."""

import zipfile
from io import BytesIO
from pathlib import Path

import pytest

from minirag.errors import ConversionFailed
from minirag.ingest.convert import convert_document

BOOK = Path(__file__).parent / "fixtures" / "e2e80" / "epub_in_a_folder_debian_edu_zh.epub"


def test_a_book_zipped_inside_its_folder_is_read():
    converted = convert_document(BOOK.read_bytes(), ".epub", BOOK.name)
    assert "Debian Edu 又名 Skolelinux 是一个基于 Debian 的 Linux 发行版" in converted.markdown, converted.markdown
    assert converted.metadata_title


def _zip(members: dict[str, str]) -> bytes:
    buffer = BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, text in members.items():
            archive.writestr(name, text)
    return buffer.getvalue()


def test_two_folders_with_a_container_each_are_no_book():
    with zipfile.ZipFile(BOOK) as real:
        container = real.read("epub/META-INF/container.xml").decode()
    data = _zip({"a/mimetype": "application/epub+zip", "a/META-INF/container.xml": container,
                 "b/META-INF/container.xml": container})
    with pytest.raises(ConversionFailed, match="not a valid EPUB"):
        convert_document(data, ".epub", "two.epub")
