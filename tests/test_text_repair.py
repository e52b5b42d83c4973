"""Typesetting taken back out of converted text: a PDF's words hyphenated across line ends are whole
again (through pdfminer, from a real PDF), soft hyphens and ligatures go in every format, and the
keyword side folds them in queries too, so both sides see the words a reader sees."""

from __future__ import annotations

import pytest
from conftest import FIXTURES
from helpers.growth import grows_linearly
from pdf_maker import pdf_of_objects

from minirag import keywords
from minirag.ingest.convert import convert_data, convert_document, convert_file
from minirag.ingest.sync import run_sync
from minirag.ingest.text_repair import repair
from minirag.results import payload


def pdf_with_lines(lines: list[str]) -> bytes:
    """A one-page PDF (Helvetica, one text line per entry, top to bottom), xref offsets exact."""
    text = "BT /F1 12 Tf 14 TL 72 720 Td " + " ".join(
        f"({line.replace(chr(92), chr(92) * 2).replace('(', chr(92) + '(').replace(')', chr(92) + ')')}) '"
        for line in lines) + " ET"
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
        b"/Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length %d >>\nstream\n%s\nendstream" % (len(text), text.encode("latin-1")),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
    ]
    return pdf_of_objects(objects)


HYPHENATED = ["The parser reads the declara-", "tions of every ASN.1 SE-", "QUENCE type. It is non-",
              "Commercial software, released 1998-", "2004 under the", "GPL."]


def test_a_pdf_word_split_across_a_line_end_is_whole_again():
    markdown = convert_document(pdf_with_lines(HYPHENATED), ".pdf", "asn1.pdf").markdown
    assert "declarations" in markdown and "SEQUENCE" in markdown
    # A capitalised next line and a number keep their hyphen: those are not word splits.
    assert "non-\nCommercial" in markdown and "1998-\n2004" in markdown


def test_only_pdf_text_is_joined_since_elsewhere_line_breaks_are_the_authors():
    text = "a list of cross-\nreferences"
    assert repair(text) == text and repair(text, pdf=True) == "a list of crossreferences"
    assert convert_data(text, "markdown", "note").markdown == text


@pytest.mark.parametrize(("fmt", "content"), [
    ("markdown", "# Data manip\u00adulation\n\nThe ﬁle's signiﬁcant ﬂags, ﬀ and ﬃ."),
    ("html", "<h1>Data manip&shy;ulation</h1><p>The ﬁle's signiﬁcant ﬂags, ﬀ and ﬃ.</p>"),
])
def test_soft_hyphens_and_ligatures_go_in_every_format(fmt, content):
    markdown = convert_data(content, fmt, "doc").markdown
    assert "manipulation" in markdown and "The file's significant flags, ff and ffi." in markdown


def test_the_keyword_side_folds_them_in_queries_and_stored_text():
    assert keywords.query_terms("signiﬁcant manip\u00adulation") == keywords.query_terms("significant manipulation")


def test_a_hyphenated_pdf_word_is_found_by_its_whole_spelling(app, docs):
    (docs / "asn1.pdf").write_bytes(pdf_with_lines(HYPHENATED))
    assert run_sync(app.pipeline, list(app.config.roots)).failed == 0
    hits = payload(app.query("declarations", top_k=3))["results"]
    assert hits and hits[0]["source"].endswith("asn1.pdf") and "declarations" in hits[0]["text"]


def test_an_accent_tex_set_beside_its_letter_is_put_back_on_it_in_pdf_text():
    """pdfTeX draws `\\'e` as a spacing acute and an e: 14 of 175 real PDFs held `G´erard`, `D¨ubner`,
    which neither side can match to the word."""
    split = "J. G´erard, D¨ubner, Uroˇs Stefanovi´c, Publicac¸˜oes Acadˆemicas, na¨ıve, Dvoˇr´ak"
    assert repair(split, pdf=True) == "J. Gérard, Dübner, Uroš Stefanović, Publicações Acadêmicas, naïve, Dvořák"
    assert repair(split) == split  # only a PDF's glyphs are set so
    for kept in ("don´t", "xˆ2", "aˆ", "´"):  # no accented letter to make, or none at all
        assert repair(kept, pdf=True) == kept
    elsarticle = convert_file(FIXTURES / "docs" / "pdf_two_columns_elsarticle.pdf").markdown
    assert "Gérard" in elsarticle and "G´erard" not in elsarticle


def test_a_line_end_hyphen_inside_a_url_or_a_file_name_stays():
    """`maximum-rpm.ps.gz` became `maximumrpm.ps.gz`, `translation-jezik.pl` `translationjezik.pl`: the
    name no longer matched the file or the page it names."""
    assert repair("see http://www.rpm.org/maximum-\nrpm.ps.gz for more", pdf=True) == \
        "see http://www.rpm.org/maximum-rpm.ps.gz for more"
    assert repair("run translation-\njezik.pl first", pdf=True) == "run translation-jezik.pl first"
    assert repair("an exam-\nple. Then declara-\ntions.", pdf=True) == "an example. Then declarations."


