"""Excel 97-2003 workbooks (.xls) -> each sheet's cells as Excel shows them, from the compound
file's Workbook stream (cfb.py): BIFF8 records ([MS-XLS]), or an Excel 5/95 file's BIFF5 ones.

A record is a type, a length and its bytes. The workbook's globals come first: the code page,
the shared string table (SST, continued over CONTINUE records, where a string's characters may
change width at each record boundary), the number formats and cell formats (XF) that tell a
date from a number, and each sheet's name and place in the stream (BOUNDSHEET). Then each
sheet: its cells as LABELSST (a shared string), LABEL or RSTRING (text), NUMBER, RK and MULRK
(numbers), FORMULA (its value as last computed; a string result in the STRING record after it)
and BOOLERR. Charts and macro sheets are left out, and so is a sheet with no text.

Cells past MAX_SHEET_CELLS refuse the workbook, as an XLSX's do; a file with a password
(FILEPASS) says so. A record that does not fit in the stream ends the reading of its sheet.
"""

from __future__ import annotations

import bisect
import datetime
import re
import struct
from dataclasses import dataclass, field

from openpyxl.styles.numbers import BUILTIN_FORMATS

from minirag.errors import ConversionFailed
from minirag.ingest.cfb import CompoundFile, CompoundFileError
from minirag.ingest.number_format import hidden_by_format, shown_number
from minirag.ingest.rtf_tokens import code_page
from minirag.ingest.sheet_limits import MAX_SHEET_CELLS, MAX_SHEET_MERGES
from minirag.ingest.sheet_text import SheetsWriter, SheetText
from minirag.ingest.text_limit import MAX_TEXT_CHARS
from minirag.ingest.xlsx_tables import Merge, number_text, sheet_lines

MAX_COLUMNS = 256  # BIFF8's own limit
_BOF, _EOF, _CONTINUE, _FILEPASS, _CODEPAGE, _DATEMODE = 0x0809, 0x000A, 0x003C, 0x002F, 0x0042, 0x0022
_BOUNDSHEET, _SST, _FORMAT, _XF = 0x0085, 0x00FC, 0x041E, 0x00E0
_LABELSST, _LABEL, _RSTRING, _NUMBER, _RK, _MULRK, _FORMULA, _STRING, _BOOLERR = (
    0x00FD, 0x0204, 0x00D6, 0x0203, 0x027E, 0x00BD, 0x0006, 0x0207, 0x0205)
_WORKSHEET = 0x0010
_MERGEDCELLS = 0x00E5  # BIFF8: a count, then each range's first and last row and column
# Excel 2.x to 4.0 saved a worksheet as a bare record stream (no compound file), one sheet a file.
_OLD_BOFS = frozenset({0x0009, 0x0209, 0x0409})
# Their cell records: BIFF2's own (a 3-byte attribute field, 8-bit counts) and BIFF3-4's.
_OLD_INTEGER, _OLD_NUMBER, _OLD_LABEL, _OLD_FORMULA, _OLD_STRING = 0x0002, 0x0003, 0x0004, 0x0006, 0x0007
_FORMULA_3, _FORMULA_4 = 0x0206, 0x0406
# Excel's built-in number formats that show a date or a time.
_DATE_FORMATS = frozenset({14, 15, 16, 17, 18, 19, 20, 21, 22, 45, 46, 47})
# A custom format shows a date where it has a date or time code outside quotes and brackets.
_QUOTED = re.compile(r'"[^"]*"|\[[^\]]*\]|\\.')
_DATE_CODES = re.compile(r"[dmyhs]", re.IGNORECASE)
_ERRORS = {0x00: "#NULL!", 0x07: "#DIV/0!", 0x0F: "#VALUE!", 0x17: "#REF!", 0x1D: "#NAME?", 0x24: "#NUM!",
           0x2A: "#N/A"}


