"""An Office package's damaged members put out of the way so the rest reads, each costing only itself.

markitdown reads every member of a .docx (it rewrites the package before mammoth reads it),
python-pptx every part of a .pptx and the XLSX cell count (sheet_limits.py) every member of a
.xlsx, so one damaged member (a bad CRC, broken or cut deflate data) refused the whole document.
Now, in a copy of the package:

- a member that holds no text (a picture, a thumbnail, a font) is emptied: a picture with no bytes;
- a part that holds text (a DOCX's body, notes, comments, headers and footers, a slide, its notes,
  a sheet) keeps what inflates before the damage, parsed by lxml's recovering parser, which closes
  what the damage left open; one whose checksum alone is wrong is read whole, as it inflates;
- a part whose beginning is lost too, or a part no text is in, is left out where the format can
  do without it (a DOCX's styles, theme, properties), else put back as the empty part the format
  requires (a slide with no shapes, a notes part with no notes, a layout or master with no shapes);
- a part the package cannot do without (its content types, relationships, a DOCX's body with
  nothing before the damage, the workbook or presentation, every slide or every sheet) makes the
  document unreadable, said in one line. A workbook's shared strings are a text part: those before
  the damage are kept, and the cells that name a lost one read as empty, as Excel shows them.

A DOCX's notes part read in part or emptied leaves its body's references to the notes it lost
out, as mammoth fails on a reference to a note it cannot find.
"""

from __future__ import annotations

import io
import re
import zipfile
import zlib
from dataclasses import dataclass

from lxml import etree

from minirag.errors import ConversionFailed
from minirag.ingest.zip_prefix import inflated_prefix, well_formed_prefix

_PIECE = 256 * 1024
# Damaged parts named in warnings, one each; the rest are counted in one more.
MAX_DAMAGE_WARNINGS = 20
_TEXT_PARTS = (".xml", ".rels")
# A DOCX's parts that hold no text, which Word and mammoth read a package without: the styles
# (headings are then plain paragraphs), theme, fonts, settings, list numbering, and properties.
_DOCX_SPARE = re.compile(r"word/(styles|stylesWithEffects|fontTable|settings|webSettings|numbering|theme/[^/]+"
                         r"|commentsExtended|commentsIds|commentsExtensible|people)\.xml"
                         r"|docProps/[^/]+\.xml|customXml/(_rels/)?[^/]+\.xml(\.rels)?", re.IGNORECASE)
# An XLSX's and a PPTX's parts that hold no text and that openpyxl or python-pptx read a package without.
_XLSX_SPARE = re.compile(r"xl/(theme/[^/]+|tables/[^/]+|calcChain)\.xml|docProps/[^/]+\.xml"
                         r"|customXml/(_rels/)?[^/]+\.xml(\.rels)?", re.IGNORECASE)
_PPTX_SPARE = re.compile(r"docProps/[^/]+\.xml", re.IGNORECASE)
_SPARE = {".docx": _DOCX_SPARE, ".xlsx": _XLSX_SPARE, ".pptx": _PPTX_SPARE}

_W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
_P = "http://schemas.openxmlformats.org/presentationml/2006/main"
_A = "http://schemas.openxmlformats.org/drawingml/2006/main"
_S = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
# python-pptx requires a slide-like part's shape tree, and the shape tree its group properties.
_RELATIONSHIPS = '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"/>'
_SHAPES = ('<p:cSld><p:spTree><p:nvGrpSpPr><p:cNvPr id="1" name=""/><p:cNvGrpSpPr/><p:nvPr/></p:nvGrpSpPr>'
           '<p:grpSpPr/></p:spTree></p:cSld>')


def _slide_like(root: str) -> str:
    return f'<p:{root} xmlns:p="{_P}" xmlns:a="{_A}">{_SHAPES}</p:{root}>'


@dataclass(frozen=True)
class _Part:
    """A kind of part: the empty part it is put back as (None: left out of the package), and
    whether it holds text whose part before the damage is kept."""

    pattern: re.Pattern[str]
    empty: str | None
    text: bool


def _part(pattern: str, empty: str | None, *, text: bool = False) -> _Part:
    return _Part(re.compile(pattern, re.IGNORECASE), empty, text)


