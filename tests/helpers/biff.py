"""BIFF8 records, for Excel 97-2003 workbooks built in tests (inside a compound file from
compound_files.py): the forged shapes no spreadsheet program writes."""

from __future__ import annotations

import struct


def record(kind: int, data: bytes = b"") -> bytes:
    return struct.pack("<HH", kind, len(data)) + data


def begin(kind: int) -> bytes:  # BOF: 0x0005 the globals, 0x0010 a worksheet
    return record(0x0809, struct.pack("<HHHHII", 0x0600, kind, 0, 0, 0, 0))


END = record(0x000A)


def cell_format(number_format: int) -> bytes:  # an XF record naming a number format
    return record(0x00E0, struct.pack("<HH", 0, number_format) + bytes(16))


def sheet_entry(offset: int, name: bytes = b"S", state: int = 0) -> bytes:  # BOUNDSHEET; state 1 hidden, 2 very
    return record(0x0085, struct.pack("<IBB", offset, state, 0) + bytes([len(name), 0]) + name)


def number(row: int, column: int, xf: int, value: float) -> bytes:
    return record(0x0203, struct.pack("<HHHd", row, column, xf, value))


def shared_string(row: int, column: int, index: int) -> bytes:  # LABELSST
    return record(0x00FD, struct.pack("<HHHI", row, column, 0, index))


def workbook(globals_body: bytes, sheets: list[bytes], states: list[int] | None = None) -> bytes:
    """A Workbook stream: the globals (`globals_body` between BOF and the sheet entries), then each
    sheet's records between its own BOF and EOF; `states`: each sheet's visibility (0, shown)."""
    names = [b"S%d" % index for index in range(len(sheets))]
    head = begin(0x0005) + globals_body
    offset = len(head) + sum(len(sheet_entry(0, name)) for name in names) + len(END)
    entries, bodies = b"", b""
    for name, sheet, state in zip(names, sheets, states or [0] * len(sheets), strict=True):
        entries += sheet_entry(offset + len(bodies), name, state)
        bodies += begin(0x0010) + sheet + END
    return head + entries + END + bodies
