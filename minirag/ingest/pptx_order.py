"""A slide's shapes in the order a reader reads them, for markitdown's PPTX converter to write.

markitdown sorted a slide's shapes by their exact top edge, then their left: a box dragged a hair
above its neighbour on the left was read before it, a tag placed above the title came before the
slide's heading (reading as the end of the slide before), and a Comparison slide's two column
headings were read before either column's body. Here the title comes first; the other
placeholders follow in the order their layout lists them (the order PowerPoint gives them on a
new slide: a column's heading, then its body), and the free shapes (text boxes, tables, pictures,
groups; a date, footer or slide number too, which a layout may list anywhere) are merged in by
position (`by_position`), a group's shapes likewise. A shape without a position (a placeholder
its layout does not place) reads first, as markitdown read it.

By position is by the slide's geometry: shapes standing side by side in columns (no shape
spanning the gap between them) read a column at a time, left to right, each top to bottom; else
the shapes are cut into bands across the slide (no shape spanning the gap between two bands),
read top to bottom, and a band in columns takes in the bands below it while columns still run
through them all, read as those columns (stacked text boxes in two columns under a heading read a
column at a time, not a row of two boxes at a time; a box under the left column alone is that
column's last). Shapes that overlap so that no gap cuts them read in
rows (`by_rows`): top to bottom, shapes whose tops lie within `ROW_TOLERANCE` of a row's first
being on that row, each row left to right. Boxes overlapping by less than `ROW_TOLERANCE` (a text
box grown by its text over the one below) still stand apart.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

# Columns in bands in columns, one inside another, a slide is read by; past them (a crafted slide, no
# real one), its shapes read in rows: each level cost a call, and Python's recursion has a bound.
MAX_CUTS = 64
ROW_TOLERANCE = 114300  # EMU: an eighth of an inch, more than PowerPoint's snap grid (1/12 in)
_UNPLACED = float("-inf")
# python-pptx's PP_PLACEHOLDER names for them, compared by name: a converter worker starts
# without importing python-pptx, which only a deck's conversion needs.
_CHROME = frozenset({"DATE", "FOOTER", "SLIDE_NUMBER", "HEADER"})


@dataclass(frozen=True)
class Placed:
    """Where a shape stands (EMU; None where it is not placed) and, for a placeholder its layout
    lists, its place in that list."""

    top: int | None
    left: int | None
    layout_rank: int | None = None
    width: int | None = None
    height: int | None = None


def by_rows(shapes: Sequence[Placed]) -> list[int]:
    """The indices of `shapes` top to bottom in rows, each row left to right."""
    by_top = sorted(range(len(shapes)), key=lambda at: _top(shapes[at]))
    ordered: list[int] = []
    row: list[int] = []
    for at in by_top:
        if row and _top(shapes[at]) - _top(shapes[row[0]]) > ROW_TOLERANCE:
            ordered += sorted(row, key=lambda each: _left(shapes[each]))
            row = []
        row.append(at)
    ordered += sorted(row, key=lambda each: _left(shapes[each]))
    return ordered


def by_position(shapes: Sequence[Placed]) -> list[int]:
    """The indices of `shapes` as read by their geometry: the unplaced first, then in columns and
    bands (the module's docstring)."""
    unplaced = [at for at, shape in enumerate(shapes) if shape.top is None or shape.left is None]
    placed = [at for at, shape in enumerate(shapes) if shape.top is not None and shape.left is not None]
    return unplaced + _cut_order(shapes, placed)


def _cut_order(shapes: Sequence[Placed], items: list[int], depth: int = 0) -> list[int]:
    if len(items) <= 1:
        return items
    if depth > MAX_CUTS:
        return [items[at] for at in by_rows([shapes[each] for each in items])]
    columns = _pieces(shapes, items, across=True)
    if len(columns) > 1:
        return [at for column in columns for at in _cut_order(shapes, column, depth + 1)]
    bands = _pieces(shapes, items, across=False)
    if len(bands) == 1:
        return [items[at] for at in by_rows([shapes[each] for each in items])]
    ordered: list[int] = []
    group, reach = bands[0], _across(shapes, bands[0])
    for band in bands[1:]:
        own = _across(shapes, band)
        joined = _merged([*reach, *own])  # what the group's columns and the band's cover, side by side
        if len(reach) > 1 and len(joined) > 1:
            group += band
            reach = joined
        else:
            ordered += _cut_order(shapes, group, depth + 1)
            group, reach = band, own
    return ordered + _cut_order(shapes, group, depth + 1)


def _across(shapes: Sequence[Placed], items: list[int]) -> list[tuple[int, int]]:
    """What `items` cover side by side, as the stretches no gap cuts (one a column of `_pieces`)."""
    return _merged([_span(shapes[at], True) for at in items])


def _merged(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    merged: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


def _pieces(shapes: Sequence[Placed], items: list[int], *, across: bool) -> list[list[int]]:
    """`items` cut where no shape spans a gap: side by side (`across`) or one above another."""
    spans = {at: _span(shapes[at], across) for at in items}
    pieces: list[list[int]] = []
    reach = float("-inf")
    for at in sorted(items, key=lambda each: spans[each]):
        start, end = spans[at]
        if not pieces or start > reach:
            pieces.append([])
            reach = end
        pieces[-1].append(at)
        reach = max(reach, end)
    return pieces


def _span(shape: Placed, across: bool) -> tuple[int, int]:
    """Where `shape` starts and ends along an axis, its end drawn in by `ROW_TOLERANCE` where
    it is long enough that a slight overlap with the next is no overlap."""
    start = (shape.left if across else shape.top) or 0
    length = (shape.width if across else shape.height) or 0
    end = start + length
    return start, end - ROW_TOLERANCE if length > 2 * ROW_TOLERANCE else end


def reading_order(shapes: Sequence[Placed]) -> list[int]:
    """The indices of a slide's `shapes` (its title left out) as read: its placeholders in their
    layout's order, its other shapes merged in by position (`by_position`)."""
    position = {at: rank for rank, at in enumerate(by_position(shapes))}
    placeholders = sorted((at for at, shape in enumerate(shapes) if shape.layout_rank is not None),
                          key=lambda at: (shapes[at].layout_rank, position[at]))
    free = sorted((at for at, shape in enumerate(shapes) if shape.layout_rank is None), key=position.__getitem__)
    ordered: list[int] = []
    next_free = 0
    for at in placeholders:
        while next_free < len(free) and position[free[next_free]] < position[at]:
            ordered.append(free[next_free])
            next_free += 1
        ordered.append(at)
    return ordered + free[next_free:]


def slide_shapes(slide: Any) -> list[Any]:
    """The python-pptx shapes of `slide` as read, its title first."""
    title = slide.shapes.title
    shapes = [shape for shape in slide.shapes if shape != title]
    ranks = _layout_ranks(slide)
    placed = [_placed(shape, ranks.get(_placeholder_idx(shape)) if _in_layout_order(shape) else None)
              for shape in shapes]
    return ([title] if title is not None else []) + [shapes[at] for at in reading_order(placed)]


def group_shapes(group: Any) -> list[Any]:
    """The python-pptx shapes of a group shape as read: by position."""
    shapes = list(group.shapes)
    return [shapes[at] for at in by_position([_placed(shape, None) for shape in shapes])]


def _placed(shape: Any, layout_rank: int | None) -> Placed:
    return Placed(_edge(shape, "top"), _edge(shape, "left"), layout_rank, _edge(shape, "width"), _edge(shape, "height"))


def _layout_ranks(slide: Any) -> dict[int, int]:
    """A slide's layout's placeholders' places in its list, by placeholder index."""
    try:
        placeholders = list(slide.slide_layout.placeholders)
    except (KeyError, ValueError, AttributeError):  # a slide without a layout: placed by position alone
        return {}
    ranks: dict[int, int] = {}
    for rank, placeholder in enumerate(placeholders):
        ranks.setdefault(_placeholder_idx(placeholder), rank)
    return ranks


def _in_layout_order(shape: Any) -> bool:
    """Whether `shape` is a placeholder read in its layout's order: not a date, footer, slide
    number or header, which a layout may list anywhere and which read where they stand."""
    if not shape.is_placeholder:
        return False
    try:
        kind = shape.placeholder_format.type
    except (ValueError, AttributeError, KeyError):
        return True
    return getattr(kind, "name", None) not in _CHROME


def is_slide_number(shape: Any) -> bool:
    """Whether `shape` is a slide-number placeholder."""
    if not shape.is_placeholder:
        return False
    try:
        return getattr(shape.placeholder_format.type, "name", None) == "SLIDE_NUMBER"
    except (ValueError, AttributeError, KeyError):
        return False


def _placeholder_idx(shape: Any) -> int:
    try:
        return int(shape.placeholder_format.idx)
    except (ValueError, AttributeError):
        return -1


def _edge(shape: Any, name: str) -> int | None:
    value = getattr(shape, name, None)
    return int(value) if value is not None else None


def _top(shape: Placed) -> float:
    return _UNPLACED if shape.top is None else shape.top


def _left(shape: Placed) -> float:
    return _UNPLACED if shape.left is None else shape.left
