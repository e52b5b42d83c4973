"""A DOCX's text as Word shows it, made so before mammoth (markitdown's DOCX path) reads it.

mammoth reads every run's text and drops what it does not know:
- A run formatted hidden (`w:vanish`, on the run or through its character or paragraph style,
  the default paragraph style or the document's default run properties, which Word reads as a
  toggle: see `Visibility.hidden`) is left out here, as the .doc and RTF readers leave hidden
  text out: Word neither shows nor prints it, and text that hides from the reader may still
  speak to an agent reading the result. So is a run sized under a point (`w:sz` of 0 or 1
  half-point, under Word's own smallest), as a PDF's glyph is.
- Ruby (a reading set small over Japanese or Chinese words) keeps its base text, the words on the
  line; mammoth dropped both. The reading repeats the base in kana and is left out.
- A simple field (`w:fldSimple`: a cross reference, a document property) keeps the result Word
  shows; mammoth dropped it.
- Of alternative content (`mc:AlternateContent`), the Choice Word shows is read where its words
  differ from the Fallback's, which mammoth reads (see `_choices_read`).
- A SmartArt graphic's text, in a diagram part mammoth never reads, stands in its drawing's place,
  a line a node (smartart.py).
- A table of contents or an index Word generates (a `TOC` or `INDEX` field's result) is left out,
  as the .doc, RTF and ODF readers leave theirs out: its entries repeat the headings, with page
  numbers glued on and links to bookmarks (`[Datensicherung 2](#_Toc1)`) no reader can follow.
- A footnote or endnote reads in parentheses where it is cited, as in ODT and RTF (docx_notes.py),
  its links links as the body's; mammoth had listed them all after the body.
- A link whose relationship is missing reads as its words (docx_links.py); mammoth failed the
  whole document on it. So did a picture whose bytes the package does not hold (linked from
  outside, its relationship or member missing): it reads as its alt text (docx_pictures.py); and
  a relationship lacking its Id, Target or Type: it is left out; and a symbol or a cell's span that
  is no number (docx_values.py). The comments' links and pictures are mended as the body's.
Only the parts that need it are rewritten; a document without any of these keeps its bytes.
"""

from __future__ import annotations

import copy
import re
import zipfile
from dataclasses import dataclass

from lxml import etree

from minirag.ingest import docx_links, docx_notes, docx_pictures, docx_values, smartart
from minirag.ingest.zip_xml import parsed, with_parts

W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
_MC = "{http://schemas.openxmlformats.org/markup-compatibility/2006}"
_DOCUMENT = "word/document.xml"
_BODY_PARTS = (_DOCUMENT, docx_notes.FOOTNOTES, docx_notes.ENDNOTES)  # what mammoth reads
_ALSO_READ = ("word/comments.xml",)  # read by mammoth too, its references mended alone
_STYLES = "word/styles.xml"
_OFF = frozenset({"0", "false", "off"})
_MAX_BASED_ON = 16  # a style chain longer than Word's own (or a loop) ends there
_SMALLEST_HALF_POINTS = 2  # one point
# A run sized under a point, whatever its namespace prefix: only then is a part rewritten for it.
_TINY_SIZE = re.compile(rb"sz\s[^>]*?val\s*=\s*[\"'][01][\"']")
# A field whose result Word generates from the document: a table of contents, an index.
_INDEX_FIELD = re.compile(r"\s*(?:TOC|INDEX)\b", re.IGNORECASE)
_INDEX_MARK = re.compile(rb"instrText[^>]*>\s*(?:TOC|INDEX)\b", re.IGNORECASE)


def _toggle(properties) -> bool | None:
    """A run-properties element's `w:vanish`: True or False where it says, None where silent."""
    if properties is None:
        return None
    vanish = properties.find(f"{W}vanish")
    if vanish is None:
        return None
    return (vanish.get(f"{W}val") or "true").lower() not in _OFF


