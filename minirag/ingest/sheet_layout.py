"""Where a sheet's table is: its header row, and the notes above and below it, which are text.

Many sheets open with a title and notes over their table and end with notes under it (readxl's
`deaths.xlsx`: four rows of words scattered over the columns, then `Name | Profession | Age ...`,
then a footnote). Read from its first row, such a sheet's table had a note for its header. A
table is rows that fill the same columns: the longest run of adjacent rows that each fill nearly
the columns the row above fills starts at the table's header. It is taken for the table only
where nothing says the table goes on past it: no row above it fills every column the run fills
(a header over group labels, `Europe` over its countries), and no row below it fills nearly those
columns (the next group's rows). Otherwise, as on a sheet whose first row is its header, the
table starts after its leading rows of one cell. Rows of one cell in the table's first column after
a blank row that ends the table are notes below it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

MIN_TABLE_ROWS = 3  # a header and two rows: fewer is no run to tell a table by
MAX_NOTE_ROWS = 10  # rows of notes above a table; more are read as the table they likely are


@dataclass(frozen=True)
class Layout:
    """A sheet's rows (those with text, in order) as notes above, the table, and notes below:
    rows [0, header) are notes above, [header, below) the table, [below, end) notes below."""

    header: int
    below: int


def layout(grid: Sequence[Sequence[str]], numbers: Sequence[int]) -> Layout:
    """The layout of `grid`'s rows (each with text, on the sheet's rows `numbers`), columns without
    text already left out."""
    filled = [frozenset(column for column, value in enumerate(row) if value) for row in grid]
    header = _table_start(filled, numbers)
    if header is None:
        header = _leading_single(filled)
    return Layout(header, _notes_below(filled, numbers, header))


def _leading_single(filled: list[frozenset[int]]) -> int:
    """How many leading rows hold one cell (a title, a note), the last row aside."""
    count = 0
    while count < len(filled) - 1 and len(filled[count]) == 1:
        count += 1
    return count


def _alike(a: frozenset[int], b: frozenset[int]) -> bool:
    """Whether two rows fill nearly the same columns: four in five of those either fills."""
    return len(a) >= 2 and len(b) >= 2 and 5 * len(a & b) >= 4 * len(a | b)


def _table_start(filled: list[frozenset[int]], numbers: Sequence[int]) -> int | None:
    """The first row of the longest run of adjacent rows alike, where rows above it are notes
    (see the module's docstring); None where no such run is."""
    best_start, best_length = 0, 0
    start = 0
    for index in range(1, len(filled) + 1):
        ends = (index == len(filled) or numbers[index] != numbers[index - 1] + 1
                or not _alike(filled[index - 1], filled[index]))
        if ends:
            if index - start > best_length:
                best_start, best_length = start, index - start
            start = index
    if best_start == 0 or best_length < MIN_TABLE_ROWS or best_start > MAX_NOTE_ROWS:
        return None
    columns = frozenset().union(*filled[best_start:best_start + best_length])
    if any(columns <= row for row in filled[:best_start]):
        return None  # a row above fills every column the table does: its header, or more of it
    if any(_alike(columns, row) for row in filled[best_start + best_length:]):
        return None  # the table goes on below: the run is one part of it
    return best_start


def _notes_below(filled: list[frozenset[int]], numbers: Sequence[int], header: int) -> int:
    """Where the notes under the table start: the last rows, each of one cell in the first column
    with text (a cell alone further right is more likely a figure of the table's: a total), after a
    blank row; the table keeps its header and a row."""
    below = len(filled)
    while below - 1 > header + 1 and filled[below - 1] == {0}:
        below -= 1
    while below < len(filled) and numbers[below] == numbers[below - 1] + 1:
        below += 1  # a row right under the table's is its last row (a total), not a note
    return below
