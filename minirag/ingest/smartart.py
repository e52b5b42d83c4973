"""A SmartArt graphic's text, which neither python-pptx (PPTX) nor mammoth (DOCX) reads.

A SmartArt graphic (a process, a cycle, an org chart) keeps its text in a diagram data part of
its own, named from the graphic's frame (`dgm:relIds r:dm`) through the part's relationships:
every word of it had been lost. Its nodes are read one paragraph a line, in the order the
diagram draws them: depth first along its `parOf` connections from its root, each parent before
its children, siblings by their order (`srcOrd`); the order nodes are stored in is the order
they were added, not shown. Nodes no connection reaches follow in that stored order.
"""

from __future__ import annotations

import posixpath
import zipfile

from lxml import etree

from minirag.ingest.zip_xml import parsed

A = "{http://schemas.openxmlformats.org/drawingml/2006/main}"
DGM = "{http://schemas.openxmlformats.org/drawingml/2006/diagram}"
R = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}"
# What a part holding a SmartArt graphic says, to read only the parts that do.
MARK = b"http://schemas.openxmlformats.org/drawingml/2006/diagram"
RELATIONSHIP_IDS = f"{A}graphic/{A}graphicData/{DGM}relIds"  # under a graphic's frame
_RELATIONSHIPS = "{http://schemas.openxmlformats.org/package/2006/relationships}Relationship"
# A diagram data part's attributes: a point's id, and a connection's parent, child and child's place.
_MODEL_ID = "modelId"
_SOURCE_ID = "srcId"
_DESTINATION_ID = "destId"
_SOURCE_ORDER = "srcOrd"


def relationship_targets(archive: zipfile.ZipFile, member: str) -> dict[str, str]:
    """A part's relationships, id -> the member each names inside the package."""
    folder, _, name = member.rpartition("/")
    try:
        relationships = parsed(archive.read(f"{folder}/_rels/{name}.rels"))
    except (KeyError, etree.XMLSyntaxError, ValueError):
        return {}
    return {link.get("Id", ""): posixpath.normpath(posixpath.join(folder, link.get("Target", "")))
            for link in relationships.iter(_RELATIONSHIPS) if link.get("TargetMode") != "External"}


def graphic_lines(archive: zipfile.ZipFile, targets: dict[str, str], frame, read: set[str]) -> list[str]:
    """The text of the SmartArt graphic whose frame (or drawing) is `frame`, a node's paragraph a
    line; [] for another graphic, one whose data part is missing or damaged, or one whose data part
    is in `read` (the parts the document's graphics read before: thousands of frames naming one
    part made its text thousands of times over). The part read is added to `read`."""
    ids = frame.find(".//" + RELATIONSHIP_IDS)
    target = targets.get(ids.get(R + "dm") or "") if ids is not None else None
    if target in read:
        return []
    if target:
        read.add(target)
    try:
        return _diagram_lines(parsed(archive.read(target))) if target else []
    except (KeyError, etree.XMLSyntaxError, ValueError):
        return []


def _diagram_lines(model) -> list[str]:
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
