"""Headings are the document's own, and converted text is clean.

The PDFs are built at test time (tests/pdf_maker.py) from the real text of Debian's
developers-reference.pdf (12.18, GPL-2), laid out line by line as its pages 3, 44 and 50
are: a dot-leader table of contents, a crontab example whose comment starts with `#`,
and a URL broken after a dot at a line end.
"""

from __future__ import annotations

from pathlib import Path

from pdf_maker import make_pdf

from minirag.chunking import chunk_document
from minirag.chunking.blocks import parse_blocks
from minirag.chunking.pack import CODE_SPLIT_MARKER
from minirag.chunking.pages import split_pages
from minirag.chunking.titles import choose_title
from minirag.ingest.convert import convert_data, convert_document

DOCS = Path(__file__).parent / "fixtures" / "docs"

CONTENTS = ["CONTENTS", "", "1 Scope of This Document . . . . . . . . . . . . . . . . . . . . . . . . . . 3",
            "2 Applying to Become a Member . . . . . . . . . . . . . . . . . . . . . . . 5",
            "2.1 Getting started . . . . . . . . . . . . . . . . . . . . . . . . . . . . . . 5",
            "2.2 Debian mentors and sponsors . . . . . . . . . . . . . . . . . . . . . . 6",
            "2.3 Registering as a Debian member . . . . . . . . . . . . . . . . . . . . 6",
            "5.8 Interacting with the bug tracking system . . . . . . . . . . . . . . . 44",
            "5.8.1 Monitoring bugs . . . . . . . . . . . . . . . . . . . . . . . . . . . 44"]
MONITORING = [
    "5.8.1 Monitoring bugs", "",
    "If you want to be a good maintainer, you should periodically check the Debian bug tracking system (BTS) for your",
    "packages. The BTS contains all the open bugs against your packages.", "",
    "Some find it useful to get periodic reports on open bugs. You can add a cron job such as the following if you want to",
    "get a weekly email outlining all the open bugs against your packages:", "",
    "# ask for weekly reports of bugs in my packages",
    "0 17 * * fri echo \"index maint address\" | mail request@bugs.debian.org", "",
    "Replace address with your official Debian maintainer address. Release-critical bugs come first: a release-",
    "critical bug in your package keeps it out of the next release.",
]
UPLOADS = [
    "5.8.2 Responding to bugs", "",
    "Once the package has been approved by the security team, it needs to be uploaded so that it can be installed in the",
    "archives. For security uploads, the place to upload to is ftp://ftp.security.",
    "upload.debian.org/pub/SecurityUploadQueue/.", "",
    "Once an upload to the security queue has been accepted, the package will automatically be built.",
]
OUTLINE = [(1, "Interacting with the bug tracking system", 1), (2, "Monitoring bugs", 1),
           (2, "Responding to bugs", 2)]


def developers_reference(outline=OUTLINE) -> str:
    return convert_document(make_pdf([CONTENTS, MONITORING, UPLOADS], outline), ".pdf", "dr.pdf").markdown


def headings(markdown: str) -> list[str]:
    lines, pages = split_pages(markdown)
    return [block.title for block in parse_blocks(lines, pages) if block.kind == "heading"]


def code_blocks(markdown: str) -> list:
    lines, pages = split_pages(markdown)
    return [block for block in parse_blocks(lines, pages) if block.kind == "code"]


def test_pdf_headings_come_from_its_outline_never_from_a_shell_comment():
    text = developers_reference()
    assert headings(text) == ["5.8.1 Monitoring bugs", "5.8.2 Responding to bugs"]
    assert "\\# ask for weekly reports of bugs in my packages" in text


def test_a_pdf_without_an_outline_has_no_headings_at_all():
    assert headings(developers_reference(outline=())) == []


def test_a_pdf_table_of_contents_set_with_dot_leaders_is_left_out_and_its_page_kept():
    text = developers_reference()
    assert ". . ." not in text and "Getting started" not in text
    assert text.count("\f") == 3  # the page numbers of what follows stay true


def test_a_title_pages_own_text_above_or_below_its_table_of_contents_stays():
    """The page went whole: a paper's title, author and abstract (13 of 174 real PDFs lost such text:
    an abstract, a licence paragraph, a change history)."""
    from pdf_maker import make_pdf

    contents = [f"{n} Section number {n} . . . . . . . . . . . . {n + 1}" for n in range(1, 7)]
    data = make_pdf([["The hypbmsec package", "Heiko Oberdiek", "Abstract",
                      "This package expands the syntax of the sectioning commands.", "Contents", *contents,
                      "Licensed under the LaTeX Project Public License, version 1.3c or later."],
                     ["Section number 1", "Its text."]], [(1, f"Section number {n}", 1) for n in range(1, 2)])
    pages = convert_document(data, ".pdf", "hypbmsec.pdf").markdown.split("\f")
    assert "This package expands the syntax of the sectioning commands." in pages[0]
    assert "Licensed under the LaTeX Project Public License" in pages[0]  # below the entries
    assert ". . ." not in pages[0] and "Section number 3" not in pages[0] and len(pages) == 3


