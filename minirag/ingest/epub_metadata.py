"""What an EPUB's package says about its book, as lines at the head of its text: who wrote it, who
published it and when, what it is about.

Only the title had been kept, so a book could not be found by its author. A reader searches for
names, a publisher, a year and subjects; the language code (`ru`), identifiers (ISBNs, UUIDs) and
the rights statement are left out: they are not words anyone asks for, and the keyword side tells
a text's language from the text. Generators fill fields they know nothing of with placeholders
(Sphinx writes `unknown` into the description, contributor and identifier): those say nothing, and
nor does a value already said (a publisher that is the author).
"""

from __future__ import annotations

import contextlib
import re

from lxml import etree

from minirag.errors import ConversionFailed
from minirag.ingest.html_markdown import html_to_markdown

_DC = "{http://purl.org/dc/elements/1.1/}"
# (Dublin Core element, its label, and the label for more than one value), in the order a title page gives them.
_FIELDS = (("creator", "Author", "Authors"), ("contributor", "Contributor", "Contributors"),
           ("publisher", "Publisher", "Publishers"), ("date", "Date", "Dates"),
           ("subject", "Subject", "Subjects"), ("description", "Description", "Description"))
_PLACEHOLDERS = frozenset({"unknown", "none", "n/a", "na", "null", "undefined", "-", "?"})
# A tag a blurb kept as HTML holds (`std::vector<int>` or `Jane <jane@example.org>` is text).
_HTML_TAG = re.compile(r"</?(?:p|br|b|i|em|strong|div|span|a|ul|ol|li|h[1-6]|blockquote|small|sup|sub)\b[^<>]*>",
                       re.IGNORECASE)
_ISO_DATE = 10  # `2021-10-24T10:51:26Z`: the day is what a reader knows a book's date by


def book_metadata(package: etree._Element) -> tuple[str, ...]:
    """`Label: value` lines for the package's Dublin Core fields, placeholders and repeats left out."""
    said: set[str] = set()
    lines = []
    for element, one, many in _FIELDS:
        values = []
        for node in package.iter(f"{_DC}{element}"):
            value = _text(node.text or "", element)
            if value and value.casefold() not in _PLACEHOLDERS and value.casefold() not in said:
                said.add(value.casefold())
                values.append(value)
        if values:
            lines.append(f"{many if len(values) > 1 else one}: {'; '.join(values)}")
    return tuple(lines)


def _text(value: str, element: str) -> str:
    if element == "description" and _HTML_TAG.search(value):  # a blurb kept as HTML, escaped into the XML
        with contextlib.suppress(ConversionFailed):
            value = html_to_markdown(value)[0]
    value = " ".join(value.split())
    if element == "date" and len(value) > _ISO_DATE and value[4:5] == "-" and value[_ISO_DATE] == "T":
        value = value[:_ISO_DATE]
    return value
