"""An Office package whose part names are spelt unlike its relationships spell them, renamed to match.

A ZIP member name is case-sensitive to every reader here (openpyxl, python-pptx, mammoth and the
checks that read parts themselves), but not to Excel, Word or PowerPoint: Open Packaging
Conventions compare part names as case-insensitive ASCII (ECMA-376 Part 2, part name
equivalence), and Office reads a relationship target or a member name written with backslashes
(`xl\\worksheets\\sheet1.xml`) as the path it means. Niche generators write both: a member
`xl/Worksheets/Sheet1.xml` that the workbook's relationships call `worksheets/sheet1.xml`, or
targets with Windows separators. Office opens them; here such a workbook read as no text, or
failed on a missing part.

So such a package is rewritten before it is read, as a Strict one is (ooxml_strict.py): each part
takes the spelling its first reference gives it (a relationship's target, else the content-type
override naming it, else its own name with `/` separators), every reference to it is written in
that spelling, and each relationships part follows the part it belongs to. The members are indexed
once, by exact name and by case-folded name, so resolving every reference costs one lookup each.
"""

from __future__ import annotations

import io
import posixpath
import zipfile
from dataclasses import dataclass

from lxml import etree

from minirag.ingest.zip_xml import parsed

_RELATIONSHIPS = "{http://schemas.openxmlformats.org/package/2006/relationships}Relationship"
_OVERRIDE = "{http://schemas.openxmlformats.org/package/2006/content-types}Override"
_CONTENT_TYPES = "[Content_Types].xml"
_ROOT_RELATIONSHIPS = "_rels/.rels"


@dataclass(frozen=True)
class _Reference:
    """Where a part is named: the attribute `attribute` of `element` in the member `holder`."""

    holder: str
    element: etree._Element
    attribute: str
    absolute: bool  # written from the package root (`/xl/...`), not from the holder's folder


def consistent(archive: zipfile.ZipFile) -> bytes | None:
    """The package with its part names and references spelt alike, or None when they already are (or
    cannot be made so: two members whose names differ only in case, or a part that is no XML).
    `archive` has passed convert.check_zip, which bounds what reading its relationships costs."""
    members = archive.infolist()
    exact = {_slashed(member.filename): member for member in members}
    if len(exact) != len(members):
        return None  # `a\b.xml` beside `a/b.xml`: which is meant is anyone's guess
    folded: dict[str, str] = {}
    for name in exact:
        folded.setdefault(name.casefold(), name)
    roots: dict[str, etree._Element] = {}
    references: list[tuple[str, _Reference]] = []  # (the member it resolves to, where it is named)
    for name in sorted(exact, key=_reading_order):
        kind = _reading_order(name)
        if kind > 2:
            continue
        try:
            roots[name] = root = parsed(archive.read(exact[name]))
        except etree.XMLSyntaxError:
            return None  # its readers say what is wrong with it
        for found in _named(name, root, kind == 2):
            target, reference = found
            member = target if target in exact else folded.get(target.casefold())
            if member is not None:
                references.append((member, reference))
    spelling = _spellings(exact, folded, references)
    if spelling is None:
        return None
    changed = set()
    for member, reference in references:
        spelt = _spelt(spelling[member], reference, spelling[reference.holder])
        if spelt != _written(reference):
            changed.add(reference.holder)
            reference.element.set(reference.attribute, spelt)
    if not changed and all(spelling[name] == exact[name].filename for name in exact):
        return None
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as copy:
        for name, member in exact.items():
            root = roots.get(name) if name in changed else None
            data = archive.read(member) if root is None else etree.tostring(
                root, xml_declaration=True, encoding="UTF-8", standalone=True)
            copy.writestr(spelling[name], data)
    return out.getvalue()


def _reading_order(name: str) -> int:
    """The package's relationships first (they name its parts as its readers look for them), then
    the content types; 3 for every other part."""
    kind = name.casefold()
    if kind == _ROOT_RELATIONSHIPS:
        return 0
    return 1 if kind.endswith(".rels") else 2 if kind == _CONTENT_TYPES.casefold() else 3


def _slashed(name: str) -> str:
    return name.replace("\\", "/").lstrip("/")


def _named(holder: str, root: etree._Element, content_types: bool):
    """(the part named, where) for each part a relationships part or the content types name."""
    if content_types:
        for element in root.iter(_OVERRIDE):
            part = element.get("PartName")
            if part:
                yield _slashed(part), _Reference(holder, element, "PartName", absolute=True)
        return
    # `xl/_rels/workbook.xml.rels` belongs to `xl/workbook.xml`; its targets start from `xl/`.
    folder = posixpath.dirname(posixpath.dirname(holder))
    for element in root.iter(_RELATIONSHIPS):
        target = element.get("Target")
        if not target or element.get("TargetMode") == "External" or "://" in target or target.startswith("#"):
            continue
        target = target.replace("\\", "/")
        absolute = target.startswith("/")
        part = posixpath.normpath(target.lstrip("/") if absolute else posixpath.join(folder, target))
        if not part.startswith("../"):
            yield part, _Reference(holder, element, "Target", absolute=absolute)


def _spellings(exact: dict[str, zipfile.ZipInfo], folded: dict[str, str],
               references: list[tuple[str, _Reference]]) -> dict[str, str] | None:
    """Each member's name as the package will spell it; None where two would be spelt alike."""
    spelling = {name: name for name in exact}
    named: set[str] = set()
    for member, reference in references:
        if member not in named:
            named.add(member)
            spelling[member] = _resolved(reference)
    for name in exact:
        if name.casefold() in (_CONTENT_TYPES.casefold(), _ROOT_RELATIONSHIPS.casefold()):
            spelling[name] = _CONTENT_TYPES if name.casefold() == _CONTENT_TYPES.casefold() else _ROOT_RELATIONSHIPS
    for name in exact:  # a relationships part follows its part: `X/_rels/Y.rels` belongs to `X/Y`
        folder, _, base = name.rpartition("/")
        above, _, rels = folder.rpartition("/")
        owner = folded.get(f"{above}/{base[:-5]}".lstrip("/").casefold()) if base.casefold().endswith(".rels") else None
        if rels.casefold() == "_rels" and owner is not None:
            part_folder, _, part = spelling[owner].rpartition("/")
            spelling[name] = f"{part_folder}/_rels/{part}.rels".lstrip("/")
    if len(set(spelling.values())) != len(spelling):
        return None
    return spelling


def _resolved(reference: _Reference) -> str:
    """The part a reference names, as it spells it."""
    written = _written(reference).replace("\\", "/")
    if reference.absolute:
        return posixpath.normpath(written.lstrip("/"))
    folder = posixpath.dirname(posixpath.dirname(reference.holder))
    return posixpath.normpath(posixpath.join(folder, written))


def _written(reference: _Reference) -> str:
    return reference.element.get(reference.attribute) or ""


def _spelt(part: str, reference: _Reference, holder: str) -> str:
    """`part` named as `reference` names it: from the root, or from the folder of the part that its
    holder, spelt `holder`, belongs to."""
    if reference.absolute:
        return "/" + part
    return posixpath.relpath(part, posixpath.dirname(posixpath.dirname(holder)) or ".")