def test_an_outline_heading_numbered_otherwise_than_its_page_still_finds_its_line():
    """The bookmark `1 Introduction` over the page's `1. INTRODUCTION`: none of a paper's 18 headings
    were found."""
    from pdf_maker import make_pdf

    data = make_pdf([["1. INTRODUCTION", "Otters are fine swimmers.", "1.1. Diet", "They eat fish."]],
                    [(1, "1 Introduction", 0), (2, "1.1 Diet", 0)])
    assert headings(convert_document(data, ".pdf", "paper.pdf").markdown) == ["1. INTRODUCTION", "1.1. Diet"]
    # Only a line set with the same number: a later line reading `Introduction` does not take the
    # heading, nor the place after it that the entries below it are looked for from.
    data = make_pdf([["2.1 Overview", "Text.", "2.2 Details", "More text.", "Introduction", "A quote."]],
                    [(1, "1 Introduction", 0), (2, "2.1 Overview", 0), (2, "2.2 Details", 0)])
    assert headings(convert_document(data, ".pdf", "guide.pdf").markdown) == ["2.1 Overview", "2.2 Details"]


def test_pdf_line_joins_keep_host_names_and_hyphenated_words_whole():
    text = developers_reference()
    assert "ftp://ftp.security.upload.debian.org/pub/SecurityUploadQueue/." in text
    # The document spells "release-critical" with its hyphen, so the line-end hyphen is a real one.
    assert "a release-critical bug in your package" in text


def test_a_pdf_with_an_outline_from_pdflatex_gets_its_sections():
    text = convert_document((DOCS / "pdf_multipage_pdflatex_outline.pdf").read_bytes(), ".pdf", "o.pdf").markdown
    assert [h for h in headings(text)][:3] == ["1 Foo", "2 Bar", "3 Baz"]


def test_a_contents_page_of_the_outlines_titles_without_leaders_is_left_out_and_headings_land_in_the_text():
    # pdflatex's \tableofcontents here sets no dot leaders: page 1 is the nine titles and their page
    # numbers. Each heading was taken from it, so every section of pages 2-4 fell under `9 Baz`.
    text = convert_document((DOCS / "pdf_multipage_pdflatex_outline.pdf").read_bytes(), ".pdf", "o.pdf").markdown
    pages = text.split("\f")
    assert "Contents" not in pages[0] and pages[1].lstrip("\n").startswith("# 1 Foo\n\nHello, here is some text")
    assert len(headings(text)) == 9 and all(headings(page) == [] or len(page.split()) > 30 for page in pages)


def test_a_txt_line_starting_with_a_hash_is_text_and_not_the_title():
    data = b"# run the report every monday\n0 9 * * mon /usr/local/bin/report\n\nThe weekly report job.\n"
    converted = convert_document(data, ".txt", "crontab-notes.txt")
    assert headings(converted.markdown) == []
    assert choose_title(converted.markdown, metadata_title=None, stem="crontab-notes") == "crontab-notes"
    assert headings(convert_data("# a comment\ntext", "text", "n").markdown) == []
    assert headings(convert_data("# A Heading\ntext", "markdown", "n").markdown) == ["A Heading"]


def test_a_txt_title_underlined_with_tildes_is_a_heading_and_no_line_of_tildes_a_code_fence():
    # Debian's developers-reference.txt underlines its subsections with tildes, as reST does; read
    # as Markdown, each two underlines fenced the prose between them as code.
    data = (b"3.2.5. Retiring\n~~~~~~~~~~~~~~~\n\nIf you choose to leave the Debian project, orphan your packages.\n\n"
            b"3.2.6. Returning after retirement\n~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~\n\n"
            b"A retired developer may return by applying again.\n\n~~~ a line of tildes alone\n\n"
            b"3.2.7. More\n~~~~~~~~~~~\n")
    converted = convert_document(data, ".txt", "developers-reference.txt")
    assert code_blocks(converted.markdown) == []
    assert headings(converted.markdown) == ["3.2.5. Retiring", "3.2.6. Returning after retirement", "3.2.7. More"]
    assert "orphan your packages" in converted.markdown and "by applying again" in converted.markdown
    assert code_blocks("~~~\ncode\n~~~\n")  # Markdown's fences stay