_PARTS = {
    ".docx": (
        _part(r"word/document\d*\.xml", None, text=True),
        _part(r"word/footnotes\.xml", f'<w:footnotes xmlns:w="{_W}"/>', text=True),
        _part(r"word/endnotes\.xml", f'<w:endnotes xmlns:w="{_W}"/>', text=True),
        _part(r"word/comments\.xml", f'<w:comments xmlns:w="{_W}"/>', text=True),
        _part(r"word/header\d*\.xml", f'<w:hdr xmlns:w="{_W}"/>', text=True),
        _part(r"word/footer\d*\.xml", f'<w:ftr xmlns:w="{_W}"/>', text=True),
        _part(r"word/_rels/(footnotes|endnotes|comments|header\d*|footer\d*)\.xml\.rels", _RELATIONSHIPS, text=True),
    ),
    ".pptx": (
        _part(r"ppt/slides/slide\d+\.xml", _slide_like("sld"), text=True),
        _part(r"ppt/notesSlides/notesSlide\d+\.xml", _slide_like("notes"), text=True),
        _part(r"ppt/slideLayouts/slideLayout\d+\.xml", _slide_like("sldLayout")),
        _part(r"ppt/slideMasters/slideMaster\d+\.xml", _slide_like("sldMaster")),
        _part(r"ppt/notesMasters/notesMaster\d+\.xml", _slide_like("notesMaster")),
        _part(r"ppt/handoutMasters/handoutMaster\d+\.xml", _slide_like("handoutMaster")),
        _part(r"ppt/(slides|notesSlides|slideLayouts|slideMasters|notesMasters|handoutMasters)/_rels/[^/]+\.xml\.rels",
              _RELATIONSHIPS, text=True),
        _part(r"ppt/theme/theme\d+\.xml", f'<a:theme xmlns:a="{_A}" name=""/>'),
        _part(r"ppt/presProps\.xml", f'<p:presentationPr xmlns:p="{_P}"/>'),
        _part(r"ppt/viewProps\.xml", f'<p:viewPr xmlns:p="{_P}"/>'),
        _part(r"ppt/tableStyles\.xml", f'<a:tblStyleLst xmlns:a="{_A}" def=""/>'),
    ),
    ".xlsx": (
        _part(r"xl/worksheets/sheet\d+\.xml", f'<worksheet xmlns="{_S}"><sheetData/></worksheet>', text=True),
        _part(r"xl/worksheets/_rels/sheet\d+\.xml\.rels", _RELATIONSHIPS, text=True),
        # The strings before the damage kept, or none: the cells naming the lost ones are empty (xlsx_tables.py).
        _part(r"xl/sharedStrings\.xml", f'<sst xmlns="{_S}"/>', text=True),
    ),
}
# The parts a document is read from: all of them lost, nothing is left to read.
_BODY = {".pptx": re.compile(r"ppt/slides/slide\d+\.xml", re.IGNORECASE),
         ".xlsx": re.compile(r"xl/worksheets/sheet\d+\.xml", re.IGNORECASE)}


def docx_spare(member: str) -> bool:
    return _DOCX_SPARE.fullmatch(member) is not None


def damaged_members(archive: zipfile.ZipFile) -> list[str]:
    """The members that cannot be read whole, read a piece at a time."""
    damaged = []
    for info in archive.infolist():
        if info.is_dir():
            continue
        try:
            with archive.open(info) as stream:
                while stream.read(_PIECE):
                    pass
        except (zipfile.BadZipFile, zlib.error, EOFError, NotImplementedError, OSError, ValueError):
            damaged.append(info.filename)
    return damaged


@dataclass(frozen=True)
class Mended:
    package: bytes  # the copy that is read
    warnings: tuple[str, ...]  # one a damaged member, saying what of it is read
    failure: str  # why the document cannot be read, where even the copy cannot


