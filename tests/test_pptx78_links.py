"""A link in a slide's table or its speaker notes reads `[text](url)`, as one in a text box does.

pptx77 wrote a linked run's address only into a slide's text shapes: a table cell linking to the
runbook read `runbook` alone, and so did a link in the speaker notes, though both are clicked
where they stand. A grouped text box's link was already written, and stays so.
"""

from __future__ import annotations

from helpers.decks import deck_markdown
from pptx.util import Inches


def _link(paragraph, text: str, address: str) -> None:
    run = paragraph.add_run()
    run.text = text
    run.hyperlink.address = address


def test_a_link_in_a_table_cell_reads_as_a_markdown_link():
    def build(deck):
        slide = deck.slides.add_slide(deck.slide_layouts[5])
        slide.shapes.title.text = "On call"
        table = slide.shapes.add_table(3, 2, Inches(1), Inches(2), Inches(6), Inches(2)).table
        table.cell(0, 0).text, table.cell(0, 1).text = "Service", "Guide"
        table.cell(1, 0).text = "billing"
        paragraph = table.cell(1, 1).text_frame.paragraphs[0]
        paragraph.add_run().text = "see the "
        _link(paragraph, "billing runbook", "https://wiki.example.com/billing")
        table.cell(2, 0).text = "mail"
        _link(table.cell(2, 1).text_frame.paragraphs[0], "ops desk", "mailto:ops@example.com")

    markdown = deck_markdown(build)
    assert "| billing | see the [billing runbook](https://wiki.example.com/billing) |" in markdown, markdown
    assert "| mail | [ops desk](mailto:ops@example.com) |" in markdown, markdown


def test_a_link_in_the_speaker_notes_reads_as_a_markdown_link():
    def build(deck):
        slide = deck.slides.add_slide(deck.slide_layouts[1])
        slide.shapes.title.text = "Rollout"
        slide.placeholders[1].text_frame.text = "Canary first"
        notes = slide.notes_slide.notes_text_frame
        notes.paragraphs[0].add_run().text = "Details in "
        _link(notes.paragraphs[0], "the rollout plan", "https://example.com/plan")
        notes.add_paragraph().text = "Plain second line"

    markdown = deck_markdown(build)
    assert "### Notes:\nDetails in [the rollout plan](https://example.com/plan)\nPlain second line" in markdown, markdown


def test_a_link_in_a_grouped_text_box_reads_as_a_markdown_link():
    def build(deck):
        slide = deck.slides.add_slide(deck.slide_layouts[5])
        slide.shapes.title.text = "Grouped"
        group = slide.shapes.add_group_shape()
        box = group.shapes.add_textbox(Inches(1), Inches(2), Inches(4), Inches(1))
        _link(box.text_frame.paragraphs[0], "status page", "https://status.example.com")

    assert "[status page](https://status.example.com)" in deck_markdown(build)
