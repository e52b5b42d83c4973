"""A running header is not kept inside a sentence that runs over the page break.

R-intro.pdf (r-doc-pdf, R 4.2.2) keeps each chapter's running header once, as text, on the first page
that has it; chapter 14's first is page 92, whose text goes on from page 91 in mid-word: an agent
read "and FAT filesys- / Chapter 14: OS facilities / tems (commonly used on removable storage) are
not normally case-sensitive". 21 chapter names stood so in R-intro's text. The pages are built from
the real text (tests/pdf_maker.py), as printed (pages 91-94).
"""

from __future__ import annotations

from pdf_maker import make_pdf

from minirag.ingest.convert import convert_document

HEADER = "Chapter 14: OS facilities"
PAGES = [
    ["14.2 Filepaths", "",
     "The following are some issues which have been encountered with filepaths.",
     "POSIX filesystems are case-sensitive, so foo.png and Foo.PNG are different files. However,",
     "the defaults on Windows and macOS are to be case-insensitive, and FAT filesys-"],
    [HEADER + "   87", "",
     "tems (commonly used on removable storage) are not normally case-sensitive (and all",
     "filepaths may be mapped to lower case)."],
    [HEADER + "   88", "",
     "14.3 System commands", "",
     "Functions system and system2 are used to invoke a system command and optionally collect"],
    [HEADER + "   89", "",
     "14.4 Compression and Archives", "",
     "Recent versions of R have extensive facilities to read and write compressed files, often"],
]


def test_a_running_header_is_not_kept_where_a_word_runs_over_the_page_break():
    markdown = convert_document(make_pdf(PAGES), ".pdf", "R-intro.pdf").markdown
    pages = markdown.split("\f")
    assert HEADER not in pages[1] and "(commonly used on removable storage)" in pages[1]
    assert markdown.count(HEADER) == 1  # kept once, where no sentence runs through it
    assert pages[2].lstrip().startswith(HEADER)
    assert markdown.count("\f") == 4


def test_a_word_hyphenated_over_a_page_break_is_whole_on_the_page_it_starts():
    """R-intro page 91 ends "and FAT filesys-" and page 92 goes on "tems (commonly used ...": a search
    for "filesystems" missed the sentence, and a reader saw two halves a page apart. The word is
    joined at the end of its first page; the page count stays, so every page is cited as before."""
    markdown = convert_document(make_pdf(PAGES), ".pdf", "R-intro.pdf").markdown
    pages = markdown.split("\f")
    assert len(pages) == 5
    assert pages[0].rstrip().endswith("and FAT filesystems")
    assert pages[1].lstrip().startswith("(commonly used on removable storage)")
