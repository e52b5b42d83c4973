"""A slide's shapes read by position (pptx_order.by_position, used for .pptx, .ppt and .odp slides and a
group's shapes) whatever their number and however they nest: a crafted slide must neither fail (the
column and band cuts recursed once per level) nor cost its shapes squared."""

from __future__ import annotations

from helpers.growth import grows_linearly

from minirag.ingest.pptx_order import Placed, by_position

INCH = 914400


def _staircase(count: int) -> list[Placed]:
    # Each shape alone beside (or above) all those after it: one more level of columns, then of bands.
    return [Placed(top=at * INCH, left=at * INCH, width=INCH // 2, height=10_000 * INCH) if at % 2 == 0
            else Placed(top=at * INCH, left=at * INCH, width=10_000 * INCH, height=INCH // 2) for at in range(count)]


def _two_columns(rows: int) -> list[Placed]:
    # A heading across the slide over two columns of boxes, one row of two after another.
    boxes = [Placed(top=0, left=0, width=10 * INCH, height=INCH)]
    for row in range(rows):
        boxes += [Placed(top=(row + 2) * INCH, left=0, width=4 * INCH, height=INCH // 2),
                  Placed(top=(row + 2) * INCH, left=5 * INCH, width=4 * INCH, height=INCH // 2)]
    return boxes


def test_shapes_nested_deeper_than_pythons_recursion_still_read_in_order():
    order = by_position(_staircase(3_000))
    assert order == list(range(3_000))


def test_two_columns_of_many_rows_read_a_column_at_a_time():
    order = by_position(_two_columns(3))
    assert order == [0, 1, 3, 5, 2, 4, 6]


def test_bands_joined_into_columns_cost_their_shapes_not_their_shapes_squared():
    assert grows_linearly(lambda shapes: by_position(shapes), lambda size: _two_columns(size // 4))
