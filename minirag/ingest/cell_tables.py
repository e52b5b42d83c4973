"""A word processor's tables, read cell by cell: an RTF document's (rtf_text.py) and a Word 97-2003
document's (doc_text.py).

A row's cells end (RTF's `\\cell`, Word's cell mark) and then the row (`\\row`, Word's row mark).
RTF's row definition (`\\trowd`, each cell's properties up to its `\\cellx`) says which cells
continue a merge down from the row above (`\\clvmrg`): those repeat that cell's text, as a DOCX's
merged cells do (table_spans.py), while all the copies together add no more than the table's own text.

A table inside a cell (RTF's `\\itap2`) ends its cells with `\\nestcell` and its rows with `\\nestrow`;
a table holding one lays the page out, as the HTML, DOCX and OpenDocument readers take one: its
cells are read as blocks, each paragraph a paragraph and the inner table a table. Any other table
is a pipe table, its first row the header.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from minirag.ingest.csv_table import markdown_table
from minirag.ingest.paragraph_blocks import Block

MAX_COLUMNS = 256


def _flat(texts: list[str]) -> str:
    return " ".join(" ".join(texts).split())


@dataclass
class Table:
    rows: list[list[str]] = field(default_factory=list)
    row: list[str] = field(default_factory=list)
    cell: list[str] = field(default_factory=list)  # the open cell's paragraphs
    cell_blocks: list[Block] = field(default_factory=list)  # the same, and an inner table, as blocks
    blocks: list[Block] = field(default_factory=list)  # every closed cell's blocks
    layout: bool = False
    merged_down: list[bool] = field(default_factory=list)  # per cell of the row's definition
    merging: bool = False  # the cell being defined continues a merge
    own_chars: int = 0  # of the cells' own text
    copied_chars: int = 0  # of merged cells' copies
    inner_rows: list[list[str]] = field(default_factory=list)
    inner_row: list[str] = field(default_factory=list)
    inner_cell: list[str] = field(default_factory=list)

    def is_open(self) -> bool:
        return bool(self.rows or self.row or self.cell or self.inner_rows or self.inner_row or self.inner_cell)

    def paragraph(self, text: str, *, nested: bool) -> None:
        if not text.strip():
            return
        if nested:
            self.inner_cell.append(text)
            return
        self._inner_end()
        self.cell.append(text)
        self.cell_blocks.append(Block("p", text))

    def nested_cell(self) -> None:
        if len(self.inner_row) < MAX_COLUMNS:
            self.inner_row.append(_flat(self.inner_cell))
            self.own_chars += len(self.inner_row[-1])
        self.inner_cell = []

    def nested_row(self, merged_down: frozenset[int] = frozenset()) -> None:
        """End the inner table's row; `merged_down`: its cells that continue a merge from the row
        above (Word's), which repeat that cell's text as an outer row's do."""
        if self.inner_cell:
            self.nested_cell()
        if self.inner_rows and merged_down:
            self._copy_merged(self.inner_rows[-1], self.inner_row, merged_down)
        if any(self.inner_row):
            self.inner_rows.append(self.inner_row)
        self.inner_row = []

    def _copy_merged(self, above: list[str], row: list[str], merged_down: frozenset[int]) -> None:
        for column in sorted(merged_down):
            if column < len(row) and not row[column] and column < len(above):
                if self.copied_chars + len(above[column]) > self.own_chars:
                    break
                row[column] = above[column]
                self.copied_chars += len(above[column])

    def _inner_end(self) -> None:
        self.nested_row()
        if self.inner_rows:
            self.layout = True
            self.cell.append(" ".join(value for row in self.inner_rows for value in row if value))
            self.cell_blocks.append(Block("table", markdown_table(self.inner_rows)))
        self.inner_rows = []

    def end_cell(self, *, row: bool = False) -> None:
        self._inner_end()
        if not row or self.cell:
            if len(self.row) < MAX_COLUMNS:
                self.row.append(_flat(self.cell))
                self.own_chars += len(self.row[-1])
            self.blocks += self.cell_blocks
            self.cell, self.cell_blocks = [], []
        if row:
            if self.rows:
                self._copy_merged(self.rows[-1], self.row,
                                  frozenset(column for column, merged in enumerate(self.merged_down) if merged))
            if any(self.row):
                self.rows.append(self.row)
            self.row = []

    def define(self, word: str) -> None:
        """A word of the row's definition: `trowd` begins it, `clvmrg` marks the next cell, `cellx` ends one."""
        if word == "trowd":
            self.merged_down, self.merging = [], False
        elif word == "clvmrg":
            self.merging = True
        elif word == "cellx" and len(self.merged_down) < MAX_COLUMNS:
            self.merged_down.append(self.merging)
            self.merging = False

    def end(self) -> list[Block]:
        """The table's blocks (none for a table without text)."""
        if self.cell or self.inner_rows or self.inner_row or self.inner_cell:
            self.end_cell()
        if any(self.row):
            self.rows.append(self.row)
        if self.layout:
            return self.blocks
        return [Block("table", markdown_table(self.rows))] if self.rows else []
