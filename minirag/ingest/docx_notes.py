"""A DOCX's footnotes and endnotes read where they are cited, as the ODT and RTF readers read theirs.

mammoth writes each note's number where it is cited and every note in a numbered list after the
body: in a long document the note is chunked far from the sentence it explains. So before mammoth
reads the body, each `w:footnoteReference` or `w:endnoteReference` becomes a plain run of the
note's text in parentheses (note_text.cited), its number (or the custom mark that follows it) gone;
mammoth lists only the notes the body still cites, so nothing is left at the end. A note's
paragraphs, list items, tabs and breaks read as one line. A reference to a note that is absent
(or of no words) leaves only the text around it.
"""

from __future__ import annotations

from lxml import etree

from minirag.ingest.note_text import cited

W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
FOOTNOTES, ENDNOTES = "word/footnotes.xml", "word/endnotes.xml"
# What the body cites a note by, whatever its namespace prefix: only then are the notes read.
MARKS = (b"footnoteReference", b"endnoteReference")
_KINDS = ((f"{W}footnoteReference", f"{W}footnote", FOOTNOTES), (f"{W}endnoteReference", f"{W}endnote", ENDNOTES))
_SPACES = frozenset({f"{W}tab", f"{W}br", f"{W}cr", f"{W}p"})  # where a note's words part


def _texts(part: etree._Element | None, tag: str) -> dict[str, str]:
    """Each note of the part, by id, as it reads where cited: one pass over the part."""
    texts: dict[str, str] = {}
    if part is None:
        return texts
    for note in part.iterchildren(tag):
        pieces = []
        for element in note.iter(f"{W}t", f"{W}noBreakHyphen", *_SPACES):
            if element.tag == f"{W}t":
                pieces.append(element.text or "")
            else:
                pieces.append("-" if element.tag == f"{W}noBreakHyphen" else " ")
        texts.setdefault(note.get(f"{W}id") or "", cited(["".join(pieces)]))
    return texts


def notes_in_place(document: etree._Element, parts: dict[str, etree._Element]) -> bool:
    """The body `document` with each note reference replaced, in place, by its note's text from the
    parsed note parts `parts` (by member name); whether any was."""
    changed = False
    for reference_tag, note_tag, member in _KINDS:
        references = list(document.iter(reference_tag))
        if not references:
            continue
        texts = _texts(parts.get(member), note_tag)
        for reference in references:
            run = reference.getparent()
            if run is None:
                continue
            if (reference.get(f"{W}customMarkFollows") or "").lower() in ("1", "true", "on"):
                mark = reference.getnext()  # the mark Word shows in the number's place
                if mark is not None and mark.tag == f"{W}t":
                    run.remove(mark)
            run.remove(reference)
            text = texts.get(reference.get(f"{W}id") or "", "")
            if text:
                placed = etree.Element(f"{W}r")
                words = etree.SubElement(placed, f"{W}t")
                words.set("{http://www.w3.org/XML/1998/namespace}space", "preserve")
                words.text = text
                run.addnext(placed)
            holder = run.getparent()
            if holder is not None and all(child.tag == f"{W}rPr" for child in run):
                holder.remove(run)  # nothing of the run left but its look
            changed = True
    return changed
