"""An XLSX workbook as a reader sees it: each sheet's cells as Excel shows them, one table a sheet.

markitdown read sheets through pandas, which wrote what a reader never sees: `NaN` in every
empty cell, `Unnamed: 3` over every column whose first cell was empty (a sheet with a title
in A1 got a header of one title and four `Unnamed`), `2024-03-04 00:00:00` for a date,
`3.0` for a whole number in a column with a gap, and an empty sheet as a broken table.
Here openpyxl gives each cell's value (a formula's as Excel last computed it), and:

- a formula saved with no value (a workbook written by a library, never calculated) shows its
  formula (`=SUM(B2:B4)`), read from the sheet's XML (`sheet_parts`): Excel would calculate it on
  opening, nothing here can, and an empty cell would say the cell holds nothing;
- rows and columns with no text are left out, so a table starts where its data does;
- leading rows that hold one cell (a sheet's title, a note) above a wider table are
  paragraphs before it, not its header, and so are notes in words over the columns above a
  table, and one-cell notes under it (sheet_layout.py);
- each line says the row of its sheet it shows (sheet_text.py), so a hit names its rows;
- a cell merged down is repeated in each row it covers that holds other cells, as HTML's and
  DOCX's merged cells are (table_spans.py): a row read alone, in a chunk of a long table's rows,
  still names its group; openpyxl's read-only sheets keep no merges, so they are read from the
  sheet's XML (`sheet_parts`);
- a date is a date, a whole number has no `.0`, a number in a format of digits, decimals,
  thousands, percent and literal text shows as the format lays it out (`0.33` for a third in
  `0.00`, a postcode's `01234` in `00000`, `125,000.50 €`: number_format.shown_number), and a cell
  whose format has an empty section for its value (`;;;`, Excel's way to hide a cell) is empty;
- text is decoded from the `_xHHHH_` escapes openpyxl leaves in it (`_unescaped`);
- a sheet with no text is left out, and so is a very hidden one (only a macro can show it; a
  hidden sheet, which a reader can unhide, is read).
"""

from __future__ import annotations

import contextlib
import datetime
import io
import re
import zipfile
from dataclasses import dataclass

from openpyxl.formula.translate import Translator
from openpyxl.utils.cell import coordinate_to_tuple, get_column_letter, range_boundaries

from minirag._compat.openpyxl import SharedStrings, load_workbook, shared_strings, sheet_part
from minirag.chunking.rows import RowMap
from minirag.ingest.conversion_progress import advanced
from minirag.ingest.number_format import hidden_by_format, shown_number
from minirag.ingest.sheet_grid import Merge, sheet_lines, sheet_markdown
from minirag.ingest.sheet_limits import MAX_SHEET_MERGES
from minirag.ingest.sheet_text import SheetsWriter
from minirag.ingest.zip_xml import feed, parser_for

# ST_Xstring's escape (ECMA-376 Part 1, 22.9.2.19): four hex digits, of either case, naming one
# UTF-16 code unit. A carriage return is matched with the line feed that may follow it.
_ESCAPE = re.compile(r"_x000[Dd]_(?:\n|_x000[Aa]_)?|_x([0-9A-Fa-f]{4})_")
_SURROGATE = re.compile("[\ud800-\udfff]")
# A cell's types (its `t`) whose empty `<v>` is an empty text: a formula's value Excel saved.
_TEXT_TYPES = frozenset({"str", "s", "inlineStr"})

__all__ = ["Merge", "Workbook", "number_text", "sheet_lines", "sheet_markdown", "sheet_parts", "workbook_to_markdown"]


@dataclass(frozen=True)
class Workbook:
    markdown: str
    title: str | None
    warnings: tuple[str, ...] = ()  # what of the workbook could not be read (its shared strings), each a line
    rows: RowMap | None = None  # the row each line of `markdown` shows (sheet_text.py)


def workbook_to_markdown(data: bytes) -> Workbook:
    book = load_workbook(io.BytesIO(data), read_only=True, data_only=True, keep_links=False)
    package = zipfile.ZipFile(io.BytesIO(data))
    try:
        sheets = SheetsWriter()
        for sheet in book.worksheets:
            if sheet.sheet_state == "veryHidden":
                continue  # only a macro can unhide it: no reader is meant to read it (a hidden one, they can)
            sheet.reset_dimensions()  # read every row, whatever range the sheet claims (pandas does the same)
            part = sheet_part(sheet)
            extras = sheet_parts(package, part) if part else SheetParts((), {})
            grid = [[_shown(cell) for cell in row] for row in sheet.iter_rows()]
            _with_formulas(grid, extras.formulas)
            name = " ".join(sheet.title.split())
            sheets.sheet(name, sheet_lines(grid, extras.merges), heading=f"## {name}")
            advanced()
        title = (book.properties.title or "").strip() or None
    finally:
        package.close()
        book.close()
    text = sheets.text()
    return Workbook(markdown=text.markdown, title=title, warnings=_cells_lost(shared_strings(book)), rows=text.rows)


