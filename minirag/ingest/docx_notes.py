"""A DOCX's footnotes and endnotes read where they are cited, as the ODT and RTF readers read theirs.

mammoth writes each note's number where it is cited and every note in a numbered list after the
body: in a long document the note is chunked far from the sentence it explains. So before mammoth
reads the body, each `w:footnoteReference` or `w:endnoteReference` becomes a plain run of the
note's text in parentheses (note_text.cited), its number (or the custom mark that follows it) gone;
mammoth lists only the notes the body still cites, so nothing is left at the end. A note's
paragraphs, list items, tabs and breaks read as one line. A reference to a note that is absent
(or of no words) leaves only the text around it. A link in a note (`w:hyperlink`, its URL a
relationship of footnotes.xml.rels or endnotes.xml.rels) reads `[text](url)` as the body's do, a
place in its target (`w:anchor`) the URL's fragment: it is placed as a HYPERLINK field, which
mammoth reads as a link with no relationship of the body's. A link to a bookmark in the document
(`w:anchor` alone, a cross-reference) keeps its words alone.
"""

from __future__ import annotations

import re
import zipfile

from lxml import etree

from minirag.ingest.docx_links import relationships
from minirag.ingest.note_text import cited

W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
FOOTNOTES, ENDNOTES = "word/footnotes.xml", "word/endnotes.xml"
# What the body cites a note by, whatever its namespace prefix: only then are the notes read.
MARKS = (b"footnoteReference", b"endnoteReference")
_KINDS = ((f"{W}footnoteReference", f"{W}footnote", FOOTNOTES), (f"{W}endnoteReference", f"{W}endnote", ENDNOTES))
_SPACES = frozenset({f"{W}tab", f"{W}br", f"{W}cr", f"{W}p"})  # where a note's words part
_R_ID = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}id"
# A link's words' bounds while the note is made one line (characters of a private use area, taken
# out of the note's own text first).
_OPEN, _CLOSE = "\ue000", "\ue001"
_BOUNDS = re.compile(f"([{_OPEN}{_CLOSE}])")
_UNBOUNDED = str.maketrans("", "", _OPEN + _CLOSE)

Segment = tuple[str, str | None]  # words, and the URL they link to (None: plain words)


def link_targets(archive: zipfile.ZipFile, member: str) -> dict[str, str]:
    """The URLs of a part's hyperlink relationships, by id (as the body's links read them)."""
    return {link.get("Id") or "": link.get("Target") or "" for link in relationships(archive, member)
            if (link.get("Type") or "").endswith("/hyperlink") and link.get("Target")}


def _segments(text: str, urls: list[str]) -> tuple[Segment, ...]:
    """A note's one line, its links' words bounded by _OPEN and _CLOSE, as plain words and links
    (a link's spaces outside it, a link of no words its words alone)."""
    found: list[Segment] = []
    link, inside = -1, False
    for part in _BOUNDS.split(text):
        if part in (_OPEN, _CLOSE):
            link += part == _OPEN
            inside = part == _OPEN
            continue
        label = part.strip()
        if inside and label:
            lead, trail = part[:len(part) - len(part.lstrip())], part[len(part.rstrip()):]
            found += [(lead, None), (label, urls[link]), (trail, None)]
        else:
            found.append((part, None))
    merged: list[Segment] = []
    for words, url in found:
        if merged and url is None and merged[-1][1] is None:
            merged[-1] = (merged[-1][0] + words, None)
        elif words:
            merged.append((words, url))
    return tuple(merged)


