"""A word Doxygen's LaTeX broke at a line end with its break mark reads whole.

Doxygen's PDF manuals (refman.pdf, and its own doxygen_manual.pdf in Debian's doxygen-doc) let
LaTeX break long words and names anywhere, and draw a small hooked arrow where one was broken
(doxygen.sty's `\\+`); pdfminer reads it as `←` at the line's end. "Post←" and "Script" were two
words no query for PostScript found, names (`popGenerator←State`, `TEST←_FLAGS`) and URLs
(`https://sourceforge.←` / `net/projects/winflexbison/`) were cut: 65 such breaks in the manual.
The lines below are pdfminer's text of its pages 20 and 26.
"""

from __future__ import annotations

from minirag.ingest.text_repair import repair


def test_a_word_broken_at_doxygens_break_mark_is_whole():
    text = ("from a set of documented source files. There is also support for generating output in RTF "
            "(MS-Word), Post←\nScript, hyperlinked PDF, compressed HTML, and Unix man pages.")
    assert "output in RTF (MS-Word), PostScript, hyperlinked PDF" in repair(text, pdf=True)
    text = "Popular ones that should work with doxygen are MikTex and pro←\nTeXt.\n"
    assert repair(text, pdf=True) == "Popular ones that should work with doxygen are MikTex and proTeXt.\n"


def test_a_url_broken_at_the_mark_is_whole():
    text = ("The next step is to install modern versions of bison and flex (see https://sourceforge.←\n"
            "net/projects/winflexbison/. After installation")
    assert "(see https://sourceforge.net/projects/winflexbison/. After installation" in repair(text, pdf=True)


def test_an_arrow_that_is_text_stays():
    assert repair("Post←\nScript", pdf=False) == "Post←\nScript"  # only a PDF's line breaks are layout
    assert repair("leftwards arrow: ←\nnext entry", pdf=True) == "leftwards arrow: ←\nnext entry"
    assert repair("i ←\ni + 1", pdf=True) == "i ←\ni + 1"
