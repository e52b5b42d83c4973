"""An EPUB's title pages (a heading and nothing else) open the chapter after them, not a section of their own.

SiSU gives each part and chapter of the Live Systems Manual (Debian's live-manual-epub 2:20151217.2)
a page with its title alone before the chapter. Each was a heading with no text under it: a chunk
that said nothing, which a German query found first (`Live Systems Handbuch > Projektabläufe`, the
title page of the untranslated `16. Procedures`).
"""

from __future__ import annotations

import re

from conftest import FIXTURES
from helpers.epub import XML_DECLARATION, epub_book, xhtml

from minirag.ingest.convert import convert_document, convert_file

_SUBSTANCE = ('<div class="content"><div class="substance"><label class="ocn"><a href="#o{n}" class="lnkocn">{n}'
              '</a></label>{body}</div></div>')


def _sisu_epub(chapters: list[tuple[str, str]]) -> bytes:
    names = [name for name, _ in chapters]
    pages = {name: XML_DECLARATION + xhtml(body, lang="de", head="<title>x</title>") for name, body in chapters}
    return epub_book([(name, name) for name in names], names, pages, title="Live Systems Handbuch")


def test_a_title_page_of_a_translated_title_opens_its_untranslated_chapter():
    data = _sisu_epub([
        ("coding-style.xhtml", _SUBSTANCE.format(n=760, body='<h1 class="norm" id="o760">15. Coding Style</h1>')
         + _SUBSTANCE.format(n=761, body='<p class="i0" id="o761">This chapter documents the coding style used in '
                             "live systems.</p>")),
        ("section_b19.xhtml", _SUBSTANCE.format(n=794, body='<h1 class="norm" id="o794">Projektabläufe</h1>')),
        ("procedures.xhtml", _SUBSTANCE.format(n=795, body='<h1 class="norm" id="o795">16. Procedures</h1>')
         + _SUBSTANCE.format(n=796, body='<p class="i0" id="o796">This chapter documents the procedures within the '
                             "Live Systems Project for various tasks that need cooperation with other teams in "
                             "Debian.</p>")),
    ])
    markdown = convert_document(data, ".epub", "live-manual.de.epub").markdown
    assert markdown == ("# 15. Coding Style\n\nThis chapter documents the coding style used in live systems.\n\n"
                        "# 16. Procedures\n\nProjektabläufe\n\nThis chapter documents the procedures within the "
                        "Live Systems Project for various tasks that need cooperation with other teams in Debian.")


def test_no_heading_of_the_live_manual_stands_without_text_and_none_is_read_twice():
    markdown = convert_file(FIXTURES / "docs" / "epub_live_manual_en.epub").markdown
    # A chapter's heading may open on its first section's (`# 2. …` then `## 2.1 Motivation`, SiSU's
    # bold sub-headings: test_e2e76_sisu_markup.py); one followed by another chapter's has no text.
    headings = re.findall(r"^# .*\n\n(?=# )", markdown, flags=re.MULTILINE)
    assert headings == []  # each heading has text under it
    assert "# About this manual" not in markdown  # the title page repeating `1. About this manual`
    assert "\n\n# 1. About this manual\n\nAbout\n\nThis manual serves as a single access point" in markdown
    assert "# 3. Installation\n\nUser\n\n" in markdown  # a part's title, kept as a line of the chapter it opens
    assert markdown.count("Live Systems Manual") == 1  # its title page, which repeats the title, is left out


def test_a_chapter_without_a_heading_of_its_own_takes_its_title_pages_heading():
    data = _sisu_epub([("part.xhtml", "<h1>Part One</h1>"), ("title.xhtml", "<h1>Chapter 1</h1>"),
                       ("text.xhtml", "<p>It was a bright cold day in April.</p>")])
    markdown = convert_document(data, ".epub", "novel.epub").markdown
    assert markdown == "Part One\n\n# Chapter 1\n\nIt was a bright cold day in April."
