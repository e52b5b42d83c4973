"""A right-to-left PDF's title reads as written, its lam-alef ligatures too.

The fixture (tests/fixtures/pdf81/titled.pdf) is made by scripts/gen_shaped_pdf.py: an Arabic title
in large type over paragraphs, shaped by HarfBuzz with DejaVu Sans and drawn glyph by glyph."""

from __future__ import annotations

import importlib.util

from conftest import FIXTURES

from minirag.ingest.convert import convert_file

ROOT = FIXTURES.parent.parent


def _generator():
    spec = importlib.util.spec_from_file_location("gen_shaped_pdf", ROOT / "scripts" / "gen_shaped_pdf.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_title_of_an_arabic_pdf_keeps_its_lam_alef_ligatures_in_order():
    """The body's lines had their lam-alef glyphs set right before being turned into reading order;
    the title, read from the first page's largest type, was turned without that (`الأرض` read `األرض`)."""
    converted = convert_file(FIXTURES / "pdf81" / "titled.pdf")
    assert converted.metadata_title == _generator().TITLE
    assert converted.markdown.startswith(_generator().TITLE + "\n")
