"""An EPUB's title pages: spine documents that hold a heading and nothing else.

SiSU's books (the Live Systems Manual, in each of its languages) give every part and chapter a page
of its own with only its title (`About`, `User`, `About this manual`) before the chapter, whose own
first heading repeats it (`1. About this manual`). Read as they stand, each was a section with no
text: a chunk holding a heading alone, which a query in the book's language (the German manual's
`Projektabläufe`, before its untranslated `16. Procedures`) found before any text. A title page's
titles go into the chapter after it instead: those its heading (or the book's title) repeats are
left out, the others open its text as lines of their own, so no word of them is lost.
"""

from __future__ import annotations

import re

from minirag.ingest.text_repair import escape_structure

_HEADING = re.compile(r"[ \t]{0,3}#{1,6}[ \t]+(.*?)[ \t]*")
# A chapter's number before its title ("1.", "16.", "2.1", "IV.", "A."): the title page leaves it out.
_NUMBER = re.compile(r"(?:\d{1,4}(?:\.\d{1,4})*\.?|[IVXLC]{1,8}\.|[A-Z]\.)\s+")


def titles_only(markdown: str) -> list[str] | None:
    """The headings of a chapter's Markdown that holds headings alone; None for one with any text."""
    titles: list[str] = []
    for line in markdown.split("\n"):
        if not line.strip():
            continue
        heading = _HEADING.fullmatch(line)
        if heading is None:
            return None
        if heading.group(1):
            titles.append(heading.group(1))
    return titles or None


def with_title_pages_folded(parts: list[str], book_title: str | None) -> list[str]:
    """The chapters' Markdown, each title page's titles moved into the chapter that follows it."""
    out: list[str] = []
    pending: list[str] = []
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
        out.append(_lines(_unrepeated(pending, (book_title or "",))))
    return out


def _opened_with(part: str, titles: list[str], book_title: str | None) -> str:
    first, _, rest = part.partition("\n")
    heading = _HEADING.fullmatch(first)
    kept = _unrepeated(titles, (book_title or "", heading.group(1) if heading else ""))
    if not kept:
        return part
    if heading is None:
        return f"{_lines(kept)}\n\n{part}"
    return f"{first}\n\n{_lines(kept)}\n{rest}" if rest else f"{first}\n\n{_lines(kept)}"


def _unrepeated(titles: list[str], repeated: tuple[str, ...]) -> list[str]:
    seen = {_key(title) for title in repeated if title}
    kept: list[str] = []
    for title in titles:
        if _key(title) not in seen:
            seen.add(_key(title))
            kept.append(title)
    return kept


def _key(title: str) -> str:
    return " ".join(_NUMBER.sub("", title.strip(), count=1).split()).casefold()


def _lines(titles: list[str]) -> str:
    return "\n\n".join(escape_structure(title) for title in titles)