def _cells_lost(strings: SharedStrings | None) -> tuple[str, ...]:
    """What the workbook's cells lost, a line each: why its shared-string table stops short, how many
    cells named a string it does not hold, read as empty (as Excel and LibreOffice show them), and
    how many held a value their type cannot, read as written."""
    if strings is None:
        return ()
    lines = []
    if strings.damage and strings.missed:
        read = len(strings)
        lines.append(f"{strings.damage}; "
                     + (f"read up to the damage, {read:,} of its strings" if read else "its text is lost"))
    elif strings.damage:
        lines.append(strings.damage)
    if strings.missed:
        lines.append(f"{strings.missed:,} cells name a shared string the workbook does not hold "
                     f"(its table holds {len(strings):,}); read as empty")
    if strings.as_written:
        lines.append(f"{strings.as_written:,} cells hold a value their type cannot (text in a number cell); "
                     "read as written")
    return tuple(lines)


MAX_TRANSLATED_CHARS = 2_000_000


@dataclass(frozen=True)
class SheetParts:
    """What a read-only openpyxl sheet does not give, from the sheet's XML: its merged cells, and
    the text of each formula saved without a value (row and column 0-based)."""

    merges: tuple[Merge, ...]
    formulas: dict[tuple[int, int], str]


def sheet_parts(package: zipfile.ZipFile, part: str) -> SheetParts:
    """The merged cells (`<mergeCell ref="A7:A9"/>`) of the sheet in `part`, 0-based, a reference
    that is no range passed over; and each formula cell with no `<v>` (a workbook written by a
    library, never calculated), its formula as Excel's formula bar shows it (`=SUM(B2:B4)`), a
    shared formula's dependents translated from its first cell. The part has passed
    sheet_limits.check_sheets; it is read once, streamed."""
    reading = _SheetReading()
    try:
        member = package.getinfo(part)
    except KeyError:
        return SheetParts((), {})
    parser = parser_for(part, member)
    parser.StartElementHandler = reading.start
    parser.EndElementHandler = reading.end
    parser.CharacterDataHandler = reading.text
    feed(package, member, parser)
    return SheetParts(tuple(reading.merges), reading.formulas)


class _SheetReading:
    """The state of one streamed pass over a sheet's XML (sheet_parts)."""

    def __init__(self) -> None:
        self.merges: list[Merge] = []
        self.formulas: dict[tuple[int, int], str] = {}
        self.row = 0
        self.column = 0
        self.formula: list[str] | None = None  # the text of the open cell's <f>, while it is read
        self.shared: str | None = None  # its `si` where it is a shared formula
        self.cached = False  # the open cell has a value: a <v> with text, or any <v> in a string cell
        self.string = False  # the open cell's type is text (`t="str"`), whose empty value is ""
        self.in_value = False
        self.masters: dict[str, tuple[str, str]] = {}  # a shared formula's text and first cell, by `si`
        self.in_formula = False
        # Translating a shared formula tokenizes it again for each cell (about a million characters a
        # second): a long one shared down a million rows would take hours. Past this many characters a
        # sheet, the cells sharing one read empty, as they did before formulas were shown.
        self.translation_left = MAX_TRANSLATED_CHARS

    def start(self, tag: str, attributes: dict[str, str]) -> None:
        local = tag.rpartition(" ")[2]
        if local == "mergeCell":
            if len(self.merges) >= MAX_SHEET_MERGES:
                return
            with contextlib.suppress(ValueError, TypeError):
                left, top, right, bottom = range_boundaries(attributes.get("ref", ""))
                self.merges.append(Merge(top - 1, left - 1, bottom - 1, right - 1))
        elif local == "row":
            self.row = _number(attributes.get("r"), self.row + 1)
            self.column = 0
        elif local == "c":
            self.formula, self.shared, self.cached = None, None, False
            self.string = attributes.get("t") in _TEXT_TYPES
            try:
                self.row, self.column = coordinate_to_tuple(attributes.get("r", ""))
            except (ValueError, TypeError):
                self.column += 1
        elif local == "f":
            self.formula, self.in_formula = [], True
            self.shared = attributes.get("si") if attributes.get("t") == "shared" else None
        elif local == "v":
            self.cached, self.in_value = self.cached or self.string, True

    def text(self, data: str) -> None:
        if self.in_formula and self.formula is not None:
            self.formula.append(data)
        elif self.in_value and data.strip():
            self.cached = True

    def end(self, tag: str) -> None:
        local = tag.rpartition(" ")[2]
        if local == "f":
            self.in_formula = False
        elif local == "v":
            self.in_value = False
        elif local == "c" and self.formula is not None and not self.cached:
            text = "".join(self.formula).strip()
            here = f"{get_column_letter(max(1, self.column))}{max(1, self.row)}"
            if text and self.shared is not None:
                self.masters.setdefault(self.shared, (text, here))
            elif self.shared in self.masters and len(self.masters[self.shared][0]) <= self.translation_left:
                master, origin = self.masters[self.shared]
                self.translation_left -= len(master)
                with contextlib.suppress(Exception):  # openpyxl's tokenizer on a formula it cannot read
                    text = Translator(f"={master}", origin=origin).translate_formula(here)[1:]
            if text:
                self.formulas[(self.row - 1, self.column - 1)] = f"={text}"


