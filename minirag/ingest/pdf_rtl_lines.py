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

A letter that joins no letter after it (ا د ذ ر ز و ة) ends its piece of the word, and a font may
kern the next letter off it: Amiri sets ي 0.12 em away after ر, where its word spaces are 0.29 em,
and pdfminer takes a gap of 0.1 em for a space (`إريتريا` read `إر يتر يا`). There a gap is a
space only where it is at least half the line's word spaces, measured after letters that join
the next (their gaps are spaces: inside a word they touch it), else the page's.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Sequence
from itertools import pairwise

from pdfminer.layout import LTAnno, LTChar, LTTextBox, LTTextLine

from minirag.ingest.bidi_order import in_drawn_order, is_right_to_left
from minirag.ingest.pdf_tables import rows_of

MIN_RTL_SHARE = 0.3  # of a page's letters, for its lines to be joined so
MAX_GAP = 1.0  # between two pieces of a line, in the line's height
# Of the word spaces after letters that join the next, the least share a gap after a letter that
# joins none must be to be a space.
MIN_SPACE_SHARE = 0.5
# Arabic-script letters that join the letter before them only (Unicode's joining type R) and hamza
# (U): nothing after them joins them. Persian's ژ and Urdu's ڈ ڑ ے among them.
NON_JOINING = frozenset("ءآأؤإاةدذرزوٱٲ"
                        "ٳٵٶٷڈډڊڋڌڍڎڏڐڑ"
                        "ڒړڔڕږڗژڙۀۃۄۅۆۇ"
                        "ۈۉۊۋۍۏےۓەۮۯ")


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


def kerned_gaps_closed(lines: Iterable[LTTextLine]) -> None:
    """Take out each space pdfminer put in a gap after a letter that joins no letter after it, where
    the gap is less than MIN_SPACE_SHARE of the word spaces after letters that join (the line's,
    else those of all `lines`, measured in type sizes), in lines drawn left to right."""
    gaps = [(line, list(_spaces(line))) for line in lines]
    page = [gap / size for _, spaces in gaps for _, gap, size, joins in spaces if joins]
    for line, spaces in gaps:
        own = [gap / size for _, gap, size, joins in spaces if joins] or page
        if not own:
            continue
        least = MIN_SPACE_SHARE * min(own)
        kerned = {at for at, gap, size, joins in spaces if not joins and gap < least * size}
        if kerned:
            line._objs = [item for at, item in enumerate(line) if at not in kerned]


def _spaces(line: LTTextLine) -> Iterable[tuple[int, float, float, bool]]:
    """(index, gap, type size, whether the letter before it in reading order joins letters after it)
    of each space pdfminer put between two right-to-left letters drawn left to right: the letter
    before it in reading order is the one right of it (its marks, drawn just before it, passed over)."""
    items = list(line)
    for at, item in enumerate(items):
        if not isinstance(item, LTAnno) or item.get_text() != " " or not at:
            continue
        left = items[at - 1]
        right = next((other for other in items[at + 1:] if not (isinstance(other, LTChar) and _is_mark(other))), None)
        if not (isinstance(left, LTChar) and isinstance(right, LTChar) and right.x0 > left.x1):
            continue
        before, after = unicodedata.normalize("NFKC", right.get_text()), unicodedata.normalize("NFKC", left.get_text())
        if _is_letter(before) and _is_letter(after):
            yield at, right.x0 - left.x1, max(right.size, 1.0), before[-1] not in NON_JOINING


def _is_mark(glyph: LTChar) -> bool:
    return all(unicodedata.combining(character) for character in glyph.get_text())
