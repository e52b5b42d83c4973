"""Raised note numbers in RTF read as superscripts, not as digits run into the word before them.

The Slovenian Muttprint manual (an RTF that DocBook tools wrote) marks its notes with raised
numbers (`Date::Parse\\up8\\fs12 1\\up0`): read as plain digits they made `Date::Parse1 2` and
`spada4`, words that are in no sentence and no search.
"""

from __future__ import annotations

from conftest import FIXTURES

from minirag.ingest.convert import convert_document, convert_file


def test_raised_note_numbers_read_as_superscripts():
    markdown = convert_file(FIXTURES / "docs" / "rtf_docbook_muttprint_manual_sl.rtf").markdown
    assert "uporablja Perl-ov modul Date::Parse¹ ². Če modul ni nameščen" in markdown
    assert "pod katero spada⁴." in markdown
    assert "Date::Parse1" not in markdown


def test_superscript_and_its_end_as_word_writes_them():
    rtf = rb"{\rtf1\ansi E = mc{\super 2}, H{\sub 2}O, x\super 10\nosupersub  and 3\up6 rd\up0  place\par}"
    markdown = convert_document(rtf, ".rtf", "x.rtf").markdown
    assert markdown.strip() == "E = mc², H2O, x¹⁰ and 3rd place"  # raised letters stay letters
