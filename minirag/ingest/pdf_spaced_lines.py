"""The lines of one paragraph set with wide line spacing, read as one paragraph.

pdfminer boxes lines together only where the gap between them is under half a line's height
(LAParams.line_margin), so a page set with wider spacing (a Persian thesis at 1.65 lines, a Korean
report at 160 % or double spacing) gave each line a box of its own, and the page's text an empty
line after every line: each line a paragraph to the chunker, a sentence cut at each line's end.

A box goes on into the box after it as one paragraph where its last row stands right above the
next box's first row, a line's pitch apart:
- the two rows are set in one size (their heights within a quarter of each other);
- no two rows of that size on the page stand closer (else this distance is a gap between
  paragraphs, as in a Latin page whose paragraphs stand a blank line apart, or a heading's);
- the upper row runs to the text's far edge (its right edge, its left in right-to-left text), as
  every line of a paragraph but its last does; a paragraph's last line stops short;
- the lower row starts at the text's near edge, not indented as a paragraph's first line is.
The text's edges are those of the boxes around the two, looked at in constant time per box.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Sequence

from pdfminer.layout import LTTextBox, LTTextLine

from minirag.ingest.bidi_order import is_right_to_left
from minirag.ingest.pdf_tables import rows_of

SIZES = 0.25  # how far apart two rows' heights may be and still be one size, as a share of the larger
PITCH = 0.1  # how much closer than two boxes' rows two other rows of their size must stand to part them, in a line's height
REACH = 2.0  # how far short of the text's far edge a line that goes on may stop, in its height
INDENT = 0.5  # how far in from the text's near edge the next line may start, in its height


def boxes_running_on(boxes: Sequence[LTTextBox | None]) -> set[int]:
    """id() of each box in `boxes` (a page's text boxes in reading order, None for text read between
    them another way: a table, a figure's words) whose last row goes on into the first row of the
    box right after it as one paragraph."""
    rows = [rows_of(_lines(box)) if box is not None else [] for box in boxes]
    meeting = [_meeting(rows[at], rows[at + 1]) for at in range(len(boxes) - 1)]
    # Each two rows of one size one above the other on the page, in a box or across two: their
    # (height, pitch). The closest of a size is its line pitch; a wider one, a gap.
    pitches = _Pitches([pitch for box_rows in rows for pitch in _pitches(box_rows)] + [pair for pair in meeting if pair])
    running_on: set[int] = set()
    for at, pair in enumerate(meeting):
        if pair is None:
            continue
        height, pitch = pair
        if pitches.closer(height, pitch - PITCH * height):
            continue
        last, first = rows[at][-1], rows[at + 1][0]
        near = [box for box in boxes[max(0, at - 1):at + 3] if box is not None]
        left, right = min(box.x0 for box in near), max(box.x1 for box in near)
        if _is_right_to_left(last + first):
            runs, starts = _x0(last) <= left + REACH * height, _x1(first) >= right - INDENT * height
        else:
            runs, starts = _x1(last) >= right - REACH * height, _x0(first) <= left + INDENT * height
        if runs and starts:
            running_on.add(id(boxes[at]))
    return running_on


class _Pitches:
    """(height, pitch) pairs, looked up by height: those of about one height (SIZES) among heights a
    factor 1 + SIZES apart stand in one run of the pairs sorted by height, and the least pitch of a
    run is found from a table of each power-of-two run's least, so that a page of many lines in two
    sizes is no quadratic cost (a scan of the other size's closer pitches, for each box)."""

    def __init__(self, pairs: Sequence[tuple[float, float]]) -> None:
        ordered = sorted(pairs)
        self._heights = [height for height, _pitch in ordered]
        self._buckets = [self._bucket(height) for height in self._heights]
        self._least = [[pitch for _height, pitch in ordered]]  # [k][at]: the least of 2**k pitches from `at`
        while 2 ** len(self._least) <= len(ordered):
            shorter, half = self._least[-1], 2 ** (len(self._least) - 1)
            self._least.append([min(shorter[at], shorter[at + half]) for at in range(len(shorter) - half)])

    @staticmethod
    def _bucket(height: float) -> int:
        return math.floor(math.log(max(height, 0.01), 1 + SIZES))

    def closer(self, height: float, than: float) -> bool:
        """Whether two rows of about `height` (SIZES) whose heights stand in neighbouring buckets
        stand closer than `than`."""
        # Both tests hold for one run of heights: each is monotonic in the height.
        bucket = self._bucket(height)
        low = max(bisect.bisect_left(self._buckets, bucket - 1),
                  bisect.bisect_left(self._heights, True, key=lambda size: size >= height or abs(size - height) <= SIZES * height))
        high = min(bisect.bisect_right(self._buckets, bucket + 1),
                   bisect.bisect_left(self._heights, True, key=lambda size: size > height and abs(size - height) > SIZES * height))
        if low >= high:
            return False
        power = (high - low).bit_length() - 1
        return min(self._least[power][low], self._least[power][high - 2 ** power]) < than


def _meeting(rows: Sequence[Sequence[LTTextLine]], next_rows: Sequence[Sequence[LTTextLine]]) -> tuple[float, float] | None:
    """(height, pitch) of a box's last row and the next box's first, where the one stands right
    above the other in one size; None where they don't."""
    if not rows or not next_rows:
        return None
    return _stacked(rows[-1], next_rows[0])


def _pitches(rows: Sequence[Sequence[LTTextLine]]) -> list[tuple[float, float]]:
    """(height, pitch) of each two rows of a box one above the other in one size."""
    return [pair for upper, lower in zip(rows, rows[1:], strict=False) if (pair := _stacked(upper, lower))]


def _stacked(upper: Sequence[LTTextLine], lower: Sequence[LTTextLine]) -> tuple[float, float] | None:
    """(height, pitch) where `lower` stands below `upper`, under it, in one size, its baseline no
    further than three lines' heights below; None otherwise."""
    height = max(_height(upper), _height(lower))
    pitch = min(line.y0 for line in upper) - min(line.y0 for line in lower)
    gap = min(line.y0 for line in upper) - max(line.y1 for line in lower)
    if abs(_height(upper) - _height(lower)) > SIZES * height or not 0 < pitch <= 3 * height or gap <= -height / 2:
        return None
    return (height, pitch) if _x0(lower) < _x1(upper) and _x0(upper) < _x1(lower) else None


def _is_right_to_left(row: Sequence[LTTextLine]) -> bool:
    text = "".join(line.get_text() for line in row)
    letters = [character for character in text if character.isalpha()]
    return sum(1 for character in letters if is_right_to_left(character)) * 2 > len(letters)


def _lines(box: LTTextBox) -> list[LTTextLine]:
    return [line for line in box if isinstance(line, LTTextLine) and line.get_text().strip()]


def _height(row: Sequence[LTTextLine]) -> float:
    return max(line.height for line in row)


def _x0(row: Sequence[LTTextLine]) -> float:
    return min(line.x0 for line in row)


def _x1(row: Sequence[LTTextLine]) -> float:
    return max(line.x1 for line in row)
