"""A spreadsheet's Markdown written sheet by sheet, with the row of its sheet each line shows.

The readers of XLSX, XLS, ODS and CSV files write each sheet's lines here with their rows (a
sheet's heading, a blank line and a table's separator show none); the map goes with the Markdown
(Converted.rows) to the chunker, so each hit names its sheet and rows (chunking/rows.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from minirag.chunking.rows import RowMap

# A sheet's body: its lines, each with the row it shows (None: none, as a blank line between paragraphs).
Lines = list[tuple[str, int | None]]


@dataclass(frozen=True)
class SheetText:
    markdown: str
    rows: RowMap | None  # None where no line shows a row


class SheetsWriter:
    """Sheets' lines in order, a blank line between two sheets."""

    def __init__(self) -> None:
        self._lines: list[str] = []
        self._shown: list[tuple[int, int] | None] = []
        self._sheets: list[str | None] = []

    def sheet(self, name: str | None, body: Sequence[tuple[str, int | None]], heading: str | None = None) -> None:
        """Write a sheet's `body` (nothing for none), under `heading` where it has one."""
        if not body:
            return
        index = len(self._sheets)
        self._sheets.append(name)
        if self._lines:
            self._add("", None)
        if heading is not None:
            self._add(heading, None)
            self._add("", None)
        lines, shown = self._lines, self._shown
        for text, row in body:
            place = None if row is None else (index, row)
            if "\n" in text:
                for line in text.split("\n"):
                    lines.append(line)
                    shown.append(place)
            else:
                lines.append(text)
                shown.append(place)

    def _add(self, line: str, shown: tuple[int, int] | None) -> None:
        self._lines.append(line)
        self._shown.append(shown)

    def text(self) -> SheetText:
        rows = RowMap.of(self._sheets, self._shown) if any(self._shown) else None
        return SheetText("\n".join(self._lines), rows)


def paragraphs(texts: Sequence[tuple[str, int]]) -> Lines:
    """Each text a paragraph of its own, on its row: a blank line between two."""
    out: Lines = []
    for text, row in texts:
        if out:
            out.append(("", None))
        out.append((text, row))
    return out
