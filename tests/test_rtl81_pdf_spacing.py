"""A PDF set with wide line spacing reads a paragraph as a paragraph, not each line as one; a page
whose paragraphs stand apart keeps them apart.

pdfminer boxes lines together only where they stand less than half a line apart, so each line of a
page set at 1.65 or double spacing was a box of its own, followed by an empty line."""

from __future__ import annotations

from conftest import FIXTURES
from pdf_maker import placed_pdf, wide_pdf

from minirag.ingest.convert import convert_document, convert_file

# Sentences on Hangul and on the National Library of Korea, written for this project, broken as a
# typesetter breaks them at a measure of about 25 characters.
HANGUL = [["한글은 한국어의 고유 문자로서, 한국 민족 문화의", "부흥을 위해 세종이 1443년에 창제하여 1446년에", "훈민정음이라는 이름으로 반포하였다."],
          ["국립중앙도서관은 대한민국의 국가대표도서관으로", "서울특별시 서초구 반포동에 있다."]]


def _read(data: bytes) -> str:
    return convert_document(data, ".pdf", "spaced.pdf").markdown.strip("\f\n")


def _paragraphs(lines: list[list[str]]) -> str:
    return "\n\n".join("\n".join(paragraph) for paragraph in lines)


def test_korean_set_at_double_spacing_reads_its_paragraphs_whole():
    assert _read(wide_pdf(HANGUL, leading=2.0)) == _paragraphs(HANGUL)


def test_korean_paragraphs_told_apart_by_their_indent_alone_stay_apart():
    read = _read(wide_pdf(HANGUL, leading=2.0, parskip=0, indent=1))
    assert read.split("\n\n") == ["\n".join(paragraph) for paragraph in HANGUL]


def test_arabic_set_at_double_spacing_reads_its_paragraphs_whole():
    """tests/fixtures/rtl81/wide_leading.pdf (scripts/gen_shaped_pdf.py): three paragraphs of two and
    three lines, double-spaced, set right to left."""
    text = convert_file(FIXTURES / "rtl81" / "wide_leading.pdf").markdown.strip("\f\n")
    paragraphs = text.split("\n\n")
    assert [len(paragraph.split("\n")) for paragraph in paragraphs] == [3, 2, 2]
    assert paragraphs[1].startswith("ويحتفل باليوم العالمي") and paragraphs[2].startswith("تحتوي دار الكتب")


def test_a_persian_thesis_at_1_65_lines_reads_each_paragraph_whole():
    """XeTeX's tabriz-thesis acknowledgements: paragraphs of two lines, the first indented, 19.9
    points apart at 12 points; each line had been a paragraph."""
    text = convert_file(FIXTURES / "docs" / "pdf_xelatex_persian_tabriz_thesis.pdf").markdown
    assert ("در آغاز وظیفه خود مدانم از زحمات بدریغ استاد راهنمای خود، جناب آقای دکتر ...، صمیمانه تشر\n"
            "و قدردان کنم که قطعاً بدون راهنمایهای ارزنده ایشان، این مجموعه به انجام نمرسید.\n\n"
            "از جناب آقای دکتر") in text


def test_latin_paragraphs_a_blank_line_apart_stay_apart_even_when_a_last_line_is_full():
    """The lines of each paragraph stand 13 points apart in its box; the paragraphs 24, less than
    the wide spacing's 2 lines: a gap, though the first paragraph's last line runs to the right edge
    as its other lines do."""
    first = ["A paragraph whose every line runs to the right edge of the text",
             "as a justified paragraph's lines do, its last one as well here",
             "because its words happened to fill the last line to the edge too."]
    second = ["The next paragraph starts at the left edge without an indent and", "stops short."]
    items = [(72, 700 - 13 * at, line) for at, line in enumerate(first)]
    items += [(72, 650 - 13 * at, line) for at, line in enumerate(second)] + [(72, 600, "A third, of one line.")]
    assert _read(placed_pdf(items)).split("\n\n") == ["\n".join(first), "\n".join(second), "A third, of one line."]


def test_one_line_paragraphs_and_headings_a_gap_apart_stay_apart():
    """Each paragraph's one line runs to the right edge, and the next heading starts at the left; but
    the paragraphs stand further above the next heading (22 points) than the headings above them (18)."""
    items = [(72, 700, "1.1 Loading"), (72, 682, "Load it in the preamble in place of the package it extends."),
             (72, 660, "1.2 Options"), (72, 642, "The option that fixes the bugs is on by default and stays."),
             (72, 620, "1.3 Spaces")]
    read = _read(placed_pdf(items))
    assert read.split("\n\n") == [text for _, _, text in items]
