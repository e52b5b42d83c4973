"""A deck's sections, which an agent reads (read_file, a hit's parent), say which slide they are
by their pages, not by the readers' `<!-- Slide number: N -->` comment."""

from __future__ import annotations

import pytest
from conftest import FIXTURES

from minirag.chunking import chunk_document, reconstruct
from minirag.ingest.convert import convert_file

DECKS = [
    FIXTURES / "docs" / "pptx_slides_text.pptx",
    FIXTURES / "odf" / "odfpy_nested_list_slide.odp",
    FIXTURES / "docs" / "ppt_powerpoint_mimetype_test.ppt",
]


@pytest.mark.parametrize("deck", DECKS, ids=lambda path: path.suffix)
def test_readers83_a_decks_sections_hold_no_slide_comment(deck):
    markdown = convert_file(deck).markdown
    assert "<!-- Slide number: 1 -->" in markdown  # the readers still mark each slide
    doc = chunk_document(markdown, title=deck.stem, count_tokens=lambda text: len(text.split()) + 2, budget=64)
    assert doc.category == "slides"
    texts = [section.text for section in doc.sections]
    assert not [text for text in texts if "Slide number" in text]
    assert "Slide number" not in reconstruct(doc.sections)


def test_readers83_each_slides_text_is_on_the_page_of_its_number():
    markdown = convert_file(DECKS[0]).markdown
    doc = chunk_document(markdown, title="deck", count_tokens=lambda text: len(text.split()) + 2, budget=64)
    by_page = {section.page_start: section.text for section in doc.sections if section.text.strip()}
    assert "Underline on" in by_page[4]
    assert by_page[4].startswith("Underline on")
