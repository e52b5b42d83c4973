"""office81: a slide's free text boxes read by the slide's geometry, each a paragraph of its own.

A slide of text boxes stacked in two columns under a heading read a row at a time (`Left one`,
`Right one`, `Left two`, ...), and a column of stacked boxes beside one tall box read the tall
box between the column's first and second box: each row of shapes was read left to right. And each
box's text ran on from the last one's with a single line break: one paragraph to every reader and
to the chunker, and after a bulleted body the next box's text read as the list's last item. Now
side-by-side columns read a column at a time, each top to bottom (pptx_order.py), and each shape's
text (and a table) stands apart from the shape before it.
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


def _in_order(text: str, *parts: str) -> bool:
    places = [text.find(part) for part in parts]
    return -1 not in places and places == sorted(places)


def test_text_boxes_stacked_in_two_columns_read_a_column_at_a_time(app, docs):
    deck = Presentation()
    slide = deck.slides.add_slide(deck.slide_layouts[6])  # Blank: free text boxes only
    slide.shapes.add_textbox(Inches(0.5), Inches(0.4), Inches(9), Inches(0.8)).text_frame.text = "Heading box."
    for row, (left, right) in enumerate([("Left one.", "Right one."), ("Left two.", "Right two."),
                                         ("Left three.", "Right three.")]):
        top = Inches(1.5 + row * 1.5)
        slide.shapes.add_textbox(Inches(0.5), top, Inches(4), Inches(1.2)).text_frame.text = left
        slide.shapes.add_textbox(Inches(5), top, Inches(4), Inches(1.2)).text_frame.text = right
    slide.shapes.add_textbox(Inches(0.5), Inches(6.4), Inches(9), Inches(0.5)).text_frame.text = "Closing line."
    side = deck.slides.add_slide(deck.slide_layouts[6])
    for row, step in enumerate(["Step A.", "Step B.", "Step C."]):
        side.shapes.add_textbox(Inches(0.5), Inches(1 + row * 1.6), Inches(4), Inches(1.3)).text_frame.text = step
    side.shapes.add_textbox(Inches(5), Inches(1.1), Inches(4), Inches(4.5)).text_frame.text = "Tall box."
    text = _read(app, docs, deck)
    assert _in_order(text, "Heading box.", "Left one.", "Left two.", "Left three.", "Right one.", "Right two.",
                     "Right three.", "Closing line.", "Step A.", "Step B.", "Step C.", "Tall box."), text
    assert "Heading box.\n\nLeft one.\n\nLeft two." in text


def test_a_groups_stacked_boxes_read_a_column_at_a_time(app, docs):
    deck = Presentation()
    slide = deck.slides.add_slide(deck.slide_layouts[5])  # Title Only
    slide.shapes.title.text = "Grouped"
    group = slide.shapes.add_group_shape()
    group.shapes.add_textbox(Inches(0.5), Inches(3), Inches(4), Inches(0.5)).text_frame.text = "Group left top."
    group.shapes.add_textbox(Inches(0.5), Inches(3.7), Inches(4), Inches(0.5)).text_frame.text = "Group left bottom."
    group.shapes.add_textbox(Inches(5), Inches(3.3), Inches(4), Inches(0.5)).text_frame.text = "Group right."
    text = _read(app, docs, deck)
    assert _in_order(text, "# Grouped", "Group left top.", "Group left bottom.", "Group right."), text


def test_each_shapes_text_is_a_paragraph_of_its_own_not_the_lists_last_item(app, docs):
    deck = Presentation()
    slide = deck.slides.add_slide(deck.slide_layouts[1])  # Title and Content
    slide.shapes.title.text = "Plan"
    body = slide.placeholders[1].text_frame
    body.text = "point one"
    body.add_paragraph().text = "point two"
    slide.shapes.add_textbox(Inches(0.5), Inches(6.3), Inches(9), Inches(0.3)).text_frame.text = "A caption."
    table = slide.shapes.add_table(2, 2, Inches(0.5), Inches(6.7), Inches(4), Inches(0.4)).table
    for (row, column), value in {(0, 0): "Year", (0, 1): "Cost", (1, 0): "2026", (1, 1): "12"}.items():
        table.cell(row, column).text = value
    text = _read(app, docs, deck)
    assert "- point one\n- point two\n\nA caption.\n\n| Year | Cost |" in text, text
