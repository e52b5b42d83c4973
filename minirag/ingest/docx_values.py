"""DOCX values mammoth reads as numbers, made readable before it reads them.

mammoth reads a symbol's character (`w:sym w:char`, hexadecimal) and a cell's span (`w:gridSpan
w:val`, a whole number) with int(), and failed the whole document on one that is no number: a
symbol without its character, `w:gridSpan w:val="two"`. Such a symbol is left out (nothing says
which character it is); such a span is removed, so the cell spans one column, as one without a
span does. A part's bytes are searched first: only a part holding either element is parsed.
"""

from __future__ import annotations

import re

from lxml import etree

W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
_MARK = re.compile(rb"<(?:[\w.-]+:)?(?:sym|gridSpan)[\s/>]")


def may_change(data: bytes) -> bool:
    return _MARK.search(data) is not None


def _number(text: str | None, base: int) -> bool:
    """Whether mammoth's int(text, base) reads `text` (None it cannot)."""
    try:
        int(text, base)  # type: ignore[arg-type]  # None is refused here, as mammoth's call refuses it
    except (TypeError, ValueError):
        return False
    return True


def readable(root: etree._Element) -> bool:
    """Each symbol without a hexadecimal character removed, each span that is no whole number
    removed, in the parsed part; whether any was."""
    doomed = [symbol for symbol in root.iter(f"{W}sym") if not _number(symbol.get(f"{W}char"), 16)]
    doomed += [span for span in root.iter(f"{W}gridSpan")
               if span.get(f"{W}val") is not None and not _number(span.get(f"{W}val"), 10)]
    for element in doomed:
        if (parent := element.getparent()) is not None:
            parent.remove(element)
    return bool(doomed)
