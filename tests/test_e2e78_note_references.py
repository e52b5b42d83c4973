"""A note reference reads as its mark in brackets (`[1]`, as the DOCX reader writes one), and a
note's link back to it as nothing.

An EPUB 3 book's pop-up footnotes (`<a epub:type="noteref" href="#fn1"><sup>1</sup></a>`, an
endnote in another file `href="notes.xhtml#en1"`) read `thirty-one years[1](#fn1), climbing` and
`vapour burner[[2]](notes.xhtml#en1) that doubled`; Pandoc's HTML (`role="doc-noteref"`, and
`role="doc-backlink"` for the ↩ after each note) the same: addresses no reader sees, in the middle
of the sentence an agent quotes. An endnote's plain `<a href="ch1.xhtml#r2">↩</a>`, which says
it is no backlink, read `[↩](ch1.xhtml#r2)` after every note.
"""

from __future__ import annotations

from helpers.epub import epub_book, xhtml

from minirag.ingest.convert import convert_document

CHAPTER = ('<section epub:type="chapter"><h1>Chapter 1. The Lighthouse Keeper</h1>'
           '<p>Elias Marr kept the Skerry Point light for thirty-one years<a epub:type="noteref" href="#fn1" '
           'id="r1"><sup>1</sup></a>, climbing its 212 steps twice a night.</p>'
           '<p>The Board replaced it with a paraffin vapour burner<a epub:type="noteref" href="notes.xhtml#en1" '
           'id="r2">[2]</a> that doubled its range.</p>'
           '<aside epub:type="footnote" id="fn1"><p>From 1871 to 1902, according to the Board\'s ledger. '
           '<a href="#r1" epub:type="backlink">↩</a></p></aside></section>')

PANDOC = ('<html><body><p>Keepers complained<a href="#fn1" class="footnote-ref" id="fnref1" role="doc-noteref">'
          '<sup>1</sup></a> about the engine.</p><section id="footnotes" class="footnotes footnotes-end-of-document" '
          'role="doc-endnotes"><hr /><ol><li id="fn1"><p>It took forty minutes to build pressure.'
          '<a href="#fnref1" class="footnote-back" role="doc-backlink">↩︎</a></p></li></ol></section>'
          '</body></html>')


def test_an_epub_note_reference_reads_as_its_mark():
    book = epub_book([("c1", "ch1.xhtml")], ["c1"], {"ch1.xhtml": xhtml(CHAPTER)}, title="Skerry Point Light")
    markdown = convert_document(book, ".epub", "skerry.epub").markdown
    assert "thirty-one years[1], climbing its 212 steps" in markdown
    assert "vapour burner[2] that doubled" in markdown
    assert "according to the Board's ledger." in markdown
    assert "#fn1" not in markdown and "notes.xhtml" not in markdown and "↩" not in markdown


def test_a_pandoc_note_reference_reads_as_its_mark():
    markdown = convert_document(PANDOC.encode(), ".html", "keepers.html").markdown
    assert "Keepers complained[1] about the engine." in markdown
    assert "It took forty minutes to build pressure." in markdown
    assert "#fn" not in markdown and "↩" not in markdown


NOTES = ('<section epub:type="endnotes"><h1>Notes</h1><ol><li id="en1"><p>The Chance Brothers pattern, delivered '
         'by steamer from Birmingham. <a href="ch1.xhtml#r2">↩</a></p></li></ol>'
         '<p>See <a href="ch1.xhtml#r2">chapter 1</a> and <a href="https://example.org/up">↑</a>.</p></section>')


def test_an_endnotes_arrow_back_reads_as_nothing():
    book = epub_book([("n", "notes.xhtml")], ["n"], {"notes.xhtml": xhtml(NOTES)}, title="Skerry Point Light")
    markdown = convert_document(book, ".epub", "skerry.epub").markdown
    assert "1. The Chance Brothers pattern, delivered by steamer from Birmingham.\n" in markdown
    assert "See [chapter 1](ch1.xhtml#r2) and [↑](https://example.org/up)." in markdown


# Sphinx's footnotes (docutils 0.18+, Python's docs: library/csv.html): the note's label links back.
DOCUTILS = ('<html><body><main><p>it should be opened with <code>newline=\'\'</code> <a class="footnote-reference brackets" '
            'href="#id3" id="id1" role="doc-noteref"><span class="fn-bracket">[</span>1<span class="fn-bracket">]</span>'
            '</a>.</p><aside class="footnote-list brackets"><aside class="footnote brackets" id="id3" role="doc-footnote">'
            '<span class="label"><span class="fn-bracket">[</span><a role="doc-backlink" href="#id1">1</a>'
            '<span class="fn-bracket">]</span></span><p>If newline=\'\' is not specified, newlines embedded inside '
            'quoted fields will not be interpreted correctly.</p></aside></aside></main></body></html>')


def test_a_docutils_note_keeps_its_label():
    markdown = convert_document(DOCUTILS.encode(), ".html", "csv.html").markdown
    assert "it should be opened with `newline=''` [1]." in markdown
    assert "[1]" in markdown.split("newlines embedded")[0].split("[1].")[1]
    assert "#id" not in markdown
