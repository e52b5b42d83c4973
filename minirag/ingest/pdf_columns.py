"""A PDF's text as pdfminer's extract_text gives it, but a page set in two columns is read column by
column.

pdfminer orders a page's text boxes by clustering them, nearest first, so a short box (a section
heading cut into three pieces) can pull the other column's neighbouring paragraphs between two of
its own: in elsarticle's two-column sample, page 2 read the top of column 1, then the first two
paragraphs of column 2, then column 1's heading and the rest of it, parting the sentence that runs
from the foot of column 1 to the head of column 2 by a whole column.

A page has two columns when a vertical line in its middle third (the gutter) leaves paragraphs
(boxes of two lines or more) holding more than a fifth of the page's letters and digits wholly on
each side, set about as wide on both. Boxes that cross it (a title, an abstract, a wide table), and
single lines above or below the columns' paragraphs (a running header, a footnote), cut the page
into bands, read top to bottom; within a band the left column is read before the right, and within
a column boxes keep pdfminer's order. A page without such a gutter keeps pdfminer's order, so its
text is what extract_text gives, but for its tables, which are read row by row (pdf_tables.py), and
for the lines of a box that stand on one row (a line its producer drew in pieces), read left to right
as one line (row_text).
"""

from __future__ import annotations

import io
from collections.abc import Sequence

from pdfminer.converter import TextConverter
from pdfminer.layout import (
    LAParams,
    LTContainer,
    LTItem,
    LTPage,
    LTText,
    LTTextBox,
    LTTextBoxHorizontal,
    LTTextLine,
)
from pdfminer.pdfinterp import PDFResourceManager
from pdfminer.pdfpage import PDFPage

from minirag._compat.pdfminer import (
    font_widths_as_given,
    marks_join_their_letters,
    octal_overflow_ignored,
    order_layout_ties,
)
from minirag.ingest.conversion_progress import advanced
from minirag.ingest.pdf_cjk_lines import boxes_going_on, goes_on
from minirag.ingest.pdf_footnotes import footnotes_apart, parted_mark
from minirag.ingest.pdf_hanging import NONE, Hanging, hanging
from minirag.ingest.pdf_overprint import overprinted_dashes_dropped
from minirag.ingest.pdf_rtl_lines import glyphs_as_drawn, joined_lines, kerned_gaps_closed
from minirag.ingest.pdf_spaced_lines import boxes_running_on
from minirag.ingest.pdf_tables import page_tables, rows_of
from minirag.ingest.pdf_visible import OnThePage, SeenInterpreter

COLUMN_SHARE = 0.2  # of a page's letters and digits, that each column must hold wholly on its side
COLUMN_WIDTHS = 0.75  # the narrower column's width, at least, as a share of the wider's
_GUTTER_FROM, _GUTTER_TO = 1 / 3, 2 / 3  # where on the page's width a gutter may run


def pdf_text(data: bytes) -> str:
    """Each page's text followed by a form feed, as pdfminer's extract_text gives it, a
    two-column page read column by column; the same text in every run (order_layout_ties)."""
    order_layout_ties()
    font_widths_as_given()
    octal_overflow_ignored()
    marks_join_their_letters()
    with io.StringIO() as output:
        manager = PDFResourceManager(caching=True)
        device = _ColumnText(manager, output, laparams=LAParams())
        interpreter = SeenInterpreter(manager, device)
        for page in PDFPage.get_pages(io.BytesIO(data), caching=True):
            interpreter.process_page(page)
            advanced()
        return output.getvalue()


