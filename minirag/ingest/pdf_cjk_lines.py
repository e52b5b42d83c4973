"""Lines of Chinese or Japanese that a PDF's line breaks cut inside a sentence, read on as one.

Chinese and Japanese are written without spaces between words, and a typesetter breaks their lines
between any two characters, inside a word too (the TeX Live guide's Chinese translation ends a line
in 最大的努 and starts the next with 力). pdfminer ends each line with a line break, which the
keyword side reads as a word's end (the bigram across it, 努力, was lost) and a reader as a space.

A line that ends in such a character and runs to the right edge of the text it stands in (within
two of its characters: a paragraph's last line stops short, and so does a title over its text)
goes on into the next line without a break, where that line starts with such a character too and
is not indented past it (a new paragraph's first line). The next line may stand in the next text
box: pdfminer boxes a paragraph's lines together only where they align on a side, so a two-line
paragraph whose first line is indented and whose last stops short is two boxes, which the page's
text parted by an empty line ("所以" / "我们再一次强调"). A line that ends or starts in a spaced
script (Latin, Korean, whose lines break at its spaces) keeps its break, which stands for a space.
Thai, Lao, Khmer and Myanmar are written without spaces too, but their lines break between phrases
as often as inside them, and are left as they are.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from pdfminer.layout import LTTextBox, LTTextBoxHorizontal, LTTextLine

# Han (with its radicals, strokes and compatibility forms), kana, CJK punctuation and the
# full-width forms (`，`, `（`): the characters a Chinese or Japanese line breaks between.
_WIDE = ("\u2e80-\u2fdf\u3001-\u303f\u3040-\u30ff\u31c0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
         "\ufe30-\ufe4f\uff01-\uff60\uff61-\uff9f\U00020000-\U0003134f")
_ENDS_WIDE = re.compile(f"[{_WIDE}][ \t]*\n?\\Z")
_STARTS_WIDE = re.compile(f"[ \t]*[{_WIDE}]")
REACH = 2.0  # how far short of the text's right edge a line that goes on may stop, in its height
INDENT = 0.5  # how far right of the line before it a new paragraph's first line starts, at least, in its height
GAP = 1.0  # between the boxes of one paragraph's lines, at most, in a line's height (overlapping half as much)


def goes_on(line: Sequence[LTTextLine], text: str, following: Sequence[LTTextLine], right: float) -> bool:
    """Whether the row of lines `line` (whose text is `text`) goes on into the row `following`
    without a break: both are Chinese or Japanese where they meet, `line` runs to `right` (the
    text's right edge), and `following` is not a new paragraph's indented first line."""
    first = min(following, key=lambda part: part.x0)
    if not _ENDS_WIDE.search(text) or not _STARTS_WIDE.match(first.get_text()):
        return False
    height = max(part.height for part in line)
    return max(part.x1 for part in line) >= right - REACH * height \
        and first.x0 <= min(part.x0 for part in line) + INDENT * height


def boxes_going_on(boxes: Sequence[LTTextBoxHorizontal | None]) -> set[int]:
    """id() of each box in `boxes` (a page's text boxes in reading order, None for text read between
    them another way: a table, a figure's words) whose last line goes on into the first line of the
    box right after it, just below it. The text's right edge there is the furthest right of the two
    boxes and the boxes either side of them: a paragraph's text around them, looked at in constant
    time per box."""
    going_on: set[int] = set()
    for at in range(len(boxes) - 1):
        box, after = boxes[at], boxes[at + 1]
        if box is None or after is None:
            continue
        last, first = _lines(box)[-1:], _lines(after)[:1]
        if not last or not first or not _ENDS_WIDE.search(last[0].get_text()):
            continue
        height = max(last[0].height, first[0].height)
        if not -GAP / 2 * height <= last[0].y0 - first[0].y1 <= GAP * height:  # a tall glyph's box may overlap
            continue
        right = max(near.x1 for near in boxes[max(0, at - 1):at + 3] if near is not None)
        if goes_on(last, last[0].get_text(), first, right) and _not_indented(after, height):
            going_on.add(id(box))
    return going_on


def _lines(box: LTTextBox) -> list[LTTextLine]:
    return [line for line in box if isinstance(line, LTTextLine)]


def _not_indented(box: LTTextBox, height: float) -> bool:
    """Whether the box's first line starts no further right than its others (not a new paragraph's)."""
    lines = _lines(box)
    return len(lines) < 2 or lines[0].x0 <= min(line.x0 for line in lines[1:]) + INDENT * height
