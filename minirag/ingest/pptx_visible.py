"""A PPTX's slides as PowerPoint draws them, made so before markitdown (python-pptx) reads them.

A shape can be set not to be drawn (`<p:cNvPr hidden="1">`: the eye closed in the selection
pane): PowerPoint and LibreOffice show it neither while editing nor in the slide show, and
python-pptx read its text all the same. Text that hides from the reader may still speak to an
agent reading the result, so a hidden shape (a group: all it holds) is left out, as the DOCX,
ODF and HTML readers leave hidden text out. A hidden slide is kept: the editor shows it.
Only the slides that hold a hidden shape are rewritten; a deck without one keeps its bytes.
"""

from __future__ import annotations

import re
import zipfile

from lxml import etree

from minirag.ingest.zip_xml import parsed, with_parts

P = "{http://schemas.openxmlformats.org/presentationml/2006/main}"
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
    """The deck rewritten without its hidden shapes; None where it has none (or a slide cannot be
    read: python-pptx then says what is wrong with it)."""
    rewritten: dict[str, etree._Element] = {}
    for member in archive.namelist():
        if not _SLIDE.fullmatch(member):
            continue
        data = archive.read(member)
        if b"hidden" not in data:
            continue
        try:
            root = parsed(data)
        except (etree.XMLSyntaxError, ValueError):
            return None
        hidden = [shape for shape in root.iter(*_SHAPES) if _hidden(shape)]
        for shape in hidden:
            if shape.getparent() is not None:
                shape.getparent().remove(shape)
        if hidden:
            rewritten[member] = root
    return with_parts(archive, rewritten) if rewritten else None
