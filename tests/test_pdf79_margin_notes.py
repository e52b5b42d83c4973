"""A note in the margin reads before the paragraph it stands beside, never inside its lines.

LaTeX's `\\marginpar` (with `\\reversemarginpar`, in the left margin) and ltxdoc's `\\DescribeMacro`
set a short box of lines in the margin beside a paragraph's lines: mathtools.pdf names who posted a
tip (`Posted on` / `tex.stackexchange.com` / `Tobias Weh` ...), booktabs.pdf the macros a paragraph
describes (`\\toprule` `\\midrule` `\\bottomrule`, set flush right). Read as a definition list's tags
(pdf_hanging.py), each note line opened the paragraph line beside it: mathtools.pdf page 24 read
`(referring to a suggestion  has a slight problem ... the equaby Chung-chieh Shan)  tions in a
multiline calculation`, and the paragraph's first lines were read after its last.

fixtures/pdf79/margin_notes.pdf is `pdflatex margin_notes.tex` (TeX Live 2022): the two kinds of
note beside the paragraphs they go with.
"""

from __future__ import annotations

import re

from conftest import FIXTURES

from minirag.ingest.convert import convert_document

MARGIN_NOTES = FIXTURES / "pdf79" / "margin_notes.pdf"


def _flat(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def _text() -> str:
    return convert_document(MARGIN_NOTES.read_bytes(), ".pdf", "margin_notes.pdf").markdown


def test_a_paragraph_beside_a_margin_note_reads_whole_and_in_order():
    flat = _flat(_text())
    assert ("It turns out that both the short form and the original command have a slight problem. If we use "
            "the spreadlines environment to open up the equations in a multiline calculation, then this opening "
            "up value also applies to the spacing above and below the original commands, as can be illustrated "
            "using the following example, which an interested reader can apply with and without the options."
            ) in flat
    assert ("In the simplest of cases a table begins with a top rule, has a single row of column headings, then "
            "a dividing rule called here a middle rule; after the columns of data we finish off with a bottom "
            "rule.") in flat
    assert "The command sets text between the lines of an alignment" in flat


def test_a_margin_note_reads_whole_just_before_its_paragraph():
    paragraphs = [_flat(paragraph) for paragraph in _text().split("\n\n") if paragraph.strip()]
    assert [paragraph[:40] for paragraph in paragraphs] == [
        "The command sets text between the lines ",
        "Posted on comp.text.tex Gabriel Zachmann",
        "It turns out that both the short form an",
        "toprule midrule bottomrule",
        "In the simplest of cases a table begins ",
    ]
    assert paragraphs[1] == "Posted on comp.text.tex Gabriel Zachmann and Donald Arseneau 2000/05/12"
