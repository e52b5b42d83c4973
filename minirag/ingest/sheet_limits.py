"""An XLSX workbook's cells are counted from its sheet XML before any frame is built.

markitdown reads every sheet into a pandas frame padded to the sheet's extent: a 1.6 KB
workbook holding only A1 and XFD1048576 asks for 1,048,576 x 16,384 cells (what that and
other workbooks cost: docs/documents.md#what-the-limits-were-measured-against). Each sheet's declared
dimension is read first, then its rows and cells are streamed (never inflated whole) for their
count and furthest position, since a dimension may lie or be missing.

The XML is read by an XML parser, as openpyxl reads it, never matched as bytes: quotes, character
references (`r="&#88;FD1"`), a row number written `1e6` and cells without a reference all place a
cell as far. Every member is read, whatever its name: a workbook's relationships may point its
sheets at any part, and openpyxl counts elements by their namespace alone.
"""

from __future__ import annotations

import re
import zipfile
from dataclasses import dataclass
from xml.parsers import expat

from minirag.errors import ConversionFailed
from minirag.ingest.zip_xml import feed, parser_for

# Cells one workbook may put in frames, counted as pandas pads them (each sheet's rows x columns):
# 200,000 cells is a big sheet to read, and far below what outruns a worker's CPU limit.
MAX_SHEET_CELLS = 200_000
# Merged ranges one sheet's reader keeps; those past it are left out. Excel's never overlap, so a
# sheet cannot begin more merges at its cells than it has cells; a forged one of nothing but merges
# (8 bytes each in an .xls) held about 29 times its bytes as ranges.
MAX_SHEET_MERGES = MAX_SHEET_CELLS
# openpyxl reads rows and cells in the transitional namespace; the strict one is counted too.
_SHEET_NAMESPACES = ("http://schemas.openxmlformats.org/spreadsheetml/2006/main",
                     "http://purl.oclc.org/ooxml/spreadsheetml/main")
_ROW, _CELL, _DIMENSION = ({f"{ns} {local}" for ns in _SHEET_NAMESPACES} for local in ("row", "c", "dimension"))
# openpyxl's cell reference: up to three letters in either case, then the row.
_REFERENCE = re.compile(r"\$?([A-Za-z]{1,3})\$?(\d+)")


class _Past(Exception):
    """The sheet already spans more cells than are left."""


@dataclass
class _Extent:
    """Where openpyxl would place a sheet's rows and cells, as far as the parser has read."""

    left: int
    rows: int = 0
    columns: int = 0
    cells: int = 0
    row: int = 0
    column: int = 0

    def size(self) -> int:
        return max(self.rows * self.columns, self.cells)

    def start(self, tag: str, attributes: dict[str, str]) -> None:
        if tag in _ROW:
            self.row = _row_number(attributes["r"]) if "r" in attributes else self.row + 1
            self.column = 0
        elif tag in _CELL:
            self.cells += 1
            found = _REFERENCE.fullmatch(attributes.get("r", ""))
            self.column = _column(found.group(1)) if found else self.column + 1
            self.rows = max(self.rows, self.row, int(found.group(2)) if found else 0)
            self.columns = max(self.columns, self.column)
        elif tag in _DIMENSION:
            self._declared(attributes.get("ref", ""))
        else:
            return
        if self.size() > self.left:
            raise _Past

    def _declared(self, ref: str) -> None:
        """A dimension `A1:XFD1048576` that already spans more than is left refuses the sheet."""
        last = ref.partition(":")[2]
        found = _REFERENCE.fullmatch(last)
        if found and _column(found.group(1)) * int(found.group(2)) > self.left:
            self.rows, self.columns = int(found.group(2)), _column(found.group(1))


def _row_number(value: str) -> int:
    """A row's number as openpyxl reads it: an integer, or a float that is one (`1e6`)."""
    try:
        return int(value)
    except ValueError:
        try:
            number = float(value)
        except ValueError:
            return 0
        return int(number) if number.is_integer() else 0


def _column(letters: str) -> int:
    number = 0
    for letter in letters.upper():
        number = number * 26 + ord(letter) - 64
    return number


def check_sheets(archive: zipfile.ZipFile, name: str) -> None:
    """ConversionFailed when the workbook's sheets would be padded past MAX_SHEET_CELLS."""
    total = 0
    for member in archive.infolist():
        total += _sheet_cells(archive, member, name, MAX_SHEET_CELLS - total)
        if total > MAX_SHEET_CELLS:
            raise ConversionFailed(f"{name}: refused: its sheets span more than {MAX_SHEET_CELLS} cells "
                                   f"({member.filename[:100]} reaches {total:,}); spreadsheet bomb?")


def _sheet_cells(archive: zipfile.ZipFile, member: zipfile.ZipInfo, name: str, left: int) -> int:
    """The cells pandas would build from one member read as a sheet, stopping once past `left`; 0 for
    a member that is no XML (an image), and what was read before the XML went wrong."""
    extent = _Extent(left)
    parser = parser_for(name, member)
    parser.StartElementHandler = extent.start
    try:
        feed(archive, member, parser)
    except (_Past, expat.ExpatError):  # openpyxl too stops at XML that goes wrong
        pass
    except (zipfile.BadZipFile, OSError, ValueError, EOFError) as exc:
        raise ConversionFailed(f"{name}: not a valid .xlsx file ({member.filename[:100]}: {exc})") from None
    return extent.size()

