"""What a damaged zip member holds before its damage: its bytes inflated up to the first that
do not inflate, never past the size the central directory declares (check_zip has bounded
that), and what went wrong, in words.

zipfile inflates a member in 4 KiB pieces and loses the piece that fails with all it had
inflated; here the failing piece is fed again a byte at a time, so what comes out stops at the
damage itself.

Deflate data damaged mid-stream often inflates on for a while before zlib notices, into garbage
(`types Python is ap,>through funecaus<ries`, in a damaged DOCX body): what is kept of an XML
part ends with the last paragraph, row or relationship that closed before the XML went wrong,
where garbage rarely reaches (`well_formed_prefix`).
"""

from __future__ import annotations

import struct
import zipfile
import zlib
from dataclasses import dataclass
from xml.parsers import expat

_PIECE = 1024


@dataclass(frozen=True)
class Prefix:
    data: bytes  # the member's bytes as far as they inflate (all of them where `whole`)
    why: str  # what is wrong with the member, in words
    whole: bool  # every byte inflated, but the checksum does not match: some may be wrong


def inflated_prefix(package: bytes, info: zipfile.ZipInfo) -> Prefix | None:
    """The member `info` of the zip `package` as far as it inflates; None where it is whole and
    its checksum matches, or where it is stored in a way this does not inflate."""
    at = info.header_offset
    if package[at:at + 4] != b"PK\x03\x04":
        return Prefix(b"", "its header is missing", False)
    start = at + 30 + sum(struct.unpack_from("<HH", package, at + 26))
    raw = package[start:start + info.compress_size]
    if info.compress_type == zipfile.ZIP_STORED:
        data, ended = raw[:info.file_size], len(raw) >= info.file_size
    elif info.compress_type == zipfile.ZIP_DEFLATED:
        data, ended, broken = _inflated(raw, info.file_size)
        if broken:
            return Prefix(data, "its compressed data is corrupt", False)
    else:
        return None
    if not ended:
        return Prefix(data, "its compressed data ends early", False)
    if zlib.crc32(data) != info.CRC:
        return Prefix(data, "its checksum does not match", True)
    return None


def _inflated(raw: bytes, size: int) -> tuple[bytes, bool, bool]:
    """(the bytes `raw` inflates to, at most `size`; whether its stream ended; whether it broke)."""
    inflater, out = zlib.decompressobj(-zlib.MAX_WBITS), bytearray()
    for at in range(0, len(raw), _PIECE):
        before = inflater.copy()
        try:
            out += inflater.decompress(raw[at:at + _PIECE], size - len(out) + 1)
        except zlib.error:
            inflater = before  # again a byte at a time, to keep what inflates before the damage
            for byte in range(at, min(at + _PIECE, len(raw))):
                try:
                    out += inflater.decompress(raw[byte:byte + 1], size - len(out) + 1)
                except zlib.error:
                    return bytes(out[:size]), False, True
        if len(out) > size:  # more than the directory declares: what is past it is not the member
            return bytes(out[:size]), True, True
        if inflater.eof:
            break
    return bytes(out), inflater.eof, False


# The elements a part's text is kept up to, by their local names: paragraphs (WordprocessingML's
# and DrawingML's), rows, shared strings and relationships.
_WHOLE = frozenset({"p", "row", "si", "Relationship"})


class _Entity(Exception):
    """The part declares entities: nothing of it is kept."""


def well_formed_prefix(data: bytes) -> tuple[bytes, bool]:
    """(`data` up to the end of the last paragraph, row or relationship that closed before its
    XML went wrong; whether all of `data` is well-formed XML). Entities declared: nothing kept."""
    parser = expat.ParserCreate(namespace_separator=" ")
    kept = 0

    def end(tag: str) -> None:
        nonlocal kept
        if tag.rpartition(" ")[2] in _WHOLE:
            kept = data.find(b">", parser.CurrentByteIndex) + 1

    def refuse(*_args) -> None:
        raise _Entity

    parser.EndElementHandler, parser.EntityDeclHandler = end, refuse
    try:
        parser.Parse(data, True)
    except expat.ExpatError:
        return data[:kept], False
    except _Entity:
        return b"", False
    return data, True
