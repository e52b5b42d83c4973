"""Right-to-left text a PDF gave in drawn order is read in reading order; text already in reading
order is left alone."""

from __future__ import annotations

from conftest import FIXTURES

from minirag.ingest.bidi_order import reading_order
from minirag.ingest.convert import convert_file

DOCS = FIXTURES / "docs"


def test_a_persian_thesis_set_by_xelatex_reads_in_reading_order_in_plain_letters():
    """Every word had come out backwards, in presentation forms (`ﺿﺎﯾر مﻮﻠﻋ`), matching no query."""
    markdown = convert_file(DOCS / "pdf_xelatex_persian_tabriz_thesis.pdf").markdown
    assert "گروه ریاض محض" in markdown and "کارشناس ارشد" in markdown
    assert "عنوان: نوشتن پروژه، پایاننامه و رساله با استفاده از کلاس tabriz-thesis" in markdown
    assert not any("\ufb50" <= character <= "\ufeff" for character in markdown)


def test_hebrew_and_arabic_exported_by_libreoffice_read_in_reading_order_with_their_numbers_and_brackets():
    """A number in a right-to-left line also cut the line into pieces, given apart."""
    markdown = convert_file(DOCS / "pdf_libreoffice_hebrew_arabic.pdf").markdown
    assert "הספרייה הלאומית נמצאת בירושלים (בקמפוס גבעת רם), ופתוחה לציבור מאז 1892" in markdown
    assert "المكتبة الوطنية في القاهرة (مصر) تأسست عام 1870 وتضم مخطوطات نادرة." in markdown
    assert "An English line naming שלום and مرحبا in passing." in markdown


def test_text_in_reading_order_or_too_short_to_tell_is_left_as_it_is():
    read = "הספרייה הלאומית נמצאת בירושלים\nالمكتبة الوطنية في القاهرة\nשלום"
    assert reading_order(read) == read
    assert reading_order("םולש") == "םולש"  # one sign is too few to turn a text around
    assert reading_order("plain English (1892)") == "plain English (1892)"


def test_drawn_order_is_turned_keeping_numbers_and_latin_words_in_their_own_order():
    drawn = "\n".join(["2024 תנשב Python םע הדובע", "An English line naming םולש in passing.", "(םר תעבג)"])
    assert reading_order(drawn).split("\n") == [
        "עבודה עם Python בשנת 2024", "An English line naming שלום in passing.", "(גבעת רם)"]


def _with_info_title(pdf: bytes, title: str) -> bytes:
    """The PDF with an incremental update giving it an Info /Title, as a producer types one."""
    import re

    start = int(re.findall(rb"startxref\s+(\d+)", pdf)[-1])
    trailer = re.findall(rb"trailer\s*<<(.*?)>>\s*startxref", pdf, re.S)[-1]
    root = re.search(rb"/Root\s+(\d+\s+\d+\s+R)", trailer).group(1)
    size = int(re.search(rb"/Size\s+(\d+)", trailer).group(1))
    body = pdf if pdf.endswith(b"\n") else pdf + b"\n"
    info = b"%d 0 obj\n<< /Title <FEFF%s> >>\nendobj\n" % (size, title.encode("utf-16-be").hex().upper().encode())
    xref = (b"xref\n%d 1\n%010d 00000 n \ntrailer\n<< /Size %d /Root %s /Info %d 0 R /Prev %d >>\nstartxref\n%d\n%%%%EOF\n"
            % (size, len(body), size + 1, root, size, start, len(body) + len(info)))
    return body + info + xref


def test_what_a_pdf_holds_as_typed_text_is_not_turned_and_page_breaks_stay_between_pages():
    """Only the pages' drawn text is turned: an Info title (and form fields, notes) is typed text.
    A page's first line had its page break turned to its end, and was cited on the page before."""
    from minirag.ingest.convert import convert_document

    pdf = _with_info_title((DOCS / "pdf_libreoffice_hebrew_arabic.pdf").read_bytes(), "הספרייה הלאומית בירושלים")
    assert convert_document(pdf, ".pdf", "a.pdf").metadata_title == "הספרייה הלאומית בירושלים"
    persian = convert_file(DOCS / "pdf_xelatex_persian_tabriz_thesis.pdf").markdown
    assert not [line for line in persian.split("\n") if "\f" in line.rstrip("\f") and not line.startswith("\f")]
    assert reading_order("ןורחאה טפשמה\n\fןושארה טפשמה\nםולש םלוע") == "המשפט האחרון\n\fהמשפט הראשון\nעולם שלום"


def test_pointed_hebrew_and_vowelled_arabic_are_told_by_their_letters_not_their_marks():
    """A final letter's point or a ta marbuta's tanween stands after it: the letter still ends the word."""
    from minirag.ingest.bidi_order import _signs

    assert _signs("מֶלֶךְ שָׁלוֹם לְךָ")[1] >= 2 and _signs("مَدْرَسَةٌ جَمِيلَةٌ")[1] == 2
