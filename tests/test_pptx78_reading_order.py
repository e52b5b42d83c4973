"""A slide's shapes read in the order a reader reads them.

markitdown sorted a slide's shapes by their exact top edge, then left: a text box dragged a hair
higher than its neighbour on the left was read first (`Right box`, then `Left box`), a tag placed
above the title came before the slide's `# heading` (so it read as the previous slide's last
line), and a Comparison slide read its two column headings, then its two bodies
(`Left heading`, `Right heading`, `Left body`, `Right body`). Now the title comes first; the
placeholders follow in their layout's order (a column's heading, then its body); free shapes
(text boxes, tables, pictures) by position, top to bottom, then left to right among shapes whose
tops lie within an eighth of an inch of each other (one row); a group's shapes likewise.
"""

from __future__ import annotations

from helpers.decks import deck_markdown
from pptx.util import Emu, Inches


def _in_order(markdown: str, *texts: str) -> bool:
    places = [markdown.find(text) for text in texts]
    return -1 not in places and places == sorted(places)


def test_a_comparison_slide_reads_each_column_heading_before_its_body():
    names = {1: "Left heading", 2: "Left body", 3: "Right heading", 4: "Right body"}

    def build(deck):
        slide = deck.slides.add_slide(deck.slide_layouts[4])  # Comparison
        slide.shapes.title.text = "Two plans"
        for placeholder in slide.placeholders:
            if placeholder.placeholder_format.idx in names:
                placeholder.text_frame.text = names[placeholder.placeholder_format.idx]
        slide.shapes.add_textbox(Inches(1), Inches(6.8), Inches(8), Inches(0.4)).text_frame.text = "Source: survey"

    markdown = deck_markdown(build)
    assert _in_order(markdown, "# Two plans", "Left heading", "Left body", "Right heading", "Right body",
                     "Source: survey"), markdown


def test_boxes_on_one_row_read_left_to_right_and_the_title_comes_first():
    def build(deck):
        slide = deck.slides.add_slide(deck.slide_layouts[5])  # Title Only
        slide.shapes.title.text = "Findings"
        # Dragged by hand: the right box sits 5000 EMU (0.005 in) higher than the left one.
        slide.shapes.add_textbox(Inches(5), Inches(2) - Emu(5000), Inches(3), Inches(1)).text_frame.text = "Right box"
        slide.shapes.add_textbox(Inches(1), Inches(2), Inches(3), Inches(1)).text_frame.text = "Left box"
        slide.shapes.add_textbox(Inches(1), Inches(4), Inches(7), Inches(1)).text_frame.text = "Below both"
        # Added last, placed above the title.
        slide.shapes.add_textbox(Inches(0.2), Inches(0.05), Inches(3), Inches(0.3)).text_frame.text = "Section tag"

    markdown = deck_markdown(build)
    assert _in_order(markdown, "# Findings", "Section tag", "Left box", "Right box", "Below both"), markdown


def test_a_text_box_added_last_reads_where_it_stands_among_the_placeholders():
    def build(deck):
        slide = deck.slides.add_slide(deck.slide_layouts[1])  # Title and Content
        slide.shapes.title.text = "Plan"
        slide.placeholders[1].text_frame.text = "Body point"
        slide.shapes.add_textbox(Inches(0.5), Inches(1.2), Inches(9), Inches(0.3)).text_frame.text = "Lead-in line"
        slide.shapes.add_textbox(Inches(0.5), Inches(7), Inches(9), Inches(0.3)).text_frame.text = "Footnote line"

    markdown = deck_markdown(build)
    assert _in_order(markdown, "# Plan", "Lead-in line", "Body point", "Footnote line"), markdown


def test_a_groups_shapes_read_by_rows_too():
    def build(deck):
        slide = deck.slides.add_slide(deck.slide_layouts[5])
        slide.shapes.title.text = "Grouped"
        group = slide.shapes.add_group_shape()
        group.shapes.add_textbox(Inches(5), Inches(3) - Emu(3000), Inches(3), Inches(1)).text_frame.text = "Group right"
        group.shapes.add_textbox(Inches(1), Inches(3), Inches(3), Inches(1)).text_frame.text = "Group left"
        # Spanning both (one under the left box alone is the left column's: test_office81_slide_geometry.py).
        group.shapes.add_textbox(Inches(1), Inches(5), Inches(7), Inches(1)).text_frame.text = "Group below"

    markdown = deck_markdown(build)
    assert _in_order(markdown, "# Grouped", "Group left", "Group right", "Group below"), markdown


def test_a_footer_reads_where_it_stands_whatever_its_layouts_order():
    def build(deck):
        layout = deck.slide_layouts[1]
        tree = layout.shapes._spTree
        footer = next(shape for shape in layout.placeholders if shape.placeholder_format.idx == 11)
        tree.remove(footer._element)
        tree.insert(2, footer._element)  # listed first, after the tree's own properties
        slide = deck.slides.add_slide(layout)
        slide.shapes.title.text = "Status"
        slide.placeholders[1].text_frame.text = "All green"
        slide.shapes.clone_placeholder(footer)
        next(shape for shape in slide.placeholders if shape.placeholder_format.idx == 11).text_frame.text = "Internal only"

    markdown = deck_markdown(build)
    assert _in_order(markdown, "# Status", "All green", "Internal only"), markdown


def test_rows_are_anchored_at_their_first_shape_so_a_staircase_does_not_become_one_row():
    from minirag.ingest.pptx_order import ROW_TOLERANCE, Placed, by_rows, reading_order

    step = ROW_TOLERANCE * 3 // 4  # each step within the tolerance of the one above it
    stairs = [Placed(top=at * step, left=10_000_000 - at * 1_000_000) for at in range(4)]
    # Steps 0 and 1 share a row (read left to right), 2 and 3 the next.
    assert by_rows(stairs) == [1, 0, 3, 2]
    # An unplaced shape reads first; the placeholders keep their layout's order (1 after 0, though
    # dragged above it); a free shape reads before the first placeholder standing below it.
    shapes = [Placed(top=5_000_000, left=0, layout_rank=0), Placed(top=1_000_000, left=0, layout_rank=1),
              Placed(top=None, left=None), Placed(top=3_000_000, left=0), Placed(top=9_000_000, left=0)]
    assert reading_order(shapes) == [2, 3, 0, 1, 4]
