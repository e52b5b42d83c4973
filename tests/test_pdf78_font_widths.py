"""A word groff placed after a minus reads whole: a font's /Widths are the widths its text was set in.

groff's PDFs (gropdf, `groff -man -Tpdf`: fixtures/pdf78/toolx.pdf, made so from toolx.1) name
Times-Roman without embedding it, in an encoding of their own, with /Widths. pdfminer measured a
standard 14 font's glyphs by its own metrics, by character: `\\-` draws a minus (0.564 em) but maps
to `-`, which it measured as a hyphen (0.333 em); groff then set a word anew where it stands, and
pdfminer read a space, or a box of its own, in the gap. ls's page read `see SIZE format belo w`,
`--ignor e-backups`, `--dir ectory`, and `b` / `ut any use of --sort=none` two lines apart.
"""

from __future__ import annotations

from conftest import FIXTURES

from minirag.ingest.convert import convert_document

TOOLX = FIXTURES / "pdf78" / "toolx.pdf"


def test_words_after_a_minus_read_whole():
    text = convert_document(TOOLX.read_bytes(), ".pdf", "toolx.pdf").markdown
    assert "toolx - copy records between archives" in text
    assert "Read the records from the first argument instead of the standard input;" in text


def test_a_font_without_widths_keeps_the_standard_metrics():
    from pdf_maker import make_pdf  # Helvetica, WinAnsiEncoding, no /Widths

    text = convert_document(make_pdf([["Follow symbolic links found in the source archive."]]), ".pdf", "a.pdf").markdown
    assert "Follow symbolic links found in the source archive." in text


def test_a_width_no_glyph_has_keeps_the_standard_metric():
    """/Widths are the producer's numbers: an infinite, negative or NaN one is passed over."""
    from pdfminer.pdffont import PDFType1Font
    from pdfminer.psparser import LIT

    from minirag._compat.pdfminer import font_widths_as_given

    font_widths_as_given()
    widths = [float("inf"), -500.0, float("nan"), 1e9, 610.0]
    font = PDFType1Font(None, {"BaseFont": LIT("Times-Roman"), "FirstChar": 65, "Widths": widths})
    assert font.widths[69] == 610.0
    for code in range(65, 69):
        assert font.widths.get(code) is None or 0 <= font.widths[code] <= 1000
