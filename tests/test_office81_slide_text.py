"""office81: a slide's title with a line break is one heading, and a table cell's `|` stays in its cell.

A title typed over two lines (a line break, or two paragraphs, where it should wrap) read as a
heading of its first line and a paragraph of the rest: `# Quarterly` then `results for 2026`, so the
section was named by half its title. And markitdown writes a slide's table through markdownify,
which leaves a cell's `|` bare: `| Linux | x86|arm |` read as three cells, the row's values shifted
into the wrong columns.
"""

from __future__ import annotations

from pathlib import Path

from pptx import Presentation
from pptx.util import Inches

from minirag.results import payload


def _read(app, docs: Path, deck) -> str:
    """The deck as `minirag read` gives it after a sync of its folder."""
    path = docs / "deck.pptx"
    deck.save(str(path))
    assert app.sync().failed == 0
    return payload(app.read(app.source_key(file_path=str(path), source=None), 0, None))["text"]


def test_a_title_over_two_lines_is_one_heading(app, docs):
    deck = Presentation()
    slide = deck.slides.add_slide(deck.slide_layouts[1])
    title = slide.shapes.title.text_frame.paragraphs[0]
    title.add_run().text = "Quarterly"
    title.add_line_break()
    title.add_run().text = "results for 2026"
    slide.placeholders[1].text_frame.text = "Revenue grew."
    text = _read(app, docs, deck)
    assert "# Quarterly results for 2026\n\n- Revenue grew." in text, text


def test_a_table_cells_pipe_stays_in_its_cell(app, docs):
    deck = Presentation()
    slide = deck.slides.add_slide(deck.slide_layouts[5])
    slide.shapes.title.text = "Builds"
    table = slide.shapes.add_table(2, 3, Inches(0.5), Inches(1.6), Inches(9), Inches(1)).table
    for column, (head, value) in enumerate([("System", "Linux"), ("Targets", "x86|arm"), ("Status", "green")]):
        table.cell(0, column).text = head
        table.cell(1, column).text = value
    text = _read(app, docs, deck)
    assert "| Linux | x86\\|arm | green |" in text, text


def test_a_cell_merged_down_reads_in_each_row_it_covers_and_a_covered_cells_text_goes(app, docs):
    """As a DOCX's merged cells read (table_spans.py): a row read alone still says its group. A
    cell under a merge is not drawn, whatever text the file left in it."""
    deck = Presentation()
    slide = deck.slides.add_slide(deck.slide_layouts[5])
    slide.shapes.title.text = "Rota"
    table = slide.shapes.add_table(3, 2, Inches(0.5), Inches(1.6), Inches(6), Inches(1.2)).table
    for row, (team, day) in enumerate([("Team", "Day"), ("Storage", "Monday"), ("", "Tuesday")]):
        table.cell(row, 0).text, table.cell(row, 1).text = team, day
    table.cell(1, 0).merge(table.cell(2, 0))
    table.cell(2, 0).text = "leftover"
    text = _read(app, docs, deck)
    assert "| Storage | Monday |\n| Storage | Tuesday |" in text, text
    assert "leftover" not in text


def test_a_slide_number_placeholders_number_is_not_read_as_the_slides_text(app, docs):
    """Each slide of a deck with numbers on showed a lone `2` (the number the slide's marker gives)
    after its text: a paragraph of noise a slide, found by a query for the number."""
    deck = Presentation()
    layout = deck.slide_layouts[1]
    number = next(shape for shape in layout.placeholders if shape.placeholder_format.type.name == "SLIDE_NUMBER")
    for title in ("Intro", "Plan"):
        slide = deck.slides.add_slide(layout)
        slide.shapes.title.text = title
        slide.placeholders[1].text_frame.text = f"{title} body."
        slide.shapes.clone_placeholder(number)
        placed = next(shape for shape in slide.placeholders if shape.placeholder_format.type.name == "SLIDE_NUMBER")
        placed.text_frame.text = "4821"
    text = _read(app, docs, deck)
    assert "4821" not in text and "- Plan body." in text, text
