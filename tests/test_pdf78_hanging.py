"""An option's tag reads with its description, as a man page or a Texinfo manual sets them.

groff's `.TP` (bash.pdf, ls's page) and Texinfo's `@table` (bashref.pdf) set a tag (`-c`) at the
left margin and its description at a deeper indent, on the tag's baseline where the tag fits in the
indent, else from the line below. pdfminer boxed every tag apart, and a run of short tags into one
box beside all their descriptions: bash.pdf's page 1 read `−c`, `−i −l −r −s`, `−v −x −D`, then eleven
descriptions; a hit on "the shell is interactive" did not say it was `-i`'s.

fixtures/pdf78/toolx.pdf is `groff -man -Tpdf toolx.1` (groff 1.22.4's gropdf, as Debian makes a man
page's PDF): four short tags on their descriptions' first lines, then two on lines of their own.
"""

from __future__ import annotations

from conftest import FIXTURES

from minirag.chunking import chunk_document
from minirag.ingest.convert import convert_document
from minirag.results import payload

TOOLX = FIXTURES / "pdf78" / "toolx.pdf"


def _paragraphs(text: str) -> list[str]:
    return [paragraph.strip() for paragraph in text.split("\n\n") if paragraph.strip()]


def test_a_tag_on_its_descriptions_baseline_opens_its_paragraph():
    text = convert_document(TOOLX.read_bytes(), ".pdf", "toolx.pdf").markdown
    paragraphs = _paragraphs(text)
    items = [paragraph for paragraph in paragraphs if paragraph.startswith("-")]
    assert [item.split("\n")[0][:28] for item in items] == [
        "-c  Read the records from th",
        "-i  Ask before each record i",
        "-l  Follow symbolic links fo",
        "-r  Copy the directories rec",
        "--block-size=SIZE",
        "--posix",
    ]
    assert items[0].endswith("written to the standard\noutput.")  # the description's three lines, with its tag
    assert items[2] == "-l  Follow symbolic links found in the source archive."
    assert items[4] == "--block-size=SIZE\nScale the sizes by SIZE when printing them; the default block holds one kilobyte."
    assert items[5] == "--posix\nKeep to the behaviour the standard describes, where the default differs from it."


def test_a_chunk_of_a_description_names_its_option(encoder):
    text = convert_document(TOOLX.read_bytes(), ".pdf", "toolx.pdf").markdown
    chunks = chunk_document(text, title="toolx", count_tokens=encoder.count_tokens, budget=48).chunks
    holding = [chunk.text for chunk in chunks if "Follow symbolic links" in chunk.text]
    assert holding and all("-l  Follow symbolic links" in chunk for chunk in holding)
    holding = [chunk.text for chunk in chunks if "Keep to the behaviour" in chunk.text]
    assert holding and all("--posix\nKeep to the behaviour" in chunk for chunk in holding)


def test_a_query_for_a_description_finds_its_tag(app, docs):
    (docs / "toolx.pdf").write_bytes(TOOLX.read_bytes())
    app.sync()
    hits = payload(app.query("ask before each record is replaced", top_k=5))["results"]
    holding = [hit["text"] for hit in hits if "Ask before each record" in hit["text"]]
    assert holding and all("-i  Ask before each record is replaced." in text for text in holding)


def _page(lines: list[tuple[float, float, str]]) -> bytes:
    """One letter-size page of (x, baseline, text) lines in 11-point Times-Roman, as pdfTeX sets
    a Texinfo manual's body."""
    from pdf_maker import pdf_of_objects

    def escape(text: str) -> str:
        return text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")

    ops = "\n".join(f"BT /F1 11 Tf {x} {y} Td ({escape(text)}) Tj ET" for x, y, text in lines).encode()
    return pdf_of_objects([
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [4 0 R] /Count 1 >>",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Times-Roman /Encoding /WinAnsiEncoding >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 5 0 R "
        b"/Resources << /Font << /F1 3 0 R >> >> >>",
        b"<< /Length %d >>\nstream\n%s\nendstream" % (len(ops), ops),
    ])


def test_texinfo_tables_read_tag_by_tag():
    """bashref.pdf (Texinfo, pdfTeX), page 91: `@table` items, a long tag above its description, short
    ones on their descriptions' first lines, and two of those descriptions in one box."""
    text = convert_document(_page([
        (90, 472.5, "--debugger"),
        (147.6, 459.6, "Arrange for the debugger profile to be executed before the shell starts. Turns"),
        (147.6, 446.5, "on extended debugging mode."),
        (90, 327.4, "--help"),
        (147.6, 327.7, "Display a usage message on standard output and exit successfully."),
        (90, 204.2, "--noprofile"),
        (147.6, 191.0, "Don't load the system-wide startup file /etc/profile or any of the personal ini-"),
        (147.6, 177.9, "tialization files when Bash is invoked as a login shell."),
        (90, 147.0, "--norc"),
        (147.6, 147.0, "Don't read the ~/.bashrc initialization file in an interactive shell. This is on"),
        (147.6, 133.9, "by default if the shell is invoked as sh."),
        (90, 116.2, "--posix"),
        (147.6, 116.5, "Change the behavior of Bash where the default operation differs from the posix"),
        (147.6, 103.4, "standard to match the standard."),
    ]), ".pdf", "bashref.pdf").markdown
    assert _paragraphs(text) == [
        "--debugger\nArrange for the debugger profile to be executed before the shell starts. Turns\n"
        "on extended debugging mode.",
        "--help  Display a usage message on standard output and exit successfully.",
        "--noprofile\nDon't load the system-wide startup file /etc/profile or any of the personal "
        "initialization files when Bash is invoked as a login shell.",  # a word broken at a line end is whole
        "--norc  Don't read the ~/.bashrc initialization file in an interactive shell. This is on\n"
        "by default if the shell is invoked as sh.",
        "--posix  Change the behavior of Bash where the default operation differs from the posix\n"
        "standard to match the standard.",
    ]