def test_a_sentence_pdfminer_parts_into_two_blocks_reads_as_one_paragraph():
    # pdfminer parts a block whose lines it sets apart (a bullet's first line and the rest, in
    # shared-mime-info-spec.pdf) with an empty line, so a chunk could end inside the sentence.
    page = ["Each magic element may be followed by:", "",
            "A magic-deleteall element, which indicates that magic matches from previously parsed", "",
            "directories must be discarded. The magic defined in this file is used instead.", "",
            "Applications must run the update command.", "", "Ends here", "", "Next one starts here."]
    markdown = convert_document(make_pdf([page]), ".pdf", "spec.pdf").markdown
    assert "previously parsed\ndirectories must be discarded." in markdown, markdown
    # a sentence's end, or a capital after a break, keeps the blocks apart
    assert "discarded. The magic defined in this file is used instead.\n\nApplications" in markdown
    assert "Ends here\n\nNext one" in markdown


def test_a_code_block_split_to_fit_carries_no_marker_in_its_text():
    code = "\n".join(f"    value_{n} = compute(value_{n - 1}, step={n})" for n in range(1, 80))
    doc = chunk_document(f"# Loop\n\n```python\n{code}\n```\n", title="Loop", count_tokens=lambda t: len(t.split()),
                         budget=60, max_tokens=120)
    assert len(doc.chunks) > 1
    assert not any(CODE_SPLIT_MARKER in chunk.text for chunk in doc.chunks)
    assert all(chunk.split_code for chunk in doc.chunks if "value_" in chunk.text)


def test_an_index_cut_by_the_previous_scheme_is_re_cut_and_only_changed_chunks_embedded(
        make_config, encoder, docs, tmp_path):
    import sqlite3

    from conftest import write
    from helpers.encoders import CountingEncoder

    from minirag.app import App
    from minirag.ingest.sync import run_sync

    write(docs / "notes.md", "# Notes\n\nOne short line about harbours.\n")
    (docs / "tomllib.html").write_bytes((DOCS / "html_python_tomllib_en.html").read_bytes())
    counting = CountingEncoder(encoder)
    app = App(make_config(), encoder=counting)
    try:
        run_sync(app.pipeline, list(app.config.roots))
    finally:
        app.close()
    with sqlite3.connect(tmp_path / "index.db") as conn:  # as the previous scheme left it
        conn.execute("UPDATE sources SET scheme = scheme - 1")
        conn.execute("UPDATE chunks SET scheme = scheme - 1")
        conn.execute("UPDATE chunks SET text = text || ' Previous topic', text_hash = 'old' || text_hash "
                     "WHERE source_id = "
                     "(SELECT id FROM sources WHERE source LIKE '%tomllib.html')")
    conn.close()
    embedded = len(counting.embedded)
    app = App(make_config(), encoder=counting)
    try:
        assert {f.state for f in app.list_files().files} == {"stale_scheme"}
        assert run_sync(app.pipeline, list(app.config.roots)).done == 2
        again = counting.embedded[embedded:]
        assert again and all("harbours" not in text for text in again)  # the unchanged chunk's vector was kept
        assert {f.state for f in app.list_files().files} == {"indexed"}
    finally:
        app.close()


def test_a_table_row_naming_a_heading_and_a_page_does_not_take_the_heading():
    """R's reference manual: a running header `attitude | 727` read into a table's rows, 40 lines
    above the section `attitude` begins, had taken its heading when rows were matched without their
    page numbers, and the section before ran on under the wrong title."""
    from minirag.ingest.pdf_structure import OutlineEntry, structured

    text = "attenu body\nattitude | 727\n[,3] | station | factor\nExamples\n\nattitude\n\nThe Attitude Data\n"
    assert structured(text, [OutlineEntry(2, "attenu"), OutlineEntry(2, "attitude")]).split("\n")[:6] == [
        "attenu body", "attitude | 727", "[,3] | station | factor", "Examples", "", "## attitude"]


FAQ_PAGE = [
    "7.30 I installed a package but the functions are not there", "",
    "To actually use the package, it needs to be loaded using library().", "",
    "7.31 Why doesn\u2019t R think these numbers are equal?", "",
    "The only numbers that can be represented exactly in R\u2019s numeric type are integers and", "",
    "7.32 How can I capture or ignore errors in a long", "", "simulation?", "",
    "Use try(), which returns an object of class \"try-error\" instead of an error.", "",
    "7.36 Why are there unwanted borders, lines or grid-like", "artifacts when viewing a plot saved to a PS or PDF",
    "file?", "",
    "Some graphics devices and viewers anti-alias what they draw."]
