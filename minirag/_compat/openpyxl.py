"""openpyxl's internals that the XLSX reader (ingest/xlsx_tables.py) replaces.

Written against openpyxl 3.1.0 to 3.1.5. `load_workbook` is `ExcelReader(...).read()`, and
`read` reads the shared-string table once, through the reader's `read_strings` method, into
`self.shared_strings`, the list each worksheet's `t="s"` cells index. Its table reader,
`openpyxl.reader.strings.read_string_table`, takes each `<si>`'s text as `Text.from_tree(node).content`
and then deletes every `x005F_` in it: a literal `_x005F_x000D_` (the text `_x000D_`) and an
escaped carriage return `_x000D_` come out the same, so the escapes can no longer be decoded.
Inline strings (`<is>`) and a formula's cached string (`<v>`) it gives as written.
A read-only worksheet keeps no merged cells; the path of its part in the package is its
`_worksheet_path`. Its cells are read by `openpyxl.worksheet._reader.WorkSheetParser`, the name
`openpyxl.worksheet._read_only` imports: its `parse_cell` reads a `t="s"` cell as
`shared_strings[int(value)]`, so a value that is no whole number (`1.0`, text) raised ValueError
out of the whole workbook, and one int() reads unlike XML (`\u0663`, Arabic-Indic 3) named a string.
"""

from __future__ import annotations

import functools
import re

DISTRIBUTION = "openpyxl"
SUPPORTED = ("3.1", "3.2")


def load_workbook(source, *, read_only: bool, data_only: bool, keep_links: bool):
    """`openpyxl.load_workbook` (never rich text), each shared string as its XML holds it: its
    `_xHHHH_` escapes left for the caller to decode once, as openpyxl leaves an inline string's;
    a read-only sheet's `t="s"` cell whose value is no index an empty cell, counted in `missed`."""
    _install_index_check()
    reader = _raw_strings_reader()(source, read_only=read_only, data_only=data_only, keep_links=keep_links)
    reader.read()
    return reader.wb


class SharedStrings(list):
    """The shared-string table each `t="s"` cell indexes (`self.shared_strings[int(value)]`), as far as
    its part could be read: an index it does not hold (past its end, or below 0, which a list would
    read from its end) is an empty cell, as Excel and LibreOffice show it, counted in `missed`.
    `damage`: why the table stops short of what the workbook's cells name ("" where it is whole)."""

    def __init__(self, strings: list[str], damage: str = "") -> None:
        super().__init__(strings)
        self.damage = damage
        self.missed = 0

    def __getitem__(self, index):
        if isinstance(index, int) and not 0 <= index < len(self):
            self.missed += 1
            return ""
        return super().__getitem__(index)


def string_table(source, strings: list[str] | None = None) -> list[str]:
    """`read_string_table` without its deletion of `x005F_`: the same parser, the same text. Each
    string is appended to `strings` as it is read: where the XML breaks, those before it are kept."""
    from openpyxl.cell.text import Text
    from openpyxl.xml.constants import SHEET_MAIN_NS
    from openpyxl.xml.functions import iterparse

    strings = [] if strings is None else strings
    item = f"{{{SHEET_MAIN_NS}}}si"
    for _, node in iterparse(source):
        if node.tag == item:
            strings.append(Text.from_tree(node).content)
            node.clear()
    return strings


def shared_strings(book) -> SharedStrings | None:
    """The shared-string table a workbook `load_workbook` read holds its read-only sheets' cells to."""
    for sheet in getattr(book, "worksheets", ()):
        strings = getattr(sheet, "_shared_strings", None)
        if isinstance(strings, SharedStrings):
            return strings
    return None


# A shared string's index as XML Schema reads a whole number (spaces around it, a `+`), ASCII digits
# only; past 10 digits no table holds it (its `uniqueCount` is an xsd:unsignedInt), and past 4,300
# Python's int() refuses to read it.
_INDEX = re.compile(r"\s*\+?0*\d{1,10}\s*", re.ASCII)
_NO_INDEX = "-1"  # an index no table holds: SharedStrings reads it as an empty cell and counts it


@functools.cache
def _install_index_check() -> None:
    """Read-only sheets' cells read by a WorkSheetParser that gives a `t="s"` cell whose `<v>` is
    no whole number (empty, `1.0`, text) the index no table holds, before openpyxl's int() sees it.
    Only such cells read differently; installed once, where read-only sheets look the parser up."""
    from openpyxl.worksheet import _read_only
    from openpyxl.xml.constants import SHEET_MAIN_NS

    value_tag = f"{{{SHEET_MAIN_NS}}}v"
    base = _read_only.WorkSheetParser

    class IndexCheckingParser(base):  # type: ignore[misc, valid-type]
        def parse_cell(self, element):
            if element.get("t") == "s":
                value = element.find(value_tag)
                if value is not None and not _INDEX.fullmatch(value.text or ""):
                    value.text = _NO_INDEX
            return super().parse_cell(element)

    _read_only.WorkSheetParser = IndexCheckingParser


@functools.cache
def _raw_strings_reader() -> type:
    from openpyxl.reader.excel import ExcelReader
    from openpyxl.xml.constants import SHARED_STRINGS

    class RawStringsReader(ExcelReader):
        def read_strings(self) -> None:
            part = self.package.find(SHARED_STRINGS)
            strings: list[str] = []
            damage = ""
            if part is not None:
                member = part.PartName[1:]
                try:
                    with self.archive.open(member) as source:
                        string_table(source, strings)
                except KeyError:
                    damage = f"{member[:100]}, the table of the workbook's text, is missing"
                except SyntaxError as exc:  # ElementTree's ParseError: the XML broken, or cut short
                    damage = (f"{member[:100]}, the table of the workbook's text, is not well-formed XML "
                              f"({str(exc)[:200]})")
            self.shared_strings = SharedStrings(strings, damage)

    return RawStringsReader


def sheet_part(sheet) -> str | None:
    """The package member a read-only worksheet is read from (`xl/worksheets/sheet1.xml`)."""
    path = getattr(sheet, "_worksheet_path", None)
    return path if isinstance(path, str) else None
