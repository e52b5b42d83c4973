"""Which definition each block is inside, in Markdown's definition lists (Pandoc, PHP Markdown
Extra, MkDocs; how an HTML `<dl>` is written, ingest/html_markdown.py):

    `listen_addresses` (`string`)
    : Specifies the TCP/IP address(es) on which the server is to listen ...

      While client authentication ... (more of the definition, indented under it)

A chunk that starts inside a long definition is told its term in its breadcrumb (pack.py):
without it, the second chunk of a parameter's description names no parameter.

A definition runs on while its paragraphs are indented deeper than its term; a paragraph at the
term's indent or less ends it (the text after the list), and so does a heading. A code block or
table neither continues nor ends one: nested ones are not indented enough for a code fence.
"""

from __future__ import annotations

import re
from dataclasses import replace

from minirag.chunking.blocks import Block

_DEFINITION = re.compile(r"( *+):[ \t]")  # a definition's first line: `: ` at its term's indent
MAX_TERM_LINES = 3  # terms of one definition (`<dt>`s before one `<dd>`)


def with_definitions(blocks: list[Block]) -> list[Block]:
    """`blocks`, each inside a definition with its `terms` set (outermost first), and the block
    that opens one (its term lines first) marked `opens_term`."""
    out: list[Block] = []
    open_terms: list[tuple[int, str]] = []  # (indent of the term, the term), outermost first
    for block in blocks:
        if block.kind in ("heading", "slide"):
            open_terms.clear()
            out.append(block)
            continue
        if block.kind != "paragraph":  # code, a table: as deep as what is around it
            out.append(replace(block, terms=tuple(term for _, term in open_terms)) if open_terms else block)
            continue
        indent = _indent(block.lines[0])
        term = _term(block.lines)
        if term is None and _DEFINITION.match(block.lines[0]) and out and _can_be_term(out[-1], indent):
            # The term, a blank line, then its definition: the block before opened it.
            while open_terms and open_terms[-1][0] >= indent:
                open_terms.pop()
            open_terms.append((indent, _term_text(out[-1].lines)))
            out[-1] = replace(out[-1], terms=tuple(t for _, t in open_terms), opens_term=True)
            out.append(replace(block, terms=tuple(t for _, t in open_terms)))
            continue
        while open_terms and open_terms[-1][0] >= indent:
            open_terms.pop()
        if term is not None:
            open_terms.append((indent, term))
        if open_terms:
            block = replace(block, terms=tuple(t for _, t in open_terms), opens_term=term is not None)
        out.append(block)
    return out


def opens_definition(line: str) -> bool:
    """Whether `line` is a definition's first line (`: ` after its indent)."""
    return _DEFINITION.match(line) is not None


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _term(lines: list[str]) -> str | None:
    """The term a paragraph opens with (its lines before the one that starts with `: `), or None."""
    indent = _indent(lines[0])
    if _DEFINITION.match(lines[0]):
        return None  # a definition's own line (Pandoc's second definition of a term) names no term
    for index, line in enumerate(lines[1 : MAX_TERM_LINES + 1], start=1):
        match = _DEFINITION.match(line)
        if match:
            if len(match.group(1)) != indent or any(_indent(term) != indent for term in lines[:index]):
                return None
            return _term_text(lines[:index])
    return None


def _can_be_term(block: Block, indent: int) -> bool:
    return (block.kind == "paragraph" and not block.opens_term and len(block.lines) <= MAX_TERM_LINES
            and all(_indent(line) == indent and not _DEFINITION.match(line) for line in block.lines))


def _term_text(lines: list[str]) -> str:
    return "; ".join(line.strip() for line in lines)
