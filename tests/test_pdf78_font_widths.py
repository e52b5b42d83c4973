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
