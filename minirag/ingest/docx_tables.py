"""A DOCX table that holds a table is read as blocks, as html_markdown.py reads an HTML one.

markitdown's DOCX path (mammoth's HTML, then markdownify) writes a table inside a cell into the
outer row's one line, pipes and all (`| CCC | | DDD | EEE | | --- | --- | | FFF | GGG | |`): no
reader, nor the chunker, can tell its rows apart. A Word table that holds a table lays a page
out (a form, a letterhead); the data is in the inner one. So the outer table's cells become
blocks, in reading order, and the inner table stays a table. A document without such a table
keeps mammoth's HTML as it was, byte for byte.
"""

from __future__ import annotations

from html import escape
from typing import Any

import lxml.html

_CELLS = "./tr/td | ./tr/th | ./*/tr/td | ./*/tr/th"  # rows directly, or in thead, tbody, tfoot


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
    head = escape(root.text or "")
    return head + "".join(lxml.html.tostring(child, encoding="unicode") for child in root)


def docx_converter() -> Any:
    """markitdown's DocxConverter, reading nested tables as blocks. Its `_html_converter` is where
    the DOCX's HTML goes (markitdown 0.1.x); tests/test_document_fidelity.py fails if that moves."""
    from markitdown.converters import DocxConverter, HtmlConverter

    class _Blocks(HtmlConverter):
        def convert_string(self, html_content: str, *args: Any, **kwargs: Any) -> Any:
            return super().convert_string(nested_tables_as_blocks(html_content), *args, **kwargs)

    converter = DocxConverter()
    converter._html_converter = _Blocks()
    return converter
