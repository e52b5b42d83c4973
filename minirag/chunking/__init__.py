"""Markdown -> parent sections (returned to callers) and retrieval chunks (embedded).

The one entry point is :func:`chunk_document`; :func:`reconstruct` turns its
sections back into the document. The title and frontmatter rules that
convert.py and sync.py call live in :mod:`.titles` and :mod:`.frontmatter`.
"""

from __future__ import annotations

from minirag.chunking.model import Chunk, ChunkedDocument, Section, TokenCounter
from minirag.chunking.rows import RowMap, SheetRows

#: Bumped whenever chunk boundaries or chunk text change for the same input.
#: Chunks record it; `status` reports chunks cut by an older scheme as stale and
#: `sync` re-ingests their sources even when the bytes are unchanged.
SCHEME_VERSION = 18  # 18: a sheet's notes above and below its table are text, not its header and rows
# (ingest/sheet_layout.py), and a spreadsheet's sections and chunks name their rows; 17: a parent section over its cap also cut where a sentence ends (wrapped prose,
# Chinese and Japanese), and a sentence broken at its clauses is wrapped prose; 16: wrapped prose cut where its sentences end, not its lines; a split code
# block's fences repeated no longer than they must be; a plain text file's lines of tildes underline, not fence

MIN_CHUNK_TOKEN_BUDGET = 16  # the smallest budget a chunk is cut to; CHUNK_TOKEN_BUDGET's lower bound

__all__ = [
    "MIN_CHUNK_TOKEN_BUDGET",
    "SCHEME_VERSION",
    "Chunk",
    "ChunkedDocument",
    "RowMap",
    "Section",
    "SheetRows",
    "TokenCounter",
    "chunk_document",
    "reconstruct",
]


def chunk_document(
    markdown: str, *, title: str, count_tokens: TokenCounter, budget: int, max_tokens: int | None = None,
    by_headings: bool = False, rows: RowMap | None = None,
) -> ChunkedDocument:
    """Split converted Markdown into sections and budget-sized chunks. A Markdown file's
    frontmatter is the caller's to take off (pipeline.build): here a `---` block is text.

    ``by_headings`` (frontmatter `rag_chunk: headings`) splits a document with any
    heading at its headings, whatever else it looks like (a transcript, one heading).

    ``count_tokens`` must count with truncation off and special tokens included;
    ``budget`` is the most tokens a chunk may hold, except an atomic code block,
    which may take up to four budgets but never more than ``max_tokens`` (the
    encoder's maximum sequence length: past it the encoder would not see the text).

    ``rows``: which spreadsheet row each line of ``markdown`` shows (a workbook's, ODS's or CSV's
    reader says), so each section and chunk names its sheet and rows.
    """
    from minirag.chunking.steps import run

    if budget < MIN_CHUNK_TOKEN_BUDGET:
        raise ValueError(f"token budget must be at least {MIN_CHUNK_TOKEN_BUDGET}, got {budget}")
    return run(markdown, title=title, count_tokens=count_tokens, budget=budget, max_tokens=max_tokens,
               by_headings=by_headings, rows=rows)


def reconstruct(sections: list[Section]) -> str:
    """The document's Markdown from its sections, each repeated context line printed once.

    Every section records how many of its leading lines are repeated context
    (``context_lines``, stored with it since the first index schema), so nothing
    is guessed: a real table whose header equals the previous table's stays whole.
    """
    return placed_sections(sections)[0]


def placed_sections(sections: list[Section]) -> tuple[str, list[tuple[int, int, Section]]]:
    """The document's text as `reconstruct` gives it, and where each section that holds text lies
    in it (start, end): its text less its repeated context lines, a blank line between two."""
    bodies: list[str] = []
    placed: list[tuple[int, int, Section]] = []
    start = 0
    for section in sections:
        lines = section.text.split("\n")
        body = "\n".join(lines[section.context_lines:]).strip("\n")
        if body.strip():
            bodies.append(body)
            placed.append((start, start + len(body), section))
            start += len(body) + 2
    return "\n\n".join(bodies), placed