class _ColumnText(OnThePage, TextConverter):
    joined: dict[int, str] = {}  # set anew for each page
    hanging: Hanging = NONE  # set anew for each page
    footnote_marks: set[int] = set()  # set anew for each page: footnotes' lines whose mark is parted from their first word
    going_on: set[int] = set()  # set anew for each page: Chinese or Japanese boxes whose last line goes on into the next box
    running_on: set[int] = set()  # set anew for each page: boxes whose paragraph goes on in the next box (pdf_spaced_lines.py)

    def receive_layout(self, ltpage: LTPage) -> None:
        items = reading_order(list(ltpage), ltpage.x0, ltpage.x1)
        boxes = [item for item in items if isinstance(item, LTTextBox)]
        lines = [line for box in boxes for line in box if isinstance(line, LTTextLine)]
        overprinted_dashes_dropped(lines)
        kerned_gaps_closed(lines)
        glyphs_as_drawn(lines)
        self.joined = joined_lines(boxes)
        tables = page_tables(boxes)
        in_table = {key: table for table in tables for key in table.boxes}
        self.hanging = NONE if self.joined else hanging(
            [box for box in boxes if id(box) not in in_table and isinstance(box, LTTextBoxHorizontal)],
            ltpage.x1 - ltpage.x0)
        ordered, self.footnote_marks = footnotes_apart(self.hanging.order(items), set(in_table),
                                                      ltpage.x1 - ltpage.x0)
        read_as_boxes = [item if isinstance(item, LTTextBoxHorizontal) and id(item) not in in_table
                         and not self._apart(item) else None
                         for item in ordered if isinstance(item, (LTText, LTContainer))]  # what writes no text: no break
        self.going_on = set() if self.joined else boxes_going_on(read_as_boxes)
        self.running_on = boxes_running_on(
            [box if box is None or not any(id(line) in self.joined for line in box) else None for box in read_as_boxes])
        for item in ordered:
            table = in_table.get(id(item))
            if table is None:
                self._render(item)
            elif table.first == id(item):
                self.write_text(table.text + "\n")  # row by row where its first box stood, a block as a box is
        self.write_text("\f")

    def _render(self, item: LTItem) -> None:  # as TextConverter renders a page's items
        if id(item) in self.joined:  # a right-to-left line whole again, or a piece of one (pdf_rtl_lines.py)
            self.write_text(self.joined[id(item)])
        elif isinstance(item, LTTextBoxHorizontal) and not self.joined:
            hanging = self.hanging
            rows = rows_of([line for line in item if isinstance(line, LTTextLine) and id(line) not in hanging.hidden
                            and id(line) not in hanging.described])  # read elsewhere, with their descriptions
            if not rows:
                return  # a box of tags, or of the descriptions of tags that stand in other boxes
            for at, row in enumerate(rows):
                tag = next((line for line in row if id(line) in hanging.tagged), None)
                opened = hanging.opened.get(id(min(row, key=lambda line: line.x0)))
                if tag is not None:  # a tag in a box of more: its description follows it there
                    self.write_text(row_text(row).rstrip("\n") + "  "
                                    + "".join(row_text(held) for held in rows_of(hanging.tagged[id(tag)])))
                elif opened is not None:  # an item of a definition list: a paragraph of its own
                    self.write_text(("\n" if at else "") + opened + "  " + row_text(row))
                else:
                    text = row_text(row)
                    if at + 1 < len(rows) and self._plain(rows[at + 1]) and goes_on(row, text, rows[at + 1], item.x1) \
                            or at + 1 == len(rows) and id(item) in self.going_on:
                        text = text.rstrip("\n")  # a Chinese or Japanese line cut inside its sentence
                    self.write_text(("\n" if at and id(row[0]) in hanging.parted else "")
                                    + (parted_mark(text) if id(row[0]) in self.footnote_marks else text))
            if id(item) in self.hanging.above:
                return  # its description follows on the next line
        elif isinstance(item, LTContainer):
            for child in item:
                self._render(child)
        elif isinstance(item, LTText):
            self.write_text(item.get_text())
        if isinstance(item, LTTextBox) and id(item) not in self.going_on and id(item) not in self.running_on:
            self.write_text("\n")  # an empty line: the paragraph's end

    def _apart(self, item: LTItem) -> bool:
        """Whether the item's lines are read apart from its box's text (tags and their descriptions)."""
        hanging = self.hanging
        return isinstance(item, LTTextBox) and (id(item) in hanging.above or any(
            id(line) in hanging.tagged or id(line) in hanging.opened or id(line) in hanging.hidden
            or id(line) in hanging.described or id(line) in self.footnote_marks for line in item))


    def _plain(self, row: Sequence[LTTextLine]) -> bool:
        """Whether the row is read as a line of its box's text, not as a tag, an item or a note."""
        hanging = self.hanging
        return not any(id(line) in hanging.tagged or id(line) in hanging.opened for line in row) \
            and id(row[0]) not in hanging.parted and id(row[0]) not in self.footnote_marks


