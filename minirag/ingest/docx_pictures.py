"""A DOCX picture whose bytes the package does not hold, read as its alt text.

mammoth opens each picture a body part shows (`a:blip r:embed`, VML's `v:imagedata r:id`) as the
member its relationship names (`word/` + the target, as written), and failed the whole document
with a KeyError where there was none: a relationship missing, a picture linked from outside the
package (`TargetMode="External"`: `file:///…`, `\\\\host\\share\\…`, `http://…`, as Word saves a
linked picture in VML), a target naming no member. Such a picture keeps its alt text (the words a
picture that reads leaves: chunking/images.py) and loses only the picture: nothing outside the
package is opened. A part's bytes are searched first, so a part whose pictures all resolve is
neither parsed nor rewritten for this.
"""

from __future__ import annotations

import re
import zipfile

from lxml import etree

from minirag.ingest import docx_links

W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
_R = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}"
_BLIP = "{http://schemas.openxmlformats.org/drawingml/2006/main}blip"
_IMAGEDATA = "{urn:schemas-microsoft-com:vml}imagedata"
_DOC_PR = "{http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing}docPr"
_O_TITLE = "{urn:schemas-microsoft-com:office:office}title"
# The relationship id a picture reference names, whatever the prefixes: a blip's `embed`, an
# imagedata's `id`. Each attempt stops at the next `<` or `>`, so the search is linear in the part.
_PICTURE_ID = re.compile(rb"<(?:[\w.-]+:)?(?:blip\s[^<>]*?\bembed|imagedata\s[^<>]*?\bid)\s*=\s*[\"']([^\"'>]*)[\"']")
# The folder mammoth reads every body part's pictures from (mammoth.docx.body_xml).
_BASE = "word"


def _member(target: str) -> str:
    """The member mammoth opens for a picture's target (mammoth.docx.uris.uri_to_zip_entry_name)."""
    return target[1:] if target.startswith("/") else f"{_BASE}/{target}"


def unreadable(archive: zipfile.ZipFile, member: str, data: bytes, names: set[str]) -> frozenset[str]:
    """The relationship ids the part's pictures name whose bytes the package does not hold (no such
    relationship, or its target names no member; an external target names none)."""
    if b"blip" not in data and b"imagedata" not in data:
        return frozenset()
    named = {found.decode("utf-8", "replace") for found in _PICTURE_ID.findall(data)}
    if not named:
        return frozenset()
    targets = {link.get("Id") or "": link.get("Target") for link in docx_links.relationships(archive, member)}
    return frozenset(i for i in named if targets.get(i) is None or _member(targets[i] or "") not in names)


def _alt_text(picture: etree._Element, holder: etree._Element) -> str:
    """The words mammoth gives the picture: a drawing's description, else its title; VML's title."""
    if picture.tag == _IMAGEDATA:
        return picture.get(_O_TITLE) or ""
    properties = next(holder.iter(_DOC_PR), None)
    if properties is None:
        return ""
    return (properties.get("descr") or "").strip() or properties.get("title") or ""


def as_alt_text(root: etree._Element, ids: frozenset[str]) -> bool:
    """Each picture of the parsed part naming one of `ids` left without its reference (mammoth then
    skips it) and its alt text set before its drawing in the run; whether any was."""
    if not ids:
        return False
    changed = False
    pictures = [(p, f"{_R}embed") for p in root.iter(_BLIP)] + [(p, f"{_R}id") for p in root.iter(_IMAGEDATA)]
    for picture, attribute in pictures:
        if picture.get(attribute) not in ids:
            continue
        del picture.attrib[attribute]
        changed = True
        holder = next(picture.iterancestors(f"{W}drawing", f"{W}pict"), None)
        if holder is None:
            continue
        alt = _alt_text(picture, holder)
        parent = holder.getparent()
        if alt and parent is not None and parent.tag == f"{W}r":
            text = etree.Element(f"{W}t")
            text.set("{http://www.w3.org/XML/1998/namespace}space", "preserve")
            text.text = alt
            holder.addprevious(text)
    return changed