@dataclass
class _Book:
    biff8: bool = True
    codec: str = "cp1252"
    dates_1904: bool = False
    strings: list[str] = field(default_factory=list)
    formats: dict[int, bool] = field(default_factory=dict)  # format id -> shows a date
    format_codes: dict[int, str] = field(default_factory=dict)  # format id -> its code, as the file defines it
    xf_dates: list[bool] = field(default_factory=list)  # per XF, in order: shows a date
    xf_formats: list[int] = field(default_factory=list)  # per XF, in order: its format id
    sheets: list[tuple[str, int]] = field(default_factory=list)  # name, the offset of its BOF
    sheet_entries: int = 0  # BOUNDSHEET records, charts' and hidden ones too: Excel writes one at least

    def is_date(self, xf: int) -> bool:
        return 0 <= xf < len(self.xf_dates) and self.xf_dates[xf]

    def hides(self, xf: int, value: float | str) -> bool:
        """Whether the cell's format shows nothing for `value` (`;;;`: number_format.py)."""
        code = self.format_codes.get(self.xf_formats[xf]) if 0 <= xf < len(self.xf_formats) else None
        return code is not None and hidden_by_format(value, code)

    def format_code(self, xf: int) -> str | None:
        """The cell's number format: the file's own code for its id, else Excel's built-in one."""
        if not 0 <= xf < len(self.xf_formats):
            return None
        number = self.xf_formats[xf]
        return self.format_codes.get(number, BUILTIN_FORMATS.get(number))


def is_old_worksheet(data: bytes) -> bool:
    """Whether `data` is an Excel 2.x-4.0 worksheet: a bare record stream opening with its BOF."""
    return len(data) >= 4 and struct.unpack_from("<H", data)[0] in _OLD_BOFS


def xls_to_sheets(data: bytes, name: str) -> SheetText:
    """The workbook's sheets as Markdown, each `## name` over its table, with the row of its sheet
    each line shows."""
    try:
        return _old_worksheet(data, name) if is_old_worksheet(data) else _workbook(data, name)
    except (CompoundFileError, struct.error, ValueError, IndexError) as exc:
        raise ConversionFailed(f"{name}: not a valid .xls file (damaged: {exc or 'truncated'})") from None


def _workbook(data: bytes, name: str) -> SheetText:
    compound = CompoundFile(data)
    stream = compound.stream("Workbook")
    biff8 = stream is not None
    stream = stream if stream is not None else compound.stream("Book")
    if stream is None:
        raise ConversionFailed(f"{name}: an Office file, but not an Excel workbook (no Workbook stream)")
    if len(stream) < 4 or struct.unpack_from("<H", stream)[0] != _BOF:  # BIFF5 and BIFF8 open with one
        raise ValueError(f"the {'Workbook' if biff8 else 'Book'} stream does not open with a BOF record")
    book = _Book(biff8=biff8)
    _globals(stream, book, name)
    if not book.sheet_entries:
        raise ValueError("its globals name no sheet")
    sheets = SheetsWriter()
    cells = chars = 0
    read: set[int] = set()
    starts = sorted({offset for _, offset in book.sheets
                     if offset + 4 <= len(stream) and struct.unpack_from("<H", stream, offset)[0] == _BOF})
    for sheet_name, offset in book.sheets:
        if offset in read:  # many sheet entries naming one sheet: it is read once
            continue
        read.add(offset)
        # A sheet's records end where the next sheet begins: sheets whose BOFs nest in each
        # other's records would each read the same records again.
        following = bisect.bisect_right(starts, offset)
        grid, merges, counted, numbers = _sheet(stream, offset, book,
                                                starts[following] if following < len(starts) else None)
        cells += max(1, counted)  # a sheet without cells counts too: thousands of them are no workbook
        chars += sum(len(value) for row in grid for value in row)  # one shared string may fill every cell
        if cells > MAX_SHEET_CELLS:
            raise ConversionFailed(f"{name}: refused: its sheets hold more than {MAX_SHEET_CELLS:,} cells; "
                                   "spreadsheet bomb?")
        if chars > MAX_TEXT_CHARS:
            raise ConversionFailed(f"{name}: refused: its cells' text passes the {MAX_TEXT_CHARS:,} characters "
                                   "one document may give; split it")
        shown = " ".join(sheet_name.split())
        sheets.sheet(shown, sheet_lines(grid, merges, numbers), heading=f"## {shown}")
    return sheets.text()