def _below_a_point(properties) -> bool:
    """A run's own size under one point (`w:sz` counts half-points; Word's own smallest is 1 pt): a
    glyph no reader sees, as in a PDF (pdf_visible.MIN_GLYPH_SIZE)."""
    size = properties.find(f"{W}sz") if properties is not None else None
    try:
        return size is not None and int(size.get(f"{W}val") or "2") < _SMALLEST_HALF_POINTS
    except ValueError:
        return False


@dataclass(frozen=True)
class Visibility:
    """The styles that hide their text, by style id (a style's chain of `basedOn` followed)."""

    hiding_styles: frozenset[str] = frozenset()
    default_paragraph_style: str | None = None  # the style of a paragraph that names none
    hidden_by_default: bool = False  # the document's default run properties hide text

    @classmethod
    def of(cls, archive: zipfile.ZipFile) -> Visibility:
        try:
            data = archive.read(_STYLES)
            styles = parsed(data) if b"vanish" in data else None
        except (KeyError, etree.XMLSyntaxError, ValueError):
            styles = None
        if styles is None:
            return cls()
        own: dict[str, bool | None] = {}
        based_on: dict[str, str] = {}
        for style in styles.iter(f"{W}style"):
            style_id = style.get(f"{W}styleId")
            if style_id is None:
                continue
            own[style_id] = _toggle(style.find(f"{W}rPr"))
            parent = style.find(f"{W}basedOn")
            if parent is not None and parent.get(f"{W}val"):
                based_on[style_id] = parent.get(f"{W}val")
        default = next((style.get(f"{W}styleId") for style in styles.iter(f"{W}style")
                        if style.get(f"{W}type") == "paragraph" and (style.get(f"{W}default") or "") in ("1", "true")),
                       None)
        defaults = styles.find(f"{W}docDefaults/{W}rPrDefault/{W}rPr")
        hiding = set()
        for style_id in own:
            current: str | None = style_id
            for _ in range(_MAX_BASED_ON):
                if current is None or own.get(current) is not None:
                    break
                current = based_on.get(current)
            if current is not None and own.get(current):
                hiding.add(style_id)
        return cls(frozenset(hiding), default, bool(_toggle(defaults)))

    def _style_hides(self, properties, reference: str, default: str | None = None) -> bool:
        style = properties.find(f"{W}{reference}") if properties is not None else None
        name = style.get(f"{W}val") if style is not None else default
        return name is not None and name in self.hiding_styles

    def hidden(self, run) -> bool:
        """Whether Word hides the run. Its own setting, where it says, is absolute; otherwise
        `vanish` is a toggle (ECMA-376 Part 1, 17.7.3): the document's default, then the
        paragraph's style, then the run's character style each turn it over where they hide
        (a hidden character style in a hidden paragraph style shows), and a style that says
        false leaves it as it was."""
        properties = run.find(f"{W}rPr")
        if _below_a_point(properties):
            return True
        said = _toggle(properties)
        if said is not None:
            return said
        paragraph = next(run.iterancestors(f"{W}p"), None)
        paragraph_properties = paragraph.find(f"{W}pPr") if paragraph is not None else None
        return (self.hidden_by_default
                ^ self._style_hides(paragraph_properties, "pStyle", self.default_paragraph_style)
                ^ self._style_hides(properties, "rStyle"))

    def shown(self, root) -> bool:
        """Makes the parsed part what Word shows, in place; whether anything changed."""
        changed = False
        for run in [run for run in root.iter(f"{W}r") if self.hidden(run)]:
            run.getparent().remove(run)
            changed = True
        for ruby in list(root.iter(f"{W}ruby")):
            base = ruby.find(f"{W}rubyBase")
            holder = ruby.getparent()
            if holder is None or holder.getparent() is None:
                continue
            for placed in list(base) if base is not None else []:
                holder.addprevious(placed)
            holder.getparent().remove(holder)
            changed = True
        for field in list(root.iter(f"{W}fldSimple")):
            for placed in list(field):
                field.addprevious(placed)
            field.getparent().remove(field)
            changed = True
        changed = _generated_indexes_left_out(root) or changed
        return _choices_read(root) or changed


