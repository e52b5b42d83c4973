"""A table on a PDF page read row by row, as a reader reads it, not column by column.

pdfminer groups the lines that stand close above one another into a box, so each column of a
table becomes a box of its own and the page's text gave every year, then every version, then
every codename: no line held a row, and nothing tied `Warty` to `4.10` or to its dates. A
table shows itself by its lines: in two boxes or more side by side, lines that stand on the
same row, again and again, each short (a cell, not a line of prose: a page set in two or three
columns of text has long lines, and one set in four narrow ones has lines of four words and
more). Two boxes are as much a table as three: a data sheet's names and values, a program's
options and what each does, a contents page's titles and page numbers had been read as every
name, then every value. Those boxes are read together, a row a line, top to bottom, its cells
left to right with ` | ` between them; a cell's second line (a long name wrapped in its column)
is a row of its own below. Everything else on the page keeps its order.
"""

from __future__ import annotations

import bisect
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

from pdfminer.layout import LTTextBox, LTTextLine

MIN_COLUMNS = 2  # boxes side by side on one row (two columns of text are told apart by their lines)
MIN_ROWS = 3  # rows shared by as many boxes, for a table
MAX_CELL_CHARS = 40  # no line of a table's boxes is longer: prose lines are, and so are an index's
_LEADER = ". . ."  # an index's or a contents page's dots: its columns are read one after the other
# A box is prose when this share of its lines each hold this many words (or, unspaced, letters).
PROSE_SHARE = 0.6
MIN_PROSE_WORDS = 3
MIN_PROSE_LETTERS = 14
MAX_TABLES = 64  # on one page; past them its text keeps pdfminer's order (each costs a look at every box)
MAX_ROW_GAP = 3  # lines' heights between two rows of one table
CELL = " | "
# An index entry's end: its page numbers (`abline, 34`, `lm 112, 130-131`), after a comma or a space.
_PAGE_REFERENCE = re.compile(r"[,\s]\d+(?:[-–]\d+)?(?:,\s*\d+(?:[-–]\d+)?)*$")
INDEX_SHARE = 0.6  # of each side's cells that end so, for two columns to be an index's
# A relation between two sides of an equation, set with spaces around it (a table's `a=b` option is
# no equation), and an equation's number at the right margin.
_RELATION = re.compile(r"(?:^|\s)(?:[=<>\u2248\u2260\u2261\u2264\u2265\u223c\u2243\u221d\u2192\u21d2\u21d4\u27f9\u27fa]|:=)(?:\s|$)")
_EQUATION_NUMBER = re.compile(r"\((?:[A-Z]\.)?\d+(?:\.\d+)*[a-z]?\)")


@dataclass(frozen=True)
class Table:
    boxes: frozenset[int]  # the id() of each box read as part of it
    first: int  # the id() of the box whose place, in the page's order, the table takes
    text: str


def page_tables(boxes: Sequence[LTTextBox]) -> list[Table]:
    """The page's tables, as text rows; `boxes` in the order the page is read."""
    lines = [(box, line) for box in boxes for line in box if isinstance(line, LTTextLine) and line.get_text().strip()]
    box_of = {id(line): box for box, line in lines}
    lines_of: dict[int, list[LTTextLine]] = {}
    for box, line in lines:
        lines_of.setdefault(id(box), []).append(line)
    rows = rows_of([line for _box, line in lines])
    shared = [row for row in rows if len({id(box_of[id(line)]) for line in row}) >= MIN_COLUMNS]
    order = {id(box): position for position, box in enumerate(boxes)}
    tables: list[Table] = []
    # Lines longer than a cell, alone on their rows (their middles and left edges): such a line
    # between two runs of shared rows, standing out left of the rows above it, parts them (a sentence
    # between two displays of equations had been read after both; a table's row pdfminer read as one
    # line starts where the table does).
    prose = sorted(((line.y0 + line.y1) / 2, line.x0) for row in rows if len(row) == 1 for line in row
                   if len(line.get_text().strip()) > MAX_CELL_CHARS)
    for group in _runs(shared, prose):
        if len(tables) == MAX_TABLES:
            break
        cells = [line.get_text().strip() for row in group for line in row]
        if (len(group) < MIN_ROWS or max(map(len, cells)) > MAX_CELL_CHARS or any(_is_leader(cell) for cell in cells)
                or _two_columns_of_an_index(group)):
            continue
        x0 = min(line.x0 for row in group for line in row)
        x1 = max(line.x1 for row in group for line in row)
        y0 = min(line.y0 for row in group for line in row)
        y1 = max(line.y1 for row in group for line in row)
        members = {id(box_of[id(line)]) for row in group for line in row}
        members |= {id(box) for box in boxes if box.x0 >= x0 - 1 and box.x1 <= x1 + 1 and box.y0 >= y0 - 1
                    and box.y1 <= y1 + 1}  # a cell's wrapped line, a box of its own inside the table
        table_lines = [line for box in boxes if id(box) in members for line in lines_of[id(box)]]
        if any(len(line.get_text().strip()) > MAX_CELL_CHARS for line in table_lines) or _columns_of_prose(
                [lines_of[id(box)] for box in boxes if id(box) in members]):
            continue  # a box of prose beside it (a formula set beside a paragraph), or narrow columns of text
        cells_of = [[" ".join(line.get_text().split()) for line in sorted(row, key=lambda line: line.x0)]
                    for row in rows_of(table_lines)]
        text = "\n".join((" " if _is_display(cells_of) else CELL).join(cells) for cells in cells_of)
        tables.append(Table(boxes=frozenset(members), first=min(members, key=order.__getitem__), text=text + "\n"))
    return tables


