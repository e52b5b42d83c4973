"""A slide's bullets and links read as a reader sees them.

markitdown read a PPTX text frame as `shape.text`: a body placeholder's bullets, drawn on the slide
with their nesting, came out as plain lines (`Revenue up`, `EMEA`), while the ODP of the same deck
read `- Revenue up` / `  - EMEA`; a run linked to a page lost its address. Now a bulleted paragraph
is a Markdown list item indented two spaces a level (`1.` and on where the bullets are numbered)
and a linked run is `[text](url)` for a web or mail address.
"""

from __future__ import annotations

from helpers.decks import deck_markdown


def _paragraph(frame, text: str, level: int = 0, *, first: bool = False):
    paragraph = frame.paragraphs[0] if first else frame.add_paragraph()
    paragraph.text = text
    paragraph.level = level
    return paragraph


def _bullet(paragraph, kind: str) -> None:
    """Set the paragraph's own bullet: `char`, `autonum` or `none`."""
    from lxml import etree
    from pptx.oxml.ns import qn

    properties = paragraph._p.get_or_add_pPr()
    if kind == "char":
        etree.SubElement(properties, qn("a:buChar"), char="•")
    elif kind == "autonum":
        etree.SubElement(properties, qn("a:buAutoNum"), type="arabicPeriod")
    else:
        etree.SubElement(properties, qn("a:buNone"))


def test_a_body_placeholders_paragraphs_are_nested_list_items():
    def build(deck):
        slide = deck.slides.add_slide(deck.slide_layouts[1])  # Title and Content
        slide.shapes.title.text = "Quarterly results"
        body = slide.placeholders[1].text_frame
        _paragraph(body, "Revenue up 12%", first=True)
        _paragraph(body, "EMEA led growth", 1)
        _paragraph(body, "Germany doubled", 2)
        _paragraph(body, "Costs flat")
        _bullet(_paragraph(body, "A note without a bullet"), "none")

    markdown = deck_markdown(build)
    assert "# Quarterly results\n" in markdown
    assert ("- Revenue up 12%\n  - EMEA led growth\n    - Germany doubled\n- Costs flat\n"
            "A note without a bullet") in markdown, markdown


def test_a_text_box_is_plain_unless_its_paragraphs_set_a_bullet():
    from pptx.util import Inches

    def build(deck):
        slide = deck.slides.add_slide(deck.slide_layouts[5])  # Title Only
        slide.shapes.title.text = "Next steps"
        box = slide.shapes.add_textbox(Inches(1), Inches(2), Inches(6), Inches(3)).text_frame
        _paragraph(box, "Plain caption line", first=True)
        _bullet(_paragraph(box, "Hire two engineers"), "char")
        _bullet(_paragraph(box, "Ship the beta", 1), "char")
        steps = slide.shapes.add_textbox(Inches(1), Inches(5), Inches(6), Inches(2)).text_frame
        _bullet(_paragraph(steps, "Install", first=True), "autonum")
        _bullet(_paragraph(steps, "Configure"), "autonum")
        _bullet(_paragraph(steps, "Run"), "autonum")

    markdown = deck_markdown(build)
    assert "# Next steps\n" in markdown
    assert "Plain caption line\n- Hire two engineers\n  - Ship the beta\n" in markdown, markdown
    assert "1. Install\n2. Configure\n3. Run" in markdown, markdown


def test_a_linked_run_reads_as_a_markdown_link_to_a_web_or_mail_address():
    from pptx.util import Inches

    def build(deck):
        slide = deck.slides.add_slide(deck.slide_layouts[5])
        slide.shapes.title.text = "Resources"
        frame = slide.shapes.add_textbox(Inches(1), Inches(2), Inches(6), Inches(3)).text_frame
        paragraph = frame.paragraphs[0]
        paragraph.add_run().text = "See the "
        link = paragraph.add_run()
        link.text = "design notes"
        link.hyperlink.address = "https://example.com/notes"
        paragraph.add_run().text = " or write to "
        mail = paragraph.add_run()
        mail.text = "the team"
        mail.hyperlink.address = "mailto:team@example.com"
        other = frame.add_paragraph().add_run()
        other.text = "the share"
        other.hyperlink.address = "file:///srv/share"

    markdown = deck_markdown(build)
    assert "See the [design notes](https://example.com/notes) or write to [the team](mailto:team@example.com)" in markdown, markdown
    assert "\nthe share" in markdown and "file:" not in markdown, markdown


def test_a_body_placeholder_whose_layout_turns_bullets_off_reads_plain():
    """A section header's text, a comparison's column headings and a caption are body placeholders
    whose layout sets `a:buNone`: PowerPoint draws them without bullets."""
    def build(deck):
        section = deck.slides.add_slide(deck.slide_layouts[2])  # Section Header
        section.shapes.title.text = "Part two"
        section.placeholders[1].text_frame.text = "Where the money went"
        comparison = deck.slides.add_slide(deck.slide_layouts[4])  # Comparison
        comparison.shapes.title.text = "Before and after"
        comparison.placeholders[1].text_frame.text = "Before"
        _paragraph(comparison.placeholders[2].text_frame, "Manual deploys", first=True)
        comparison.placeholders[3].text_frame.text = "After"
        _paragraph(comparison.placeholders[4].text_frame, "One-click deploys", first=True)

    markdown = deck_markdown(build)
    assert "\nWhere the money went" in markdown and "- Where" not in markdown, markdown
    # Each column's heading before its body, as the layout lists them (pptx_order.py).
    assert "\nBefore\n\n- Manual deploys\n\nAfter\n\n- One-click deploys" in markdown, markdown
