"""A page's footnote reads apart from a sentence that runs on over the page break after a display.

tests/fixtures/pdf81/footnote_display.pdf is made from footnote_display.tex beside it (pdflatex):
page 1 ends with a paragraph, a displayed equation, and one line of the sentence after it
(`where the weights ... columns, and`) that runs on to page 2; the page's footnote is below. A
page's footnotes were read before its last paragraph of two lines or more only: the one line after
the display is no such paragraph, so the note fell inside the sentence (`..., and` / `1This file
...` / `the layout of such a tableau`), its mark joined to its first word."""

from __future__ import annotations

from conftest import FIXTURES

from minirag.ingest.convert import convert_file

PDF = FIXTURES / "pdf81" / "footnote_display.pdf"


def test_the_sentence_after_a_display_runs_on_over_the_page_break_without_the_footnote():
    text = " ".join(convert_file(PDF).markdown.split())
    assert "taken from the table’s columns, and the layout of such a tableau is determined" in text
    assert "1 This file has version number 1.618, last revised 2020/01/12." in text
    assert text.index("1 This file") < text.index("where the weights")
