"""Hanging indents: an item's tag at the left margin, its description at a deeper indent.

Man pages (groff's `.TP`, `.IP`), Texinfo's `@table` and other definition lists set an item's tag
(`-c`, `--login`) at the left and its description at a deeper indent: from the tag's own baseline
where the tag fits in the indent, else from the line below it. pdfminer boxes the tag apart from
its description, and a run of short tags into one box of their own beside one box of all their
descriptions: bash.pdf's page 1 read `-c -i -l -r -s`, then five descriptions, so a hit on a
description never showed which option it describes, and the tag went to another chunk.

Here a tag on a description line's baseline opens that line's paragraph, `tag  description…` (a
box holding several items' descriptions is parted before each tagged line); a tag on a line of its
own, the last of its box (Texinfo's `@itemx` stacks tags), just above a description's first line
opens that description's paragraph, the description on the next line. A tag is the first text on
its row, at its box's left edge; the description stands to its right (or below it), no line of its
box left of it, and at most MAX_INDENT of the page's width in from the tag: the columns of a
two-column page, and a running head's pieces, lie further apart.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import dataclass, field

from pdfminer.layout import LTChar, LTTextBox, LTTextLine

from minirag.ingest.pdf_tables import rows_of

MAX_INDENT = 0.2  # of the page's width: how far in from its tag a description may start
# Of a line's height: the most from a tag's baseline to its description's, one line below. Lines
# follow at 1.2 (groff, Texinfo: 12 points for 10, 13 for 11); a paragraph after another at 1.45
# and more (R-intro.pdf: 16 for 11, Texinfo's parskip), and so does a code example after its line.
MAX_LEADING = 1.3
_EDGE = 2.0  # points: a line this near its box's left edge is at it
# A note in the margin stands beside a paragraph of this many lines at least, set this share of the
# page's width at least (LaTeX's text is half of it and more).
MIN_NOTED_LINES = 3
MIN_NOTED_WIDTH = 0.4


@dataclass(frozen=True)
class Hanging:
    """A page's hanging indents.

    A tag on a description's first line, in a box of tags alone, is read where its description
    stands: `opened` maps the id() of that line to the tag's text, and `hidden` holds the id() of
    such tags. A tag in a box that holds more (bash.pdf's `-t fd` amid `-a file True if file
    exists.` lines pdfminer kept whole) is read where it stands, with its description: `tagged`
    maps its id() to the description's lines, from the first to the next tagged line of their box,
    and `described` holds the id() of those lines. `above` maps the id() of a box whose last line
    is a tag set above a description to the box holding it, read right after it with no empty line
    between; `parted` holds the id() of such a tag where its box holds more above it, indented
    deeper (the description before, which pdfminer boxed with the next item's tag): an empty line
    goes before it. `notes` maps the id() of a box of notes in the margin to the box of the
    paragraph they stand beside, read right before it: its lines are no tags. `numbers` holds the
    id() of boxes of line numbers beside a paragraph's lines (lineno's), left out."""

    opened: dict[int, str]
    hidden: frozenset[int]
    tagged: dict[int, tuple[LTTextLine, ...]]
    described: frozenset[int]
    above: dict[int, LTTextBox]
    parted: frozenset[int] = frozenset()
    notes: dict[int, LTTextBox] = field(default_factory=dict)
    numbers: frozenset[int] = frozenset()

    def order(self, items: list) -> list:
        """`items` with each description box of `above` moved to just after its tags' box, and each
        box of `notes` to just before its paragraph's."""
        moved = {id(box) for box in self.above.values()}
        noted: dict[int, list] = {}
        for item in items:
            if id(item) in self.notes:
                noted.setdefault(id(self.notes[id(item)]), []).append(item)
        out: list = []
        done: set[int] = set()  # each item is read once, whatever names it twice

        def read(item: object) -> None:
            for each in (*noted.pop(id(item), ()), item):
                if id(each) not in done:
                    done.add(id(each))
                    out.append(each)

        for item in items:
            if id(item) in moved or id(item) in self.notes or id(item) in self.numbers:
                continue
            read(item)
            while id(item) in self.above:
                item = self.above[id(item)]
                read(item)
        for held in list(noted.values()):  # (their paragraph is not among items)
            for note in held:
                read(note)
        return out


NONE = Hanging({}, frozenset(), {}, frozenset(), {})


def hanging(boxes: Sequence[LTTextBox], width: float) -> Hanging:
    """The hanging indents among a page's `boxes` (text boxes outside its tables), `width` its width."""
    box_of = {id(line): box for box in boxes for line in box if isinstance(line, LTTextLine) and line.get_text().strip()}
    lines = [line for box in boxes for line in box if id(line) in box_of]
    reach = MAX_INDENT * width
    tag_of: dict[int, LTTextLine] = {}  # the id() of a description's first line -> its tag
    beside: set[int] = set()  # the id() of each line with more text to its right on its row
    pairs: list[tuple[LTTextLine, LTTextLine]] = []  # (a line in the margin, the line right of it)
    for row in rows_of(lines):
        row.sort(key=lambda line: line.x0)
        beside.update(id(line) for line in row[:-1])
        if len(row) < 2:
            continue
        tag, first = row[0], row[1]
        tag_box, box = box_of[id(tag)], box_of[id(first)]
        # Lines right of the description's box are another column's (elsarticle's right column).
        if (tag_box is box or any(box_of[id(line)] is not box and line.x0 < box.x1 for line in row[2:])
                or tag.x1 > first.x0 or first.x0 - tag.x0 > reach):
            continue
        pairs.append((tag, first))
    notes, numbers = _margin_notes(pairs, box_of, width)
    for tag, first in pairs:
        tag_box, box = box_of[id(tag)], box_of[id(first)]
        if id(tag_box) not in notes and id(tag_box) not in numbers and tag.x0 <= tag_box.x0 + _EDGE and first.x0 <= box.x0 + _EDGE:
            tag_of[id(first)] = tag
    tags = {id(tag) for tag in tag_of.values()}
    # Tags in boxes of tags alone (all short, in a column) are read where their descriptions stand:
    # a box between two of those (shared-mime-info-spec.pdf's `Note:` inside a bullet) keeps its place.
    alone = {id(box) for box in boxes if all(id(line) in tags for line in box if id(line) in box_of)}
    opened = {first: " ".join(tag.get_text().split()) for first, tag in tag_of.items() if id(box_of[id(tag)]) in alone}
    hidden = frozenset(id(tag) for tag in tag_of.values() if id(box_of[id(tag)]) in alone)
    tagged: dict[int, list[LTTextLine]] = {}
    for box in boxes:
        current: list[LTTextLine] | None = None
        for row in rows_of([line for line in box if id(line) in box_of]) if any(
                id(line) in tag_of for line in box) else ():
            heading = tag_of.get(id(min(row, key=lambda line: line.x0)))
            if heading is not None:
                current = None if id(heading) in hidden else tagged.setdefault(id(heading), [])
            if current is not None:
                current.extend(row)
    described = frozenset(id(line) for held in tagged.values() for line in held)
    tops = sorted((box.y1, at) for at, box in enumerate(boxes))
    found: dict[int, tuple[LTTextBox, int | None]] = {}  # a tag's box -> its description's, the tag to part
    for tag_box in boxes:
        if id(tag_box) in notes or id(tag_box) in numbers:
            continue
        rows = rows_of([line for line in tag_box if id(line) in box_of])
        # A line with more beside it is no tag: what is below goes on from the whole row (a heading
        # wrapped at a hanging indent, `2. Evanescent vs.` | `conventional ...` over `coupling`).
        if (not rows or len(rows[-1]) > 1 or id(rows[-1][0]) in tags or id(rows[-1][0]) in described
                or id(rows[-1][0]) in beside or rows[-1][0].x0 > tag_box.x0 + _EDGE):
            continue
        last = rows[-1][0]
        window = tops[bisect.bisect_left(tops, (last.y0 - 2 * last.height, -1)):
                      bisect.bisect_right(tops, (last.y0 + _EDGE, len(boxes)))]
        below = _description_below(last, tag_box, [boxes[at] for _, at in window], box_of, described, reach)
        if below is not None and id(below) not in notes and id(below) not in numbers and not _ends_a_paragraph(rows, below):
            deeper = len(rows) > 1 and min(line.x0 for line in rows[-2]) > last.x0 + _EDGE
            found[id(tag_box)] = (below, id(last) if deeper else None)
    # A tag's box is no description of the line above it (grep.pdf's `General Output Control`, a
    # heading less indented, over `-c, --count`), and a description is one tag's.
    above: dict[int, LTTextBox] = {}
    taken: set[int] = set()
    parted: set[int] = set()
    for key, (below, part) in found.items():
        if id(below) not in found and id(below) not in taken:
            above[key] = below
            taken.add(id(below))
            if part is not None:
                parted.add(part)
    return Hanging(opened, hidden, {key: tuple(held) for key, held in tagged.items()}, described, above,
                   frozenset(parted), notes, numbers)


def _margin_notes(pairs: list[tuple[LTTextLine, LTTextLine]], box_of: dict[int, LTTextBox],
                  width: float) -> tuple[dict[int, LTTextBox], frozenset[int]]:
    """The boxes of notes in the margin (LaTeX's `\\marginpar`, ltxdoc's `\\DescribeMacro`), each
    mapped to the box of the paragraph it stands beside: a box with a line on the row of a line that
    goes on with its paragraph (set justified, most of its lines, and the one above it, run to the
    box's right edge, and the sentence runs on over it: a lowercase word opens it, or a hyphen or a
    comma ends the one above) or that opens a paragraph with an indent; and a box of two lines or more
    left of the page's text (its paragraphs of a text's width), one of them on the row of a line whose
    baseline is not its own: a note is set at its own leading,
    and beside code (set smaller, or tighter) its lines leave the rows' baselines. A definition list's
    tag stands beside an item's first line, on its baseline, which does neither. The paragraph is the
    one most of the box's rows are beside (the lowest of those beside as many).
    Such a box of numbers alone (lineno's line numbers) is no note: its id() is in the second
    value, boxes left out (a code listing's line numbers stand beside lines of code, no paragraph,
    and stay its lines' tags)."""
    marked: set[int] = set()
    beside: dict[int, dict[int, int]] = {}  # a note's box -> the boxes its lines stand beside -> how many
    paragraphs: dict[int, _Paragraph | None] = {}  # each box's lines, read once
    # The page's text starts no further left than its paragraphs of a text's width: a note stands left of it.
    text_left = min((box.x0 for box in box_of.values() if box.x1 - box.x0 >= MIN_NOTED_WIDTH * width), default=0.0)
    for tag, first in pairs:
        tag_box, box = box_of[id(tag)], box_of[id(first)]
        counts = beside.setdefault(id(tag_box), {})
        counts[id(box)] = counts.get(id(box), 0) + 1
        if id(box) not in paragraphs:
            paragraphs[id(box)] = _justified(box, width)
        lines = paragraphs[id(box)]
        off_baseline = len(tag_box) > 1 and tag_box.x1 < text_left and abs(_baseline(tag) - _baseline(first)) > _EDGE
        if off_baseline or (lines is not None and _runs_on(first, box, lines)):
            marked.add(id(tag_box))
    paragraph_of = {id(box): box for _, first in pairs for box in (box_of[id(first)],)}
    held = {id(box_of[id(tag)]): box_of[id(tag)] for tag, _ in pairs}
    # Of boxes it stands beside as much, the one it spans more of (a note LaTeX pushed down off its
    # line, beside the foot of its paragraph and the next one's first line), then the lowest: a
    # note beside a paragraph's last line and the code below it goes between them.
    notes = {key: paragraph_of[max(counts, key=lambda at: (counts[at], _overlap(held[key], paragraph_of[at]),
                                                             -paragraph_of[at].y1))]
             for key, counts in beside.items() if key in marked}
    numbers = frozenset(key for key in notes if not any(c.isalpha() for c in held[key].get_text()))
    return {key: box for key, box in notes.items() if id(box) not in notes and key not in numbers}, numbers


def _overlap(note: LTTextBox, box: LTTextBox) -> float:
    """How far the two boxes stand beside each other, top to bottom, in whole points."""
    return round(max(0.0, min(note.y1, box.y1) - max(note.y0, box.y0)))


def _baseline(line: LTTextLine) -> float:
    """Where the line's first character stands (its bottom, for a line without one)."""
    return next((item.matrix[5] for item in line if isinstance(item, LTChar)), line.y0)


@dataclass(frozen=True)
class _Paragraph:
    """A box's lines top to bottom, where each stands in that order (by id()), and the id() of
    those that run to its right edge."""

    lines: list[LTTextLine]
    at: dict[int, int]
    full: frozenset[int]


def _justified(box: LTTextBox, width: float) -> _Paragraph | None:
    """The box's lines, where it is a paragraph of a text's width, MIN_NOTED_LINES or more set
    justified (most of its lines run to its right edge); None for any other box: in a box of short
    descriptions, bash.pdf's `alert (bell)` over `backspace`, the widest line runs to the edge too."""
    own = sorted((other for other in box if isinstance(other, LTTextLine) and other.get_text().strip()),
                 key=lambda other: -other.y0)
    if len(own) < MIN_NOTED_LINES or box.x1 - box.x0 < MIN_NOTED_WIDTH * width:
        return None
    full = frozenset(id(other) for other in own if other.x1 >= box.x1 - other.height)
    if len(full) * 2 <= len(own):
        return None
    return _Paragraph(own, {id(other): at for at, other in enumerate(own)}, full)


def _runs_on(line: LTTextLine, box: LTTextBox, paragraph: _Paragraph) -> bool:
    """Whether `line` (of `box`, a justified paragraph) goes on with the paragraph of the line above
    it, or opens one with an indent: no item's first line."""
    own, at = paragraph.lines, paragraph.at[id(line)]
    while at > 0 and own[at - 1].y0 <= line.y1 - _EDGE:  # a piece of the same row, left of it
        at -= 1
    if at == 0:
        return line.x0 > box.x0 + _EDGE
    last = own[at - 1]
    text, ending = line.get_text().strip(), last.get_text().rstrip()
    return id(last) in paragraph.full and (text[:1].islower() or ending[-1:] in ("-", ","))


def _ends_a_paragraph(rows: list[list[LTTextLine]], below: LTTextBox) -> bool:
    """Whether the last of `rows` (a box's) ends a paragraph whose lines run to the right margin, as
    `below` does: the next paragraph's first line, indented (a book's, Vicksburg's OCR), follows it
    as a description follows its tag."""
    last = rows[-1][0]
    return any(abs(row[0].x0 - last.x0) <= _EDGE and max(line.x1 for line in row) >= below.x1 - 3 * last.height
               for row in rows[:-1])


def _description_below(tag: LTTextLine, tag_box: LTTextBox, boxes: Sequence[LTTextBox],
                       box_of: dict[int, LTTextBox], described: frozenset[int], reach: float) -> LTTextBox | None:
    """The box (of `boxes`, those whose tops are near `tag`'s foot) whose first line starts a
    description just below `tag` at a deeper indent, or None."""
    for box in boxes:
        if box is tag_box:
            continue
        own = [line for line in box if id(line) in box_of]
        if not own:
            continue
        first = max(own, key=lambda line: line.y1)
        if (tag.y0 - first.y1 >= -_EDGE and tag.y0 - first.y0 <= MAX_LEADING * max(tag.height, first.height)
                and tag.x0 + _EDGE < first.x0
                and first.x0 - tag.x0 <= reach and box.x0 >= first.x0 - _EDGE and id(first) not in described):
            return box
    return None
