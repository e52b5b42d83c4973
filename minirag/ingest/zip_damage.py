"""A zip-based document's damaged members that hold none of its text (pictures, thumbnails,
fonts, embedded files: every member but XML parts and relationships), emptied so the rest reads.

markitdown reads every member of a .docx (it rewrites the package before mammoth reads it),
python-pptx every part of a .pptx and the XLSX cell count (sheet_limits.py) every member of a
.xlsx, so one picture's bad CRC or damaged deflate data refused the whole document. A member
emptied reads as a picture with no bytes: the text is the same.
"""

from __future__ import annotations

import io
import zipfile
import zlib

_PIECE = 256 * 1024
_TEXT_PARTS = (".xml", ".rels")


def damaged_members(archive: zipfile.ZipFile) -> list[tuple[str, str]]:
    """(name, what is wrong) of each member no text is in that cannot be read whole, read a piece
    at a time."""
    damaged = []
    for info in archive.infolist():
        if info.is_dir() or info.filename.lower().endswith(_TEXT_PARTS):
            continue
        try:
            with archive.open(info) as stream:
                while stream.read(_PIECE):
                    pass
        except (zipfile.BadZipFile, zlib.error, EOFError, NotImplementedError, OSError, ValueError) as exc:
            damaged.append((info.filename, str(exc).split(" for file ")[0] or type(exc).__name__))
    return damaged


def with_emptied(archive: zipfile.ZipFile, names: set[str]) -> bytes:
    """The archive's bytes with the members `names` empty, every other member copied as it is."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as copy:
        for info in archive.infolist():
            copy.writestr(info.filename, b"" if info.filename in names else archive.read(info))
    return out.getvalue()
