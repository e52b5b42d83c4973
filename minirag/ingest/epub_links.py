"""An EPUB's links between its chapters, written as links into the book itself.

A chapter links to another by its file in the archive and an element's id
(`overview-of-tools.xhtml#lb-config`); neither the file nor the id is anything an agent can read
(the book is indexed as one document, and ids are not kept in its text). Each such link becomes
`book.epub#anchor`, the anchor that of the heading of the section the id marks, as anchors.py
reads it (`#12-terms`); a chapter named without an id, or an id whose heading is not found, is
its first heading's. A link to a chapter with no heading, or to a file that is no chapter of the
book (a picture, a chapter lost to damage), is left as it is: nothing in the book's text is its.
"""

from __future__ import annotations

import posixpath
import re
from functools import partial
from urllib.parse import quote

from minirag.anchors import headings, slug
from minirag.chunking.links import LINK_OR_PICTURE

MAX_ANCHORS = 10_000  # ids read from one chapter
MAX_ANCHOR_TEXT = 300  # a block longer than this is a paragraph, not the heading an id marks
_HEADINGS = ("h1", "h2", "h3", "h4", "h5", "h6")
_BLOCKS = frozenset({*_HEADINGS, "p", "li", "dt", "dd", "caption", "figcaption", "td", "th", "div", "section"})
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:|//")


def anchor_texts(data: bytes) -> dict[str, str]:
    """The words each id (or `<a name>`) of a chapter's XHTML marks: its heading's."""
    import lxml.html
    from lxml import etree

    try:
        root = lxml.html.document_fromstring(data)
    except (etree.ParserError, ValueError):
        return {}
    found: dict[str, str] = {}
    for element in root.iter():
        if len(found) >= MAX_ANCHORS:
            break
        if not isinstance(element.tag, str):
            continue
        name = element.get("id") or (element.get("name") if element.tag == "a" else None)
        if name and name not in found:
            found[name] = _marked(element)
    return found


def _marked(element) -> str:
    if element.tag not in _HEADINGS:
        inner = next((e for e in element.iter(*_HEADINGS)), None)
        if inner is not None:
            element = inner
        else:
            while element is not None and element.tag not in _BLOCKS:
                element = element.getparent()
    if element is None:
        return ""
    text = " ".join(element.text_content().split())
    return text if len(text) <= MAX_ANCHOR_TEXT else ""


def _letters(text: str) -> str:
    return "".join(c for c in text.casefold() if c.isalnum())


def _by_letters(markdown: str) -> dict[str, str]:
    """A chapter's headings by their letters and digits, the first of each, in order."""
    found: dict[str, str] = {}
    for _, text in headings(markdown):
        found.setdefault(_letters(text), text)
    return found


def linked_into_book(parts: list[str], names: list[str], anchors: list[dict[str, str]], book: str) -> list[str]:
    """`parts` (each chapter's Markdown, of the chapter `names[i]` with the ids `anchors[i]`) with
    their links to the book's chapters written as `book#anchor`."""
    chapters = {name: index for index, name in enumerate(names)}
    heads = [_by_letters(part) for part in parts]
    own = quote(posixpath.basename(book.replace("\\", "/")))

    def anchor(index: int, fragment: str) -> str | None:
        words = _letters(anchors[index].get(fragment, ""))
        chosen = heads[index].get(words) if words else None
        if chosen is None and heads[index]:
            chosen = next(iter(heads[index].values()))
        return f"{own}#{slug(chosen)}" if chosen is not None else None

    def rewrite(index: int, match: re.Match) -> str:
        target = match.group(2)
        if match.group().startswith("!") or _SCHEME.match(target):
            return match.group()
        path, _, fragment = target.partition("#")
        if path:
            from minirag.ingest.epub_book import member_of

            member = member_of(path, posixpath.dirname(names[index]), chapters.keys())
            if member is None:
                return match.group()
            index = chapters[member]
        written = anchor(index, fragment)
        if written is None:
            return match.group()
        start, end = match.span(2)
        return match.group()[: start - match.start()] + written + match.group()[end - match.start():]

    return [LINK_OR_PICTURE.sub(partial(rewrite, index), part) for index, part in enumerate(parts)]
