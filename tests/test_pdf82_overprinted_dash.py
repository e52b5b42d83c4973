"""A dash drawn as two hyphens, the second over a third of the first (ConTeXt's compound hyphen in
pdftex-a.pdf and luatex.pdf: `read--only`, `re--encoding`, 117 times), reads as one hyphen; two
hyphens set side by side (`42--111` in typewriter type) stay two."""

from __future__ import annotations

from pdf_maker import placed_pdf
from pdfminer.fontmetrics import FONT_METRICS

from minirag.ingest.convert import convert_document


def _width(text: str) -> float:
    """In Helvetica at 10 points, as placed_pdf sets it."""
    return sum(FONT_METRICS["Helvetica"][1][character] for character in text) / 100


def _read(items: list[tuple[float, float, str]]) -> str:
    return convert_document(placed_pdf(items), ".pdf", "dash.pdf").markdown.strip("\f\n")


def test_pdf82_a_hyphen_drawn_over_another_reads_once():
    first = "The file is read-"
    text = _read([(72, 700, first), (72 + _width(first) - 0.34 * _width("-"), 700, "-only for now.")])
    assert text == "The file is read-only for now."


def test_pdf82_hyphens_side_by_side_stay_two():
    assert _read([(72, 700, "See pages 42--111 of it.")]) == "See pages 42--111 of it."


def test_pdf82_a_hyphen_drawn_twice_at_a_line_end_keeps_the_word_hyphen():
    first = "The syntax is upward-"
    text = _read([(72, 700, first), (72 + _width(first) - 0.34 * _width("-"), 700, "-"),
                  (72, 688, "compatible with the old one.")])
    assert "upwardcompatible" not in text and "upward-" in text
