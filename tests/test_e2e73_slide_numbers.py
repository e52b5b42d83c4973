"""A hit in a presentation says which slide it is on, as a PDF's says its page.

An agent asked "how do I declare a source encoding other than UTF-8" over a folder holding
pptx_python_tutorial_interpreter.pptx got slide 7's text with no location: `pages` was only a
PDF's, and the slide's number was only in the section text, as `<!-- Slide number: 7 -->`.
A presentation's slides are now its pages (a slide is printed as a page), so a hit, a neighbour
and a paged read name the slides they hold."""

from __future__ import annotations

import shutil
from pathlib import Path

from minirag.ingest.convert import convert_document
from minirag.results import payload

FIXTURES = Path(__file__).parent / "fixtures"
DECK = FIXTURES / "docs" / "pptx_python_tutorial_interpreter.pptx"


def test_each_slide_of_a_pptx_is_a_page_of_its_own_number():
    text = convert_document(DECK.read_bytes(), ".pptx", DECK.name).markdown
    pages = text.split("\f")
    assert len(pages) == 7
    assert all(f"<!-- Slide number: {n} -->" in page for n, page in enumerate(pages, 1))
    assert "2.2.1. Source Code Encoding" in pages[6]


def test_the_slides_of_a_pptm_and_a_compressed_ppt_are_pages_of_their_numbers():
    for path, suffix in ((FIXTURES / "office" / "libreoffice_slides_text.pptm", ".pptm"),
                         (FIXTURES / "office" / "libreoffice_mirror_sync.ppt.gz", ".ppt.gz")):
        text = convert_document(path.read_bytes(), suffix, path.name).markdown
        pages = text.split("\f")
        assert len(pages) > 1 and all(f"<!-- Slide number: {n} -->" in page for n, page in enumerate(pages, 1)), path.name


def test_a_hit_a_neighbour_and_a_read_of_a_slide_name_its_number(docs, make_app):
    shutil.copy(DECK, docs / DECK.name)
    app = make_app()
    app.sync()
    hits = payload(app.query("declare an encoding other than the default cp1252", top_k=10))["results"]
    hit = next(h for h in hits if "Source Code Encoding" in h["text"])
    assert hit["pages"] == "7"
    window = payload(app.neighbors(str(docs / DECK.name), hit["chunkIndex"], before=1, after=0))
    assert [row.get("pages") for row in window["chunks"]][-1] == "7"
    whole = payload(app.read(str(docs / DECK.name)))
    assert whole["pages"] == "1-7" and "\f" not in whole["text"]
