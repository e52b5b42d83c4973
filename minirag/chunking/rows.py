"""Spreadsheet rows: where a passage of a workbook, ODS or CSV file is, as its program numbers it.

A PDF's pages travel through chunking as one number a line (pages.py); a sheet's rows travel the
same way. A workbook's reader says which row each line of its Markdown shows (`RowMap`: a heading,
a blank line or a table's separator shows none); each line's sheet and row become one number,
`place`, ordered as the document is (sheet by sheet, row by row), so the smallest and largest
place of a chunk's lines (page_span) are its first and last rows, and `SheetRows.of` reads them back.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

# A sheet's row in its place: Excel's and LibreOffice's sheets stop at 1,048,576 rows (2^20); a CSV's
# records are bounded by its 32 MiB of text. Past 2^32 a place would name the next sheet.
_ROWS_PER_SHEET = 1 << 32
# The most characters of a sheet's name a passage carries (Excel allows 31, Google Sheets 100): each
# chunk and section stores it, and each hit carries it, so a planted name of megabytes was stored once
# a chunk (a 74 KB workbook made a 701 MB index). The sheet's heading keeps the whole name.
MAX_SHEET_NAME = 100


@dataclass(frozen=True)
class SheetRows:
    """A passage's sheet (None for a CSV or TSV file, which is one) and its first and last rows,
    1-based, as its spreadsheet program numbers them (header and blank rows counted)."""

    sheet: str | None
    first: int
    last: int

    @classmethod
    def stored(cls, sheet: str | None, first: int | None, last: int | None) -> SheetRows | None:
        """From an index's columns: None where the passage names no rows (not a sheet's, or cut
        before rows were told)."""
        return None if first is None or last is None else cls(sheet, first, last)

    @classmethod
    def of(cls, span: tuple[int | None, int | None], sheets: Sequence[str | None]) -> SheetRows | None:
        """The rows between two places (page_span of places), None where there are none or they lie
        in two sheets (no chunk or section does: each sheet is a section of its own)."""
        low, high = span
        if low is None or high is None:
            return None
        (sheet, first), (other, last) = divmod(low, _ROWS_PER_SHEET), divmod(high, _ROWS_PER_SHEET)
        if sheet != other or not 0 <= sheet < len(sheets):
            return None
        return cls(_carried(sheets[sheet]), first, last)


def _carried(name: str | None) -> str | None:
    """A sheet's name as its passages carry it: past MAX_SHEET_NAME characters, cut, with `…`."""
    return name[:MAX_SHEET_NAME] + "…" if name is not None and len(name) > MAX_SHEET_NAME else name


@dataclass(frozen=True)
class RowMap:
    """The row each line of a spreadsheet's Markdown shows, as runs: line `line + i` shows row
    `row + i` of sheet `sheet` for i below `count`; a line in no run shows none. `lines` is how many
    lines the Markdown has: a text of another count (changed after it was read) is not mapped."""

    sheets: tuple[str | None, ...]
    runs: tuple[tuple[int, int, int, int], ...]  # (line, count, sheet, row)
    lines: int

    @classmethod
    def of(cls, sheets: Sequence[str | None], shown: Sequence[tuple[int, int] | None]) -> RowMap:
        """From each line's (sheet, row), or None: consecutive lines on consecutive rows are one run."""
        runs: list[tuple[int, int, int, int]] = []
        for line, place in enumerate(shown):
            if place is None:
                continue
            if runs:
                start, count, sheet, row = runs[-1]
                if start + count == line and sheet == place[0] and row + count == place[1]:
                    runs[-1] = (start, count + 1, sheet, row)
                    continue
            runs.append((line, 1, *place))
        return cls(tuple(sheets), tuple(runs), len(shown))

    @classmethod
    def of_sheet(cls, sheet: str | None, shown: Sequence[int | None]) -> RowMap:
        """From the row each line of a one-sheet text shows, or None (a CSV file's: no tuple a line)."""
        runs: list[tuple[int, int, int, int]] = []
        line, end = 0, len(shown)
        while line < end:
            row = shown[line]
            if row is None:
                line += 1
                continue
            start = line
            while line + 1 < end and shown[line + 1] == row + line + 1 - start:
                line += 1
            runs.append((start, line + 1 - start, 0, row))
            line += 1
        return cls((sheet,), tuple(runs), end)

    def lines_from(self, first: int, lines: int) -> RowMap:
        """The map of the `lines` lines from line `first` on, as a text of their own (a document's
        Markdown with its leading lines cut, placed inside another's: an e-mail's attachment)."""
        runs = []
        for line, count, sheet, row in self.runs:
            start, end = max(line, first), min(line + count, first + lines)
            if start < end:
                runs.append((start - first, end - start, sheet, row + start - line))
        return RowMap(self.sheets, tuple(runs), lines)

    @classmethod
    def joined(cls, parts: Sequence[tuple[int, RowMap | None]], lines: int) -> RowMap | None:
        """The map of a text of `lines` lines made of parts, each `(line, map)`: the part's map with
        its first line on `line` of the text, its sheets after the earlier parts'; None where no part
        shows a row. Parts come in the order the text holds them."""
        sheets: list[str | None] = []
        runs: list[tuple[int, int, int, int]] = []
        for at, part in parts:
            if part is None:
                continue
            base = len(sheets)
            sheets.extend(part.sheets)
            runs.extend((at + line, count, base + sheet, row) for line, count, sheet, row in part.runs)
        return cls(tuple(sheets), tuple(runs), lines) if runs else None

    def places(self) -> list[int | None]:
        """Each line's place: its sheet and row as one number, ordered as the document is."""
        out: list[int | None] = [None] * self.lines
        done = 0  # runs follow one another: one reaching back (a worker's answer is checked, not trusted) is passed over
        for line, count, sheet, row in self.runs:
            if line < done:
                continue
            base = sheet * _ROWS_PER_SHEET + row - line
            done = min(line + count, self.lines)
            for at in range(line, done):
                out[at] = base + at
        return out

    def as_json(self) -> dict:
        return {"sheets": list(self.sheets), "runs": [list(run) for run in self.runs], "lines": self.lines}

    @classmethod
    def from_json(cls, value: object) -> RowMap | None:
        """The map `as_json` wrote; None for anything else."""
        if not isinstance(value, dict) or value.keys() != {"sheets", "runs", "lines"}:
            return None
        sheets, runs, lines = value["sheets"], value["runs"], value["lines"]
        if not (isinstance(sheets, list) and all(isinstance(s, str | None) for s in sheets)
                and isinstance(runs, list) and isinstance(lines, int)
                and all(isinstance(run, list) and len(run) == 4 and all(type(n) is int and n >= 0 for n in run)
                        for run in runs)):
            return None
        return cls(tuple(sheets), tuple((a, b, c, d) for a, b, c, d in runs), lines)
