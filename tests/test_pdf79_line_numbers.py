"""Line numbers in the margin (LaTeX's lineno) are left out; the paragraph reads whole.

lineno.pdf numbers every line of its paragraphs in the left margin. Read as a definition list's
tags (pdf_hanging.py), each number opened a paragraph of one line: `2  This package provides line
numbers on paragraphs.` / `3  a paragraph into lines ...`, so a chunk held a paragraph cut into
lines, numbers first.

fixtures/pdf79/linenumbers.pdf is `pdflatex linenumbers.tex` (TeX Live 2022, lineno v5.1): two
paragraphs, nine numbered lines.
"""

from __future__ import annotations

from conftest import FIXTURES

from minirag.ingest.convert import convert_document

LINE_NUMBERS = FIXTURES / "pdf79" / "linenumbers.pdf"


def test_numbered_paragraphs_read_whole_without_their_numbers():
    text = convert_document(LINE_NUMBERS.read_bytes(), ".pdf", "linenumbers.pdf").markdown
    paragraphs = [paragraph.strip() for paragraph in text.split("\n\n") if paragraph.strip()]
    assert len(paragraphs) == 2
    assert paragraphs[0].startswith("This package provides line numbers on paragraphs. After TeX has\n"
                                    "broken a paragraph into lines")
    assert paragraphs[0].endswith("control the numbering\nmode, and count the lines.")
    assert paragraphs[1].startswith("The first two points are implemented through patches to the output\nroutine.")
    assert not any(line.strip().isdigit() or line[:1].isdigit() for line in text.split("\n"))
