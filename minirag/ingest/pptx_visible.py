"""A PPTX's slides as PowerPoint draws them, made so before markitdown (python-pptx) reads them.

A shape can be set not to be drawn (`<p:cNvPr hidden="1">`: the eye closed in the selection
pane): PowerPoint and LibreOffice show it neither while editing nor in the slide show, and
python-pptx read its text all the same. Text that hides from the reader may still speak to an
agent reading the result, so a hidden shape (a group: all it holds) is left out, as the DOCX,
ODF and HTML readers leave hidden text out. A hidden slide is kept: the editor shows it.

A SmartArt graphic (a process, a cycle, an org chart) keeps its text in a diagram part of its
own, which python-pptx never reads: every word of it was lost. Each is put in its frame's place
as a text box of its nodes' text, one paragraph a node, in the order the diagram draws them
(depth first along its connections, each parent before its children, siblings in their order),
so the text comes where the graphic stands on the slide.

Only the slides that hold a hidden shape or a SmartArt graphic are rewritten; a deck without
one keeps its bytes.
"""

from __future__ import annotations

import copy
import posixpath
import re
import zipfile

from lxml import etree

from minirag.ingest.zip_xml import parsed, with_parts

P = "{http://schemas.openxmlformats.org/presentationml/2006/main}"
A = "{http://schemas.openxmlformats.org/drawingml/2006/main}"
DGM = "{http://schemas.openxmlformats.org/drawingml/2006/diagram}"
R = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}"
_RELATIONSHIPS = "{http://schemas.openxmlformats.org/package/2006/relationships}Relationship"
_DIAGRAM = b"http://schemas.openxmlformats.org/drawingml/2006/diagram"
# A diagram data part's attributes: a point's id, and a connection's parent, child and child's place.
_MODEL_ID = "modelId"
_SOURCE_ID = "srcId"
_DESTINATION_ID = "destId"
_SOURCE_ORDER = "srcOrd"
_SLIDE = re.compile(r"ppt/(slides|notesSlides)/[^/]+\.xml")  # the parts markitdown reads
_OFF = frozenset({"0", "false", "off"})
# The shapes of a slide's tree, each named by its own non-visual properties (`p:nvSpPr/p:cNvPr`, ...).
_SHAPES = (P + "sp", P + "pic", P + "graphicFrame", P + "grpSp", P + "cxnSp", P + "contentPart")


def _hidden(shape) -> bool:
    names = next((child for child in shape if isinstance(child.tag, str) and child.tag.startswith(P + "nv")), None)
    properties = names.find(P + "cNvPr") if names is not None else None
    value = properties.get("hidden") if properties is not None else None
    return value is not None and value.lower() not in _OFF


def shown_pptx(archive: zipfile.ZipFile) -> bytes | None:
    """The deck rewritten without its hidden shapes and with its SmartArt as text; None where it
    has neither (or a slide cannot be read: python-pptx then says what is wrong with it)."""
    rewritten: dict[str, etree._Element] = {}
    for member in archive.namelist():
        if not _SLIDE.fullmatch(member):
            continue
        data = archive.read(member)
        if b"hidden" not in data and _DIAGRAM not in data:
            continue
        try:
            root = parsed(data)
        except (etree.XMLSyntaxError, ValueError):
            return None
        hidden = [shape for shape in root.iter(*_SHAPES) if _hidden(shape)]
        for shape in hidden:
            if shape.getparent() is not None:
                shape.getparent().remove(shape)
        drawn = _smartart_as_text(archive, member, root)
        if hidden or drawn:
            rewritten[member] = root
    return with_parts(archive, rewritten) if rewritten else None


def _smartart_as_text(archive: zipfile.ZipFile, member: str, root) -> bool:
    """Each SmartArt frame of the slide `root` replaced by a text box of its nodes' text, in its
    place; whether any was. A diagram whose data part is missing or damaged is left as it is."""
    frames = [frame for frame in root.iter(P + "graphicFrame")
              if frame.find(f"{A}graphic/{A}graphicData/{DGM}relIds") is not None]
    if not frames:
        return False
    targets = _relationship_targets(archive, member)
    replaced = False
    for frame in frames:
        data_id = frame.find(f"{A}graphic/{A}graphicData/{DGM}relIds").get(R + "dm")
        target = targets.get(data_id or "")
        try:
            lines = _diagram_lines(parsed(archive.read(target))) if target else []
        except (KeyError, etree.XMLSyntaxError, ValueError):
            continue
        if frame.getparent() is not None and lines:
            frame.getparent().replace(frame, _text_box(frame, lines))
            replaced = True
    return replaced


def _relationship_targets(archive: zipfile.ZipFile, member: str) -> dict[str, str]:
    """A part's relationships, id -> the member each names inside the package."""
    folder, _, name = member.rpartition("/")
    try:
        relationships = parsed(archive.read(f"{folder}/_rels/{name}.rels"))
    except (KeyError, etree.XMLSyntaxError, ValueError):
        return {}
    return {link.get("Id", ""): posixpath.normpath(posixpath.join(folder, link.get("Target", "")))
            for link in relationships.iter(_RELATIONSHIPS) if link.get("TargetMode") != "External"}


def _diagram_lines(model) -> list[str]:
    """A diagram data part's node texts, a paragraph a line, depth first from its root along the
    `parOf` connections (siblings by `srcOrd`); nodes no connection reaches follow in their order."""
    nodes = {point.get(_MODEL_ID): point for point in model.iter(DGM + "pt")
             if point.get("type", "node") in ("node", "doc")}
    children: dict[str | None, list[tuple[int, str]]] = {}
    for link in model.iter(DGM + "cxn"):
        if link.get("type", "parOf") == "parOf" and link.get(_DESTINATION_ID) in nodes:
            order = int(link.get(_SOURCE_ORDER, "0")) if link.get(_SOURCE_ORDER, "0").isdigit() else 0
            children.setdefault(link.get(_SOURCE_ID), []).append((order, link.get(_DESTINATION_ID, "")))
    ordered: list[str] = []
    seen: set[str] = set()
    stack = [key for key, point in reversed(nodes.items()) if point.get("type") == "doc"]
    while stack:  # iterative: a forged cycle or a deep tree ends when every node is seen
        key = stack.pop()
        if key in seen:
            continue
        seen.add(key)
        ordered.append(key)
        stack.extend(child for _, child in sorted(children.get(key, []), reverse=True))
    ordered += [key for key in nodes if key not in seen]
    lines = []
    for key in ordered:
        for paragraph in nodes[key].iterfind(f"{DGM}t/{A}p"):
            text = "".join(run.text or "" for run in paragraph.iter(A + "t")).strip()
            if text:
                lines.append(text)
    return lines


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
