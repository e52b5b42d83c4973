"""Arabic set in Amiri reads its words whole: the gap Amiri kerns after a letter that joins no letter
after it (ر ز و, before a ي) is inside the word, no word space.

tests/fixtures/rtl81/kerned_amiri.pdf is made by scripts/gen_shaped_pdf.py (Amiri, shaped by
HarfBuzz, drawn glyph by glyph where it puts them, word spaces left as gaps): the kerned gaps are
0.12 em, the word spaces 0.29 em; pdfminer takes a gap of 0.1 em for a space."""

from __future__ import annotations

from conftest import FIXTURES
from test_rtl81_pdf_marks import shaped_pdf_generator

from minirag.ingest.convert import convert_file


def test_pdf82_amiri_words_kerned_after_a_non_joining_letter_read_whole():
    text = convert_file(FIXTURES / "rtl81" / "kerned_amiri.pdf").markdown
    read = [" ".join(line.split()) for line in text.split("\n") if line.strip()]
    assert read == shaped_pdf_generator().KERNED
    for word in ("إريتريا", "المصرية", "بزيادة", "الصحراوية.", "طويلة"):
        assert word in text.split()


def test_pdf82_words_that_end_in_a_non_joining_letter_stay_apart_from_the_next():
    words = convert_file(FIXTURES / "rtl81" / "kerned_amiri.pdf").markdown.split()
    for before, after in (("دار", "المخطوطات"), ("الوزير", "الجديد"), ("البحر", "الأحمر،"), ("عاما.", "")):
        at = words.index(before)
        assert not after or words[at + 1] == after