def _old_worksheet(data: bytes, name: str) -> SheetText:
    """An Excel 2.x-4.0 worksheet: its text and numbers (no formats: a date is its serial number)."""
    book = _Book(biff8=False)
    cells: dict[tuple[int, int], str] = {}
    pending: tuple[int, int] | None = None
    for kind, record in _records(data, 0):
        try:
            if kind == _CODEPAGE and len(record) >= 2:
                page, = struct.unpack_from("<H", record)
                book.codec = _codec(page)
            elif kind == _FILEPASS:
                raise ConversionFailed(f"{name}: encrypted (password required)")
            elif kind in (_OLD_STRING, _STRING) and pending is not None:
                count, start = (record[0], 1) if kind == _OLD_STRING else (struct.unpack_from("<H", record)[0], 2)
                cells[pending] = record[start:start + count].decode(book.codec, "replace")
            if kind not in (_OLD_STRING, _STRING):
                pending = None
            if kind in (_OLD_INTEGER, _OLD_NUMBER, _OLD_LABEL, _OLD_FORMULA) and len(record) >= 8:
                row, column = struct.unpack_from("<HH", record)
                if kind == _OLD_INTEGER:
                    value = str(struct.unpack_from("<H", record, 7)[0])
                elif kind == _OLD_LABEL:
                    value = record[8:8 + record[7]].decode(book.codec, "replace")
                else:
                    value = _shown(struct.unpack_from("<d", record, 7)[0], -1, book)
                    if kind == _OLD_FORMULA and record[13:15] == b"\xff\xff":
                        value, pending = "", (row, column)
                cells[row, column] = value
            elif kind in (_LABEL, _NUMBER, _RK, _FORMULA_3, _FORMULA_4, _BOOLERR) and len(record) >= 10:
                row, column, xf = struct.unpack_from("<HHH", record)
                shown, pending = _value(_FORMULA if kind in (_FORMULA_3, _FORMULA_4) else kind, record, xf, book)
                if shown is not None:
                    cells[row, column] = shown
                if pending is not None:
                    pending = (row, column)
        except (struct.error, IndexError):
            continue
        if len(cells) > MAX_SHEET_CELLS:
            raise ConversionFailed(f"{name}: refused: its sheet holds more than {MAX_SHEET_CELLS:,} cells; "
                                   "spreadsheet bomb?")
    cells = {place: value for place, value in cells.items() if place[1] < MAX_COLUMNS}
    if not cells:
        return SheetText("", None)
    if _span(cells) > MAX_SHEET_CELLS:
        raise ConversionFailed(f"{name}: refused: its sheet holds more than {MAX_SHEET_CELLS:,} cells; "
                               "spreadsheet bomb?")
    sheet = SheetsWriter()
    sheet.sheet(None, sheet_lines(*_grid(cells, [])))
    return sheet.text()


def _records(stream: bytes, offset: int, end: int | None = None):
    """(type, bytes) of each record from `offset` until the stream (or `end`) ends or a record does
    not fit."""
    end = len(stream) if end is None else min(end, len(stream))
    while offset + 4 <= end:
        kind, length = struct.unpack_from("<HH", stream, offset)
        if offset + 4 + length > len(stream):
            return
        yield kind, stream[offset + 4:offset + 4 + length]
        offset += 4 + length


