"""An XLSX workbook's cells are counted from its sheet XML before any frame is built.

markitdown reads every sheet into a pandas frame padded to the sheet's extent: a 1.6 KB
workbook holding only A1 and XFD1048576 asks for 1,048,576 x 16,384 cells (what that and
other workbooks cost: docs/documents.md#what-the-limits-were-measured-against). Each sheet's declared
dimension is read first, then its cells are streamed (never inflated whole) for their
count and furthest reference, since a dimension may lie or be missing.
"""

from __future__ import annotations

import re
import zipfile

from minirag.errors import ConversionFailed

# Cells one workbook may put in frames, counted as pandas pads them (each sheet's rows x columns):
# 200,000 cells is a big sheet to read, and far below what outruns a worker's CPU limit.
MAX_SHEET_CELLS = 200_000
_PIECE = 256 * 1024
_TAIL = 512  # bytes kept between pieces, so a tag cut in two is read whole
_DIMENSION = re.compile(rb"<(?:\w+:)?dimension\b[^>]*?\bref=\"([A-Z]{1,3})(\d{1,7})(?::([A-Z]{1,3})(\d{1,7}))?\"")
_CELL = re.compile(rb"<(?:\w+:)?c\b([^>]{0,400})>")
_REF = re.compile(rb"\br=\"([A-Z]{1,3})(\d{1,7})\"")


def _column(letters: bytes) -> int:
    number = 0
    for letter in letters:
        number = number * 26 + letter - 64
    return number


def check_sheets(archive: zipfile.ZipFile, name: str) -> None:
    """ConversionFailed when the workbook's sheets would be padded past MAX_SHEET_CELLS."""
    total = 0
    for member in archive.infolist():
        if not (member.filename.startswith("xl/worksheets/") and member.filename.endswith(".xml")):
            continue
        total += _sheet_cells(archive, member, name, MAX_SHEET_CELLS - total)
        if total > MAX_SHEET_CELLS:
            raise ConversionFailed(f"{name}: refused: its sheets span more than {MAX_SHEET_CELLS} cells "
                                   f"({member.filename} reaches {total:,}); spreadsheet bomb?")


def _sheet_cells(archive: zipfile.ZipFile, member: zipfile.ZipInfo, name: str, left: int) -> int:
    """The cells pandas would build for one sheet (rows x columns of its extent), stopping once past `left`."""
    rows = columns = cells = 0
    buffer, first = b"", True
    try:
        with archive.open(member) as stream:
            while piece := stream.read(_PIECE):
                buffer += piece
                if first:
                    found = _DIMENSION.search(buffer)
                    if found and found.group(3):
                        rows, columns = int(found.group(4)), _column(found.group(3))
                        if rows * columns > left:
                            return rows * columns
                    first = False
                end = len(buffer) - _TAIL
                last = 0
                for cell in _CELL.finditer(buffer, 0, max(0, end)):
                    cells += 1
                    ref = _REF.search(cell.group(1))
                    if ref:
                        rows, columns = max(rows, int(ref.group(2))), max(columns, _column(ref.group(1)))
                    last = cell.end()
                # A tag starting before the kept part ends before `end` (tags are under _TAIL): found above.
                buffer = buffer[max(last, len(buffer) - 2 * _TAIL, 0):]
                if max(rows * columns, cells) > left:
                    return max(rows * columns, cells)
            for cell in _CELL.finditer(buffer):
                cells += 1
                ref = _REF.search(cell.group(1))
                if ref:
                    rows, columns = max(rows, int(ref.group(2))), max(columns, _column(ref.group(1)))
    except (zipfile.BadZipFile, OSError, ValueError, EOFError) as exc:
        raise ConversionFailed(f"{name}: not a valid .xlsx file ({member.filename}: {exc})") from None
    return max(rows * columns, cells)
