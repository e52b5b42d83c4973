"""A table of contents that runs on to the page a document's text starts on is left out there too.

A contents page is left out whole (pdf_structure.py); one whose last entries stand on the page the
text opens on kept them, their page numbers in a column below them: mathtools.pdf's page 2 read
thirteen `3.6.1 Expert use . . . . .` lines, then `29`, `30`, `30` ... `37`, then `1 Introduction`.

fixtures/pdf79/contents.pdf is `pdflatex contents.tex` (TeX Live 2022): an abstract and a contents
whose last six entries open page 2, above the first section.
"""

from __future__ import annotations

from conftest import FIXTURES

from minirag.ingest.convert import convert_document

CONTENTS = FIXTURES / "pdf79" / "contents.pdf"


def test_the_contents_tail_is_left_out_and_the_text_below_it_stays():
    pages = convert_document(CONTENTS.read_bytes(), ".pdf", "contents.pdf").markdown.split("\f")
    assert len(pages) >= 4  # every page still counted
    assert "Centered dots" not in pages[1] and ". . ." not in pages[1]
    assert [line for line in pages[1].split("\n") if line.strip()][:2] == [
        "1  Introduction", "The package extends the display environments with tools that were"]
    assert "Load it in the preamble instead of the package it extends" in pages[1]
    assert pages[0].startswith("The mathtools package is an extension package to amsmath.")
