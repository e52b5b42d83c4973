"""The text a Word 97-2003 document hides: runs formatted as hidden (sprmCFVanish), by themselves
or by their character or paragraph style, and tracked deletions (sprmCFRMarkDel), from the
character properties' formatted disk pages (PlcfBteChpx, CHPX FKPs) and the style sheet, as the
RTF reader leaves out `\\v` and `\\deleted` text.

A run is found by the byte offsets (FCs) of its characters in the WordDocument stream; the
pieces map those to character positions. Hidden characters are replaced, one for one, by a
character the page never shows (so every position after them stays where it is), except the
paragraph, cell and section marks and the field characters the structure is read from.
"""

from __future__ import annotations

import bisect
import struct
from collections.abc import Sequence
from dataclasses import dataclass

from minirag.ingest.doc_format import VANISH, Fib, Paragraph, Piece, formatted_pages, sprms, toggled

PLCF_BTE_CHPX = 12  # FibRgFcLcb97's pair: the character properties' pages
_FKP = 512
_DELETED, _CHAR_STYLE = 0x0800, 0x4A30
HIDDEN = "\x01"  # Word's own mark for an object's place, which the page reader drops
_KEPT = frozenset("\r\x07\x0c\x13\x14\x15")

Span = tuple[int, int]


@dataclass(frozen=True)
class _Run:
    """One run of the character properties: its FC range and what it says of hiding."""

    start: int
    end: int
    deleted: bool = False
    vanish: int | None = None  # its own sprmCFVanish operand
    style: int | None = None  # its character style (sprmCIstd)


def hidden_runs(word: bytes, table: bytes, fib: Fib, paragraphs: Sequence[tuple[int, int, Paragraph]] = (),
                vanish: dict[int, bool] | None = None) -> list[Span]:
    """The FC ranges of hidden or deleted characters, in order and disjoint, each page read once.
    `paragraphs`: each paragraph's FC range and properties (doc_format.ParagraphTable.runs);
    `vanish`: which styles hide their text (doc_format.styles)."""
    vanish = vanish or {}
    by_paragraph = sorted((start, end) for start, end, paragraph in paragraphs if vanish.get(paragraph.style))
    found: list[Span] = []
    covered: list[Span] = []
    for fkp in formatted_pages(word, table, fib, PLCF_BTE_CHPX):
        for run in _fkp_runs(fkp):
            covered.append((run.start, run.end))
            found += _hidden_of(run, by_paragraph, vanish)
    found += _outside(by_paragraph, _merged(covered))  # text no run describes takes its paragraph's style
    return _merged(found)


def _hidden_of(run: _Run, by_paragraph: list[Span], vanish: dict[int, bool]) -> list[Span]:
    whole = [(run.start, run.end)]
    if run.deleted:
        return whole
    if run.style in vanish:
        styled = vanish[run.style]
        return whole if (styled if run.vanish is None else toggled(run.vanish, styled)) else []
    if run.vanish in (0, 1):
        return whole if run.vanish else []
    in_hidden_paragraphs = _within(by_paragraph, run.start, run.end)
    return _outside([(run.start, run.end)], in_hidden_paragraphs) if run.vanish == 0x81 else in_hidden_paragraphs


def _fkp_runs(fkp: bytes) -> list[_Run]:
    count = fkp[_FKP - 1]
    if 4 * (count + 1) + count > _FKP - 1:
        return []
    bounds = struct.unpack_from(f"<{count + 1}I", fkp)
    found = []
    for index in range(count):
        offset = fkp[4 * (count + 1) + index] * 2
        deleted, vanish, style = False, None, None
        if offset:
            for sprm, operand in sprms(fkp[offset + 1:offset + 1 + fkp[offset]]):
                if sprm == _DELETED and operand[:1] and operand[0] in (1, 0x81):
                    deleted = True
                elif sprm == VANISH and operand[:1]:
                    vanish = operand[0]
                elif sprm == _CHAR_STYLE and len(operand) == 2:
                    style, = struct.unpack("<H", operand)
        found.append(_Run(bounds[index], bounds[index + 1], deleted, vanish, style))
    return found


def _merged(spans: list[Span]) -> list[Span]:
    """`spans` sorted and joined where they meet or overlap (pages may name characters again)."""
    merged: list[Span] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        elif end > start:
            merged.append((start, end))
    return merged


def _within(spans: list[Span], start: int, end: int) -> list[Span]:
    """The parts of sorted, disjoint `spans` inside [start, end)."""
    index = max(0, bisect.bisect_right(spans, (start, start)) - 1)
    found = []
    while index < len(spans) and spans[index][0] < end:
        low, high = max(spans[index][0], start), min(spans[index][1], end)
        if high > low:
            found.append((low, high))
        index += 1
    return found


def _outside(spans: list[Span], holes: list[Span]) -> list[Span]:
    """The parts of `spans` that sorted, disjoint `holes` leave."""
    found = []
    for start, end in spans:
        at = start
        for low, high in _within(holes, start, end):
            if low > at:
                found.append((at, low))
            at = max(at, high)
        if end > at:
            found.append((at, end))
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
