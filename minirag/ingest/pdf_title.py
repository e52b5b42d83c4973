"""A PDF's title as a reader sees it: the largest type on its first page, else a plausible Info /Title.

Without one the title fell to the first outline heading or the file name: R-data.pdf was titled
"Acknowledgements" and R-intro.pdf "R-intro", where their title pages say "R Data Import/Export" and
"An Introduction to R". The first page's largest lines are its title when they stand well above
the page's common size (a title page, a paper's heading); a page set in one size (a scan's text
layer, a form's second page) has none. The Info dictionary's /Title is used only when it is not a
file name or a program's placeholder (`Binder1.pdf`, `Microsoft Word - draft.docx`, `untitled`).
"""

from __future__ import annotations

import io
import logging
import re
import statistics

from minirag._compat.pdfminer import UNMAPPED_GLYPH, font_widths_as_given, octal_overflow_ignored
from minirag.chunking.titles import is_boilerplate_heading
from minirag.ingest.bidi_order import turned
from minirag.ingest.pdf_rtl_lines import glyphs_as_drawn, kerned_gaps_closed

log = logging.getLogger(__name__)

MIN_TITLE_RATIO = 1.4  # the title's type over the page's median; SF-424's "Version 02" stands at 1.3
MAX_TITLE_LINES = 3
MAX_TITLE_WORDS = 25
_WORD = re.compile(r"[^\W\d_]{2}")  # a word of two letters or more
_PLACEHOLDER = re.compile(r"^(?:untitled\b|title$|microsoft (?:word|powerpoint|excel) - |powerpoint presentation$)"
                          r"|\.(?:pdf|docx?|pptx?|xlsx?|odt|tex|dvi|ps|indd|qxd|rtf|txt)$", re.IGNORECASE)


def pdf_title(data: bytes, *, drawn_order: bool = False) -> str | None:
    """The title; `drawn_order`: the document's right-to-left text is in drawn order, and so is the
    first page's largest type (bidi_order.py), which is turned; the Info title is typed text."""
    try:
        title = _first_page_title(data)
        if title and drawn_order:
            return turned(title)
        return title or _info_title(data)
    except Exception as exc:  # noqa: BLE001 - a title is a nicety: a broken PDF still converts
        log.debug("no title read: %s: %s", type(exc).__name__, exc)
        return None


def _first_page_title(data: bytes) -> str | None:
    from pdfminer.layout import LTChar, LTTextContainer, LTTextLine

    from minirag.ingest.pdf_visible import visible_pages

    font_widths_as_given()
    octal_overflow_ignored()
    lines: list[tuple[float, str]] = []
    for page in visible_pages(data, maxpages=1):
        drawn = [line for box in page if isinstance(box, LTTextContainer) for line in box if isinstance(line, LTTextLine)]
        kerned_gaps_closed(drawn)  # as the body's lines are
        glyphs_as_drawn(drawn)
        for box in page:
            if not isinstance(box, LTTextContainer):
                continue
            for line in box:
                sizes = [c.size for c in line if isinstance(c, LTChar) and c.get_text().strip()] \
                    if isinstance(line, LTTextLine) else []
                if sizes:
                    lines.append((max(sizes), " ".join(UNMAPPED_GLYPH.sub("", line.get_text()).split())))
    if not lines:
        return None
    largest = max(size for size, _ in lines)
    if largest < MIN_TITLE_RATIO * statistics.median(size for size, _ in lines):
        return None
    first = next(n for n, (size, _) in enumerate(lines) if size >= largest - 0.5)
    run = []
    for size, text in lines[first:first + MAX_TITLE_LINES]:
        if size < largest - 0.5:
            break
        run.append(text)
    title = " ".join(run)
    if not _WORD.search(title) or len(title.split()) > MAX_TITLE_WORDS or is_boilerplate_heading(title):
        return None  # a drop capital, a page number, "Contents"
    return title


def _info_title(data: bytes) -> str | None:
    from pdfminer.pdfdocument import PDFDocument
    from pdfminer.pdfparser import PDFParser
    from pdfminer.pdftypes import resolve1
    from pdfminer.utils import decode_text

    octal_overflow_ignored()
    for info in PDFDocument(PDFParser(io.BytesIO(data))).info:
        value = resolve1(resolve1(info).get("Title")) if isinstance(resolve1(info), dict) else None
        text = decode_text(value) if isinstance(value, bytes) else ""
        title = " ".join("".join(c for c in text if c.isprintable() or c.isspace()).split())
        if _WORD.search(title) and not _PLACEHOLDER.search(title):
            return title
    return None
