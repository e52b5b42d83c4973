"""A DOCX link whose relationship is missing, read as its words.

A `w:hyperlink` names its URL by a relationship of its part (`r:id`); one whose relationship is not
there (a part edited by hand, a converter that dropped the .rels entry) made mammoth fail the
whole document on a KeyError, every word of it lost for one link. Such a link keeps its words and
loses only the URL nobody can know. A part's bytes are searched first, so a part whose links all
resolve is neither parsed nor rewritten for this.
"""

from __future__ import annotations

import re
import zipfile

from lxml import etree

from minirag.ingest.zip_xml import parsed

_R_ID = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}id"
_HYPERLINK = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}hyperlink"
_RELATIONSHIP = "{http://schemas.openxmlformats.org/package/2006/relationships}Relationship"
# A hyperlink element's relationship id, whatever the prefixes (a link's only attribute named `id`).
_LINK_ID = re.compile(rb"<(?:[\w.-]+:)?hyperlink\s[^>]*?\bid\s*=\s*[\"']([^\"']*)[\"']")


def relationships(archive: zipfile.ZipFile, member: str) -> list[etree._Element]:
    """A part's relationships (its `_rels/NAME.rels`); none where it has none or they are unreadable."""
    folder, _, name = member.rpartition("/")
    try:
        return list(parsed(archive.read(f"{folder}/_rels/{name}.rels")).iter(_RELATIONSHIP))
    except (KeyError, etree.XMLSyntaxError, ValueError):
        return []


def dangling(archive: zipfile.ZipFile, member: str, data: bytes) -> frozenset[str]:
    """The relationship ids the part's links name that its relationships do not hold."""
    if b"hyperlink" not in data:
        return frozenset()
    named = {found.decode("utf-8", "replace") for found in _LINK_ID.findall(data)}
    return frozenset(named - {link.get("Id") or "" for link in relationships(archive, member)}) if named else frozenset()


def unlinked(root: etree._Element, ids: frozenset[str]) -> bool:
    """Each link of the parsed part naming one of `ids` left as its words; whether any was."""
    changed = False
    for link in root.iter(_HYPERLINK):
        if link.get(_R_ID) in ids:
            del link.attrib[_R_ID]
            changed = True
    return changed


_NEEDED = ("Id", "Target", "Type")


def incomplete_relationships(archive: zipfile.ZipFile) -> dict[str, etree._Element]:
    """Each relationships part holding a relationship that lacks its Id, Target or Type, parsed with
    those left out, by member. mammoth reads all three of every relationship of the parts it reads
    and failed the whole document on a KeyError for one lacking any; nothing can name or follow one."""
    found: dict[str, etree._Element] = {}
    for info in archive.infolist():
        if not info.filename.endswith(".rels"):
            continue
        try:
            root = parsed(archive.read(info))
        except (etree.XMLSyntaxError, ValueError, OSError, zipfile.BadZipFile):
            continue  # mammoth says what is wrong with it
        lacking = [link for link in root.iter(_RELATIONSHIP) if any(link.get(name) is None for name in _NEEDED)]
        for link in lacking:
            link.getparent().remove(link)
        if lacking:
            found[info.filename] = root
    return found
