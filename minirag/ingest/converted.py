"""What a conversion gives: the document's Markdown, its title and what the reader noticed.

A module of its own so that the processes that only send files to the converter workers and read
their answers (a sync, an ingest, the server: ingest/isolation.py, ingest/pipeline.py) never import
the converters (convert.py and every parser it brings).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from minirag.chunking.rows import RowMap


@dataclass(frozen=True)
class Converted:
    markdown: str
    metadata_title: str | None = None
    warnings: tuple[str, ...] = field(default=())
    note: str = ""  # kept with the source and shown by `list`: pages left unread ("3 of 9 pages had no text; ...")
    # Markdown or text as its author wrote it, whose `---` block opening it is frontmatter; in what a
    # converter wrote (a page, a PDF, a slide) such lines are the document's text.
    frontmatter: bool = False
    # A spreadsheet's (XLSX, XLS, ODS, CSV): the sheet row each line of `markdown` shows.
    rows: RowMap | None = None
