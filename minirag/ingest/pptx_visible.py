"""A PPTX's slides as PowerPoint draws them, made so before markitdown (python-pptx) reads them.

A shape can be set not to be drawn (`<p:cNvPr hidden="1">`: the eye closed in the selection
pane): PowerPoint and LibreOffice show it neither while editing nor in the slide show, and
python-pptx read its text all the same. Text that hides from the reader may still speak to an
agent reading the result, so a hidden shape (a group: all it holds) is left out, as the DOCX,
ODF and HTML readers leave hidden text out. A hidden slide is kept: the editor shows it.

A SmartArt graphic keeps its text in a diagram part python-pptx never reads (smartart.py): each
is put in its frame's place as a text box of its nodes' text, one paragraph a node, so the text
comes where the graphic stands on the slide.

A slide's bulleted paragraphs and linked runs (in its tables too) are written as Markdown list
items and links, and so are its speaker notes' links (pptx_lists.py).

Only the slides that hold a hidden shape, a SmartArt graphic, a bullet or a link are rewritten;
a deck without one keeps its bytes.
"""

from __future__ import annotations

import copy
import re
import zipfile

from lxml import etree

from minirag.ingest import smartart
from minirag.ingest.pptx_lists import mark_links, mark_lists_and_links, slide_sources
from minirag.ingest.zip_xml import parsed, with_parts

P = "{http://schemas.openxmlformats.org/presentationml/2006/main}"
A = smartart.A

_SLIDE = re.compile(r"ppt/(slides|notesSlides)/[^/]+\.xml")  # the parts markitdown reads
_TEXT_SLIDE = re.compile(r"ppt/slides/[^/]+\.xml")  # those whose bullets and links are written in
_LINK = b"hlinkClick"  # what a notes slide with a link to write in says
_OFF = frozenset({"0", "false", "off"})
# The shapes of a slide's tree, each named by its own non-visual properties (`p:nvSpPr/p:cNvPr`, ...).
_SHAPES = (P + "sp", P + "pic", P + "graphicFrame", P + "grpSp", P + "cxnSp", P + "contentPart")


def _hidden(shape) -> bool:
    names = next((child for child in shape if isinstance(child.tag, str) and child.tag.startswith(P + "nv")), None)
    properties = names.find(P + "cNvPr") if names is not None else None
    value = properties.get("hidden") if properties is not None else None
    return value is not None and value.lower() not in _OFF


def shown_pptx(archive: zipfile.ZipFile) -> bytes | None:
    """The deck rewritten without its hidden shapes, with its SmartArt as text and its bullets and
    links written in; None where it has none of them (or a slide cannot be read: python-pptx then
    says what is wrong with it)."""
    rewritten: dict[str, etree._Element] = {}
    read: set[str] = set()  # the SmartArt data parts read so far
    layouts: dict = {}  # the slide layouts read so far
    masters: dict = {}  # and their masters
    for member in archive.namelist():
        if not _SLIDE.fullmatch(member):
            continue
        data = archive.read(member)
        lists = _TEXT_SLIDE.fullmatch(member) is not None
        if not lists and b"hidden" not in data and smartart.MARK not in data and _LINK not in data:
            continue
        try:
            root = parsed(data)
        except (etree.XMLSyntaxError, ValueError):
            return None
        hidden = [shape for shape in root.iter(*_SHAPES) if _hidden(shape)]
        for shape in hidden:
            if shape.getparent() is not None:
                shape.getparent().remove(shape)
        drawn = _smartart_as_text(archive, member, root, read)
        if lists:
            marked = mark_lists_and_links(root, slide_sources(archive, member, layouts, masters))
        else:
            marked = _LINK in data and mark_links(root, slide_sources(archive, member, layouts, masters))
        if hidden or drawn or marked:
            rewritten[member] = root
    return with_parts(archive, rewritten) if rewritten else None


def _smartart_as_text(archive: zipfile.ZipFile, member: str, root, read: set[str]) -> bool:
    """Each SmartArt frame of the slide `root` replaced by a text box of its nodes' text, in its
    place; whether any was. A diagram whose data part is missing or damaged is left as it is."""
    frames = [frame for frame in root.iter(P + "graphicFrame") if frame.find(smartart.RELATIONSHIP_IDS) is not None]
    if not frames:
        return False
    targets = smartart.relationship_targets(archive, member)
    replaced = False
    for frame in frames:
        lines = smartart.graphic_lines(archive, targets, frame, read)
        if frame.getparent() is not None and lines:
            frame.getparent().replace(frame, _text_box(frame, lines))
            replaced = True
    return replaced


def _text_box(frame, lines: list[str]):
    """A text box standing where `frame` stands, named as it is, holding `lines` as paragraphs."""
    box = etree.Element(P + "sp", nsmap={"p": P[1:-1], "a": A[1:-1]})
    names = etree.SubElement(box, P + "nvSpPr")
    properties = frame.find(f"{P}nvGraphicFramePr/{P}cNvPr")
    names.append(copy.deepcopy(properties) if properties is not None else etree.Element(P + "cNvPr", id="0", name=""))
    etree.SubElement(names, P + "cNvSpPr", txBox="1")  # python-pptx reads a shape of no geometry as a text box
    etree.SubElement(names, P + "nvPr")
    shape = etree.SubElement(box, P + "spPr")
    place = frame.find(P + "xfrm")
    if place is not None:
        transform = etree.SubElement(shape, A + "xfrm")
        transform.extend(copy.deepcopy(child) for child in place)
    body = etree.SubElement(box, P + "txBody")
    etree.SubElement(body, A + "bodyPr")
    for line in lines:
        etree.SubElement(etree.SubElement(etree.SubElement(body, A + "p"), A + "r"), A + "t").text = line
    return box
