"""A DOCX table that holds a table is read as blocks, as html_markdown.py reads an HTML one, and
merged cells are laid out as a plain grid.

markitdown's DOCX path (mammoth's HTML, then markdownify) writes a table inside a cell into the
outer row's one line, pipes and all (`| CCC | | DDD | EEE | | --- | --- | | FFF | GGG | |`): no
reader, nor the chunker, can tell its rows apart. A Word table that holds a table lays a page
out (a form, a letterhead); the data is in the inner one. So the outer table's cells become
blocks, in reading order, and the inner table stays a table.

mammoth turns Word's merges (w:vMerge, w:gridSpan) into rowspan and colspan. markdownify ignores
rowspan, so the rows under a cell merged down started a column left, and writes a colspan's text
once with empty cells after it. So merged cells are spread as table_spans.py says, a cell at each
position, before markdownify reads the table; a title row over the whole table is a block before it.
A document without such tables (or notes: `_NOTE_REFERENCE`) keeps mammoth's HTML as it was,
byte for byte.
"""

from __future__ import annotations

import re
from copy import deepcopy
from html import escape
from typing import Any

import lxml.html

from minirag.ingest.markdownify_escapes import inner_underscores_as_written
from minirag.ingest.table_spans import spread, table_cells, title_rows

_CELLS = "./tr/td | ./tr/th | ./*/tr/td | ./*/tr/th"  # rows directly, or in thead, tbody, tfoot
_ROWS = "./tr | ./*/tr"
# mammoth links a footnote's or endnote's number to its note and the note back with an arrow:
# `[[1]](#footnote-1)` and `[↑](#footnote-ref-1)` in every chunk that held them, where Word
# shows a plain number and no arrow.
_NOTE_REFERENCE = re.compile(r'<a href="#(?:foot|end)note-\d+" id="(?:foot|end)note-ref-\d+">(\[\d+\])</a>')
_NOTE_BACKLINK = re.compile(r'\s*<a href="#(?:foot|end)note-ref-\d+">↑</a>')
_LEADING_HASH = re.compile(r"(<(?:p|li|td|th)>\s*+)#")  # mammoth writes these tags without attributes


def nested_tables_as_blocks(html: str) -> str:
    """mammoth's HTML with each table that holds a table replaced by its cells, one block each."""
    if html.count("<table") < 2:
        return html
    root = lxml.html.fragment_fromstring(html, create_parent="div")
    holders = [table for table in root.iter("table") if table.find(".//table") is not None]
    if not holders:
        return html
    for table in holders:  # outermost first; an inner holder moves with its cell and is still found
        cells = table.xpath(_CELLS)
        for cell in cells:
            cell.tag = "div"
            cell.attrib.clear()  # colspan and rowspan say nothing about a block
            table.addprevious(cell)  # moves the cell out of its row, to where the table stood
        table.drop_tree()  # the rows, now empty; the table's tail text stays
    return _markup(root)


def merged_cells_spread(html: str) -> str:
    """mammoth's HTML with each table's merged cells repeated at every position they cover, and its
    title rows (table_spans.title_rows) made blocks before it."""
    if "span=" not in html:
        return html
    root = lxml.html.fragment_fromstring(html, create_parent="div")
    spread_any = False
    for table in list(root.iter("table")):
        rows = table.xpath(_ROWS)
        grid = spread(rows, lambda cell: len(cell.text_content()))
        titles = title_rows(grid or [table_cells(tr) for tr in rows])
        for tr in rows[:titles]:
            cell = table_cells(tr)[0]
            cell.tag = "div"
            cell.attrib.clear()
            cell.tail = None
            table.addprevious(cell)
            tr.drop_tree()
        rows = rows[titles:]
        spread_any = spread_any or titles > 0
        if grid is None:
            continue
        grid = grid[titles:]
        spread_any = True
        width = max(len(row) for row in grid)
        seen = set()
        for tr, row in zip(rows, grid, strict=True):
            for cell in table_cells(tr):
                tr.remove(cell)
            for cell in row + [None] * (width - len(row)):
                if cell is None:
                    tr.append(tr.makeelement("th" if tr.getparent().tag == "thead" else "td", {}))
                    continue
                placed = cell if cell not in seen else deepcopy(cell)
                seen.add(cell)
                placed.attrib.pop("rowspan", None)
                placed.attrib.pop("colspan", None)
                placed.tail = None
                tr.append(placed)
    return _markup(root) if spread_any else html


def _markup(root: Any) -> str:
    """The children of fragment_fromstring's made-up parent, as markup."""
    head = escape(root.text or "")
    return head + "".join(lxml.html.tostring(child, encoding="unicode") for child in root)


def docx_converter() -> Any:
    """markitdown's DocxConverter, reading nested tables as blocks and merged cells as a grid. Its
    `_html_converter` is where the DOCX's HTML goes (markitdown 0.1.x);
    tests/test_document_fidelity.py fails if that moves."""
    from markitdown.converters import DocxConverter, HtmlConverter

    class _Blocks(HtmlConverter):
        def convert_string(self, html_content: str, *args: Any, **kwargs: Any) -> Any:
            html = merged_cells_spread(nested_tables_as_blocks(html_content))
            # A paragraph that starts with `# ` (a shell comment, "# of users") is no heading, but
            # markdownify writes it as one: it is escaped, as a text file's is (text_repair.py).
            html = _LEADING_HASH.sub(r"\1\\#", html)
            html = _NOTE_BACKLINK.sub("", _NOTE_REFERENCE.sub(r"\1", html))
            result = super().convert_string(html, *args, **kwargs)
            result.markdown = inner_underscores_as_written(result.markdown)
            return result

    converter = DocxConverter()
    converter._html_converter = _Blocks()
    return converter
