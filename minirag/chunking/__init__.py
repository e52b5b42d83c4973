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
SCHEME_VERSION = 24  # 24: readers whose text changed: a notebook's stream read as Jupyter shows it (pieces
# joined, carriage returns and backspaces applied); Quarto and R Markdown chunk options left out of code, captions
# read as text; EPUB links to a repeated heading, and none inside code; 23: readers whose text changed: a PDF titled by its first heading where its first page reads
# as nothing; Arabic kerned gaps after a letter that joins no further closed; a margin note pushed off its line read
# before its paragraph; display equations as lines, not tables; a dash drawn twice read once; a slide's number
# marker left out of its section's text; an EPUB's links into its own chapters written as `book.epub#heading`; 22: readers whose text changed: PDF vowel marks, lam-alef and wide-spaced paragraphs, a
# footline past the edge lines, margin notes beside code, a footnote after a display; LaTeX references; Markdown
# footnotes where cited; a plain text's title line; HTML skip links, share bars, cookie banners; wrapped mail quotes;
# DOCX note anchors; slides (PPTX, PPT, ODP) in layout order; .doc and ODT text boxes where anchored; `#` lines that
# are no heading unescaped; a WebVTT header in a .txt left out; 21: readers whose text changed: Chinese and Japanese PDF lines read on where a typesetter broke
# them inside a sentence, a PDF string's octal escape past \\377, a ruby's reading left out (HTML, EPUB, Markdown), an EPUB
# zipped inside its folder, a DOCX's pictures, relationships and numbers it could not read (it had failed whole); 20: readers whose text changed, so their sources are read again: .doc and DOCX notes where
# cited, LaTeX-made PDFs (margin notes, footnotes at a page break, contents, a deck's sidebar), e-mail bodies and parts,
# Org and LaTeX sources, plain text paged by form feeds or with underlined or numbered titles, ISO-2022-JP text; 19: a CSV's or sheet's first row that is no header is a row (ingest/sheet_header.py), and a
# spreadsheet attached to an e-mail names its rows; 18: a sheet's notes above and below its table are text, not its header and rows
# (ingest/sheet_layout.py), and a spreadsheet's sections and chunks name their rows; 17: a parent section over its cap also cut where a sentence ends (wrapped prose,
# Chinese and Japanese), and a sentence broken at its clauses is wrapped prose; 16: wrapped prose cut where its sentences end, not its lines; a split code
# block's fences repeated no longer than they must be; a plain text file's lines of tildes underline, not fence

MIN_CHUNK_TOKEN_BUDGET = 16  # the smallest budget a chunk is cut to; CHUNK_TOKEN_BUDGET's lower bound

# The most chunks one document may be cut into: max(CHUNKS_FLOOR, one per CHARS_PER_CHUNK characters
# of its converted text at a budget of DENSITY_BUDGET tokens or more; proportionally more per character
# under a smaller budget). Lines like `###### N\nx\n` cut one chunk per ~14 characters, so a 32 MB
# planted file made ~2.3M chunks, each embedded and stored; real documents stay far below the bound
# (docs/operations.md gives the measurement).
CHUNKS_FLOOR = 1000
CHARS_PER_CHUNK = 16
DENSITY_BUDGET = 110  # config.DEFAULT_CHUNK_TOKEN_BUDGET


def chunk_limit(chars: int, budget: int) -> int:
    """The most chunks a document of `chars` characters may be cut into at a `budget`-token budget."""
    return max(CHUNKS_FLOOR, chars * DENSITY_BUDGET // (CHARS_PER_CHUNK * min(budget, DENSITY_BUDGET)))


def too_many_chunks(chunks: int, chars: int, budget: int) -> str | None:
    """Why a document cut into `chunks` chunks is refused, or None when within chunk_limit."""
    limit = chunk_limit(chars, budget)
    if chunks <= limit:
        return None
    return (f"cut into {chunks} chunks from {chars} characters, past the bound of {limit} (at most "
            f"{CHUNKS_FLOOR}, or one per {CHARS_PER_CHUNK} characters at CHUNK_TOKEN_BUDGET {DENSITY_BUDGET} "
            "or more): not indexed, as a document planted to swell the index would be")


__all__ = [
    "CHUNKS_FLOOR",
    "MIN_CHUNK_TOKEN_BUDGET",
    "SCHEME_VERSION",
    "Chunk",
    "ChunkedDocument",
    "RowMap",
    "Section",
    "SheetRows",
    "TokenCounter",
    "chunk_document",
    "chunk_limit",
    "reconstruct",
    "too_many_chunks",
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
