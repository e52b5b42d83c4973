"""Whether a CSV or TSV file's first record is its header or a record like the others.

A CSV file has no mark that says it has a header (RFC 4180 leaves it to a MIME parameter nobody
sends), and many have none: a sensor log, an export of `17,Ann,42` rows, a word list. Read with its
first record as the header, every row of such a file is labelled with that record's values and a
search for them finds the header. The columns tell: each votes on the first row by how its value
compares with the values under it (the first SAMPLE_ROWS rows of the first SAMPLE_COLUMNS columns).

- A column of numbers or dates under a cell of words votes for a header (`score` over `42`); under
  a number or a date it votes against (`17` over `18`), unless that is a year over values that are
  no years (`1990 | 1991` over counts: a year is a common column name).
- A column of words votes against where its first value comes again under it (`setosa` over
  `setosa`: a record of a category), and for a header where all values under it have one length
  and it another (codes under `code`). csv.Sniffer also votes against a first value of their
  length; that is no sign (`a` over `x`, a header of short names over codes).
- Two cells of the first row that hold the same value vote against: names of columns differ.

More votes against than for: the first row is a record. Otherwise, votes or none (columns of words
under words, where nothing tells), it is the header, as spreadsheet programs and pandas read a file.
Empty cells and the words exporters write for no value (`NA`, `null`, `-`) vote for nothing; a cell
of numbers apart by spaces (a line of a file aligned with spaces, which no delimiter splits) is a
number.

XLSX, XLS and ODS sheets ask the same of their table's first row (sheet_layout.py finds where the
table starts, below any notes; sheet_grid.py asks): a grid of numbers or a sheet of `key | value`
pairs has no header there either.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

SAMPLE_ROWS = 50  # records under the first row that its columns are compared with
SAMPLE_COLUMNS = 50  # columns that vote: a few tell as well as 50,000 would, at a small cost
TYPED_SHARE = 0.8  # of a column's values that are numbers (or dates) for it to be a column of them
MAX_TYPED_CHARS = 40  # a longer cell is words whatever it holds: the patterns never see one
MAX_SPACED_CHARS = 512  # a longer line of numbers apart by spaces (some 40 numbers) is words: it costs its length

_MISSING = frozenset({"na", "n/a", "nan", "null", "none", "-", "--", "\u2014", "?", "#n/a", "."})
_NUMBER = re.compile(
    r"[-+\u2212]?\(?[$€£¥]?\s?"
    r"(?:(?:\d{1,3}(?:[,.\u00a0\u202f' ]\d{3})+|\d+)(?:[.,]\d+)?|[.,]\d+)"  # digits before any exponent: `E1` is a name
    r"(?:[eE][-+]?\d{1,3})?\)?\s?%?")
_DATE = re.compile(
    r"\d{4}[-/.]\d{1,2}(?:[-/.]\d{1,2})?(?:[T ]\d{1,2}:\d{2}(?::\d{2}(?:[.,]\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})?)?"
    r"|\d{1,2}[-/.]\d{1,2}[-/.]\d{2,4}(?: \d{1,2}:\d{2}(?::\d{2})?(?: ?[AaPp][Mm])?)?"
    r"|\d{1,2}[- ][A-Za-z]{3,9}[- ,]{1,2}\d{2,4}|[A-Za-z]{3,9} \d{1,2},? \d{4}"
    r"|\d{1,2}:\d{2}(?::\d{2}(?:[.,]\d{1,9})?)?(?: ?[AaPp][Mm])?")
# Numbers apart by white space, in one pass: possessive, it never goes back over a digit it took.
_SPACE_NUMBER = r"[-+]?+(?>\d++(?:\.\d*+)?+|\.\d++)(?:[eE][-+]?+\d++)?+"
_SPACED = re.compile(rf"\s*+{_SPACE_NUMBER}(?:\s++{_SPACE_NUMBER})++\s*+")
_DIGIT = re.compile(r"\d")
_YEAR = re.compile(r"[12]\d{3}")


def has_header(rows: Sequence[Sequence[str]], *, repeats_tell: bool = True) -> bool:
    """Whether the first of a table's `rows` (cells as shown) is its header (see the module's
    docstring). A table of one row is its header alone, as it always was. `repeats_tell` False: a
    value under the first row that repeats it says nothing (a sheet's merged cells, repeated down
    the rows they cover, repeat a header merged over two rows as well as a category)."""
    if len(rows) < 2:
        return True
    first, below = rows[0], rows[1:1 + SAMPLE_ROWS]
    votes = 0
    for column, value in enumerate(first[:SAMPLE_COLUMNS]):
        votes += _vote(value.strip(), [row[column].strip() for row in below if column < len(row)], repeats_tell)
    named = [value.strip() for value in first[:SAMPLE_COLUMNS] if _kind(value.strip()) != "empty"]
    if len(set(named)) < len(named):
        votes -= 1
    return votes >= 0


def _vote(value: str, under: list[str], repeats_tell: bool) -> int:
    """A column's vote on its first `value`: 1 for a header, -1 for a record, 0 for neither."""
    kind = _kind(value)
    cells = [(cell, _kind(cell)) for cell in under]
    values = [cell for cell, of in cells if of != "empty"]
    if kind == "empty" or not values:
        return 0
    kinds = Counter(of for _, of in cells)
    typed = kinds["number"] + kinds["date"]
    if typed >= TYPED_SHARE * len(values):
        if kind == "text":
            return 1
        years = sum(1 for cell in values if _YEAR.fullmatch(cell))
        return 1 if _YEAR.fullmatch(value) and 2 * years < len(values) else -1
    if kinds["text"] < TYPED_SHARE * len(values) or kind != "text":
        return 0  # a column of mixed values, or a number over words: nothing told
    if value in values:
        return -1 if repeats_tell else 0
    lengths = {len(cell) for cell in values}
    return 1 if len(values) >= 2 and len(lengths) == 1 and len(value) not in lengths else 0


def _kind(value: str) -> str:
    """`empty`, `number`, `date` (a date or a time of day) or `text`."""
    if not value or (len(value) <= 4 and value.casefold() in _MISSING):
        return "empty"
    if len(value) > MAX_SPACED_CHARS or not _DIGIT.search(value):
        return "text"
    if len(value) <= MAX_TYPED_CHARS and _DATE.fullmatch(value):
        return "date"
    if len(value) <= MAX_TYPED_CHARS and _NUMBER.fullmatch(value):
        return "number"
    # Numbers apart by spaces: a line of a file whose columns are aligned with spaces (R's and
    # NumPy's savetxt), which no delimiter splits, is one cell of numbers.
    return "number" if _SPACED.fullmatch(value) else "text"