def row_text(row: Sequence[LTTextLine]) -> str:
    """The text of lines that stand on one row of a box, left to right, as one line.

    A producer may draw a line in pieces and out of order (pdfTeX drew R-FAQ's "It then loads a saved
    image ..." before the "user workspace." left of it); pdfminer keeps each piece a line, ordered by
    its top, so a hair's rise put the second half first."""
    if len(row) == 1:
        return row[0].get_text()
    return " ".join(line.get_text().strip() for line in sorted(row, key=lambda line: line.x0)) + "\n"


def reading_order(items: Sequence[LTItem], left: float, right: float) -> list[LTItem]:
    """`items` (a page's, in pdfminer's order) column by column where the page has two columns."""
    boxes = [item for item in items if isinstance(item, LTTextBox)]
    gutter = _gutter(boxes, left, right)
    if gutter is None:
        return list(items)
    paragraphs = [box for box in boxes if len(box) > 1 and not box.x0 < gutter < box.x1]
    top, bottom = max(box.y1 for box in paragraphs), min(box.y0 for box in paragraphs)
    crossing = sorted((box for box in boxes if box.x0 < gutter < box.x1 or _furniture(box, top, bottom)),
                      key=lambda box: -box.y1)
    rank = {id(box): at for at, box in enumerate(crossing)}

    def place(position: int) -> tuple[int, int, int]:
        item = items[position]
        if not isinstance(item, LTTextBox):
            return (len(crossing), 3, position)  # figures, rules: after the text, as pdfminer puts them
        if id(item) in rank:
            return (rank[id(item)], 2, position)  # after the columns above it
        band = sum(1 for span in crossing if span.y0 >= item.y1 - 1)
        return (band, 0 if item.x1 <= gutter else 1, position)

    return [items[position] for position in sorted(range(len(items)), key=place)]


def _furniture(box: LTTextBox, top: float, bottom: float) -> bool:
    """Whether `box` is one line wholly above or below the columns' paragraphs: a running header or
    footer, which stays at its edge of the page."""
    return len(box) == 1 and (box.y0 >= top - 1 or box.y1 <= bottom + 1)


def _gutter(boxes: Sequence[LTTextBox], left: float, right: float) -> float | None:
    """The x of a vertical line in the page's middle third that leaves paragraphs (boxes of two
    lines or more) holding more than COLUMN_SHARE of the page's characters wholly on each side (the
    line crossing the fewest); None for no such line."""
    total = sum(_size(box) for box in boxes)
    sizes = [(box.x0, box.x1, _size(box)) for box in boxes if len(box) > 1]
    best: tuple[int, float] | None = None
    width = right - left
    for x in sorted({edge for x0, x1, _ in sizes for edge in (x0, x1)}):
        if not left + _GUTTER_FROM * width <= x <= left + _GUTTER_TO * width:
            continue
        before = sum(size for _, x1, size in sizes if x1 <= x)
        after = sum(size for x0, _, size in sizes if x0 >= x)
        if before > COLUMN_SHARE * total and after > COLUMN_SHARE * total and _alike(sizes, x):
            crossed = sum(size for x0, x1, size in sizes if x0 < x < x1)
            if best is None or crossed < best[0]:
                best = (crossed, x)
    return best[1] if best else None


def _alike(sizes: Sequence[tuple[float, float, int]], x: float) -> bool:
    """Whether the paragraphs either side of `x` are set about as wide (the narrower at least
    COLUMN_WIDTHS of the wider), as columns are: a table of contents' leaders and page numbers, or
    a code listing's indented continuation lines, are narrower than what stands beside them."""
    left = x - min(x0 for x0, x1, _ in sizes if x1 <= x)
    right = max(x1 for x0, x1, _ in sizes if x0 >= x) - x
    return min(left, right) >= COLUMN_WIDTHS * max(left, right)


def _size(box: LTTextBox) -> int:
    """The box's letters and digits: a column of leader dots is no text."""
    return sum(1 for c in box.get_text() if c.isalnum())