def mended(archive: zipfile.ZipFile, package: bytes, suffix: str, damaged: list[str], name: str, *,
           keep_text: bool = True) -> Mended:
    """A copy of `archive` (whose bytes are `package`) whose `damaged` members are emptied, read in
    part, left out or put back empty, as the module says; with `keep_text` false, no part is read
    in part (what is kept of one may not be what its reader expects). ConversionFailed where a
    part the document cannot do without is damaged."""
    replaced: dict[str, bytes | None] = {}
    first_parts: dict[str, str | None] | None = None  # the first layout and master, found once where needed
    warnings = []
    lost, whys = set(), {}
    for member in damaged:
        info = archive.getinfo(member)
        prefix = inflated_prefix(package, info)
        why = whys[member] = prefix.why if prefix else _unread(archive, info)
        if not member.lower().endswith(_TEXT_PARTS):
            replaced[member] = b""
            warnings.append(f"{name}: {member[:100]} is damaged ({why}); read without it")
            continue
        spare = _SPARE.get(suffix)
        if spare is not None and spare.fullmatch(member):
            replaced[member] = None
            warnings.append(f"{name}: {member[:100]} is damaged ({why}); read without it")
            continue
        kind = next((part for part in _PARTS.get(suffix, ()) if part.pattern.fullmatch(member)), None)
        kept, whole = well_formed_prefix(prefix.data) if kind and kind.text and keep_text and prefix else (b"", False)
        root = _recovered(kept) if kept else None
        if kind is not None and root is not None and (kind.empty is None or root.tag == _root_tag(kind.empty)):
            replaced[member] = etree.tostring(root, xml_declaration=True, encoding="UTF-8", standalone=True)
            warnings.append(said_kept(name, member, why, len(kept), info.file_size, whole=whole))
            continue
        if kind is None or kind.empty is None:
            raise ConversionFailed(f"{name}: cannot read the {suffix} file: {member[:100]} is damaged ({why})")
        if suffix == ".pptx" and kind.empty == _RELATIONSHIPS:
            first_parts = first_parts if first_parts is not None else _first_parts(archive)
            replaced[member] = _pptx_relationships(first_parts, member)
        else:
            replaced[member] = kind.empty.encode()
        lost.add(member)
        warnings.append(f"{name}: {member[:100]} is damaged ({why}); "
                        + ("its text is lost" if kind.text and not member.endswith(".rels") else "read without it"))
    body = _BODY.get(suffix)
    if body is not None:
        parts = [info.filename for info in archive.infolist() if body.fullmatch(info.filename)]
        if parts and all(part in lost for part in parts):
            raise ConversionFailed(f"{name}: cannot read the {suffix} file: {parts[0][:100]} is damaged "
                                   f"({whys[parts[0]]})" if len(parts) == 1 else
                                   f"{name}: cannot read the {suffix} file: every one of its {len(parts)} "
                                   f"{'slides' if suffix == '.pptx' else 'sheets'} is damaged")
    if suffix == ".docx":
        _drop_lost_notes(archive, replaced)
    first = damaged[0]
    failure = f"{name}: cannot read the {suffix} file: {first[:100]} is damaged ({whys[first]})" + (
        f", and {len(damaged) - 1} more of its parts" if len(damaged) > 1 else "")
    said = warnings[:MAX_DAMAGE_WARNINGS] + ([f"{name}: ... and {len(warnings) - MAX_DAMAGE_WARNINGS:,} more damaged parts"]
                                            if len(warnings) > MAX_DAMAGE_WARNINGS else [])
    return Mended(_copy(archive, replaced), tuple(said), failure)


_RELATIONSHIP = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/"


@dataclass(frozen=True)
class _Required:
    """The part python-pptx requires the relationships of the parts in `folder` to name: a part of
    the type `kind`, kept in `ppt/{kind}s/{kind}N.xml`."""

    folder: str
    kind: str


_REQUIRED = (_Required("slides", "slideLayout"), _Required("slideLayouts", "slideMaster"))


def _pptx_relationships(first: dict[str, str | None], member: str) -> bytes:
    """Relationships for a slide or a layout whose own are lost: the first layout or master the
    package holds (`first`, by kind: _first_parts), which python-pptx requires; none for other parts."""
    required = next((part for part in _REQUIRED if member.split("/")[1] == part.folder), None)
    target = first.get(required.kind) if required is not None else None
    if required is None or target is None:
        return _RELATIONSHIPS.encode()
    relationship = (f'<Relationship Id="rIdMended" Type="{_RELATIONSHIP}{required.kind}" '
                    f'Target="../{target.removeprefix("ppt/")}"/>')
    return _RELATIONSHIPS.replace("/>", f">{relationship}</Relationships>").encode()


def _first_parts(archive: zipfile.ZipFile) -> dict[str, str | None]:
    """The lowest-numbered part of each kind _REQUIRED names (`ppt/slideLayouts/slideLayout1.xml`),
    found in one pass over the members: once for a package, however many of its parts are lost."""
    found: dict[str, tuple[int, str]] = {}
    for name in archive.namelist():
        match = _NUMBERED_PART.fullmatch(name)
        if match is not None and match.group(1) in {part.kind for part in _REQUIRED}:
            number = int(match.group(2))
            if match.group(1) not in found or number < found[match.group(1)][0]:
                found[match.group(1)] = (number, name)
    return {part.kind: found[part.kind][1] if part.kind in found else None for part in _REQUIRED}