def _texts(part: etree._Element | None, tag: str, targets: dict[str, str]) -> dict[str, tuple[Segment, ...]]:
    """Each note of the part, by id, as it reads where cited: one pass over the part."""
    texts: dict[str, tuple[Segment, ...]] = {}
    if part is None:
        return texts
    for note in part.iterchildren(tag):
        pieces: list[str] = []
        urls: list[str] = []
        link = None  # the link being read (one inside another is read as its words)
        for event, element in etree.iterwalk(note, events=("start", "end")):
            if event == "end":
                if element is link:
                    pieces.append(_CLOSE)
                    link = None
            elif element.tag == f"{W}t":
                pieces.append((element.text or "").translate(_UNBOUNDED))
            elif element.tag == f"{W}noBreakHyphen":
                pieces.append("-")
            elif element.tag in _SPACES:
                pieces.append(" ")
            elif element.tag == f"{W}hyperlink" and link is None and (url := targets.get(element.get(_R_ID) or "")):
                link = element
                pieces.append(_OPEN)
                urls.append(_placed_at(url, element.get(f"{W}anchor")))
        line = "".join(pieces)
        words = cited([line]) if line.translate(_UNBOUNDED).split() else ""
        texts.setdefault(note.get(f"{W}id") or "", _segments(words, urls))
    return texts


def _placed_at(url: str, anchor: str | None) -> str:
    """A link's URL with the place in its target its `w:anchor` names, in the fragment's place (as
    mammoth reads the body's links)."""
    return f"{url.split('#', 1)[0]}#{anchor}" if anchor else url


def _run(text: str) -> etree._Element:
    run = etree.Element(f"{W}r")
    words = etree.SubElement(run, f"{W}t")
    words.set("{http://www.w3.org/XML/1998/namespace}space", "preserve")
    words.text = text
    return run


def _placed(segments: tuple[Segment, ...]) -> list[etree._Element]:
    """The runs that read as a note's segments: a link a HYPERLINK field around its words."""
    runs = []
    for words, url in segments:
        if url is None:
            runs.append(_run(words))
            continue
        for kind in ("begin", "instruction", "separate", "words", "end"):
            if kind == "words":
                runs.append(_run(words))
            elif kind == "instruction":
                run = etree.Element(f"{W}r")
                etree.SubElement(run, f"{W}instrText").text = f' HYPERLINK "{url}" '
                runs.append(run)
            else:
                run = etree.Element(f"{W}r")
                etree.SubElement(run, f"{W}fldChar").set(f"{W}fldCharType", kind)
                runs.append(run)
    return runs


def _without_mark(segments: tuple[Segment, ...], mark: str) -> tuple[Segment, ...]:
    """A custom-marked note's segments without the copy of its mark Word writes at the note's start
    (in a note numbered by Word, `w:footnoteRef` stands there, and is no text)."""
    opening = cited([mark])[:-1]  # ` (*`
    if not mark or not segments or segments[0][1] is not None or not segments[0][0].startswith(opening):
        return segments
    rest = segments[0][0][len(opening):]
    if rest[:1] not in (" ", ")"):
        return segments  # the note's own first word, which begins as the mark does
    if rest == ")" and len(segments) == 1:
        return ()  # a note of nothing but its mark
    return ((" (" + rest.lstrip(), None), *segments[1:])


def notes_in_place(document: etree._Element, parts: dict[str, etree._Element],
                   targets: dict[str, dict[str, str]] | None = None) -> bool:
    """The body `document` with each note reference replaced, in place, by its note's text from the
    parsed note parts `parts` (by member name), their links' URLs from `targets` (by member, then
    relationship id: link_targets); whether any was."""
    changed = False
    for reference_tag, note_tag, member in _KINDS:
        references = list(document.iter(reference_tag))
        if not references:
            continue
        texts = _texts(parts.get(member), note_tag, (targets or {}).get(member, {}))
        for reference in references:
            run = reference.getparent()
            if run is None:
                continue
            custom = ""
            if (reference.get(f"{W}customMarkFollows") or "").lower() in ("1", "true", "on"):
                mark = reference.getnext()  # the mark Word shows in the number's place
                if mark is not None and mark.tag == f"{W}t":
                    custom = (mark.text or "").strip()
                    run.remove(mark)
            run.remove(reference)
            segments = _without_mark(texts.get(reference.get(f"{W}id") or "", ()), custom)
            for placed in reversed(_placed(segments)):
                run.addnext(placed)
            holder = run.getparent()
            if holder is not None and all(child.tag == f"{W}rPr" for child in run):
                holder.remove(run)  # nothing of the run left but its look
            changed = True
    return changed