def _globals(stream: bytes, book: _Book, name: str) -> None:
    sst: list[bytes] = []
    reading_sst = False
    for kind, data in _records(stream, 0):
        if reading_sst and kind == _CONTINUE:
            sst.append(data)
            continue
        reading_sst = kind == _SST
        if kind == _SST:
            sst = [data]
        elif kind == _FILEPASS:
            raise ConversionFailed(f"{name}: encrypted (password required)")
        elif kind == _CODEPAGE and len(data) >= 2:
            page, = struct.unpack_from("<H", data)
            book.codec = _codec(page)
        elif kind == _DATEMODE and len(data) >= 2:
            book.dates_1904 = struct.unpack_from("<H", data)[0] == 1
        elif kind == _FORMAT and len(data) >= 3:
            number, = struct.unpack_from("<H", data)
            text = _string(data, 2, book, wide_count=True)[0] if book.biff8 else _byte_string(data, 2, book)
            book.formats[number] = bool(_DATE_CODES.search(_QUOTED.sub("", text)))
            book.format_codes[number] = text
        elif kind == _XF and len(data) >= 4:
            number, = struct.unpack_from("<H", data, 2)
            book.xf_dates.append(book.formats.get(number, number in _DATE_FORMATS))
            book.xf_formats.append(number)
        elif kind == _BOUNDSHEET and len(data) >= 7:
            book.sheet_entries += 1
            offset, = struct.unpack_from("<I", data)
            # A worksheet (charts and macro sheets are 2 and 1) that Excel can show: a very hidden one
            # (state 2) only a macro can unhide, and it holds what no reader is meant to read.
            if data[5] == 0 and data[4] & 3 != 2:
                sheet = _string(data, 6, book, wide_count=False)[0] if book.biff8 else _byte_string(data, 6, book)
                book.sheets.append((sheet, offset))
        elif kind == _EOF:
            break
    if sst:
        book.strings = _shared_strings(sst, book)


def _codec(page: int) -> str:
    """The codec of a CODEPAGE record's number: 1200 (UTF-16, BIFF8's own) and the Mac's 0x8000
    and 0x8001 leave 8-bit text as windows-1252, as does a number Python has no codec for."""
    codec = code_page(page) if page not in (1200, 0x8000, 0x8001) else None
    return codec or "cp1252"


def _byte_string(data: bytes, at: int, book: _Book) -> str:
    count = data[at] if at < len(data) else 0
    return data[at + 1:at + 1 + count].decode(book.codec, "replace")


def _string(data: bytes, at: int, book: _Book, *, wide_count: bool) -> tuple[str, int]:
    """A BIFF8 string (its character count, one or two bytes, then a flags byte) and where it ends."""
    if wide_count:
        count, = struct.unpack_from("<H", data, at)
        at += 2
    else:
        count = data[at]
        at += 1
    flags = data[at]
    at += 1
    runs = 0
    extra = 0
    if flags & 0x08:
        runs, = struct.unpack_from("<H", data, at)
        at += 2
    if flags & 0x04:
        extra, = struct.unpack_from("<i", data, at)
        at += 4
    width = 2 if flags & 0x01 else 1
    raw = data[at:at + count * width]
    text = raw.decode("utf-16-le", "replace") if width == 2 else raw.decode("latin-1")
    return text, at + count * width + 4 * runs + max(0, extra)


class _Continued:
    """The SST's bytes over its CONTINUE records. A record boundary inside a string's characters
    is followed by a flags byte giving the width of the characters after it; one inside the rest
    of a string (its count, its formatting runs) is not."""

    def __init__(self, parts: list[bytes]) -> None:
        self.parts, self.part, self.at = parts, 0, 0

    def take(self, size: int) -> bytes:
        out = bytearray()
        while size > 0:
            if self.part >= len(self.parts):
                raise ValueError("the shared strings end early")
            if self.at >= len(self.parts[self.part]):
                self.part, self.at = self.part + 1, 0
                continue
            chunk = self.parts[self.part][self.at:self.at + size]
            out += chunk
            size -= len(chunk)
            self.at += len(chunk)
        return bytes(out)

    def chars(self, count: int, width: int) -> str:
        text = []
        while count > 0:
            if self.part >= len(self.parts):
                raise ValueError("the shared strings end early")
            data = self.parts[self.part]
            room = (len(data) - self.at) // width
            if room == 0:  # the characters go on in the next record, which says their width first
                self.part, self.at = self.part + 1, 0
                width = 2 if self.take(1)[0] & 0x01 else 1
                continue
            taken = min(room, count)
            raw = data[self.at:self.at + taken * width]
            self.at += taken * width
            text.append(raw.decode("utf-16-le", "replace") if width == 2 else raw.decode("latin-1"))
            count -= taken
        return "".join(text)


