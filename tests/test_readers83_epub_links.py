"""An EPUB's links between its chapters (`about-manual.xhtml#terms`) are written as links into the
book itself (`book.epub#1.2-terms`), whose fragment the read tool resolves to the section linked to."""

from __future__ import annotations

import re
import shutil

from conftest import FIXTURES

from minirag.anchors import heading_offset
from minirag.ingest.convert import convert_file

BOOK = FIXTURES / "docs" / "epub_live_manual_en.epub"


def _targets(markdown: str) -> list[str]:
    return re.findall(r"\]\(([^)\s]+)\)", markdown)


def test_readers83_a_link_to_another_chapter_names_the_book_and_lands_on_its_section(tmp_path):
    path = tmp_path / "manual.epub"
    shutil.copyfile(BOOK, path)
    markdown = convert_file(path).markdown
    targets = _targets(markdown)
    assert not [target for target in targets if ".xhtml" in target]
    terms = next(target for target in targets if target.startswith("manual.epub#") and "terms" in target)
    at = heading_offset(markdown, terms.split("#", 1)[1])
    assert at is not None
    assert markdown[at:].split("\n", 1)[0].lstrip("# ").endswith("Terms")


def test_readers83_a_link_to_a_chapter_alone_lands_on_its_first_heading(tmp_path):
    path = tmp_path / "manual.epub"
    shutil.copyfile(BOOK, path)
    markdown = convert_file(path).markdown
    for target in _targets(markdown):
        if target.startswith("manual.epub#"):
            assert heading_offset(markdown, target.split("#", 1)[1]) is not None, target
