"""A page's footnotes read apart from a sentence that runs on to the next page.

LaTeX sets a page's footnotes at its foot, below the text and in a smaller size, each opened by its
mark raised and smaller still (`¹This file has version number ...`). pdfminer reads them where they
stand, last on the page; where the page's last paragraph runs on over the page break, they fell
inside its sentence: booktabs.pdf read `But the layout of a table` / `∗This file has version number
v1.61803398, ...` / `1By Danie Els ...` / (page 2) `has been established over centuries`, so a chunk
held half a sentence, two notes, and the rest.

So a page's footnotes are read before that last paragraph (after the paragraph before it, on their
own page still), each note's mark parted from its first word (`1 By Danie Els`, not `1By`, a word no
one searches for). Footnotes are the boxes below all of the page's paragraphs (boxes of two lines or
more set in the page's body size; a lone page number may stand lower), set at most FOOTNOTE_SIZE of
that size, the first of them opened by a mark: a digit or note symbol set smaller than its line.
A page whose last paragraph's last line ends in other than a letter, a comma or a hyphen, or stops
short of either edge of its box (a paragraph's last line, a line of code), or whose last paragraph is
its first (it may run on from the page before), keeps pdfminer's order.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Sequence

from pdfminer.layout import LTChar, LTItem, LTTextBox, LTTextLine

FOOTNOTE_SIZE = 0.9  # of the body's size, at most: a footnote's (LaTeX: 8 points for 10, 9 for 11)
MARK_SIZE = 0.85  # of its line's size, at most: a footnote's raised mark
MIN_TEXT_WIDTH = 0.4  # of the page's width: a paragraph's box is as wide at least (LaTeX's text is half or more)
_SYMBOLS = frozenset("*∗†‡§¶‖")
_OPEN = frozenset(",-\u00ad\u2010\u2011\u2013\u2014")  # a line ending in one goes on


def footnotes_apart(items: Sequence[LTItem], skip: set[int], width: float) -> tuple[list[LTItem], set[int]]:
    """`items` (a page's, in reading order) with the page's footnotes moved before its last paragraph
    where that paragraph runs on to the next page; and the id() of each footnote's line that opens
    with a mark, to be parted from its first word. Boxes whose id() is in `skip` (a
    table's) are neither; `width` is the page's."""
    boxes = [item for item in items if isinstance(item, LTTextBox) and id(item) not in skip]
    size = _body_size(boxes)
    if size is None:
        return list(items), set()
    paragraphs = [box for box in boxes if len(box) > 1 and _size_of(box) >= FOOTNOTE_SIZE * size]
    if not paragraphs:
        return list(items), set()
    # The text's foot: its paragraphs', and a line of a text's width in the body's size (the sentence
    # after a display, whose pieces set smaller, `i=1` under a sum, are no notes).
    floor = min(box.y0 for box in boxes if box in paragraphs or (
        box.x1 - box.x0 >= MIN_TEXT_WIDTH * width and _size_of(box) >= FOOTNOTE_SIZE * size))
    notes = [box for box in boxes if box.y1 <= floor and _size_of(box) <= FOOTNOTE_SIZE * size]
    notes.sort(key=lambda box: -box.y1)
    if not notes or not any(_marked(line) for line in notes[0] if isinstance(line, LTTextLine)):
        return list(items), set()
    marked = {id(line) for box in notes for line in box if isinstance(line, LTTextLine) and _marked(line)}
    position = {id(item): at for at, item in enumerate(items)}
    moved = {id(box) for box in notes}
    # Read last of the page's text above its notes: a paragraph, or a line of one of its own (the
    # sentence after a display, running on over the page break).
    top = max(box.y1 for box in notes)
    last = max((box for box in boxes if id(box) not in moved and box.y0 >= top
                and _size_of(box) >= FOOTNOTE_SIZE * size), key=lambda box: position[id(box)])
    first_body = min(paragraphs, key=lambda box: position[id(box)])
    if last is first_body or not _runs_on(last, width, paragraphs):
        return list(items), marked
    out: list[LTItem] = []
    for item in items:
        if id(item) in moved:
            continue
        if item is last:
            out.extend(note for note in items if id(note) in moved)
        out.append(item)
    return out, marked


def parted_mark(text: str) -> str:
    """A footnote's line of text with its mark parted from its first word: `1By` as `1 By`."""
    stripped = text.lstrip()
    at = len(text) - len(stripped)
    end = 1
    while end < len(stripped) and stripped[end].isdigit() and stripped[0].isdigit():
        end += 1
    if end < len(stripped) and not stripped[end].isspace():
        return f"{text[:at + end]} {text[at + end:]}"
    return text


def _chars(box: LTTextBox | LTTextLine) -> Iterator[LTChar]:
    for item in box:
        if isinstance(item, LTTextLine):
            yield from _chars(item)
        elif isinstance(item, LTChar) and not item.get_text().isspace():
            yield item


def _size_of(box: LTTextBox | LTTextLine) -> float:
    """The size most of the box's (or line's) characters are set in."""
    sizes = Counter(round(char.size, 1) for char in _chars(box))
    return sizes.most_common(1)[0][0] if sizes else 0.0


def _body_size(boxes: Sequence[LTTextBox]) -> float | None:
    """The size most of the page's characters are set in."""
    sizes: Counter[float] = Counter()
    for box in boxes:
        sizes.update(round(char.size, 1) for char in _chars(box))
    return sizes.most_common(1)[0][0] if sizes else None


def _marked(line: LTTextLine) -> bool:
    """Whether the line opens with a footnote's mark: a digit or note symbol set smaller than the
    rest of its line."""
    chars = list(_chars(line))
    if len(chars) < 2:
        return False
    first = chars[0]
    text = first.get_text()
    return (text.isdigit() or text in _SYMBOLS) and first.size <= MARK_SIZE * _size_of(line)


def _runs_on(box: LTTextBox, width: float, paragraphs: Sequence[LTTextBox]) -> bool:
    """Whether the box's last line leaves its sentence open: set full from the left edge most of the
    box's lines start at to the right edge most end at, as a justified paragraph's line is where it goes on (a paragraph's last line, a line of
    code stop short; a right-to-left line's end is set short of the left edge), in a box of a text's
    width (MIN_TEXT_WIDTH of the page's), and ending in a letter, a comma or a hyphen (a table's
    row of numbers runs full too). A box of one line is set so against the edges of the page's
    `paragraphs` (its boxes of two lines or more)."""
    lines = [line for line in box if isinstance(line, LTTextLine) and line.get_text().strip()]
    if not lines or box.x1 - box.x0 < MIN_TEXT_WIDTH * width:
        return False
    if len(lines) == 1:
        lines += [line for paragraph in paragraphs for line in paragraph
                  if isinstance(line, LTTextLine) and line.get_text().strip()]
    last = min((line for line in box if isinstance(line, LTTextLine) and line.get_text().strip()),
               key=lambda line: line.y0)
    text = last.get_text().strip()
    # The edges most of its lines keep: a note in the margin pdfminer boxed with it (xcolor.pdf's
    # `\GinDriver`) moves the box's own.
    left = Counter(round(line.x0) for line in lines).most_common(1)[0][0]
    right = Counter(round(line.x1) for line in lines).most_common(1)[0][0]
    return (last.x1 >= right - last.height and last.x0 <= left + last.height
            and bool(text) and (text[-1].isalpha() or text[-1] in _OPEN))