FAQ_OUTLINE = [(1, "I installed a package but the functions are not there", 0),
               (1, "Why doesn't R think these numbers are equal?", 0),
               (1, "How can I capture or ignore errors in a long simulation?", 0),
               (1, "Why are there unwanted borders, lines or grid-like artifacts when viewing a plot saved to a "
                   "PS or PDF file?", 0)]


def test_an_outline_title_set_with_other_quotes_or_wrapped_over_lines_still_finds_its_heading():
    """R-FAQ.pdf: the bookmark writes `doesn't` where the page sets `doesn’t`, and a long question wraps
    over two or three lines: 8 of its 104 entries gave no heading, and the answer fell under the
    question before it."""
    text = convert_document(make_pdf([FAQ_PAGE], FAQ_OUTLINE), ".pdf", "R-FAQ.pdf").markdown
    assert headings(text) == [
        "7.30 I installed a package but the functions are not there",
        "7.31 Why doesn\u2019t R think these numbers are equal?",
        "7.32 How can I capture or ignore errors in a long simulation?",
        "7.36 Why are there unwanted borders, lines or grid-like artifacts when viewing a plot saved to a PS or "
        "PDF file?"]
    assert "\nsimulation?\n" not in text and text.count("grid-like") == 1


def test_an_outline_title_is_not_found_in_a_line_that_only_mentions_it():
    """A cross-reference, or a sentence wrapped so a line starts with the title's words, is text: only
    lines that hold the title and nothing else are its heading."""
    page = ["7.30 Packages", "", "See also 7.31 Why doesn\u2019t R think these numbers are equal?", "",
            "How can I capture or ignore errors in a long", "simulation? is asked often; the answer is try().", "",
            "Why doesn\u2019t R think these numbers", "are equal? That is floating point."]
    outline = [(1, "Packages", 0), (1, "Why doesn't R think these numbers are equal?", 0),
               (1, "How can I capture or ignore errors in a long simulation?", 0)]
    assert headings(convert_document(make_pdf([page], outline), ".pdf", "faq.pdf").markdown) == ["7.30 Packages"]


def test_an_appendix_bookmark_finds_the_heading_its_page_sets_after_the_word_appendix():
    """Texinfo's bookmark `A A sample session` over the page's `Appendix A A sample session`: none of
    R-intro.pdf's six appendices had a heading, so each ran on under the chapter before it."""
    pages = [["10 Graphical procedures", "", "Plots are drawn by high-level functions."],
             ["Appendix A A sample session", "", "The following session is intended to introduce R."],
             ["Appendix B: Invoking R", "", "Appendix B Invoking R", "", "Users of R on Windows should read this."]]
    outline = [(1, "10 Graphical procedures", 0), (1, "A A sample session", 1), (1, "B Invoking R", 2)]
    text = convert_document(make_pdf(pages, outline), ".pdf", "R-intro.pdf").markdown
    assert headings(text) == ["10 Graphical procedures", "Appendix A A sample session", "Appendix B Invoking R"]


def test_a_bookmark_finds_its_heading_on_the_page_it_points_at_not_a_mention_further_on():
    """A reference manual laid out as R's: where a topic's page sets its title with more on the line
    (so no line of its own), its bookmark took a `See Also` line naming it pages later, and the
    bookmarks in between found no heading after it."""
    pages = [["abbreviate", "", "Abbreviate strings."],
             ["agrep Approximate String Matching", "", "Searches for approximate matches."],
             ["all.equal", "", "Tests if two objects are nearly equal."],
             ["any", "", "Are some values true?", "", "See Also", "", "agrep", "", "all.equal"]]
    outline = [(1, "abbreviate", 0), (1, "agrep", 1), (1, "all.equal", 2), (1, "any", 3)]
    text = convert_document(make_pdf(pages, outline), ".pdf", "refman.pdf").markdown
    assert headings(text) == ["abbreviate", "all.equal", "any"]
    assert text.split("\f")[2].startswith("# all.equal")


def test_rejoining_parted_sentences_takes_time_in_proportion_to_the_text():
    # Each empty line looked at copied the rest of the text to see the word after it.
    from helpers.growth import grows_linearly

    from minirag.ingest.pdf_structure import structured

    assert grows_linearly(lambda text: structured(text, []),
                          lambda repeats: "the list goes on,\n\nand on here\n\nA new paragraph.\n\n" * repeats * 4)
