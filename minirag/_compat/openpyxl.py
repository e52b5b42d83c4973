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
The same int(), float() and ISO 8601 reader took a number, boolean or date cell holding text, a
style id that is no number, and a place that is no cell's name (`2B`) out of the whole workbook.
"""

from __future__ import annotations

import functools
import re

DISTRIBUTION = "openpyxl"
SUPPORTED = ("3.1", "3.2")


def load_workbook(source, *, read_only: bool, data_only: bool, keep_links: bool):
    """`openpyxl.load_workbook` (never rich text), each shared string as its XML holds it: its
    `_xHHHH_` escapes left for the caller to decode once, as openpyxl leaves an inline string's;
    a read-only sheet's `t="s"` cell whose value is no index an empty cell, counted in `missed`; one
    whose value its type cannot hold its text as written, counted in `as_written`."""
    _install_cell_mending()
    reader = _raw_strings_reader()(source, read_only=read_only, data_only=data_only, keep_links=keep_links)
    reader.read()
    return reader.wb


class SharedStrings(list):
    """The shared-string table each `t="s"` cell indexes (`self.shared_strings[int(value)]`), as far as
    its part could be read: an index it does not hold (past its end, or below 0, which a list would
    read from its end) is an empty cell, as Excel and LibreOffice show it, counted in `missed`.
    `damage`: why the table stops short of what the workbook's cells name ("" where it is whole).
    Every sheet's cell parser of one workbook holds it, so it also counts `as_written`: the cells
    whose value their type cannot hold (text in a number cell), read as their XML writes them."""

    def __init__(self, strings: list[str], damage: str = "") -> None:
        super().__init__(strings)
        self.damage = damage
        self.missed = 0
        self.as_written = 0

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
# A number cell's value as XML Schema writes a decimal or a double, short enough for int() (4,300
# digits); openpyxl reads one with a point or an exponent by float(), the rest by int().
_NUMBER = re.compile(r"\s*[+-]?(?:\d{1,4000}(?:\.\d*)?|\.\d{1,4000})(?:[eE][+-]?\d{1,6})?\s*", re.ASCII)
_BOOLEANS = {"true": "1", "false": "0"}  # XML Schema's spellings beside 1 and 0, which openpyxl's int() reads
_WHOLE = re.compile(r"\s*[+-]?\d{1,20}\s*", re.ASCII)
_STYLE = re.compile(r"\d{1,9}", re.ASCII)
_PLACE = re.compile(r"\$?[A-Za-z]{1,3}\$?\d{1,9}", re.ASCII)


@functools.cache
def _install_cell_mending() -> None:
    """Read-only sheets' cells read by a WorkSheetParser that mends a cell openpyxl would raise on,
    before it sees it: a `t="s"` cell whose `<v>` is no whole number (empty, `1.0`, text) names the
    index no table holds; a number, boolean or date whose `<v>` its type cannot hold is read as the
    text it writes; a style id that is no number is no style; a place that is no cell's name is no
    place (the cell takes the one after the cell before it). Only such cells read differently;
    installed once, where read-only sheets look the parser up."""
    from openpyxl.utils.datetime import from_ISO8601
    from openpyxl.worksheet import _read_only
    from openpyxl.xml.constants import SHEET_MAIN_NS

    value_tag = f"{{{SHEET_MAIN_NS}}}v"
    base = _read_only.WorkSheetParser

    def holds(kind: str, text: str) -> bool:
        if kind == "n":
            return _NUMBER.fullmatch(text) is not None
        if kind == "b":
            return _WHOLE.fullmatch(text) is not None
        try:
            from_ISO8601(text)
        except (ValueError, TypeError, OverflowError):
            return False
        return True

    class CellMendingParser(base):  # type: ignore[misc, valid-type]
        def parse_cell(self, element):
            style, place = element.get("s"), element.get("r")
            if style is not None and not _STYLE.fullmatch(style):
                del element.attrib["s"]
            if place is not None and not _PLACE.fullmatch(place):
                del element.attrib["r"]
            kind = element.get("t", "n")
            value = element.find(value_tag)
            if value is not None and value.text:
                if kind == "s" and not _INDEX.fullmatch(value.text):
                    value.text = _NO_INDEX
                elif kind == "b" and value.text.strip().lower() in _BOOLEANS:
                    value.text = _BOOLEANS[value.text.strip().lower()]
                elif kind in ("n", "b", "d") and not holds(kind, value.text):
                    element.set("t", "str")
                    self.shared_strings.as_written += 1
            elif value is not None and kind == "s":
                value.text = _NO_INDEX
            return super().parse_cell(element)

    _read_only.WorkSheetParser = CellMendingParser


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
