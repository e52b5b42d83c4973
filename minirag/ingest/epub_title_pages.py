"""An EPUB's title pages: spine documents that hold a heading and nothing else.

SiSU's books (the Live Systems Manual, in each of its languages) give every part and chapter a page
of its own with only its title (`About`, `User`, `About this manual`) before the chapter, whose own
first heading repeats it (`1. About this manual`). Read as they stand, each was a section with no
text: a chunk holding a heading alone, which a query in the book's language (the German manual's
`Projektabläufe`, before its untranslated `16. Procedures`) found before any text. A title page's
titles go into the chapter after it instead: those its heading (or the book's title) repeats are
left out, the others open its text as lines of their own, so no word of them is lost; a chapter
with no heading of its own (a book split as title page, then text) takes the last as its heading.
"""

from __future__ import annotations

import re

from minirag.ingest.text_repair import escape_structure

_HEADING = re.compile(r"[ \t]{0,3}#{1,6}[ \t]+(.*?)[ \t]*")
# A chapter's number before its title ("1.", "16.", "2.1", "IV.", "A."): the title page leaves it out.
_NUMBER = re.compile(r"(?:\d{1,4}(?:\.\d{1,4})*\.?|[IVXLC]{1,8}\.|[A-Z]\.)\s+")


def titles_only(markdown: str) -> list[tuple[str, str]] | None:
    """The headings (line, title) of a chapter's Markdown that holds headings alone; None for one with any text."""
    titles: list[tuple[str, str]] = []
    for line in markdown.split("\n"):
        if not line.strip():
            continue
        heading = _HEADING.fullmatch(line)
        if heading is None:
            return None
        if heading.group(1):
            titles.append((line.strip(), heading.group(1)))
    return titles or None


def with_title_pages_folded(parts: list[str], book_title: str | None) -> list[str]:
    """The chapters' Markdown, each title page's titles moved into the chapter that follows it."""
    out: list[str] = []
    pending: list[tuple[str, str]] = []
    for part in parts:
        titles = titles_only(part)
        if titles is not None:
            pending.extend(titles)
            continue
        if pending:
            part = _opened_with(part, pending, book_title)
            pending = []
        out.append(part)
    if pending:  # title pages at the book's end: nothing follows that they name
        out.append(_lines([title for _, title in _unrepeated(pending, (book_title or "",))]))
    return out


def _opened_with(part: str, titles: list[tuple[str, str]], book_title: str | None) -> str:
    first, _, rest = part.partition("\n")
    heading = _HEADING.fullmatch(first)
    kept = _unrepeated(titles, (book_title or "", heading.group(1) if heading else ""))
    if not kept:
        return part
    if heading is None:  # a chapter with no heading of its own: the title page's last one is its heading
        *lines, (last, _) = kept
        return "\n\n".join(piece for piece in (_lines([title for _, title in lines]), last, part) if piece)
    opening = _lines([title for _, title in kept])
    return f"{first}\n\n{opening}\n{rest}" if rest else f"{first}\n\n{opening}"


def _unrepeated(titles: list[tuple[str, str]], repeated: tuple[str, ...]) -> list[tuple[str, str]]:
    seen = {_key(title) for title in repeated if title}
    kept: list[tuple[str, str]] = []
    for line, title in titles:
        if _key(title) not in seen:
            seen.add(_key(title))
            kept.append((line, title))
    return kept


def _key(title: str) -> str:
    return " ".join(_NUMBER.sub("", title.strip(), count=1).split()).casefold()


def _lines(titles: list[str]) -> str:
    return "\n\n".join(escape_structure(title) for title in titles)