def _number(value: str | None, otherwise: int) -> int:
    try:
        return int(value) if value is not None else otherwise
    except ValueError:
        return otherwise


def _with_formulas(grid: list[list[str]], formulas: dict[tuple[int, int], str]) -> None:
    """Each formula saved without a value shown as its formula, in a cell that reads empty: Excel
    would calculate it on opening, and nothing here can; its text at least says what the cell
    holds (`=SUM(B2:B4)` beside `Total`), where an empty cell says there is nothing."""
    for (row, column), formula in formulas.items():
        if 0 <= row < len(grid) and 0 <= column < len(grid[row]) and not grid[row][column]:
            grid[row][column] = formula


def _shown(cell) -> str:
    """A cell's value as Excel shows it, as far as its type, a percentage format and an empty
    format section say."""
    value = getattr(cell, "value", None)
    if value is None:
        return ""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    number_format = _number_format(cell)
    if hidden_by_format(value, number_format):
        return ""
    if isinstance(value, datetime.datetime):
        return value.date().isoformat() if value.time() == datetime.time() else value.isoformat(sep=" ")
    if isinstance(value, (datetime.date, datetime.time)):
        return value.isoformat()
    if isinstance(value, (int, float)):
        shown = shown_number(value, number_format)
        if shown is not None:
            return shown
        if "%" in number_format:
            return f"{number_text(value * 100)}%"
        return number_text(value)
    return _unescaped(str(value)).strip()


def _number_format(cell) -> str:
    """The cell's number format; none where its style id is past the workbook's styles."""
    try:
        return getattr(cell, "number_format", "") or ""
    except IndexError:
        return ""


def _unescaped(text: str) -> str:
    """A cell's text as Excel shows it, from the text its XML holds.

    Excel writes a character as `_xHHHH_` where XML cannot hold it (a control character) or
    would change it (a carriage return), and protects text that reads as an escape by escaping
    its underscore: `_x005F_x000D_` is the text `_x000D_`. So the text is decoded once, left
    to right, and what the escapes give is never read again. An escape is one UTF-16 code
    unit: an astral character is two. What is not an escape (`_xZZZZ_`) stays as it is.

    A carriage return, alone or before a line feed, is a line break (`\\n`), as a line break
    typed in a cell is. Any other control character becomes a space: it is nothing a reader
    reads, and a space keeps the words either side apart where dropping it would join them. Half a
    surrogate pair without its other half becomes U+FFFD, as a lone surrogate does elsewhere
    (text_repair.without_lone_surrogates): it is no character, and SQLite cannot store it.
    """
    if "_x" not in text:
        return text
    text = _ESCAPE.sub(_character, text)
    if _SURROGATE.search(text):
        text = text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
    return text


def _character(escape: re.Match[str]) -> str:
    if escape.group(1) is None:
        return "\n"
    unit = int(escape.group(1), 16)
    if unit in (0x09, 0x0A):
        return chr(unit)
    if unit < 0x20 or 0x7F <= unit <= 0x9F:
        return " "
    return chr(unit)


def number_text(value: float) -> str:
    """A number as a cell shows it: a whole number without `.0`, binary noise rounded away."""
    if isinstance(value, int):
        return str(value)
    value = round(value, 10)  # binary noise: 0.07 as a percentage is 7.000000000000001
    return str(int(value)) if value.is_integer() and abs(value) < 1e15 else str(value)
