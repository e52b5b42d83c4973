"""A page mixing two sizes of text about 1.3x apart (body lines and a long run of larger lines,
each a box of its own) costs its lines, not its boxes times its lines: each box's meeting with the
next is checked against the pitches of its own size, never scanning the other size's many closer
ones. Built from pdfminer's own layout objects, as pdfminer hands them to the reader."""

from __future__ import annotations

from helpers.growth import grows_linearly
from pdfminer.layout import LTAnno, LTTextBoxHorizontal, LTTextLineHorizontal

from minirag.ingest.pdf_spaced_lines import boxes_running_on

BODY, LARGE = 10.0, 13.5  # 1.35x apart: not one size, but in neighbouring buckets of sizes


def _line(y0: float, size: float, text: str) -> LTTextLineHorizontal:
    line = LTTextLineHorizontal(0.1)
    line._objs.append(LTAnno(text))  # the line's text, without a glyph's box to lay out
    line.set_bbox((50.0, y0, 500.0, y0 + size))
    return line


def _box(lines: list[LTTextLineHorizontal]) -> LTTextBoxHorizontal:
    box = LTTextBoxHorizontal()
    box._objs.extend(lines)
    box.set_bbox((min(line.x0 for line in lines), min(line.y0 for line in lines),
                  max(line.x1 for line in lines), max(line.y1 for line in lines)))
    return box


def _page(count: int) -> list[LTTextBoxHorizontal | None]:
    """One box of `count` body lines at 1.2 lines' pitch, then `count` larger lines a box each."""
    y = 1e6
    body = []
    for _ in range(count):
        body.append(_line(y, BODY, "a line of the body text"))
        y -= 1.2 * BODY
    boxes: list[LTTextBoxHorizontal | None] = [_box(body)]
    y -= 4 * BODY
    for _ in range(count):
        boxes.append(_box([_line(y, LARGE, "a larger line")]))
        y -= 1.2 * LARGE
    return boxes


def test_larger_lines_a_box_each_run_on_at_their_own_pitch():
    boxes = _page(50)
    running_on = boxes_running_on(boxes)
    assert id(boxes[1]) in running_on and id(boxes[-2]) in running_on
    assert id(boxes[0]) not in running_on  # the body's last line and the first larger one: two sizes


def test_two_sizes_of_many_lines_cost_linear_time():
    pages: dict[str, list] = {}

    def page(count: int) -> str:
        pages[str(count)] = _page(count // 2)
        return str(count)

    assert grows_linearly(lambda key: boxes_running_on(pages[key]), page)
