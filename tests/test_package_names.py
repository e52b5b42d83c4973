"""Office packages that niche generators write with part names spelt unlike their relationships
spell them (another case, backslashes, from the root): Excel, Word and PowerPoint open them, and
they read here as the package that spells them alike does."""

from __future__ import annotations

import io
import posixpath
import re
import zipfile

import pytest
from conftest import FIXTURES
from helpers.growth import grows_linearly

from minirag.ingest.convert import convert_document
from minirag.ingest.ooxml_names import consistent

DOCS = FIXTURES / "docs"
REAL = ("xlsx_rows_founders.xlsx", "xlsx_excel_chart_data.xlsx", "pptx_slides_text.pptx",
        "docx_word_header_footer.docx", "docx_word_comments.docx")


def _rewritten(package: bytes, *, rename=lambda name: name, target=lambda written, holder: written) -> bytes:
    """`package` with each member renamed by `rename` and each relationship's target written by `target`."""
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(package)) as original, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as copy:
        for member in original.infolist():
            data = original.read(member)
            if member.filename.endswith(".rels"):
                data = re.sub(rb'Target="([^"]*)"', lambda found, holder=member.filename: b'Target="%s"' % target(
                    found.group(1).decode(), holder).encode(), data)
            copy.writestr(rename(member.filename), data)
    return out.getvalue()


def _capitalised(name: str) -> str:
    """Every folder and file of a part capitalised (`Xl/Worksheets/Sheet1.xml`); the package's
    relationships and content types as they were, naming the parts in lower case."""
    if name.endswith(".rels") or name == "[Content_Types].xml":
        return name
    return "/".join(part[:1].upper() + part[1:] for part in name.split("/"))


def _internal(written: str) -> bool:
    return "://" not in written and not written.startswith("#")


def _backslashed(written: str, holder: str) -> str:
    return written.replace("/", "\\") if _internal(written) else written


def _from_root(written: str, holder: str) -> str:
    if not _internal(written) or written.startswith("/"):
        return written
    return "/" + posixpath.normpath(posixpath.join(posixpath.dirname(posixpath.dirname(holder)), written))


VARIANTS = {
    "parts in another case": lambda package: _rewritten(package, rename=_capitalised),
    "one sheet in another case": lambda package: _rewritten(
        package, rename=lambda name: "xl/Worksheets/Sheet1.xml" if name == "xl/worksheets/sheet1.xml" else name),
    "targets with backslashes": lambda package: _rewritten(package, target=_backslashed),
    "targets from the root": lambda package: _rewritten(package, target=_from_root),
    "targets from the root with backslashes": lambda package: _rewritten(
        package, target=lambda written, holder: _backslashed(_from_root(written, holder), holder)),
    "member names with backslashes": lambda package: _rewritten(package, rename=lambda name: name.replace("/", "\\")),
}


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("fixture", REAL)
def test_a_package_whose_names_differ_from_its_references_reads_as_the_one_spelt_alike(fixture, variant):
    """Before, a capitalised workbook failed (`no item named 'xl/sharedStrings.xml'`), a workbook
    with backslashed targets read as no text at all, and a presentation with either failed with
    `no relationship of type .../officeDocument`; a capitalised DOCX failed with `Could not find
    main document part`."""
    original = (DOCS / fixture).read_bytes()
    suffix = fixture[fixture.rindex("."):]
    expected = convert_document(original, suffix, fixture)
    assert expected.markdown.strip()
    assert convert_document(VARIANTS[variant](original), suffix, fixture) == expected


@pytest.mark.parametrize("fixture", REAL)
def test_a_package_spelt_alike_is_read_as_it_is(fixture):
    with zipfile.ZipFile(DOCS / fixture) as package:
        assert consistent(package) is None


def test_a_member_spelt_as_its_reference_spells_it_wins_over_one_in_another_case():
    """A decoy `Xl/Worksheets/Sheet1.xml` beside the sheet its workbook names is never read for it."""
    original = (DOCS / "xlsx_rows_founders.xlsx").read_bytes()
    decoy = (b'<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>'
             b'<row r="1"><c r="A1" t="inlineStr"><is><t>decoy</t></is></c></row></sheetData></worksheet>')
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(original)) as package, zipfile.ZipFile(out, "w") as copy:
        for member in package.infolist():
            copy.writestr(member, package.read(member))
        copy.writestr("XL/Worksheets/Sheet1.xml", decoy)
    expected = convert_document(original, ".xlsx", "founders.xlsx")
    assert convert_document(out.getvalue(), ".xlsx", "founders.xlsx") == expected


def test_resolving_many_references_costs_time_linear_in_their_number():
    """Every reference is looked up once, by exact and by case-folded name: a package of
    thousands of parts each named in another case costs what their number does."""

    def package(parts: int) -> zipfile.ZipFile:
        out = io.BytesIO()
        rels = "".join(f'<Relationship Id="r{n}" Type="t" Target="media\\image{n}.png"/>' for n in range(parts))
        with zipfile.ZipFile(out, "w") as made:
            made.writestr("[Content_Types].xml", '<Types xmlns="http://schemas.openxmlformats.org/package/2006/'
                          'content-types"/>')
            made.writestr("xl/_rels/workbook.xml.rels", '<Relationships xmlns="http://schemas.openxmlformats.org/'
                          f'package/2006/relationships">{rels}</Relationships>')
            made.writestr("xl/workbook.xml", "<workbook/>")
            for n in range(parts):
                made.writestr(f"XL/Media/Image{n}.PNG", b"")
        return zipfile.ZipFile(io.BytesIO(out.getvalue()))

    assert grows_linearly(consistent, lambda repeats: package(repeats // 4))
