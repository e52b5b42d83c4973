"""An Office package's damaged members that hold none of its text, put out of the way so the rest
reads: pictures, thumbnails, fonts and embedded files (every member but XML parts and
relationships) emptied, and the XML parts a format can do without (`spare`) left out.

markitdown reads every member of a .docx (it rewrites the package before mammoth reads it),
python-pptx every part of a .pptx and the XLSX cell count (sheet_limits.py) every member of a
.xlsx, so one picture's bad CRC or damaged deflate data refused the whole document. A member
emptied reads as a picture with no bytes, and a part left out as one the package never had: the
text is the same.
"""

from __future__ import annotations

import io
import re
import zipfile
import zlib
from collections.abc import Callable

_PIECE = 256 * 1024
_TEXT_PARTS = (".xml", ".rels")
# A DOCX's parts that hold no text, which Word and mammoth read a package without: the styles
# (headings are then plain paragraphs), theme, fonts, settings, list numbering, and properties.
_DOCX_SPARE = re.compile(r"word/(styles|stylesWithEffects|fontTable|settings|webSettings|numbering|theme/[^/]+)\.xml"
                         r"|docProps/[^/]+\.xml|customXml/[^/]+\.xml", re.IGNORECASE)


def docx_spare(member: str) -> bool:
    return _DOCX_SPARE.fullmatch(member) is not None


def damaged_members(archive: zipfile.ZipFile, spare: Callable[[str], bool] = lambda _member: False
                    ) -> list[tuple[str, str]]:
    """(name, what is wrong) of each member no text is in (not XML, or an XML part `spare` names)
    that cannot be read whole, read a piece at a time."""
    damaged = []
    for info in archive.infolist():
        if info.is_dir() or (info.filename.lower().endswith(_TEXT_PARTS) and not spare(info.filename)):
            continue
        try:
            with archive.open(info) as stream:
                while stream.read(_PIECE):
                    pass
        except (zipfile.BadZipFile, zlib.error, EOFError, NotImplementedError, OSError, ValueError) as exc:
            damaged.append((info.filename, str(exc).split(" for file ")[0] or type(exc).__name__))
    return damaged


def without_damaged(archive: zipfile.ZipFile, names: set[str]) -> bytes:
    """The archive's bytes with the members `names` out of the way (XML parts left out, the others
    empty), every other member copied as it is."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as copy:
        for info in archive.infolist():
            if info.filename not in names:
                copy.writestr(info.filename, archive.read(info))
            elif not info.filename.lower().endswith(_TEXT_PARTS):
                copy.writestr(info.filename, b"")
    return out.getvalue()