def test_a_paragraph_after_another_stays_apart():
    """R-intro.pdf (Texinfo), page iv: a paragraph's first line, indented, 16 points below the last
    line of the one before (lines follow at 13): a new paragraph, not a description."""
    text = convert_document(_page([
        (90, 500.0, "We would like to extend warm thanks to Bill Venables for granting permission to"),
        (90, 486.9, "distribute this modified version of the notes in this way, and for being a"),
        (90, 473.8, "supporter of R from way back."),
        (104.9, 457.7, "Comments and corrections are always welcome. Please address email correspondence"),
        (90, 444.6, "to R-help@R-project.org."),
    ]), ".pdf", "R-intro.pdf").markdown
    assert "supporter of R from way back.\n\nComments and corrections" in text


def test_a_books_indented_paragraph_stays_apart_from_the_one_before():
    """pdf_multipage_ocr_vicksburg.pdf, page 2: paragraphs set without space between, each first
    line indented; the line before ends a paragraph whose lines run to the margin, no tag."""
    text = convert_document(_page([
        (72, 500.0, "occur. I am sure Grant has given Pemberton a chance to remove from Vicksburg"),
        (72, 486.8, "all who could not be expected to take part in the fearful struggle."),
        (90, 473.6, "We have been looking for rain to cool the air and lay the dust, and this"),
        (72, 460.4, "afternoon we were gratified by a heavy shower."),
    ]), ".pdf", "vicksburg.pdf").markdown
    assert "the fearful struggle.\n\nWe have been looking for rain" in text


def test_a_heading_wrapped_at_a_hanging_indent_reads_in_order():
    """pdf_two_columns_elsarticle.pdf, page 2: `2. Evanescent vs.` and `conventional quadrupole
    light-matter` on one row (two boxes), `coupling` below at the title's indent, and the right
    column's line beside them: the row reads first, then the rest of the title."""
    text = convert_document(_page([
        (37.6, 612.1, "2. Evanescent vs."),
        (124.5, 612.1, "conventional quadrupole light-matter"),
        (50.1, 600.1, "coupling"),
        (306.6, 612.1, "the incident polariton can be written as [10]:"),
    ]), ".pdf", "elsarticle.pdf").markdown
    assert text.index("2. Evanescent vs.") < text.index("conventional quadrupole") < text.index("coupling")


def test_a_heading_over_a_tag_stays_a_heading():
    """grep.pdf (groff), page 2: a subsection's title less indented just above a long tag, whose
    description starts on the line below: the tag goes with its description, not under the title."""
    text = convert_document(_page([
        (87, 609.4, "General Output Control"),
        (108, 597.4, "-c, --count"),
        (144, 585.4, "Suppress normal output; instead print a count of matching lines for each input file."),
        (144, 573.4, "With the -v, --invert-match option (see above), count non-matching lines."),
    ]), ".pdf", "grep.pdf").markdown
    assert _paragraphs(text) == [
        "General Output Control",
        "-c, --count\nSuppress normal output; instead print a count of matching lines for each input file.\n"
        "With the -v, --invert-match option (see above), count non-matching lines.",
    ]


def test_a_paragraph_between_two_items_keeps_its_place():
    """shared-mime-info-spec.pdf, page 15: two bullets, each a box of its own left of its item's
    text, and a note indented as an item's text between the two items. The note stays after the
    item it belongs to, before the next."""
    text = convert_document(_page([
        (105.6, 595.3, "*"),  # set further off than on the page, as pdfminer boxes the page's bullet
        (129.5, 594.8, "If the glob matching fails or results in multiple conflicting mimetypes, read"),
        (129.5, 581.9, "the contents of the file and do magic sniffing on it."),
        (129.5, 523.1, "Note: Checking the first 128 bytes of the file for ASCII control characters is"),
        (129.5, 510.2, "a good way to guess whether a file is binary or text."),
        (105.6, 465.5, "*"),
        (129.5, 465.1, "If any of the mimetypes resulting from a glob match is equal to or a subclass"),
        (129.5, 452.1, "of the result from the magic sniffing, use this as the result."),
    ]), ".pdf", "shared-mime-info-spec.pdf").markdown
    assert _paragraphs(text) == [
        "*  If the glob matching fails or results in multiple conflicting mimetypes, read\n"
        "the contents of the file and do magic sniffing on it.",
        "Note: Checking the first 128 bytes of the file for ASCII control characters is\n"
        "a good way to guess whether a file is binary or text.",
        "*  If any of the mimetypes resulting from a glob match is equal to or a subclass\n"
        "of the result from the magic sniffing, use this as the result.",
    ]