def _is_display(rows: list[list[str]]) -> bool:
    """Whether rows of cells are a display of equations, not a table: each row holds a relation
    (`=`, `≤`, `→` ...) or ends in an equation's number (`(3)`), one of them a relation. amsmath's
    `align` sets each equation's sides, its number and any words beside it apart, and they stand on
    its rows as a table's cells do; read as one, `(a + b)2 = (a + b)(a + b) | (1)`."""
    related = [bool(_RELATION.search(" ".join(cells))) for cells in rows]
    return any(related) and all(is_related or _EQUATION_NUMBER.fullmatch(cells[-1]) is not None
                                for is_related, cells in zip(related, rows, strict=True))


def _columns_of_prose(columns: list[list[LTTextLine]]) -> bool:
    """Whether most of the boxes of three lines or more are prose, set in narrow columns: most of
    their lines hold four words or more (or, in a script written without spaces, a dozen letters),
    where a table's cells hold a name, a number, a date."""
    voting = [column for column in columns if len(column) >= MIN_ROWS]
    prose = [column for column in voting
             if sum(_is_prose(line.get_text()) for line in column) >= PROSE_SHARE * len(column)]
    return bool(voting) and len(prose) * 2 > len(voting)


def _is_prose(text: str) -> bool:
    """A line of words (of two letters or more: `x + 0` and `1 in 1,000` are no prose)."""
    words = [word for word in text.split() if sum(character.isalpha() for character in word) >= 2]
    return len(words) >= MIN_PROSE_WORDS or (len(text.split()) == 1 and len(text.strip()) >= MIN_PROSE_LETTERS
                                             and not any(character.isdigit() for character in text))


def _two_columns_of_an_index(group: list[list[LTTextLine]]) -> bool:
    """Whether rows of two cells are an index's two columns (`abline, 34` beside `lm, 112`), each a
    list to read down, not a row's name and value: most cells of both sides end in a page number."""
    if max(len(row) for row in group) != 2:
        return False
    sides = list(zip(*(sorted(row, key=lambda line: line.x0) for row in group if len(row) == 2), strict=True))
    return bool(sides) and all(sum(bool(_PAGE_REFERENCE.search(line.get_text().strip())) for line in side)
                               >= INDEX_SHARE * len(side) for side in sides)


def _is_leader(cell: str) -> bool:
    """Whether a line is (or ends in) the dots of a contents page or an index: its columns are read
    one after the other, and the dots, set as boxes of their own, would stand in its rows."""
    return _LEADER in cell or not cell.strip(". ")


def _runs(shared: list[list[LTTextLine]], prose: list[tuple[float, float]]) -> list[list[list[LTTextLine]]]:
    """Shared rows, top to bottom, in runs: a row more than MAX_ROW_GAP of its lines' height below the
    one before starts a new table (wrapped cells' lines may stand between two rows of one), and so
    does a row below a line of prose (`prose`: (middle, left edge), ascending) between them that
    starts further left than the run's lines by a line's height."""
    runs: list[list[list[LTTextLine]]] = []
    bottom = left = 0.0
    for row in shared:
        top = max(line.y1 for line in row)
        height = max(max(line.height for line in row), 1.0)
        between = prose[bisect.bisect_right(prose, (top, math.inf)):bisect.bisect_left(prose, (bottom, -math.inf))]
        if not runs or bottom - top > MAX_ROW_GAP * height or any(x0 < left - height for _, x0 in between):
            runs.append([])
            left = math.inf
        runs[-1].append(row)
        bottom = min(line.y0 for line in row)
        left = min(left, *(line.x0 for line in row))
    return runs


def rows_of(lines: Sequence[LTTextLine]) -> list[list[LTTextLine]]:
    """Lines grouped into rows, top to bottom: a line whose middle is within half the row's first
    line's height of that line's middle is on its row."""
    rows: list[list[LTTextLine]] = []
    middle = height = 0.0
    for line in sorted(lines, key=lambda line: -(line.y0 + line.y1) / 2):
        centre = (line.y0 + line.y1) / 2
        if rows and middle - centre <= height / 2:
            rows[-1].append(line)
        else:
            rows.append([line])
            middle, height = centre, max(line.height, 1.0)
    return rows