def _generated_indexes_left_out(root) -> bool:
    """The runs of each TOC or INDEX field's result removed (the runs that hold its own separator
    and end stay, so the field still closes), and links left empty; whether any was. One pass over
    the runs in order, nested fields (each entry's PAGEREF) going with their index."""
    fields: list[tuple[list[str], bool]] = []  # each open field: its instruction's pieces, whether an index's result
    inside = 0  # open fields that are an index past its separator
    doomed = []
    for run in root.iter(f"{W}r"):
        before = inside
        for child in run:
            if child.tag == f"{W}instrText" and fields and not fields[-1][1]:
                fields[-1][0].append(child.text or "")
            elif child.tag == f"{W}fldChar":
                kind = child.get(f"{W}fldCharType")
                if kind == "begin":
                    fields.append(([], False))
                elif kind == "separate" and fields and not fields[-1][1]:
                    if _INDEX_FIELD.match("".join(fields[-1][0])):
                        fields[-1] = (fields[-1][0], True)
                        inside += 1
                elif kind == "end" and fields:
                    inside -= fields.pop()[1]
        if before and inside:
            doomed.append(run)
    for run in doomed:
        holder = run.getparent()
        holder.remove(run)
        if holder.tag == f"{W}hyperlink" and not len(holder) and holder.getparent() is not None:
            holder.getparent().remove(holder)
    return bool(doomed)


# Namespace prefixes a Choice may require that Word (2010 and later) reads: a Choice requiring any other
# is skipped by Word as by any reader, and the next one (or the Fallback) is shown.
_WORD_READS = frozenset({"wps", "wpg", "wpc", "wpi", "wp14", "w14", "w15", "w16", "w16se", "w16cid", "w16cex",
                         "w16du", "w16sdtdh", "a14", "aink", "am3d", "c14", "v", "o", "w10", "wne", "m"})


def _choices_read(root) -> bool:
    """Each `mc:AlternateContent` read as Word shows it, the first Choice it can read (a Word 2010
    text box or shape), where mammoth reads the Fallback (the same box in VML, for older readers).
    A Fallback of other words than that Choice's (nothing any Word shows) takes the Choice's text
    boxes, one for one where both have as many, or its runs where it holds no drawing. One that
    holds another alternative, or whose Choice mammoth could not read in its place, stays as it
    is. Whether anything changed."""
    changed = False
    for alternate in list(root.iter(f"{_MC}AlternateContent")):
        fallback = alternate.find(f"{_MC}Fallback")
        choice = next((choice for choice in alternate.iterfind(f"{_MC}Choice")
                       if set((choice.get("Requires") or "").split()) <= _WORD_READS), None)
        if (choice is None or fallback is None or _words(choice) == _words(fallback)
                or next(alternate.iterdescendants(f"{_MC}AlternateContent"), None) is not None):
            continue
        shown, read = list(choice.iter(f"{W}txbxContent")), list(fallback.iter(f"{W}txbxContent"))
        if shown and len(shown) == len(read):
            for old, new in zip(read, shown, strict=True):
                old.getparent().replace(old, copy.deepcopy(new))
        elif not shown and next(choice.iter(f"{W}drawing", f"{W}pict"), None) is None:
            for child in list(fallback):
                fallback.remove(child)
            fallback.extend(copy.deepcopy(child) for child in choice)
        else:
            continue
        changed = True
    return changed


def _words(element) -> str:
    return "".join(text.text or "" for text in element.iter(f"{W}t"))


def _may_change(data: bytes, visibility: Visibility) -> bool:
    return bool(visibility.hiding_styles) or visibility.hidden_by_default or any(
        mark in data for mark in (b"vanish", b"ruby", b"fldSimple", b"AlternateContent", smartart.MARK)) or bool(
        _TINY_SIZE.search(data)) or bool(_INDEX_MARK.search(data))


