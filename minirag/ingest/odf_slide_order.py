"""A presentation's (.odp) shapes on a slide in the order a reader reads them, as a PPTX's are.

LibreOffice writes a slide's shapes in their drawing order (the one added last on top, last), and
the reader read them so: a text box added last but standing at the top of the slide read at its
end, and two columns of stacked boxes read in the order they were drawn. Here each shape standing
on the slide (a frame, a custom shape, a group: its members' bounds) is noted with the blocks it
wrote, and when the slide ends they are put in the slide's reading order: its title first, then
the others by position (pptx_order.by_position: columns, then bands, then rows). A shape placed
by a transform rather than `svg:x` / `svg:y` has no position and reads first, as in a PPTX. Where
anything but shapes wrote blocks between them, the slide is left as drawn.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from minirag.ingest.pptx_order import Placed, by_position

_DRAW = "urn:oasis:names:tc:opendocument:xmlns:drawing:1.0 "
_SVG = "urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0 "
_PRESENTATION = "urn:oasis:names:tc:opendocument:xmlns:presentation:1.0 "
SHAPES = frozenset({_DRAW + name for name in ("frame", "custom-shape", "g", "rect", "ellipse", "polygon",
                                               "polyline", "path", "caption", "circle", "regular-polygon")})
_EMU = {"cm": 360000, "mm": 36000, "in": 914400, "pt": 12700, "pc": 152400, "px": 9525}  # pptx_order's unit
_LENGTH = re.compile(r"\s*(-?\d+(?:\.\d+)?)\s*(cm|mm|in|pt|pc|px)\s*$")


@dataclass(frozen=True)
class _Shape:
    placed: Placed
    begin: int  # the blocks it wrote
    end: int
    title: bool


class SlideShapes:
    """Fed the elements of a slide's body as they open and close, with how many blocks are written."""

    def __init__(self) -> None:
        self.shapes: list[_Shape] = []
        self.depth = 0
        self.begin = 0
        self.title = False
        self.bounds: list[int] | None = None  # left, top, right, bottom of the open shape

    def start(self, tag: str, attributes: dict[str, str], written: int) -> None:
        if tag not in SHAPES:
            return
        if not self.depth:
            self.begin, self.title, self.bounds = written, attributes.get(_PRESENTATION + "class") == "title", None
        self.depth += 1
        box = _box(attributes)
        if box is not None:
            self.bounds = box if self.bounds is None else [min(self.bounds[0], box[0]), min(self.bounds[1], box[1]),
                                                           max(self.bounds[2], box[2]), max(self.bounds[3], box[3])]

    def end(self, tag: str, written: int) -> None:
        if tag not in SHAPES or not self.depth:
            return
        self.depth -= 1
        if not self.depth:
            bounds = self.bounds
            placed = (Placed(None, None) if bounds is None else
                      Placed(bounds[1], bounds[0], None, bounds[2] - bounds[0], bounds[3] - bounds[1]))
            self.shapes.append(_Shape(placed, self.begin, written, self.title))

    def reordered(self, blocks: list[str]) -> None:
        """`blocks` with the slide's shapes' in reading order; the slide is done."""
        shapes = [shape for shape in self.shapes if shape.end > shape.begin]
        self.shapes, self.depth = [], 0
        if len(shapes) < 2 or any(after.begin != before.end
                                  for before, after in zip(shapes, shapes[1:], strict=False)):
            return
        titles = [shape for shape in shapes if shape.title]
        others = [shape for shape in shapes if not shape.title]
        order = titles + [others[at] for at in by_position([shape.placed for shape in others])]
        blocks[shapes[0].begin:shapes[-1].end] = [block for shape in order for block in blocks[shape.begin:shape.end]]


def _box(attributes: dict[str, str]) -> list[int] | None:
    edges = [_length(attributes.get(_SVG + name)) for name in ("x", "y", "width", "height")]
    if edges[0] is None or edges[1] is None:
        return None
    left, top = edges[0], edges[1]
    return [left, top, left + (edges[2] or 0), top + (edges[3] or 0)]


def _length(value: str | None) -> int | None:
    match = _LENGTH.match(value or "")
    return None if match is None else round(float(match.group(1)) * _EMU[match.group(2)])
