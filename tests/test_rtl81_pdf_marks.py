"""Arabic PDFs with vowel marks read as their words, not cut at every mark.

The fixtures (tests/fixtures/rtl81) are made by scripts/gen_shaped_pdf.py: real Arabic shaped by
HarfBuzz with DejaVu Sans and drawn glyph by glyph where it puts them, as XeTeX and LibreOffice draw
a right-to-left line."""

from __future__ import annotations

import importlib.util
import re
import unicodedata

from conftest import FIXTURES

from minirag import keywords
from minirag.ingest.convert import convert_file

ROOT = FIXTURES.parent.parent
PDFS = FIXTURES / "rtl81"


def shaped_pdf_generator():
    """scripts/gen_shaped_pdf.py, loaded as a module (its texts are what the fixtures hold)."""
    spec = importlib.util.spec_from_file_location("gen_shaped_pdf", ROOT / "scripts" / "gen_shaped_pdf.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _words(text: str) -> list[str]:
    """The words of `text`, marks in canonical order (HarfBuzz sets a shadda's vowel after it)."""
    return unicodedata.normalize("NFC", re.sub(r"\s+", " ", text)).strip().split(" ")


def test_a_vowelled_arabic_pdf_reads_word_for_word_as_it_was_written():
    """Each mark stood left of the letter drawn before it, so pdfminer put a space after nearly every
    mark (`أَكْثَرُ` read `ُرَ ثْ كَ أَ`), and the line, its words cut, was not even turned into reading order."""
    written = shaped_pdf_generator().VOWELLED
    markdown = convert_file(PDFS / "vowelled.pdf").markdown
    assert _words(markdown) == _words(" ".join(written))


def test_marks_a_font_sets_high_over_tall_letters_stay_on_their_line():
    """KacstFarsi sets a shadda and its vowel over a lam (`اللُّغَةُ`) above the line: pdfminer cut the
    line at each such mark, and two marks of no width on one letter were any distance apart to it,
    so the marks and the letters after them came out as lines of their own."""
    written = shaped_pdf_generator().VOWELLED
    markdown = convert_file(PDFS / "vowelled_kacst.pdf").markdown
    assert _words(markdown) == _words(" ".join(written))


def test_an_unvowelled_query_finds_the_words_of_a_vowelled_pdf():
    markdown = convert_file(PDFS / "vowelled.pdf").markdown
    indexed = set(keywords.terms(markdown, "ar"))
    for query in ("اللغة العربية", "دار الكتب والوثائق القومية", "أكثر من أربعمائة مليون نسمة"):
        assert set(keywords.query_terms(query)) <= indexed, query


def test_a_pdf_of_arabic_without_marks_reads_as_written_its_lam_alef_ligatures_too():
    """A lam-alef (`لأ` in `الأرض`) is one glyph for two letters, given in reading order; the line,
    given in drawn order, was turned letter by letter, the glyph's two letters with it (`األرض`)."""
    written = shaped_pdf_generator().PLAIN
    markdown = convert_file(PDFS / "plain.pdf").markdown
    assert _words(markdown) == _words(" ".join(written))
