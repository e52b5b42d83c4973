"""Where a Word 97-2003 document (.doc) anchors each of its text boxes, so that doc_text.py reads a
box's text after the paragraph it is anchored to, as a reader meets it beside that paragraph,
rather than after the whole body.

[MS-DOC]: PlcftxbxTxt parts the text-box story, one part a box (and a last, unused one), each with
an FTXBXS whose `lid` names the shape holding it; PlcSpaMom gives each floating shape of the main
text its anchor CP and an FSPA whose first field, `spid`, is that shape's id. A box whose shape is
not found there (it stands in a group, whose own id is listed; a reusable empty slot; a table the
file gets wrong) has no place, and doc_text.py keeps its text after the body, as it did before.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

from minirag.ingest.doc_format import Fib

PLC_SPA_MOM, PLCF_TXBX_TXT = 40, 56  # FibRgFcLcb97's pairs
_FSPA, _FTXBXS = 26, 22  # their data's sizes
_LID_AT = 14  # where an FTXBXS holds its shape's id


@dataclass(frozen=True)
class Box:
    start: int  # its text's CPs in the text-box story
    end: int
    anchor: int | None  # its shape's anchor CP in the main text; None where not found


def boxes(table: bytes, fib: Fib, body: int, story: int) -> list[Box]:
    """The text boxes of the main text (a story of `story` CPs), each with its anchor, if any,
    among a main text of `body` CPs."""
    parts = _plc(table, fib, PLCF_TXBX_TXT, _FTXBXS)
    anchors = {struct.unpack_from("<I", data)[0]: cp for cp, data in _plc(table, fib, PLC_SPA_MOM, _FSPA)[0]}
    found: list[Box] = []
    entries, last = parts
    for index, (start, data) in enumerate(entries):
        end = entries[index + 1][0] if index + 1 < len(entries) else last
        start, end = min(start, story), min(max(start, end), story)
        if end <= start:
            continue
        anchor = anchors.get(struct.unpack_from("<I", data, _LID_AT)[0])
        found.append(Box(start, end, anchor if anchor is not None and anchor < body else None))
    return found


def _plc(table: bytes, fib: Fib, pair: int, size: int) -> tuple[list[tuple[int, bytes]], int]:
    """A PLC's entries (each CP with its data) and its last CP; none where it does not fit."""
    offset, length = fib.pair(pair)
    data = table[offset:offset + length]
    if length < 4 + size or (length - 4) % (4 + size) or len(data) < length:
        return [], 0
    count = (length - 4) // (4 + size)
    cps = struct.unpack_from(f"<{count + 1}I", data)
    at = 4 * (count + 1)
    return [(cps[index], data[at + index * size:at + (index + 1) * size]) for index in range(count)], cps[count]
