"""The text a Word 97-2003 document hides: runs formatted as hidden (sprmCFVanish) and tracked
deletions (sprmCFRMarkDel), from the character properties' formatted disk pages (PlcfBteChpx,
CHPX FKPs), as the RTF reader leaves out `\\v` and `\\deleted` text.

A run is found by the byte offsets (FCs) of its characters in the WordDocument stream; the
pieces map those to character positions. Hidden characters are replaced, one for one, by a
character the page never shows (so every position after them stays where it is), except the
paragraph, cell and section marks and the field characters the structure is read from.
"""

from __future__ import annotations

import bisect
import struct

from minirag.ingest.doc_format import Fib, Piece, formatted_pages, sprms

PLCF_BTE_CHPX = 12  # FibRgFcLcb97's pair: the character properties' pages
_FKP = 512
_DELETED, _VANISH = 0x0800, 0x083C
_ON = (1, 0x81)  # a toggle's operand: on, or the opposite of the style's (which hides nothing)
HIDDEN = "\x01"  # Word's own mark for an object's place, which the page reader drops
_KEPT = frozenset("\r\x07\x0c\x13\x14\x15")


def hidden_runs(word: bytes, table: bytes, fib: Fib) -> list[tuple[int, int]]:
    """The FC ranges of hidden or deleted characters, in order and disjoint, each page read once."""
    runs: list[tuple[int, int]] = []
    for fkp in formatted_pages(word, table, fib, PLCF_BTE_CHPX):
        runs += _fkp_hidden(fkp)
    merged: list[tuple[int, int]] = []  # disjoint: pages may name the same characters again
    for start, end in sorted(runs):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        elif end > start:
            merged.append((start, end))
    return merged


def _fkp_hidden(fkp: bytes) -> list[tuple[int, int]]:
    count = fkp[_FKP - 1]
    if 4 * (count + 1) + count > _FKP - 1:
        return []
    bounds = struct.unpack_from(f"<{count + 1}I", fkp)
    found = []
    for index in range(count):
        offset = fkp[4 * (count + 1) + index] * 2
        if not offset:
            continue
        size = fkp[offset]
        if any(sprm in (_DELETED, _VANISH) and operand[:1] and operand[0] in _ON
               for sprm, operand in sprms(fkp[offset + 1:offset + 1 + size])):
            found.append((bounds[index], bounds[index + 1]))
    return found


def without_hidden(text: str, pieces: list[Piece], runs: list[tuple[int, int]]) -> str:
    """`text` (one character per CP, as piece_text gives it) with the characters of `runs` made
    HIDDEN, marks and field characters kept."""
    if not runs:
        return text
    starts = [start for start, _ in runs]
    chars = list(text)
    for piece in pieces:
        width = 1 if piece.compressed else 2
        piece_end = piece.fc + (piece.end - piece.cp) * width
        index = max(0, bisect.bisect_right(starts, piece.fc) - 1)
        while index < len(runs) and runs[index][0] < piece_end:
            start, end = max(runs[index][0], piece.fc), min(runs[index][1], piece_end)
            for cp in range(piece.cp + (start - piece.fc) // width, piece.cp + -(-(end - piece.fc) // width)):
                if cp < len(chars) and chars[cp] not in _KEPT:
                    chars[cp] = HIDDEN
            index += 1
    return "".join(chars)
