"""What a merged table cell becomes: its content in each row it covers, in its first column.

Both table writers use this: html_markdown.py's, and markdownify's for a DOCX (docx_tables.py
lays mammoth's table out as a plain grid first). A merge down is repeated in every row it covers,
since a row read alone (a chunk may hold only some of a table's rows) must still say which group
it belongs to. A merge across is written once, the other columns it covers left empty: the row
already holds it, and a title row across the whole table written in every column would only
repeat its words (and weigh them more for keyword search).

Spans are read as HTML reads them (colspan 1 to 1,000, rowspan 0 to 65,534, 0 reaching the end
of the row group), and never past the rows the group holds. A table whose spans would more than
double it (the cells it gives, with CSV's allowance for a small table: csv_table.pipe_table) is
laid out as written, cell after cell; a cell's copies are made while all the copies together add
no more than the table's own text.

A table's first rows that are each one cell merged across every column (a title, a note) are
its caption, as a reader takes them, not its header: the row under them is (`title_rows`). As
the header, the title was the line repeated over each chunk of a long table's rows, and the
column names were lost after the first.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

from minirag.ingest.csv_table import PAD_ALLOWANCE

MAX_COLSPAN = 1000
MAX_ROWSPAN = 65534
_INTEGER = re.compile(r"[ \t\n\f\r]*\+?([0-9]+)")
_DIGITS = 6  # more than MAX_ROWSPAN's; int() of thousands of digits is slow or refused


def table_cells(tr: Any) -> list[Any]:
    """A row's td and th elements, comments and other elements left out."""
    return [cell for cell in tr if isinstance(cell.tag, str) and cell.tag.lower() in ("td", "th")]


def _span(value: str | None, least: int, most: int) -> int | None:
    """HTML's rules for a non-negative integer; None where the value is absent or not one."""
    found = _INTEGER.match(value or "")
    if found is None:
        return None
    digits = found.group(1).lstrip("0") or "0"
    number = most + 1 if len(digits) > _DIGITS else int(digits)
    return min(max(number, least), most)


def spread(rows: Sequence[Any], size: Callable[[Any], int]) -> list[list[Any | None]] | None:
    """The table's rows (tr elements, in document order) as a grid of cells: a spanned cell in
    each row it covers, in its first column; None where no cell is, in the other columns a cell
    covers, and where a copy was left out (see above).
    Rows are as long as their last cell reaches. None when no cell spans more than one position,
    or the spans would more than double the table: the caller writes its cells as they stand.
    `size(cell)` is the length of a cell's text."""
    cells = [table_cells(tr) for tr in rows]
    spans: dict[Any, tuple[int, int]] = {}
    remaining = 0  # rows left in the current row group (thead, tbody, tfoot or the table itself)
    for index, (tr, row) in enumerate(zip(rows, cells, strict=True)):
        if remaining == 0:
            group, remaining = tr.getparent(), 1
            while index + remaining < len(rows) and rows[index + remaining].getparent() is group:
                remaining += 1
        for cell in row:
            colspan = _span(cell.get("colspan"), 1, MAX_COLSPAN) or 1
            rowspan = _span(cell.get("rowspan"), 0, MAX_ROWSPAN)
            rowspan = remaining if rowspan == 0 else min(rowspan or 1, remaining)
            spans[cell] = (rowspan, colspan)
        remaining -= 1
    # The cells given, not the table padded as written: five cells merged across 1,000 columns in
    # each of 2,000 rows under one 5,000-cell row made 10 million positions (1.4 GB).
    area = len(spans) + PAD_ALLOWANCE // 2
    covered = sum(rowspan * colspan for rowspan, colspan in spans.values())
    if covered == len(spans) or covered > 2 * area:
        return None

    grid: list[dict[int, Any]] = [{} for _ in rows]
    placed: list[tuple[Any, int, list[tuple[int, int]]]] = []
    for index, row in enumerate(cells):
        column = 0
        for cell in row:
            while column in grid[index]:
                column += 1
            rowspan, colspan = spans[cell]
            positions = []
            for down in range(index, index + rowspan):
                for across in range(column, column + colspan):
                    if grid[down].setdefault(across, cell) is cell:  # an earlier cell keeps an overlap
                        positions.append((down, across))
            placed.append((cell, column, positions))
            column += colspan
    if len(rows) * max(max(row, default=-1) + 1 for row in grid) > 2 * area:
        return None

    budget = sum(size(cell) for cell in spans)
    for cell, first, positions in placed:
        for down, across in positions:
            if across != first:
                grid[down][across] = None  # a merge across is written once
        copies = [(down, across) for down, across in positions[1:] if across == first]
        cost = size(cell) * len(copies)
        if cost <= budget:
            budget -= cost
        else:
            for down, across in copies:
                grid[down][across] = None
    return [[row.get(column) for column in range(max(row, default=-1) + 1)] for row in grid]


def title_rows(grid: Sequence[Sequence[Any | None]]) -> int:
    """How many of the grid's first rows (`spread`'s, or each row's cells as written) are a title:
    one cell, merged across every column and not down, above rows of more than one cell."""
    width = max((len(row) for row in grid), default=0)
    count = 0
    while count < len(grid) and width > 1:
        cell = grid[count][0] if grid[count] else None
        if cell is None or any(other is not None for other in grid[count][1:]):
            break
        colspan, rowspan = cell.get("colspan"), cell.get("rowspan")
        if (_span(colspan, 1, MAX_COLSPAN) or 1) < width or (_span(rowspan, 0, MAX_ROWSPAN) or 1) != 1:
            break
        count += 1
    below = grid[count:]
    return count if any(sum(cell is not None for cell in row) > 1 for row in below) else 0
