"""A PPTX table's cells read as typed: an underscore inside a word is no markup.

markitdown writes a slide's table as HTML for markdownify, which escapes every underscore: the
settings table of a talk on PostgreSQL's WAL read `| max\\_wal\\_size | 1GB | 16GB |` while the same
name on the slide's bullets and notes read `max_wal_size`, so hits, neighbours and read_file showed
the backslashes, as a DOCX's table did before (test_e2e74_docx_underscores.py).
"""

from __future__ import annotations

import io

from minirag.ingest.convert import convert_document


def test_an_underscore_inside_a_word_of_a_table_cell_is_no_markup():
    from pptx import Presentation
    from pptx.util import Inches

    deck = Presentation()
    slide = deck.slides.add_slide(deck.slide_layouts[5])
    slide.shapes.title.text = "Settings we changed"
    rows = [["Setting", "Default", "Ours"], ["max_wal_size", "1GB", "16GB"], ["_private", "a__b", "x_"]]
    table = slide.shapes.add_table(3, 3, Inches(0.5), Inches(1.6), Inches(9), Inches(3)).table
    for r, row in enumerate(rows):
        for c, value in enumerate(row):
            table.cell(r, c).text = value
    buffer = io.BytesIO()
    deck.save(buffer)
    markdown = convert_document(buffer.getvalue(), ".pptx", "wal-tuning.pptx").markdown
    assert "| max_wal_size | 1GB | 16GB |" in markdown
    # One that starts or ends a word, or is doubled, could open emphasis: it stays escaped.
    assert "| \\_private | a\\_\\_b | x\\_ |" in markdown
