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
from dataclasses import dataclass

from pdfminer.layout import LTTextBox, LTTextLine

from minirag.ingest.pdf_tables import rows_of

MAX_INDENT = 0.2  # of the page's width: how far in from its tag a description may start
# Of a line's height: the most from a tag's baseline to its description's, one line below. Lines
# follow at 1.2 (groff, Texinfo: 12 points for 10, 13 for 11); a paragraph after another at 1.45
# and more (R-intro.pdf: 16 for 11, Texinfo's parskip), and so does a code example after its line.
MAX_LEADING = 1.3
_EDGE = 2.0  # points: a line this near its box's left edge is at it


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
    goes before it."""

    opened: dict[int, str]
    hidden: frozenset[int]
    tagged: dict[int, tuple[LTTextLine, ...]]
    described: frozenset[int]
    above: dict[int, LTTextBox]
    parted: frozenset[int] = frozenset()

    def order(self, items: list) -> list:
        """`items` with each description box of `above` moved to just after its tags' box."""
        moved = {id(box) for box in self.above.values()}
        out = []
        for item in items:
            if id(item) in moved:
                continue
            out.append(item)
            while id(item) in self.above:
                item = self.above[id(item)]
                out.append(item)
        return out


NONE = Hanging({}, frozenset(), {}, frozenset(), {})


def hanging(boxes: Sequence[LTTextBox], width: float) -> Hanging:
    """The hanging indents among a page's `boxes` (text boxes outside its tables), `width` its width."""
    box_of = {id(line): box for box in boxes for line in box if isinstance(line, LTTextLine) and line.get_text().strip()}
    lines = [line for box in boxes for line in box if id(line) in box_of]
    reach = MAX_INDENT * width
    tag_of: dict[int, LTTextLine] = {}  # the id() of a description's first line -> its tag
    beside: set[int] = set()  # the id() of each line with more text to its right on its row
    for row in rows_of(lines):
        row.sort(key=lambda line: line.x0)
        beside.update(id(line) for line in row[:-1])
        if len(row) < 2:
            continue
        tag, first = row[0], row[1]
        tag_box, box = box_of[id(tag)], box_of[id(first)]
        # Lines right of the description's box are another column's (elsarticle's right column).
        if (tag_box is box or any(box_of[id(line)] is not box and line.x0 < box.x1 for line in row[2:])
                or tag.x1 > first.x0
                or first.x0 - tag.x0 > reach or tag.x0 > tag_box.x0 + _EDGE or first.x0 > box.x0 + _EDGE):
            continue
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
        if below is not None and not _ends_a_paragraph(rows, below):
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
                   frozenset(parted))


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