def _smartart_as_text(archive: zipfile.ZipFile, member: str, root, read: set[str]) -> bool:
    """Each SmartArt drawing of the part replaced, in its run, by its nodes' text, a line each
    (smartart.py: mammoth never reads the diagram part); whether any was."""
    drawings = [drawing for drawing in root.iter(f"{W}drawing")
                if drawing.find(".//" + smartart.RELATIONSHIP_IDS) is not None]
    targets = smartart.relationship_targets(archive, member) if drawings else {}
    changed = False
    for drawing in drawings:
        lines = smartart.graphic_lines(archive, targets, drawing, read)
        if not lines or drawing.getparent() is None:
            continue
        for index, line in enumerate(lines):
            if index:
                drawing.addprevious(etree.Element(f"{W}br"))
            text = etree.Element(f"{W}t")
            text.text = line
            drawing.addprevious(text)
        drawing.getparent().remove(drawing)
        changed = True
    return changed


def _references_mended(archive: zipfile.ZipFile, member: str, names: set[str]) -> etree._Element | None:
    """A part mammoth reads but that is not shown in the body's place (the comments) with its links,
    pictures and numbers made readable, as the body parts' are; None where nothing changes."""
    data = archive.read(member)
    unresolved = docx_links.dangling(archive, member, data)
    unpictured = docx_pictures.unreadable(archive, member, data, names)
    numbers = docx_values.may_change(data)
    if not (unresolved or unpictured or numbers):
        return None
    try:
        root = parsed(data)
    except (etree.XMLSyntaxError, ValueError):
        return None
    changed = (docx_links.unlinked(root, unresolved) | docx_pictures.as_alt_text(root, unpictured)
               | (numbers and docx_values.readable(root)))
    return root if changed else None


def shown_docx(archive: zipfile.ZipFile, visibility: Visibility) -> bytes | None:
    """The DOCX rewritten with its body parts as Word shows them and its notes read where they are
    cited (docx_notes.py); None where nothing changes (or a part cannot be read: mammoth then says
    what is wrong with it)."""
    rewritten: dict[str, etree._Element] = {}
    names = set(archive.namelist())
    read: set[str] = set()  # the SmartArt data parts read so far
    cites = _DOCUMENT in names and any(mark in archive.read(_DOCUMENT) for mark in docx_notes.MARKS)
    roots: dict[str, etree._Element] = {}  # the parts parsed, by member
    targets: dict[str, dict[str, str]] = {}  # the note parts' links' URLs, by member and relationship id
    for member in _BODY_PARTS:
        if member not in names:
            continue
        data = archive.read(member)
        may_change = _may_change(data, visibility)
        unresolved = docx_links.dangling(archive, member, data)
        unpictured = docx_pictures.unreadable(archive, member, data, names)
        numbers = docx_values.may_change(data)
        if not (cites or may_change or unresolved or unpictured or numbers):
            continue
        try:
            root = parsed(data)  # (read once: a body part is the document's largest)
        except (etree.XMLSyntaxError, ValueError):
            return None
        roots[member] = root
        if cites and member != _DOCUMENT and b"hyperlink" in data:
            targets[member] = docx_notes.link_targets(archive, member)
        shown = may_change and visibility.shown(root)
        if (_smartart_as_text(archive, member, root, read) | shown | docx_links.unlinked(root, unresolved)
                | docx_pictures.as_alt_text(root, unpictured) | (numbers and docx_values.readable(root))):
            rewritten[member] = root
    if cites and _DOCUMENT in roots and docx_notes.notes_in_place(roots[_DOCUMENT], roots, targets):
        rewritten[_DOCUMENT] = roots[_DOCUMENT]
    for member in _ALSO_READ:
        if member in names and (root := _references_mended(archive, member, names)) is not None:
            rewritten[member] = root
    rewritten.update(docx_links.incomplete_relationships(archive))
    return with_parts(archive, rewritten) if rewritten else None
