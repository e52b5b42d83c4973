"""A compressed document's bytes inflated (gzip, bzip2, xz), never past a bound.

Read a piece at a time, each piece bounded: a 10 MB stream that inflates to 10 GB stops at the
bound, in time and memory in proportion to it, however its members are laid out (one member, or
many concatenated: each is read on as the formats' own readers read them). A stream damaged or
cut short after some of it inflated keeps what inflated, with a warning, as a damaged zip member
keeps what inflates before its damage (zip_damage.py); one with nothing before the damage is refused.
"""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import zlib
from dataclasses import dataclass

from minirag.errors import ConversionFailed, described
from minirag.ingest.doc_names import COMPRESSIONS

_PIECE = 64 * 1024
# What each format's reader raises on bytes that are not its format, damaged or cut short (gzip's
# BadGzipFile and bzip2's "Invalid data stream" are OSErrors).
_DAMAGE = (EOFError, OSError, zlib.error, lzma.LZMAError)
# The formats' signatures, for a body fetched with no name to go by.
SIGNATURES = {b"\x1f\x8b": ".gz", b"BZh": ".bz2", b"\xfd7zXZ\x00": ".xz"}


@dataclass(frozen=True)
class Inflated:
    data: bytes
    warnings: tuple[str, ...] = ()


def _opened(data: bytes, compression: str) -> io.BufferedIOBase:
    if compression == ".gz":
        return gzip.GzipFile(fileobj=io.BytesIO(data))
    if compression == ".bz2":
        return bz2.BZ2File(io.BytesIO(data))
    return lzma.LZMAFile(io.BytesIO(data))


def inflated(data: bytes, compression: str, name: str, max_bytes: int) -> Inflated:
    """`data` inflated as `compression` (".gz", ".bz2", ".xz"); ConversionFailed past `max_bytes`."""
    kind = COMPRESSIONS[compression]
    pieces: list[bytes] = []
    total = 0
    with _opened(data, compression) as stream:
        try:
            while piece := stream.read(_PIECE):
                total += len(piece)
                if total > max_bytes:
                    raise ConversionFailed(f"{name}: refused: it inflates past {_size(max_bytes)} (MAX_FILE_SIZE, "
                                           "the most a file may hold, holds for what a compressed one inflates to)")
                pieces.append(piece)
        except _DAMAGE as exc:
            if not total:
                raise ConversionFailed(f"{name}: cannot read the {kind} stream, damaged or not {kind} "
                                       f"({described(exc)})") from None
            return Inflated(b"".join(pieces), (f"{name}: its {kind} stream is damaged or cut short after {total:,} "
                                               f"bytes ({described(exc)}); what inflated before is read",))
    return Inflated(b"".join(pieces))


def inflated_head(data: bytes, compression: str, size: int) -> bytes:
    """At most the first `size` bytes the head of a stream, `data`, inflates to; b"" for none (damaged,
    or not that format). One call of the format's own decompressor: a walk asks this of every file
    named as a compressed manual page (/usr/share/man: 23,000), where a file object cost twice the time."""
    decompressor = (zlib.decompressobj(16 + zlib.MAX_WBITS) if compression == ".gz"
                    else bz2.BZ2Decompressor() if compression == ".bz2" else lzma.LZMADecompressor())
    try:
        return decompressor.decompress(data, size)
    except _DAMAGE:
        return b""


def _size(count: int) -> str:
    return f"{count / 2**20:g} MiB" if count >= 2**20 else f"{count:,} bytes"