def test_a_word_split_between_two_text_blocks_is_joined_too():
    """pdfminer parts blocks with an empty line: 75 of 931 line-end hyphenations in 85 real PDFs
    (`judge-` / `ments`) stayed split."""
    assert repair("our ampliative judge-\n\nments are", pdf=True) == "our ampliative judgements are"
    assert repair("a list-\n\n\nitem", pdf=True) == "a list-\n\n\nitem"  # two empty lines: not one text


def test_a_url_broken_at_a_line_end_goes_on_onto_the_next_line():
    """R's manuals (R-data.pdf, R-FAQ.pdf, R-exts.pdf) break long URLs after a `.`, a `/` or `://`:
    neither half found the page it names."""
    broken = {
        "(https://www.actualtech.com/product_access.\nphp) is": "(https://www.actualtech.com/product_access.php) is",
        "from https://docs.\nmicrosoft.com/en-us/sql/odbc/ for": "from https://docs.microsoft.com/en-us/sql/odbc/ for",
        "(https://doi.org/10.1080/10618600.\n2000.10474895)).": "(https://doi.org/10.1080/10618600.2000.10474895)).",
        "at https://CRAN.R-project.\norg and": "at https://CRAN.R-project.org and",
        "free download from https://\nlink.springer.com/content/pdf/1.pdf.": "free download from "
                                                                           "https://link.springer.com/content/pdf/1.pdf.",
        "(https://CRAN.R-project.org/\npackage=nlme) for": "(https://CRAN.R-project.org/package=nlme) for",
        "(https://github.\ncom/google/sanitizers/wiki#threadsanitizer),": "(https://github.com/google/sanitizers/"
                                                                        "wiki#threadsanitizer),",
        "see https://en.wikipedia.org/wiki/\nReproducibility)": "see https://en.wikipedia.org/wiki/\nReproducibility)",
        "(see https://en.wikipedia.org/wiki/\nReproducibility)": "(see https://en.wikipedia.org/wiki/Reproducibility)",
        "from https://www.stat.auckland.\n\nac.nz/~paul/R/ and": "from https://www.stat.auckland.ac.nz/~paul/R/ and",
    }
    for text, whole in broken.items():
        assert repair(text, pdf=True) == whole, text
    assert repair("https://docs.\nmicrosoft.com/en-us/") == "https://docs.\nmicrosoft.com/en-us/"  # a PDF's only
    lines = ["Actual Technologies (https://www.actualtech.com/product_access.",
             "php) and OpenLink (https://uda.openlinksw.com/)."]
    markdown = convert_document(pdf_with_lines(lines), ".pdf", "R-data.pdf").markdown
    assert "(https://www.actualtech.com/product_access.php) and OpenLink" in markdown


def test_a_url_that_ends_a_sentence_or_a_line_stays_apart_from_what_follows():
    """A URL's continuation has a URL's marks (`/`, a dot inside, `=`, `#`), closes the parenthesis
    the URL opened, or is a web file's extension or a top-level domain after a dot; the next
    sentence, a footnote's number, prose or another URL is none of these."""
    for text in ("See https://example.org.\nThe next paragraph",
                 "See https://stat.ethz.ch/R-manual/.\nThe manuals",
                 "from https://CRAN.R-project.org/\nand its mirrors",
                 "https://github.com/google/sanitizers/wiki/AddressSanitizerUseAfterScope.\nsee the flags",
                 "see https://clang.llvm.org/docs/ThinLTO.\n17 It is",
                 "(such as rJava (https://\nsome settings which are useful",
                 "from https://www.tug.org/texlive/\n. (The CRAN package",
                 "http://debian-live.alioth.debian.org/\nhttp://debian-live.alioth.debian.org/build/",
                 "https://example.org/docs.\nwww.example.net is another",
                 "(https://validator.nu/).\n\nSweave/Stangle", "see https://stat.ethz.ch/r-help/094765.html.\n7.36 Why", "at https://mac.R-project.org/\n\fTcl/Tk 8.6"):
        assert repair(text, pdf=True) == text, text


@pytest.mark.parametrize("text_of", [
    lambda n: "word" * n + " https://example.org/\npath",  # a long word before a URL
    lambda n: "a" * (4 * n) + "_b://x.\nnext",  # a long run that is no scheme
    lambda n: "https://example.org/a.\nb " * n,  # many broken URLs
])
def test_joining_broken_urls_reads_each_line_once(text_of):
    assert grows_linearly(lambda text: repair(text, pdf=True), text_of)


def test_a_hyphen_at_a_line_end_is_judged_from_a_bounded_look_back():
    """Whether a hyphen ends a URL or a path was read back to the line's last space, so to the text's
    start in text with none: quadratic, in a scan fast enough that it shows only at this size."""
    assert grows_linearly(lambda text: repair(text, pdf=True), lambda n: "ab-\n" * (50 * n))
