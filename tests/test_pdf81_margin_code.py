"""A margin note beside a code listing reads as a note of its own, not into the listing's lines.

tests/fixtures/pdf81/margin_code.pdf is made from margin_code.tex beside it (pdflatex): two
`\\marginpar` notes in the left margin, one beside a `lstlisting`, one beside a `verbatim`. A note
beside a paragraph was read apart already (its lines stand beside lines that run on); beside code,
its lines were taken for a definition list's tags, each opening the line of code on its row: `for
speed.  for line in open ( path ):`. A tag stands on its description's baseline; a note is set at its
own leading, and beside code (set smaller, or tighter) its lines leave the rows' baselines."""

from __future__ import annotations

from conftest import FIXTURES

from minirag.ingest.convert import convert_file

PDF = FIXTURES / "pdf81" / "margin_code.pdf"


def _lines(markdown: str) -> list[str]:
    return [" ".join(line.split()) for line in markdown.split("\n") if line.strip()]


def test_a_margin_note_beside_code_is_read_apart_from_the_code():
    lines = _lines(convert_file(PDF).markdown)
    for code in ("total = 0", "for line in open ( path ):", "words = line . split ()", "print ( total )",
                 "def greet(name):"):
        assert code in lines, code
    text = " ".join(lines)
    assert "The total is kept in one integer for speed." in text
    assert "Verbatim keeps spaces" in text
    assert text.index("keeping a running total that it prints when the file ends.") < text.index("total = 0")
