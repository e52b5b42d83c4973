"""A slide's chart as markitdown's PPTX converter writes it, mended where it reads wrong.

markitdown writes a chart as a table of its data, and ends it without a line break, so the text
of the shape after the chart (a caption, the slide's conclusion) was glued onto the table's last
row (`| Q2 | 3.0 |Sales fell in Q2.`): one row of the table to every reader and to the chunker.
It writes each value as Python shows a float, `3.0` for the 3 typed in the chart's sheet; a
whole value reads as the whole number it is, as in a spreadsheet's cells (xlsx_tables.py). And it
wrote a blank point (a gap in a line, a missing bar: python-pptx gives None) as the word `None`,
which no reader of the chart sees and a query for "none" found; a blank point is an empty cell,
as a series shorter than its categories ends in empty cells.

Its slide loop is taken over too, to read each slide's shapes in reading order (pptx_order.py).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from minirag.ingest import pptx_order
from minirag.ingest.conversion_progress import advanced
from minirag.ingest.markdownify_escapes import inner_underscores_as_written

_PIPE = "\ue000"  # a private-use character, standing for a cell's `|` while markdownify writes the table
_WHOLE = re.compile(r"(?<= )(-?\d+)\.0(?= \|)")


def pptx_converter() -> Any:
    """markitdown's PptxConverter with its charts' tables ended and their whole values whole, and
    its tables' cells as typed, its shapes in reading order. Its `_convert_chart_to_markdown` is
    where a chart is written, `_convert_table_to_markdown` a table, `_convert_picture_to_markdown`
    a picture and `convert` the deck (markitdown 0.1.x);
    tests/test_document_fidelity.py fails if that moves."""
    from markitdown.converters import PptxConverter

    class _Charts(PptxConverter):
        def convert(self, file_stream: Any, stream_info: Any, **kwargs: Any) -> Any:
            return _slides_in_reading_order(self, file_stream, **kwargs)

        def _convert_table_to_markdown(self, table: Any, **kwargs: Any) -> str:
            # Written as HTML for markdownify, whose escapes are taken out where they are noise.
            # After a blank line: markitdown's ran on from the text of the shape before it. A
            # cell's `|` (which markdownify leaves bare, ending the cell) is escaped.
            written = super()._convert_table_to_markdown(_PipesHeld(table), **kwargs)
            return "\n" + inner_underscores_as_written(written).replace(_PIPE, "\\|")

        def _convert_chart_to_markdown(self, chart: Any) -> str:
            table = super()._convert_chart_to_markdown(_BlanksEmpty(chart))
            lines = table.split("\n")
            return "\n".join(_WHOLE.sub(r"\1", line) if line.startswith("| ") else line for line in lines) + "\n"

    return _Charts()


def _slides_in_reading_order(converter: Any, file_stream: Any, **kwargs: Any) -> Any:
    """markitdown's `PptxConverter.convert` (markitdown 0.1.x), each slide's shapes and each
    group's in reading order (pptx_order.py) instead of sorted by their exact top edge."""
    import pptx
    from markitdown import DocumentConverterResult
    from pptx.enum.shapes import MSO_SHAPE_TYPE

    group = MSO_SHAPE_TYPE.GROUP
    presentation = pptx.Presentation(file_stream)
    parts: list[str] = []
    for number, slide in enumerate(presentation.slides, start=1):
        title = slide.shapes.title
        text = [f"\n\n<!-- Slide number: {number} -->\n"]
        # A group's shapes follow it; the stack holds what is left to read, next on top.
        stack = list(reversed(pptx_order.slide_shapes(slide)))
        while stack:
            shape = stack.pop()
            if pptx_order.is_slide_number(shape):  # the number the slide marker already gives
                continue
            if converter._is_picture(shape):
                text.append(converter._convert_picture_to_markdown(shape, **kwargs))
            if converter._is_table(shape):
                text.append(converter._convert_table_to_markdown(shape.table, **kwargs))
            if shape.has_chart:
                text.append(converter._convert_chart_to_markdown(shape.chart))
            elif shape.has_text_frame:
                written = shape.text or ""
                if shape == title:
                    # One heading line: a title's line breaks (and paragraphs) are where it wraps.
                    text.append("# " + " ".join(written.split()) + "\n" if written.strip() else "")
                elif written.strip():
                    # A paragraph of its own: a box's text run on from the last (or read as
                    # the last item of its list) is one line to every reader and chunker.
                    text.append("\n" + written + "\n")
            if shape.shape_type == group:
                stack.extend(reversed(pptx_order.group_shapes(shape)))
        parts.append("".join(text))
        if slide.has_notes_slide:
            # A notes slide is made when the notes pane is merely opened: only notes with text are read.
            notes = slide.notes_slide.notes_text_frame
            written = (notes.text or "") if notes is not None else ""
            if written.strip():
                parts.append("\n\n### Notes:\n" + written)
        advanced()
    # markitdown stripped the whole text after each part (a copy of it a slide); as each part is
    # more than white space, that is each part's end stripped, and the start of the whole.
    return DocumentConverterResult(markdown="".join(part.rstrip() for part in parts).strip())


@dataclass(frozen=True)
class _Cell:
    text: str


@dataclass(frozen=True)
class _Row:
    cells: tuple[_Cell, ...]


class _PipesHeld:
    """A table as markitdown reads it (its rows' cells' text), each `|` held as `_PIPE`, which
    markdownify neither escapes nor reads as markup; a cell merged down repeated in each row it
    covers, as a DOCX's is (table_spans.py), while the copies add no more than the table's text."""

    def __init__(self, table: Any) -> None:
        # A cell a merge covers is not drawn: any text left in it goes.
        grid = [["" if cell.is_spanned else (cell.text or "").replace("|", _PIPE) for cell in row.cells]
                for row in table.rows]
        budget = sum(len(text) for row in grid for text in row)
        for top, row in enumerate(table.rows):
            for column, cell in enumerate(row.cells):
                if not cell.is_merge_origin or cell.span_height < 2:
                    continue
                text = grid[top][column]
                for below in range(top + 1, min(top + cell.span_height, len(grid))):
                    if column < len(grid[below]) and len(text) <= budget:
                        grid[below][column] = text
                        budget -= len(text)
        self.rows = tuple(_Row(tuple(_Cell(text) for text in row)) for row in grid)


@dataclass(frozen=True)
class _Series:
    name: Any
    values: tuple[Any, ...]


class _BlanksEmpty:
    """A chart as markitdown reads it (its title, plots and series), each series' values with
    its blank points, and those past its end up to the categories' count, as empty text."""

    def __init__(self, chart: Any) -> None:
        self._chart = chart

    def __getattr__(self, name: str) -> Any:
        return getattr(self._chart, name)

    @property
    def series(self) -> list[_Series]:
        categories = len(self._chart.plots[0].categories) if len(self._chart.plots) else 0
        shown = []
        for series in self._chart.series:
            values = ["" if value is None else value for value in series.values]
            shown.append(_Series(series.name, tuple(values + [""] * (categories - len(values)))))
        return shown
