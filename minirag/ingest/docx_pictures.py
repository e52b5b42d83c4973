"""A DOCX picture whose bytes the package does not hold, read as its alt text.

mammoth opens each picture a body part shows (`a:blip r:embed`, VML's `v:imagedata r:id`) as the
member its relationship names (`word/` + the target, as written), and failed the whole document
with a KeyError where there was none: a relationship missing, a picture linked from outside the
package (`TargetMode="External"`: `file:///…`, `\\\\host\\share\\…`, `http://…`, as Word saves a
linked picture in VML), a target naming no member. A linked picture (`r:link`, which mammoth never
opens: its external file access is off) failed it the same way where its relationship was missing,
and was dropped with its alt text where it was there. Such a picture keeps its alt text (the words a
picture that reads leaves: chunking/images.py) and loses only the picture: nothing outside the
package is opened. A part's bytes are searched first, so a part whose pictures all resolve is
neither parsed nor rewritten for this.
"""

from __future__ import annotations

import re
import zipfile
from dataclasses import dataclass

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
_LINK_ID = re.compile(rb"<(?:[\w.-]+:)?blip\s[^<>]*?\blink\s*=\s*[\"']([^\"'>]*)[\"']")
# The folder mammoth reads every body part's pictures from (mammoth.docx.body_xml).
_BASE = "word"


def _member(target: str) -> str:
    """The member mammoth opens for a picture's target (mammoth.docx.uris.uri_to_zip_entry_name)."""
    return target[1:] if target.startswith("/") else f"{_BASE}/{target}"


@dataclass(frozen=True)
class Unreadable:
    """A part's picture references mammoth would fail on, by relationship id."""

    embedded: frozenset[str] = frozenset()  # an embedded picture's: no relationship, or no such member
    linked: frozenset[str] = frozenset()  # a linked picture's (mammoth never opens one)

    def __bool__(self) -> bool:
        return bool(self.embedded or self.linked)


def unreadable(archive: zipfile.ZipFile, member: str, data: bytes, names: set[str]) -> Unreadable:
    """The picture references of the part whose bytes the package does not hold (an external
    target names no member), and its linked pictures' references."""
    if b"blip" not in data and b"imagedata" not in data:
        return Unreadable()
    embedded = {found.decode("utf-8", "replace") for found in _PICTURE_ID.findall(data)}
    linked = {found.decode("utf-8", "replace") for found in _LINK_ID.findall(data)}
    if not embedded and not linked:
        return Unreadable()
    targets = {link.get("Id") or "": link.get("Target") for link in docx_links.relationships(archive, member)}
    return Unreadable(frozenset(i for i in embedded if targets.get(i) is None or _member(targets[i] or "") not in names),
                      frozenset(linked))


def _alt_text(picture: etree._Element, holder: etree._Element) -> str:
    """The words mammoth gives the picture: a drawing's description, else its title; VML's title."""
    if picture.tag == _IMAGEDATA:
        return picture.get(_O_TITLE) or ""
    properties = next(holder.iter(_DOC_PR), None)
    if properties is None:
        return ""
    return (properties.get("descr") or "").strip() or properties.get("title") or ""


def as_alt_text(root: etree._Element, unread: Unreadable) -> bool:
    """Each picture of the parsed part that shows no embedded picture left without its references
    (mammoth then skips it) and its alt text set before its drawing in the run; whether any was."""
    if not unread:
        return False
    changed = False
    pictures = [(p, f"{_R}embed") for p in root.iter(_BLIP)] + [(p, f"{_R}id") for p in root.iter(_IMAGEDATA)]
    for picture, attribute in pictures:
        reference, link = picture.get(attribute), picture.get(f"{_R}link")
        if (reference is not None and reference not in unread.embedded) or (reference is None and link is None):
            continue  # mammoth shows its embedded picture, or skips one that names none
        picture.attrib.pop(attribute, None)
        picture.attrib.pop(f"{_R}link", None)
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
