"""An Office file saved as Strict Open XML, read as the Transitional one every reader knows.

Excel, Word and PowerPoint offer "Strict Open XML" as a format to save in (ISO/IEC 29500
Strict). Its parts hold the same elements as a Transitional file's, under other namespace
names: `http://purl.oclc.org/ooxml/spreadsheetml/main` for
`http://schemas.openxmlformats.org/spreadsheetml/2006/main`, and the same for the relationship
types that tie the package together. openpyxl and python-pptx know only the Transitional
names: a Strict workbook read as one without sheets ("no text found", however full it was),
and a Strict presentation failed on a missing relationship. So a Strict package is rewritten
before it is read: each name under `http://purl.oclc.org/ooxml/` becomes its Transitional
twin, and nothing else changes.
"""

from __future__ import annotations

import io
import re
import zipfile

# ISO/IEC 29500-1:2016, Annex A: a Strict name is `http://purl.oclc.org/ooxml/AREA/NAME[/TYPE]`,
# its Transitional twin `http://schemas.openxmlformats.org/AREA/2006/NAME[/TYPE]`, where two names
# are spelt with a hyphen (the document properties).
_STRICT = re.compile(rb"http://purl\.oclc\.org/ooxml/(\w+)/(\w+)((?:/\w+)?)")
_SPELT_APART = {b"extendedProperties": b"extended-properties", b"customProperties": b"custom-properties"}
# The package's root relationship to its main part: what marks a Strict package.
_STRICT_MAIN = b"http://purl.oclc.org/ooxml/officeDocument/relationships/officeDocument"


def transitional(archive: zipfile.ZipFile) -> bytes | None:
    """The package rewritten under Transitional names when it is Strict; None when it is not.

    Every XML part is read whole, as the document's readers read them after this; `archive`
    has passed convert.check_zip, which bounds what that costs."""
    try:
        roots = archive.read("_rels/.rels")
    except KeyError:
        return None
    if _STRICT_MAIN not in roots:
        return None
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as rewritten:
        for member in archive.infolist():
            data = archive.read(member)
            if member.filename.endswith((".xml", ".rels")):
                data = _STRICT.sub(_twin, data)
            rewritten.writestr(member, data, compress_type=zipfile.ZIP_STORED)
    return out.getvalue()


def _twin(name: re.Match[bytes]) -> bytes:
    area, part, kind = name.group(1), name.group(2), name.group(3)
    part = _SPELT_APART.get(part, part)
    kind = b"/" + _SPELT_APART.get(kind[1:], kind[1:]) if kind else b""
    return b"http://schemas.openxmlformats.org/" + area + b"/2006/" + part + kind
