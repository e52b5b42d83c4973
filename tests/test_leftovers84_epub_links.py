"""Leftovers 84: an EPUB link to a heading whose text another chapter's heading repeats lands on the
heading it links to, not on the first of that text in the book; and a chapter's code (a block or a span)
keeps the links it shows as written."""

from __future__ import annotations

import re

from helpers.epub import epub_book, xhtml

from minirag.anchors import heading_offset
from minirag.ingest.convert import convert_file

_CHAPTERS = {
    "one.xhtml": xhtml("<h1>Installing</h1><h2 id='ex1'>Examples</h2><p>First chapter's examples of pip.</p>"
                       "<p>See <a href='two.xhtml#ex2'>the second examples</a>.</p>"),
    "two.xhtml": xhtml("<h1>Configuring</h1><p>Some words about configuration files.</p>"
                       "<h2 id='ex2'>Examples</h2><p>Second chapter's examples of a config.</p>"
                       "<h2 id='more'>Examples</h2><p>Third examples, a second in this chapter.</p>"
                       "<p>Back to <a href='one.xhtml#ex1'>the first</a> or <a href='#more'>more</a>.</p>"),
}


def _book(tmp_path, chapters):
    path = tmp_path / "book.epub"
    path.write_bytes(epub_book([(name.split(".")[0], name) for name in chapters], [n.split(".")[0] for n in chapters],
                               chapters, title="Tools"))
    return convert_file(path).markdown


def _landing(markdown: str, text: str) -> str:
    target = re.search(r"\[" + re.escape(text) + r"\]\(([^)]+)\)", markdown)[1]
    book, _, fragment = target.partition("#")
    assert book == "book.epub", target
    at = heading_offset(markdown, fragment)
    assert at is not None, target
    return markdown[at:].split("\n\n", 2)[1]  # the paragraph under the heading linked to


def test_leftovers84_a_link_to_a_repeated_heading_lands_on_the_one_it_names(tmp_path):
    markdown = _book(tmp_path, _CHAPTERS)
    assert _landing(markdown, "the second examples") == "Second chapter's examples of a config."
    assert _landing(markdown, "the first") == "First chapter's examples of pip."
    assert _landing(markdown, "more") == "Third examples, a second in this chapter."


def test_leftovers84_links_shown_in_a_chapters_code_are_left_as_written(tmp_path):
    chapters = {
        "one.xhtml": xhtml("<h1>Linking</h1><p>Write <code>[next](two.xhtml#ex)</code> to link.</p>"
                           "<pre>[next](two.xhtml#ex)\n[back](one.xhtml)</pre>"
                           "<p>Or follow <a href='two.xhtml#ex'>the next chapter</a>.</p>"),
        "two.xhtml": xhtml("<h1>Next</h1><h2 id='ex'>Example</h2><p>The example.</p>"),
    }
    markdown = _book(tmp_path, chapters)
    assert "`[next](two.xhtml#ex)`" in markdown
    assert "[next](two.xhtml#ex)\n[back](one.xhtml)" in markdown
    assert "[the next chapter](book.epub#example)" in markdown
