"""Right-to-left lines that pdfminer cut into pieces at a number, whole again.

In a right-to-left line a number (`1892`) is laid out left to right, so the producer draws the
line in pieces: the words right of the number, the number, the words left of it. pdfminer took
each piece for a line of its own, in boxes of their own, and the page's text gave them apart
(`1892`, then the sentence without it). On a page mostly in right-to-left letters, lines that
stand on one row and touch (at most a line's height apart) are joined: left to right as drawn
where the page's text is in drawn order (bidi_order.py then reads the joined line in reading
order), right to left where each piece is in reading order already.

A glyph may stand for several letters (Arabic's lam-alef, `لا`, is one glyph), which the font maps
to them in reading order. Where a line's right-to-left letters are drawn left to right, the whole
line is turned later (bidi_order.py), letter by letter, and the glyph's letters with it (`الأرض`
read `األرض`): such a glyph's letters are given reversed, so that the turn sets them right.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Sequence
from itertools import pairwise

from pdfminer.layout import LTChar, LTTextBox, LTTextLine

from minirag.ingest.bidi_order import in_drawn_order, is_right_to_left
from minirag.ingest.pdf_tables import rows_of

MIN_RTL_SHARE = 0.3  # of a page's letters, for its lines to be joined so
MAX_GAP = 1.0  # between two pieces of a line, in the line's height


def joined_lines(boxes: Sequence[LTTextBox]) -> dict[int, str]:
    """For each line that takes in the pieces beside it, its text so joined; "" for each piece taken."""
    lines = [line for box in boxes for line in box if isinstance(line, LTTextLine) and line.get_text().strip()]
    text = "".join(line.get_text() for line in lines)
    letters = sum(1 for character in text if character.isalpha())
    if not letters or sum(1 for character in text if is_right_to_left(character)) < MIN_RTL_SHARE * letters:
        return {}
    box_of = {id(line): id(box) for box in boxes for line in box}
    # In drawn order the pieces are joined as drawn, left to right, and the line is read whole
    # later; in reading order each piece is read already, and they follow from right to left.
    leftward = not in_drawn_order(text)
    joined: dict[int, str] = {}
    for row in rows_of(lines):
        pieces = sorted(row, key=lambda line: line.x0)
        chain = [pieces[0]]
        for line in pieces[1:] + [None]:
            if line is not None and line.x0 - chain[-1].x1 <= MAX_GAP * max(line.height, chain[-1].height) \
                    and box_of[id(line)] != box_of[id(chain[-1])]:
                chain.append(line)
                continue
            if len(chain) > 1:
                host = max(chain, key=lambda piece: len(piece.get_text()))
                for piece in chain:
                    joined[id(piece)] = ""
                texts = [piece.get_text().strip() for piece in chain]
                joined[id(host)] = " ".join(reversed(texts) if leftward else texts) + "\n"
            chain = [line] if line is not None else []
    return joined


def glyphs_as_drawn(lines: Iterable[LTTextLine]) -> None:
    """Give each glyph of several right-to-left letters its letters reversed, in each of `lines`
    whose right-to-left letters are mostly drawn left to right, one after another (drawn order)."""
    for line in lines:
        glyphs = [item for item in line if isinstance(item, LTChar) and _is_letter(item.get_text())]
        several = [glyph for glyph in glyphs if len(glyph.get_text()) > 1]
        if not several:
            continue
        rightward = leftward = 0
        for before, after in pairwise(glyphs):
            rightward += after.x0 > before.x0
            leftward += after.x0 < before.x0
        if rightward > leftward:
            for glyph in several:
                glyph._text = glyph.get_text()[::-1]  # as LTChar keeps it: get_text gives it


def _is_letter(text: str) -> bool:
    """Whether `text` (a glyph's) is right-to-left letters and their marks, a letter among them."""
    return any(is_right_to_left(character) for character in text) \
        and all(is_right_to_left(character) or unicodedata.combining(character) for character in text)
