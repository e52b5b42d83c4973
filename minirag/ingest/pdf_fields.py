"""What a PDF viewer shows on a page that pdfminer's text leaves out: filled-in form fields and notes.

pdfminer reads a page's content stream; a form field's value and a note's text live in the page's
annotations instead. A filled-in form (libreoffice-form.pdf in pypdf's test resources, its First
Name "Alice") lost every value, and a commented PDF every note. Each page's are added after its
text, so they cite the page they are on:

- a form field with a value, as `NAME: value` (a box that is not ticked, `Off`, says nothing);
- a note (a sticky note, a text box, a highlight with a comment), as `Comment by AUTHOR: text`.

An annotation flagged Hidden or NoView, placed wholly off the page, or in an optional content layer
shown off (pdf_layers.py) is shown by no viewer, and adds nothing.
"""

from __future__ import annotations

import io
import logging
from collections.abc import Sequence

log = logging.getLogger(__name__)

# A field's name and value may be inherited from its parent fields; real forms nest a few levels.
MAX_FIELD_DEPTH = 32
_NOT_NOTES = frozenset({"Widget", "Popup", "Link"})  # a popup repeats its note; a link's text is on the page
# An annotation's flags (/F, PDF 32000-1 12.5.3) that keep a viewer from showing it: Hidden, NoView.
_UNSHOWN_FLAGS = 2 | 32


def page_fields(data: bytes) -> list[list[str]]:
    """For each page, the lines its form fields and notes add; [] where the PDF cannot be read so."""
    try:
        from pdfminer.pdfdocument import PDFDocument
        from pdfminer.pdfpage import PDFPage
        from pdfminer.pdfparser import PDFParser
        from pdfminer.pdftypes import resolve1

        from minirag._compat.pdfminer import octal_overflow_ignored
        from minirag.ingest.pdf_layers import groups_off, shown_off

        octal_overflow_ignored()
        document = PDFDocument(PDFParser(io.BytesIO(data)))
        hidden = groups_off(document)
        pages = []
        for page in PDFPage.create_pages(document):
            annotations = resolve1(page.annots) or []
            shown = [annotation for annotation in map(resolve1, annotations if isinstance(annotations, list) else [])
                     if isinstance(annotation, dict) and _on_page(annotation, page.mediabox)
                     and not shown_off(annotation.get("OC"), hidden)]
            pages.append(_lines(shown))
        return pages
    except Exception as exc:  # noqa: BLE001 - broken annotations cost the fields, never the text
        log.debug("no form fields read: %s: %s", type(exc).__name__, exc)
        return []


def _lines(annotations: list) -> list[str]:
    lines: list[str] = []
    for annotation in annotations:
        if not isinstance(annotation, dict) or _flags(annotation) & _UNSHOWN_FLAGS:
            continue  # a viewer shows it not: no reader sees its text (a field's or a note's)
        kind = _name(annotation.get("Subtype"))
        if kind == "Widget":
            line = _field(annotation)
        elif kind not in _NOT_NOTES and _text(annotation.get("Contents")):
            author = _text(annotation.get("T"))
            contents = _text(annotation.get("Contents"))
            line = f"Comment by {author}: {contents}" if author else f"Comment: {contents}"
        else:
            line = ""
        if line and line not in lines:  # a radio group's buttons share one value
            lines.append(line)
    return lines


def _on_page(annotation: dict, page: Sequence[float]) -> bool:
    """Whether any of the annotation's rectangle lies on the page (one placed wholly off it is seen by
    no viewer); one without a rectangle a viewer can read is taken to."""
    from pdfminer.pdftypes import resolve1

    rect = resolve1(annotation.get("Rect"))
    try:
        x0, y0, x1, y1 = (float(resolve1(n)) for n in rect)
        left, bottom, right, top = (float(n) for n in page)
    except (TypeError, ValueError):
        return True
    return min(x0, x1) <= right and max(x0, x1) >= left and min(y0, y1) <= top and max(y0, y1) >= bottom


def _flags(annotation: dict) -> int:
    from pdfminer.pdftypes import resolve1

    flags = resolve1(annotation.get("F"))
    return flags if isinstance(flags, int) and not isinstance(flags, bool) else 0


def _field(widget: dict) -> str:
    from pdfminer.pdftypes import resolve1

    name, value, node = "", None, widget
    for _ in range(MAX_FIELD_DEPTH):
        if not isinstance(node, dict):
            break
        name = name or _text(node.get("T"))
        value = value if value is not None else resolve1(node.get("V"))
        node = resolve1(node.get("Parent"))
    if isinstance(value, list):
        shown = ", ".join(filter(None, (_text(v) or _name(v) for v in value)))
    else:
        shown = _text(value) or _name(value)
    if not shown or shown == "Off":
        return ""
    return f"{name}: {shown}" if name else shown


def _text(value: object) -> str:
    from pdfminer.pdftypes import resolve1
    from pdfminer.utils import decode_text

    value = resolve1(value)
    if isinstance(value, bytes):
        value = decode_text(value)
    return " ".join(value.split()) if isinstance(value, str) else ""


def _name(value: object) -> str:
    from pdfminer.psparser import PSLiteral

    return value.name if isinstance(value, PSLiteral) and isinstance(value.name, str) else ""


def with_fields(text: str, fields: list[list[str]]) -> str:
    """pdfminer's text (each page ended by a form feed) with each page's field lines after its text."""
    if not any(fields):
        return text
    pages = text.split("\f")
    for index, lines in enumerate(fields[:max(0, len(pages) - 1)]):
        if lines:
            pages[index] = pages[index].rstrip("\n") + "\n\n" + "\n\n".join(lines) + "\n\n"
    return "\f".join(pages)
