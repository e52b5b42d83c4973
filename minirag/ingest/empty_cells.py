"""Rows of empty cells taken out of the tables markitdown writes for DOCX and PPTX.

Word and PowerPoint tables are often laid out larger than what is typed into them: a slide's
4x4 table with one row filled, a placeholder table never filled, the rows a merged cell
covers. markdownify writes every row, so such a table became `|  |  |  |` lines, and a table
of nothing but those was a chunk of pipes that matched no query and, embedded, stood near
every query. A row whose cells are all empty is left out; a table whose header is empty too,
wholly. Lines in fenced code are the document's text and stay.
"""

from __future__ import annotations

import re

from minirag.chunking.fences import code_line_mask

_ROW = re.compile(r"^\s*\|.*\|\s*$")
_EMPTY_ROW = re.compile(r"^\s*\|(?:\s*\|)+\s*$")
_SEPARATOR = re.compile(r"^\s*\|(?:\s*:?-+:?\s*\|)+\s*$")


def without_empty_rows(markdown: str) -> str:
    lines = markdown.split("\n")
    in_code = code_line_mask(lines)
    kept: list[str] = []
    i = 0
    while i < len(lines):
        if in_code[i] or not _ROW.match(lines[i]) or i + 1 >= len(lines) or not _SEPARATOR.match(lines[i + 1]):
            kept.append(lines[i])
            i += 1
            continue
        end = i + 2
        while end < len(lines) and not in_code[end] and _ROW.match(lines[end]):
            end += 1
        rows = [row for row in lines[i + 2:end] if not _EMPTY_ROW.match(row)]
        if rows or not _EMPTY_ROW.match(lines[i]):
            kept.extend([lines[i], lines[i + 1], *rows])
        i = end
    return "\n".join(kept)
