"""The text in an OpenDocument file's margins: page headers and footers (styles.xml) and comments.

Read as a DOCX's margins are (docx_margins.py, whose Margins places them): each distinct header
text once above the body and each distinct footer once below it, a line that is only the page's
number left out; comments after the body, each as `Comment by AUTHOR: text`. Both readers here
are expat handlers, fed as the parts stream past.
"""

from __future__ import annotations

from minirag.ingest.text_repair import is_page_number

_STYLE = "urn:oasis:names:tc:opendocument:xmlns:style:1.0 "
_TEXT = "urn:oasis:names:tc:opendocument:xmlns:text:1.0 "
_DC = "http://purl.org/dc/elements/1.1/ "
_PARAGRAPHS = frozenset({_TEXT + "p", _TEXT + "h"})
_SPACES = frozenset({_TEXT + "s", _TEXT + "tab", _TEXT + "line-break"})
# Fields whose text is the page's, the count's or the clock's, not the document's.
_PAGE_FIELDS = frozenset({_TEXT + "page-number", _TEXT + "page-count"})
_VOLATILE_FIELDS = _PAGE_FIELDS | {_TEXT + name for name in (
    "date", "time", "print-date", "print-time", "modification-date", "modification-time", "creation-date",
    "creation-time")}
MAX_PAGE_LINE_WORDS = 1  # "頁 1 / 99", "Seite 3": besides its page fields, a page line holds one word at most
_SIDES = {_STYLE + name: side for side in ("header", "footer")
          for name in (side, f"{side}-left", f"{side}-first")}


class PageMargins:
    """styles.xml's master pages: the distinct lines of their headers and footers."""

    def __init__(self) -> None:
        self.lines: dict[str, list[str]] = {"header": [], "footer": []}
        self.side: str | None = None
        self.depth = 0  # paragraphs open inside the side being read
        self.pieces: list[str] = []
        self.in_field = 0  # fields open: a date's or time's text is not kept, a page number's is
        self.dated = 0  # date and time fields open
        self.plain: list[str] = []  # the paragraph's text outside any field
        self.paged = False  # the paragraph holds a page number or count

    def start(self, tag: str, _attributes: dict[str, str]) -> None:
        if tag in _SIDES and self.side is None:
            self.side = _SIDES[tag]
        elif self.side is not None and tag in _PARAGRAPHS:
            self.depth += 1
        elif self.depth and tag in _SPACES:
            self.pieces.append(" ")
            self.plain.append(" ")
        elif self.depth and tag in _VOLATILE_FIELDS:
            self.in_field += 1
            self.dated += tag not in _PAGE_FIELDS
            self.paged = self.paged or tag in _PAGE_FIELDS

    def end(self, tag: str) -> None:
        if self.in_field and tag in _VOLATILE_FIELDS:
            self.in_field -= 1
            self.dated -= tag not in _PAGE_FIELDS
        elif tag in _SIDES and self.side == _SIDES[tag]:
            self.side = None
        elif self.depth and tag in _PARAGRAPHS:
            self.depth -= 1
            if not self.depth and self.side is not None:
                line = " ".join("".join(self.pieces).split())
                words = sum(1 for word in "".join(self.plain).split() if any(ch.isalnum() for ch in word))
                paged, self.pieces, self.plain, self.paged = self.paged, [], [], False
                found = self.lines[self.side]
                if paged and words <= MAX_PAGE_LINE_WORDS:
                    return
                if line and not is_page_number(line) and line not in found:
                    found.append(line)

    def text(self, data: str) -> None:
        if self.depth and not self.dated:
            self.pieces.append(data)
            if not self.in_field:
                self.plain.append(data)


class Comment:
    """One office:annotation: its author (dc:creator) and the text of its paragraphs."""

    def __init__(self) -> None:
        self.author: list[str] = []
        self.paragraphs: list[str] = []
        self.inside: str | None = None  # "author" or "paragraph"

    def start(self, tag: str) -> None:
        if tag == _DC + "creator":
            self.inside = "author"
        elif tag in _PARAGRAPHS:
            self.inside = "paragraph"
            self.paragraphs.append("")
        elif self.inside == "paragraph" and tag in _SPACES:
            self.paragraphs[-1] += " "

    def end(self, tag: str) -> None:
        if tag == _DC + "creator" or tag in _PARAGRAPHS:
            self.inside = None

    def text(self, data: str) -> None:
        if self.inside == "author":
            self.author.append(data)
        elif self.inside == "paragraph":
            self.paragraphs[-1] += data

    def line(self) -> str:
        """`Comment by AUTHOR: text`, as a DOCX comment reads; "" for an empty one."""
        text = " ".join(" ".join(self.paragraphs).split())
        author = " ".join("".join(self.author).split())
        if not text:
            return ""
        return f"Comment by {author}: {text}" if author else f"Comment: {text}"
