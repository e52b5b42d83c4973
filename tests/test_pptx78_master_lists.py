"""A body placeholder's bullets as its slide master sets them.

pptx77 followed a paragraph's bullet to its shape's and its layout placeholder's list styles and
stopped there, bulleting every body placeholder they left open: a corporate master whose body
text style sets `a:buNone` at the first level (plain paragraphs, bullets from the second) read
`- ` on every paragraph, and one that numbers its first level (`a:buAutoNum`) read `- ` for
`1.`, `2.`. Now the chain goes on, as PowerPoint draws it: the layout placeholder's list style,
then the master placeholder's of its kind, then the master's body text style (`p:bodyStyle`).
A text box does not take the master's body style.
"""

from __future__ import annotations

import io

from lxml import etree
from pptx.oxml.ns import qn
from pptx.util import Inches

from minirag.ingest.convert import convert_document


def _deck(build, master=None) -> str:
    from pptx import Presentation

    deck = Presentation()
    if master is not None:
        master(deck.slide_master._element)
    build(deck)
    with io.BytesIO() as out:
        deck.save(out)
        return convert_document(out.getvalue(), ".pptx", "deck.pptx").markdown


def _set_bullet(level_properties, kind: str) -> None:
    """A list style level's bullet replaced by `none`, `char` or `autonum`."""
    for old in level_properties.findall(qn("a:buNone")) + level_properties.findall(qn("a:buChar")) + \
            level_properties.findall(qn("a:buAutoNum")):
        level_properties.remove(old)
    bullet = etree.Element(qn({"none": "a:buNone", "char": "a:buChar", "autonum": "a:buAutoNum"}[kind]))
    if kind == "char":
        bullet.set("char", "•")
    elif kind == "autonum":
        bullet.set("type", "arabicPeriod")
    before = level_properties.find(qn("a:defRPr"))
    if before is not None:
        before.addprevious(bullet)
    else:
        level_properties.append(bullet)


def _body_style(master, level: int, kind: str) -> None:
    _set_bullet(master.find(f"{qn('p:txStyles')}/{qn('p:bodyStyle')}/{qn(f'a:lvl{level}pPr')}"), kind)


def _body(deck, *lines: tuple[str, int]) -> None:
    slide = deck.slides.add_slide(deck.slide_layouts[1])  # Title and Content
    slide.shapes.title.text = "Agenda"
    frame = slide.placeholders[1].text_frame
    for at, (text, level) in enumerate(lines):
        paragraph = frame.paragraphs[0] if at == 0 else frame.add_paragraph()
        paragraph.text = text
        paragraph.level = level


def test_a_master_that_turns_first_level_bullets_off_reads_them_plain():
    def master(element):
        _body_style(element, 1, "none")

    markdown = _deck(lambda deck: _body(deck, ("Why we meet", 0), ("Budget", 1), ("Hiring", 1)), master)
    assert "\nWhy we meet\n  - Budget\n  - Hiring" in markdown, markdown
    assert "- Why" not in markdown, markdown


def test_a_master_that_numbers_its_first_level_reads_numbered():
    def master(element):
        _body_style(element, 1, "autonum")

    markdown = _deck(lambda deck: _body(deck, ("Open the valve", 0), ("Slowly", 1), ("Read the gauge", 0)), master)
    assert "1. Open the valve\n  - Slowly\n2. Read the gauge" in markdown, markdown


def test_the_master_body_placeholders_own_list_style_comes_before_the_body_style():
    def master(element):
        for shape in element.iter(qn("p:sp")):
            placeholder = shape.find(f"{qn('p:nvSpPr')}/{qn('p:nvPr')}/{qn('p:ph')}")
            if placeholder is not None and placeholder.get("type") == "body":
                style = shape.find(f"{qn('p:txBody')}/{qn('a:lstStyle')}")
                _set_bullet(etree.SubElement(style, qn("a:lvl1pPr")), "none")

    markdown = _deck(lambda deck: _body(deck, ("Plain lead", 0), ("Point", 1)), master)
    assert "\nPlain lead\n  - Point" in markdown, markdown


def test_the_layout_placeholders_list_style_comes_before_the_masters():
    def build(deck):
        layout = deck.slide_layouts[1]
        body = layout.placeholders[1]._element
        style = body.find(f"{qn('p:txBody')}/{qn('a:lstStyle')}")
        _set_bullet(etree.SubElement(style, qn("a:lvl1pPr")), "char")
        _body(deck, ("Still bulleted", 0))

    def master(element):
        _body_style(element, 1, "none")

    assert "- Still bulleted" in _deck(build, master)


def test_a_text_box_does_not_take_the_masters_body_style():
    def build(deck):
        slide = deck.slides.add_slide(deck.slide_layouts[5])
        slide.shapes.title.text = "Notes"
        slide.shapes.add_textbox(Inches(1), Inches(2), Inches(6), Inches(1)).text_frame.text = "A caption"

    def master(element):
        _body_style(element, 1, "autonum")

    markdown = _deck(build, master)
    assert "\nA caption" in markdown and "1. A caption" not in markdown, markdown
