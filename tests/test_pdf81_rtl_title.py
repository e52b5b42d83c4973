"""A right-to-left PDF's title reads as written, its lam-alef ligatures too.

The fixture (tests/fixtures/pdf81/titled.pdf) is made by scripts/gen_shaped_pdf.py: an Arabic title
in large type over paragraphs, shaped by HarfBuzz with DejaVu Sans and drawn glyph by glyph."""

from __future__ import annotations

from conftest import FIXTURES
from test_rtl81_pdf_marks import shaped_pdf_generator

from minirag.ingest.convert import convert_file


def test_the_title_of_an_arabic_pdf_keeps_its_lam_alef_ligatures_in_order():
    """The body's lines had their lam-alef glyphs set right before being turned into reading order;
    the title, read from the first page's largest type, was turned without that (`الأرض` read `األرض`)."""
    converted = convert_file(FIXTURES / "pdf81" / "titled.pdf")
    assert converted.metadata_title == shaped_pdf_generator().TITLE
    assert converted.markdown.startswith(shaped_pdf_generator().TITLE + "\n")
