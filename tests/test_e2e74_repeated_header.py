"""A page header that repeats the document's first paragraph (its title) is not read twice.

The Slovenian Muttprint manual (RTF that DocBook tools wrote) heads its left-hand pages with the
title the first page shows in large type: the text opened `Muttprint -- Navodila za uporabo` twice,
and the first chunk with it.
"""

from __future__ import annotations

from conftest import FIXTURES

from minirag.ingest.convert import convert_document, convert_file


def test_a_header_that_repeats_the_title_is_left_out():
    markdown = convert_file(FIXTURES / "docs" / "rtf_docbook_muttprint_manual_sl.rtf").markdown
    assert markdown.startswith("Muttprint -- Navodila za uporabo\n\nBernhard Walle\n\n")


def test_a_header_that_says_something_else_is_kept():
    rtf = (rb"{\rtf1\ansi{\header\pard Internal draft\par}\pard Release notes\par\pard The first paragraph.\par}")
    markdown = convert_document(rtf, ".rtf", "x.rtf").markdown
    assert markdown.startswith("Internal draft\n\nRelease notes\n\nThe first paragraph.")