_NUMBERED_PART = re.compile(r"ppt/(\w+)s/\1(\d+)\.xml")


def said_kept(name: str, member: str, why: str, kept: int, size: int, *, whole: bool) -> str:
    """The warning for a damaged part of which `kept` bytes of `size` are read (`whole`: all of them,
    its checksum alone wrong)."""
    return f"{name}: {member[:100]} is damaged ({why}); " + (
        "read whole as it inflates, though some of its text may be wrong" if whole else
        f"read up to the damage, {kept:,} of its {size:,} bytes")


def _unread(archive: zipfile.ZipFile, info: zipfile.ZipInfo) -> str:
    """What is wrong with a member inflated_prefix does not inflate (an unknown compression method)."""
    try:
        with archive.open(info) as stream:
            while stream.read(_PIECE):
                pass
    except (zipfile.BadZipFile, zlib.error, EOFError, NotImplementedError, OSError, ValueError) as exc:
        return damage_words(exc)
    return "it cannot be read"


def damage_words(exc: BaseException) -> str:
    """A damaged zip member's error as a user reads it, with no exception's name."""
    text = str(exc).split(" for file ")[0].strip("\"' ")
    if isinstance(exc, zlib.error) or "while decompressing data" in text:
        return "its compressed data is corrupt"
    if isinstance(exc, EOFError) or text.startswith("Compressed file ended before"):
        return "its compressed data ends early"
    if text.startswith("Bad CRC-32"):
        return "its checksum does not match"
    if isinstance(exc, UnicodeDecodeError):
        return "its header's name is not the UTF-8 it claims to be"
    if text.startswith("File name in directory"):
        return "its header names another file than the directory does"
    if text.startswith("That compression method is not supported"):
        return "its compression method is not supported"
    return text or "it cannot be read"


def _root_tag(xml: str) -> str:
    return str(etree.fromstring(xml.encode()).tag)


def _recovered(data: bytes) -> etree._Element | None:
    """`data` parsed by lxml's recovering parser, no entities, DTDs or network; None where no
    element survives, or what survives is no well-formed XML (a prefix the damage garbled)."""
    parser = etree.XMLParser(recover=True, resolve_entities=False, no_network=True, load_dtd=False)
    try:
        root = etree.fromstring(data, parser)
        if root is not None:
            etree.fromstring(etree.tostring(root), _STRICT)
    except etree.XMLSyntaxError:
        return None
    return root


_STRICT = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False)


_NOTES = {"word/footnotes.xml": "footnote", "word/endnotes.xml": "endnote"}


def _drop_lost_notes(archive: zipfile.ZipFile, replaced: dict[str, bytes | None]) -> None:
    """Take the references to notes that a damaged notes part lost out of the body in `replaced`."""
    kept = {}
    for member, kind in _NOTES.items():
        content = replaced.get(member)
        if content is not None:
            notes = etree.fromstring(content, _STRICT)
            kept[kind] = {note.get(f"{{{_W}}}id") for note in notes.iter(f"{{{_W}}}{kind}")}
    if not kept:
        return
    document = replaced.get("word/document.xml")
    if document is None:
        try:
            document = archive.read("word/document.xml")
        except KeyError:
            return
    root = _recovered(document)
    if root is None:
        return
    dropped = False
    for kind, ids in kept.items():
        for reference in list(root.iter(f"{{{_W}}}{kind}Reference")):
            parent = reference.getparent()
            if parent is not None and reference.get(f"{{{_W}}}id") not in ids:
                parent.remove(reference)
                dropped = True
    if dropped:
        replaced["word/document.xml"] = etree.tostring(root, xml_declaration=True, encoding="UTF-8", standalone=True)


def _copy(archive: zipfile.ZipFile, replaced: dict[str, bytes | None]) -> bytes:
    """The archive's bytes with the members in `replaced` so replaced (None: left out), every other
    member copied as it is."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as copy:
        for info in archive.infolist():
            content = replaced[info.filename] if info.filename in replaced else archive.read(info)
            if content is not None:
                copy.writestr(info.filename, content)
    return out.getvalue()
