"""An EPUB's links between its chapters (`about-manual.xhtml#terms`) are written as links into the
book itself (`book.epub#12-terms`), whose fragment the read tool resolves to the section linked to."""

from __future__ import annotations

import re
import shutil

from conftest import FIXTURES

from minirag.anchors import heading_offset
from minirag.ingest.convert import convert_file
from minirag.results import payload

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


def test_readers83_every_link_into_the_book_a_passage_holds_is_read_from_its_section(app, docs):
    """Followed as an agent follows a link (beside the book, with its fragment), through the read tool."""
    book = docs / "manual.epub"
    shutil.copyfile(BOOK, book)
    assert app.sync().failed == 0
    whole = payload(app.read(str(book), budgeted=False))["text"]
    targets = sorted({target for target in _targets(whole) if target.startswith("manual.epub#")})
    assert len(targets) > 40  # the manual's chapters link to each other's sections 56 ways
    for target in targets:
        read = payload(app.read(str(docs / target), max_chars=200))
        assert read["fragmentOffset"] is not None, target
        assert read["text"].startswith("#"), target