def _shared_strings(parts: list[bytes], book: _Book) -> list[str]:
    reader = _Continued(parts)
    total, unique = struct.unpack_from("<II", reader.take(8))
    strings: list[str] = []
    try:
        for _ in range(min(unique, MAX_SHEET_CELLS)):
            count, flags = struct.unpack("<HB", reader.take(3))
            runs = struct.unpack("<H", reader.take(2))[0] if flags & 0x08 else 0
            extra = struct.unpack("<i", reader.take(4))[0] if flags & 0x04 else 0
            strings.append(reader.chars(count, 2 if flags & 0x01 else 1))
            reader.take(4 * runs + max(0, extra))
    except (ValueError, struct.error):
        pass  # a damaged table: the strings read so far stand
    return strings


def _sheet(stream: bytes, offset: int, book: _Book,
           end: int | None = None) -> tuple[list[list[str]], list[Merge], int, list[int]]:
    cells: dict[tuple[int, int], str] = {}
    merges: list[Merge] = []
    pending: tuple[int, int, int] | None = None  # a formula whose string value the next STRING record holds
    started = False
    for kind, data in _records(stream, offset, end):
        if kind == _BOF:
            if started or (len(data) >= 4 and struct.unpack_from("<H", data, 2)[0] != _WORKSHEET):
                break
            started = True
            continue
        if not started:  # a sheet entry pointing into another sheet's records names no sheet
            break
        if kind == _EOF:
            break
        try:
            if kind == _STRING and pending is not None:
                value = _string(data, 0, book, wide_count=True)[0] if book.biff8 else \
                    data[2:2 + struct.unpack_from("<H", data)[0]].decode(book.codec, "replace")
                row, column, xf = pending
                cells[row, column] = "" if book.hides(xf, value) else value
                pending = None
                continue
            pending = None
            if kind in (_LABELSST, _LABEL, _RSTRING, _NUMBER, _RK, _FORMULA, _BOOLERR) and len(data) >= 6:
                row, column, xf = struct.unpack_from("<HHH", data)
                value, awaited = _value(kind, data, xf, book)
                if value is not None and column < MAX_COLUMNS:
                    cells[row, column] = value
                if awaited is not None:
                    pending = (row, column, xf)
            elif kind == _MERGEDCELLS and len(data) >= 2:
                ranges = min(struct.unpack_from("<H", data)[0], (len(data) - 2) // 8, MAX_SHEET_MERGES - len(merges))
                for index in range(max(0, ranges)):
                    top, bottom, left, right = struct.unpack_from("<HHHH", data, 2 + 8 * index)
                    merges.append(Merge(top, left, bottom, right))
            elif kind == _MULRK and len(data) >= 6:
                row, first = struct.unpack_from("<HH", data)
                for index in range((len(data) - 6) // 6):
                    xf, rk = struct.unpack_from("<HI", data, 4 + 6 * index)
                    if first + index < MAX_COLUMNS:
                        cells[row, first + index] = _shown(_rk(rk), xf, book)
        except (struct.error, IndexError):
            continue
        if len(cells) > MAX_SHEET_CELLS:
            break
    if not cells:
        return [], [], 0, []
    span = _span(cells)
    if span > MAX_SHEET_CELLS:  # no grid: refused by what it counts
        return [], [], span, []
    grid, placed, numbers = _grid(cells, merges)
    return grid, placed, span, numbers


def _span(cells: dict[tuple[int, int], str]) -> int:
    """The cells the sheet's grid holds: its rows times its columns, as an XLSX's cells are counted
    (sheet_limits.py). One cell a row over all 256 columns (50,000 cells, 0.9 MB) had built a grid
    of 13 million (364 MB)."""
    return len({row for row, _ in cells}) * len({column for _, column in cells})


def _grid(cells: dict[tuple[int, int], str],
          merges: list[Merge]) -> tuple[list[list[str]], list[Merge], list[int]]:
    """The rows of `cells`, each over the columns that hold a cell (one cell in column 255 pads no
    row), the merges whose first cell holds a value, in the grid's rows and columns (a merge covers
    the grid's rows from its first down to the last it reaches), and each grid row's sheet row, 1-based."""
    rows = sorted({row for row, _ in cells})
    columns = sorted({column for _, column in cells})
    grid = [[cells.get((row, column), "") for column in columns] for row in rows]
    row_at = {row: index for index, row in enumerate(rows)}
    column_at = {column: index for index, column in enumerate(columns)}
    placed = [Merge(row_at[merge.top], column_at[merge.left], bisect.bisect_right(rows, merge.bottom) - 1,
                    bisect.bisect_right(columns, merge.right) - 1)
              for merge in merges if cells.get((merge.top, merge.left))]
    return grid, placed, [row + 1 for row in rows]


def _value(kind: int, data: bytes, xf: int, book: _Book) -> tuple[str | None, tuple[int, int] | None]:
    """A cell record's shown value; the second item is set where a STRING record brings it."""
    if kind == _LABELSST:
        index, = struct.unpack_from("<I", data, 6)
        text = book.strings[index] if index < len(book.strings) else None
        return ("" if text is not None and book.hides(xf, text) else text), None
    if kind in (_LABEL, _RSTRING):
        if book.biff8:
            text = _string(data, 6, book, wide_count=True)[0]
        else:
            count, = struct.unpack_from("<H", data, 6)
            text = data[8:8 + count].decode(book.codec, "replace")
        return ("" if book.hides(xf, text) else text), None
    if kind == _NUMBER:
        return _shown(struct.unpack_from("<d", data, 6)[0], xf, book), None
    if kind == _RK:
        return _shown(_rk(struct.unpack_from("<I", data, 6)[0]), xf, book), None
    if kind == _BOOLERR:
        value, is_error = data[6], data[7]
        return (_ERRORS.get(value, "#ERROR") if is_error else ("TRUE" if value else "FALSE")), None
    result = data[6:14]  # FORMULA: a number, or a marker for another type in its last two bytes 0xFFFF
    if result[6:8] != b"\xff\xff":
        return _shown(struct.unpack("<d", result)[0], xf, book), None
    if result[0] == 0:
        return None, (0, 0)
    if result[0] == 1:
        return ("TRUE" if result[2] else "FALSE"), None
    if result[0] == 2:
        return _ERRORS.get(result[2], "#ERROR"), None
    return None, None


def _rk(rk: int) -> float:
    """An RK number: a 30-bit integer or the top of a double, maybe divided by 100."""
    if rk & 0x02:
        value: float = (rk >> 2) - (1 << 30) if rk & 0x80000000 else rk >> 2
    else:
        value = struct.unpack("<d", struct.pack("<Q", (rk & 0xFFFFFFFC) << 32))[0]
    return value / 100 if rk & 0x01 else value


def _shown(value: float, xf: int, book: _Book) -> str:
    if value != value or value in (float("inf"), float("-inf")) or book.hides(xf, value):
        return ""
    if book.is_date(xf) and 0 <= value < 2958466:  # through 9999-12-31
        base = datetime.datetime(1904, 1, 1) if book.dates_1904 else datetime.datetime(1899, 12, 30)
        try:
            moment = base + datetime.timedelta(days=value)
            moment = moment.replace(microsecond=0) + datetime.timedelta(seconds=round(moment.microsecond / 1e6))
        except OverflowError:  # past 9999-12-31 (a 1904-based serial, a second rounded up): the number
            return number_text(value)
        if value < 1 and not book.dates_1904:
            return moment.time().isoformat()
        return moment.date().isoformat() if moment.time() == datetime.time() else moment.isoformat(sep=" ")
    code = book.format_code(xf)
    shown = shown_number(value, code) if code else None
    if shown is not None:
        return shown
    return number_text(int(value) if float(value).is_integer() and abs(value) < 1e15 else value)
