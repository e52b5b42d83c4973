"""The data the chunker hands back."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from minirag.chunking.link_pages import SiteLinks
from minirag.chunking.rows import SheetRows

TokenCounter = Callable[[str], int]


@dataclass(frozen=True)
class Section:
    """A parent section: what a caller reads. Sections in order reconstruct the document.

    ``context_lines`` leading lines of ``text`` repeat context rather than document
    content (a transcript window label, a table header continued from the previous
    section); :func:`minirag.chunking.reconstruct` skips them.
    """

    text: str
    page_start: int | None = None
    page_end: int | None = None
    context_lines: int = 0
    rows: SheetRows | None = None  # a spreadsheet's: its sheet and rows (rows.py)


@dataclass(frozen=True)
class Chunk:
    """A retrieval unit: what is embedded and ranked (carries breadcrumb/header context)."""

    text: str
    section: int  # index into ChunkedDocument.sections
    tokens: int
    page_start: int | None = None
    page_end: int | None = None
    split_code: bool = False  # one part of a code block too long for one chunk (said here, not in the text)
    rows: SheetRows | None = None  # a spreadsheet's: its sheet and rows (rows.py)


@dataclass(frozen=True)
class ChunkedDocument:
    title: str
    category: str  # transcript | slides | headings | generic
    sections: list[Section]
    chunks: list[Chunk]
    # Its links to other pages of its site (link_pages.py): a generated index or table of contents
    # is links line after line, and ranks below what it points to.
    site_links: SiteLinks = SiteLinks()
