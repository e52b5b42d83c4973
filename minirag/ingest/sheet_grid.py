"""A sheet's grid of shown cells as Markdown lines, each with the row of its sheet it shows.

The XLSX (xlsx_tables.py), Excel 97-2003 (xls_biff.py) and OpenDocument (odf_text.py) readers
write their sheets here, so a sheet reads the same whichever program saved it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from minirag.ingest.csv_table import markdown_table
from minirag.ingest.sheet_header import has_header
from minirag.ingest.sheet_layout import layout
from minirag.ingest.sheet_text import Lines, paragraphs


@dataclass(frozen=True)
class Merge:
    """Merged cells, by their first and last rows and columns, 0-based."""

    top: int
    left: int
    bottom: int
    right: int


def sheet_markdown(grid: list[list[str]], merges: Sequence[Merge] = ()) -> str:
    """A sheet's cells as they are shown, as Markdown (sheet_lines); "" for none."""
    return "\n".join(line for line, _ in sheet_lines(grid, merges))


def sheet_lines(grid: list[list[str]], merges: Sequence[Merge] = (), numbers: Sequence[int] | None = None) -> Lines:
    """A sheet's cells as they are shown, row by row, as Markdown lines, each with the sheet's row it
    shows: a table of the rows and columns that hold text, the notes above and below it
    (sheet_layout.py) paragraphs; none for none. `grid[row][column]` is the cell at (row, column),
    the coordinates `merges` use, on the sheet's row `numbers[row]` (row + 1 where not given)."""
    _repeat_merged_down(grid, merges)
    numbered = [(number, row) for number, row in zip(numbers or range(1, len(grid) + 1), grid, strict=False)
                if any(row)]
    if not numbered:
        return []
    rows = [number for number, _ in numbered]
    width = max(len(row) for _, row in numbered)
    grid = [row + [""] * (width - len(row)) for _, row in numbered]
    used = [column for column in range(width) if any(row[column] for row in grid)]
    grid = [[row[column] for column in used] for row in grid]
    if len(used) == 1:
        return paragraphs([(row[0], number) for row, number in zip(grid, rows, strict=True)])
    shape = layout(grid, rows)
    above = [(" ".join(value for value in row if value), number)
             for row, number in zip(grid[:shape.header], rows[:shape.header], strict=True)]
    below = [(" ".join(value for value in row if value), number)
             for row, number in zip(grid[shape.below:], rows[shape.below:], strict=True)]
    table = grid[shape.header:shape.below]
    numbers = rows[shape.header:shape.below]
    columns = [column for column in range(len(used)) if any(row[column] for row in table)]
    lines = paragraphs(above)
    if lines:
        lines.append(("", None))
    if len(columns) == 1:
        lines += paragraphs([(row[columns[0]], number) for row, number in zip(table, numbers, strict=True)])
    else:
        table = [[row[column] for column in columns] for row in table] if len(columns) < len(used) else table
        # The table's first row is its header unless its columns say it is a record (sheet_header.py):
        # then an empty header line stands above it, on no row.
        headed = has_header(table, repeats_tell=not merges)
        shown = markdown_table(table, headed=headed).split("\n")
        on_rows = [numbers[0], None, *numbers[1:]] if headed else [None, None, *numbers]
        lines += list(zip(shown, on_rows, strict=True))
    if below:
        lines += [("", None), *paragraphs(below)]
    return lines


def _repeat_merged_down(grid: list[list[str]], merges: Sequence[Merge]) -> None:
    """Each cell merged down written again in the rows under it that the merge covers and that
    hold other cells (rows of nothing but the merge add nothing), in the merge's first column;
    while all the copies together add no more than the sheet's own text (one cell of 30,000
    characters merged down 100,000 rows), and while the rows they look at are no more than the
    sheet's cells: merges never overlap in a sheet Excel wrote, so theirs cover each cell once
    (30,000 merges each over the whole sheet had looked at 200,000 rows apiece)."""
    budget = sum(len(value) for row in grid for value in row)
    looks = sum(len(row) for row in grid) + len(grid)
    for merge in merges:
        if not 0 <= merge.top < len(grid) or not 0 <= merge.left < len(grid[merge.top]):
            continue
        value = grid[merge.top][merge.left]
        for index in range(merge.top + 1, min(merge.bottom + 1, len(grid))) if value else ():
            looks -= 1
            if looks < 0:
                return
            row = grid[index]
            if not any(row) or (merge.left < len(row) and row[merge.left]):
                continue
            budget -= len(value)
            if budget < 0:
                return
            row.extend([""] * (merge.left + 1 - len(row)))
            row[merge.left] = value
