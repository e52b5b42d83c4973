"""The text in a DOCX's margins, which mammoth (markitdown's DOCX path) never reads: page headers and
footers, and comments.

A reader sees headers and footers on every page: the document's number and revision, its owner,
"Confidential". Each distinct header text is kept once, above the body (none that only repeats the
body's first paragraph, a title atop each page), and each distinct footer once,
below it, in the order the document's sections name them; a line that is only the page's number
(`Page 3 of 9`, a bare PAGE field) says nothing and is left out. Comments, which Word shows beside the
text they are on, follow the body, each as `Comment by AUTHOR: text`.
"""

from __future__ import annotations

import posixpath
import zipfile
from dataclasses import dataclass

from lxml import etree

from minirag.ingest.docx_visible import Visibility
from minirag.ingest.docx_visible import W as _W
from minirag.ingest.text_repair import is_page_number
from minirag.ingest.zip_xml import xml_part

_R_ID = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}id"
_RELS = "{http://schemas.openxmlformats.org/package/2006/relationships}Relationship"
_DOCUMENT = "word/document.xml"
_COMMENTS = "/relationships/comments"  # the comments part (commentsExtended and commentsIds say nothing)
_FALLBACK = "{http://schemas.openxmlformats.org/markup-compatibility/2006}Fallback"


@dataclass(frozen=True)
class Margins:
    headers: tuple[str, ...] = ()
    footers: tuple[str, ...] = ()
    comments: tuple[str, ...] = ()

    def around(self, body: str) -> str:
        # A header that is the body's first paragraph (a title repeated atop each page) is said once.
        first = " ".join(body.strip().split("\n\n", 1)[0].lstrip("#").split())
        headers = (header for header in self.headers if " ".join(header.split()) != first)
        return "\n\n".join(part for part in (*headers, body.strip(), *self.comments, *self.footers) if part)


def read_margins(archive: zipfile.ZipFile, visibility: Visibility) -> Margins:
    """The headers' and footers' texts as Word shows them (docx_visible.py); none where the parts
    cannot be read (the body still converts)."""
    try:
        document = xml_part(archive, _DOCUMENT)
        relationships = list(xml_part(archive, "word/_rels/document.xml.rels").iter(_RELS))
    except (KeyError, etree.XMLSyntaxError, ValueError):
        return Margins()
    targets = {rel.get("Id"): rel.get("Target", "") for rel in relationships}
    texts_of: dict[str, str] = {}  # each part read once, however many sections name it
    found: dict[str, dict[str, None]] = {"header": {}, "footer": {}}
    for kind, texts in found.items():
        for reference in document.iter(f"{_W}{kind}Reference"):
            target = targets.get(reference.get(_R_ID)) or ""
            if target not in texts_of:
                part = _part(archive, target, visibility)
                texts_of[target] = _text(part) if part is not None else ""
            if any(c.isalpha() for c in texts_of[target]):
                texts.setdefault(texts_of[target])
    comments = []
    for rel in relationships:
        is_comments = rel.get("Type", "").endswith(_COMMENTS)
        part = _part(archive, rel.get("Target"), visibility) if is_comments else None
        for comment in part.iter(f"{_W}comment") if part is not None else ():
            text, author = _text(comment), " ".join((comment.get(f"{_W}author") or "").split())
            if text:
                comments.append(f"Comment by {author}: {text}" if author else f"Comment: {text}")
    return Margins(headers=tuple(found["header"]), footers=tuple(found["footer"]), comments=tuple(comments))


def _part(archive: zipfile.ZipFile, target: str | None, visibility: Visibility):
    """The part a relationship of word/document.xml targets, parsed and as Word shows it; None
    where it cannot be read."""
    if not target:
        return None
    member = target.lstrip("/") if target.startswith("/") else posixpath.normpath(f"word/{target}")
    try:
        part = xml_part(archive, member)
    except (KeyError, etree.XMLSyntaxError, ValueError):
        return None
    visibility.shown(part)
    return part


def _text(part) -> str:
    """The part's paragraphs, one a line (a text box's inside its own), a tab as a space; a shape's
    fallback drawing, which repeats its text for older readers, is read once."""
    lines = []
    for paragraph in part.iter(f"{_W}p"):
        runs = "".join(node.text or "" if node.tag == f"{_W}t" else " "
                       for node in paragraph.iter(f"{_W}t", f"{_W}tab")
                       if next(node.iterancestors(f"{_W}p")) is paragraph
                       and next(node.iterancestors(_FALLBACK), None) is None)
        if runs.strip() and not is_page_number(runs):
            lines.append(" ".join(runs.split()))
    return "\n\n".join(lines)
