"""An EPUB's links between its chapters, written as links into the book itself.

A chapter links to another by its file in the archive and an element's id
(`overview-of-tools.xhtml#lb-config`); neither the file nor the id is anything an agent can read
(the book is indexed as one document, and ids are not kept in its text). Each such link becomes
`book.epub#anchor`, the anchor that of the heading of the section the id marks, as anchors.py
reads it (`#12-terms`); a chapter named without an id, or an id whose heading is not found, is
its first heading's. A heading whose text another in the book repeats has the anchor the read tool
numbers it by in the whole book (`examples-1`), so a link lands on the one its id marks. A link to a
chapter with no heading, or to a file that is no chapter of the book (a picture, a chapter lost to
damage), is left as it is: nothing in the book's text is its; so is one a chapter's code shows (a
fenced block, a code span), which is the code's text.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from urllib.parse import quote

from minirag.anchors import headings, slug
from minirag.chunking.fences import code_line_mask
from minirag.chunking.links import LINK_OR_PICTURE

MAX_ANCHORS = 10_000  # ids read from one chapter
MAX_ANCHOR_TEXT = 300  # a block longer than this is a paragraph, not the heading an id marks
_HEADINGS = ("h1", "h2", "h3", "h4", "h5", "h6")
_BLOCKS = frozenset({*_HEADINGS, "p", "li", "dt", "dd", "caption", "figcaption", "td", "th", "div", "section"})
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:|//")
_CODE_SPAN = re.compile(r"(?<!`)(`+)(?!`).+?(?<!`)\1(?!`)")


@dataclass(frozen=True)
class Marked:
    """What an id marks: its heading's (or block's) words, and which of the chapter's headings of
    the same letters it is (0 for the first, and for a block that is no heading)."""

    text: str
    nth: int = 0


def anchor_texts(data: bytes) -> dict[str, Marked]:
    """What each id (or `<a name>`) of a chapter's XHTML marks: its heading's words."""
    import lxml.html
    from lxml import etree

    try:
        root = lxml.html.document_fromstring(data)
    except (etree.ParserError, ValueError):
        return {}
    nth: dict[object, int] = {}
    seen: dict[str, int] = {}
    for heading in root.iter(*_HEADINGS):
        letters = _letters(heading.text_content())
        nth[heading] = seen.get(letters, 0)
        seen[letters] = nth[heading] + 1
    found: dict[str, Marked] = {}
    for element in root.iter():
        if len(found) >= MAX_ANCHORS:
            break
        if not isinstance(element.tag, str):
            continue
        name = element.get("id") or (element.get("name") if element.tag == "a" else None)
        if name and name not in found:
            marked = _marked(element)
            text = "" if marked is None else " ".join(marked.text_content().split())
            found[name] = Marked(text if len(text) <= MAX_ANCHOR_TEXT else "", nth.get(marked, 0))
    return found


def _marked(element):
    """The heading (or else the block) an element with an id marks; None for none."""
    if element.tag not in _HEADINGS:
        inner = next((e for e in element.iter(*_HEADINGS)), None)
        if inner is not None:
            return inner
        while element is not None and element.tag not in _BLOCKS:
            element = element.getparent()
    return element


def _letters(text: str) -> str:
    return "".join(c for c in text.casefold() if c.isalnum())


def _book_anchors(parts: list[str]) -> list[list[tuple[str, str]]]:
    """Each chapter's headings in order as (letters and digits, anchor in the whole book): a repeated
    heading numbered as anchors.heading_offset numbers it (`examples-1`). A title page's headings
    (epub_title_pages) are folded away from the book's text, so they are not counted."""
    from minirag.ingest.epub_title_pages import titles_only

    seen: dict[str, int] = {}
    found = []
    for part in parts:
        counted = titles_only(part) is None
        mine = []
        for _, text in headings(part):
            name = slug(text)
            count = seen.get(name, 0)
            if counted:
                seen[name] = count + 1
            mine.append((_letters(text), name if count == 0 else f"{name}-{count}"))
        found.append(mine)
    return found


def _sub_outside_code(markdown: str, rewrite: Callable[[re.Match], str]) -> str:
    """`LINK_OR_PICTURE.sub(rewrite, ...)` on `markdown` but for the links inside its fenced code blocks
    and code spans: code shows a link's text as written."""
    if "](" not in markdown:
        return markdown
    lines = markdown.split("\n")
    out = []
    for line, in_code in zip(lines, code_line_mask(lines), strict=True):
        if in_code or "](" not in line:
            out.append(line)
            continue
        spans = [span.span() for span in _CODE_SPAN.finditer(line)] if "`" in line else []

        def outside(match: re.Match, spans: list[tuple[int, int]] = spans) -> str:
            return match.group() if any(start <= match.start() < end for start, end in spans) else rewrite(match)

        out.append(LINK_OR_PICTURE.sub(outside, line))
    return "\n".join(out)


def linked_into_book(parts: list[str], names: list[str], anchors: list[dict[str, Marked]], book: str) -> list[str]:
    """`parts` (each chapter's Markdown, of the chapter `names[i]` with the ids `anchors[i]`) with
    their links to the book's chapters written as `book#anchor`."""
    chapters = {name: index for index, name in enumerate(names)}
    heads = _book_anchors(parts)
    own = quote(posixpath.basename(book.replace("\\", "/")))

    def anchor(index: int, fragment: str) -> str | None:
        marked = anchors[index].get(fragment, Marked(""))
        words = _letters(marked.text)
        same = [name for letters, name in heads[index] if letters == words] if words else []
        if same:
            return f"{own}#{same[min(marked.nth, len(same) - 1)]}"
        return f"{own}#{heads[index][0][1]}" if heads[index] else None

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

    return [_sub_outside_code(part, partial(rewrite, index)) for index, part in enumerate(parts)]
