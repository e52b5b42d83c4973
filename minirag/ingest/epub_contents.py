"""Which of an EPUB's spine documents is a table of contents, by what it reads as.

An EPUB 3 book marks its navigation document (epub_book.py leaves it out); an EPUB 2 book has its
NCX outside the spine, and many still put a contents page in it. SiSU's (the Live Systems Manual)
is 250 headings made of links, each repeating the title of a chapter or section that the book
reads anyway: indexed, it answers every query about a chapter's title with a page of titles. So a
spine document most of whose text (more than half its characters, spaces aside) is links to the
book's other documents is a contents page and is left out, as a PDF's contents pages are. That
page held 78% (72% in its Japanese edition); a home page that lists the chapters beside its prose
(the Sphinx guide's, 16%) and a chapter that cites others stay well under half.
"""

from __future__ import annotations

from collections.abc import Callable

import lxml.html
from lxml import etree

CONTENTS_SHARE = 0.5


def is_contents(data: bytes, names_other_document: Callable[[str], bool]) -> bool:
    """Whether links whose href (its fragment aside) `names_other_document` of the book carry more
    than CONTENTS_SHARE of the document's text."""
    try:
        root = lxml.html.fromstring(data)
    except (etree.ParserError, ValueError):
        return False
    body = root.find(".//body")
    body = root if body is None else body
    total = _characters(body.text_content())
    linked = 0
    for link in body.iter("a"):
        href = (link.get("href") or "").split("#", 1)[0]
        if href and names_other_document(href):
            linked += _characters(link.text_content())
    return total > 0 and linked > CONTENTS_SHARE * total


def _characters(text: str) -> int:
    return len("".join(text.split()))
