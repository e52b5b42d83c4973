"""A margin note LaTeX pushed down off its line reads before the paragraph it was set beside.

tests/fixtures/pdf82/margin_pushed.pdf is made from margin_pushed.tex beside it (pdflatex): two
`\\marginpar` notes called on one line; LaTeX sets the second below the first, its first baseline
on no line of the text, beside the paragraph's last two lines and the next paragraph's first. Its
rows stood beside one line of each paragraph, and it had been read before the next paragraph, a
paragraph away from the one it annotates."""

from __future__ import annotations

from conftest import FIXTURES

from minirag.ingest.convert import convert_file

PDF = FIXTURES / "pdf82" / "margin_pushed.pdf"


def _paragraphs() -> list[str]:
    text = convert_file(PDF).markdown
    return [" ".join(paragraph.split()) for paragraph in text.split("\n\n") if paragraph.strip()]


def test_pdf82_a_pushed_margin_note_reads_before_its_own_paragraph():
    paragraphs = _paragraphs()
    assert [paragraph[:30] for paragraph in paragraphs] == [
        "The room is kept at eighteen d",
        "Pencils only: ink is not allow",
        "A library keeps its rare books",
        "The catalogue of the rare book",
    ]
    assert paragraphs[1] == "Pencils only: ink is not allowed near the books."
    assert paragraphs[2].endswith("before the room is locked for the night by the librarian on duty.")
