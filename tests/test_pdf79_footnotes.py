"""A page's footnotes never fall inside a sentence that runs on over the page break.

LaTeX sets footnotes at the page's foot; pdfminer reads them last on the page, so where the page's
last paragraph runs on to the next, they stood inside its sentence: booktabs.pdf read `But the
layout of a table` / `∗This file has version number ...` / `1By Danie Els ...` / (page 2) `has been
established over centuries`. A note's mark, raised and smaller, ran into its first word (`1By`).

fixtures/pdf79/footnotes.pdf is `pdflatex footnotes.tex` (TeX Live 2022): two footnotes on page 1,
whose last paragraph runs on to page 2 in mid-sentence.
"""

from __future__ import annotations

import re

from conftest import FIXTURES

from minirag.ingest.convert import convert_document

FOOTNOTES = FIXTURES / "pdf79" / "footnotes.pdf"


def _flat(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def _text() -> str:
    return convert_document(FOOTNOTES.read_bytes(), ".pdf", "footnotes.pdf").markdown


def test_a_sentence_over_the_page_break_has_no_footnote_inside():
    text = _text()
    assert ("should only be altered in extraordinary circumstances, which the reader will rarely meet in "
            "practice.") in _flat(text)
    first, second = text.split("\f")[:2]
    assert "This file has version number" in first and "By the author" in first  # their own page's still
    assert "absence of any better word" not in second


def test_footnotes_read_after_a_paragraph_with_their_marks_apart():
    paragraphs = [_flat(paragraph) for paragraph in _text().split("\f")[0].split("\n\n") if paragraph.strip()]
    assert paragraphs[0].endswith("and rules of varying thickness.")
    assert paragraphs[1] == ("1 This file has version number 1.618, last revised 2020/01/12. "
                             "2 By the author, in the absence of any better word.")
    assert paragraphs[2].startswith("I must draw a clear distinction")
