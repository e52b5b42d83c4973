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
from typing import Any

from minirag.errors import ConversionFailed, described
from minirag.ingest.doc_names import COMPRESSIONS

_PIECE = 64 * 1024
# What each format's reader raises on bytes that are not its format, damaged or cut short (gzip's
# BadGzipFile and bzip2's "Invalid data stream" are OSErrors).
_DAMAGE = (EOFError, OSError, zlib.error, lzma.LZMAError)
# The most memory one xz decoder may take: xz -9's 64 MiB dictionary needs 65 MiB.
XZ_MEMORY = 256 * 1024 * 1024
_XZ_MAGIC = b"\xfd7zXZ\x00"
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
    return io.BufferedReader(_XzReader(data))


class _XzReader(io.RawIOBase):
    """xz streams one after another, as lzma.LZMAFile reads them, but each decompressor held to
    XZ_MEMORY: a stream's header names the dictionary its decoder allocates (up to 4 GiB), and
    LZMAFile sets no limit, so a 100-byte file asking for 4 GiB was a MemoryError, not a refusal."""

    def __init__(self, data: bytes) -> None:
        self._data = memoryview(data)
        self._at = 0  # where the input not yet given to a decompressor begins
        self._decompressor: lzma.LZMADecompressor | None = None

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        while True:
            if self._decompressor is None or self._decompressor.eof:
                rest = bytes(self._decompressor.unused_data) if self._decompressor is not None else b""
                self._at -= len(rest)
                while self._at < len(self._data) and self._data[self._at] == 0:  # stream padding
                    self._at += 1
                if self._at >= len(self._data) or (self._decompressor is not None
                                                   and bytes(self._data[self._at:self._at + 6]) != _XZ_MAGIC):
                    return 0  # the end, or what follows the last stream is no stream: left, as LZMAFile leaves it
                self._decompressor = lzma.LZMADecompressor(memlimit=XZ_MEMORY)
            piece = b""
            if self._decompressor.needs_input:
                if self._at >= len(self._data):
                    raise EOFError("Compressed file ended before the end-of-stream marker was reached")
                piece = bytes(self._data[self._at:self._at + _PIECE])
                self._at += len(piece)
            out = self._decompressor.decompress(piece, len(buffer))
            if out:
                buffer[:len(out)] = out
                return len(out)


def inflated(data: bytes, compression: str, name: str, max_bytes: int, *, together: int | None = None) -> Inflated:
    """`data` inflated as `compression` (".gz", ".bz2", ".xz"); ConversionFailed past `max_bytes`
    (`together`: the limit it shares with the other compressed streams of a document, of which
    `max_bytes` is what they left)."""
    kind = COMPRESSIONS[compression]
    # BytesIO, not a list of pieces joined: getvalue() hands over its own buffer, so the inflated
    # bytes are held once, not twice, at the end.
    pieces = io.BytesIO()
    total = 0
    with _opened(data, compression) as stream:
        try:
            while piece := stream.read(_PIECE):
                total += len(piece)
                if total > max_bytes:
                    raise ConversionFailed(
                        f"{name}: refused: with the document's other compressed streams it inflates past "
                        f"{_size(together)} (MAX_FILE_SIZE holds for what they inflate to together)" if together
                        else f"{name}: refused: it inflates past {_size(max_bytes)} (MAX_FILE_SIZE, the most a file "
                        "may hold, holds for what a compressed one inflates to)")
                pieces.write(piece)
        except _DAMAGE as exc:
            if isinstance(exc, lzma.LZMAError) and "Memory usage limit" in str(exc):
                raise ConversionFailed(f"{name}: refused: its xz stream asks for more than {_size(XZ_MEMORY)} of "
                                       "memory to inflate (its dictionary's size)") from None
            if not total:
                raise ConversionFailed(f"{name}: cannot read the {kind} stream, damaged or not {kind} "
                                       f"({described(exc)})") from None
            return Inflated(pieces.getvalue(), (f"{name}: its {kind} stream is damaged or cut short after {total:,} "
                                               f"bytes ({described(exc)}); what inflated before is read",))
    return Inflated(pieces.getvalue())


# The most streams a head is looked for in (empty ones before a page's own: a few at most).
MAX_HEAD_STREAMS = 100


def inflated_head(data: bytes, compression: str, size: int) -> bytes:
    """At most the first `size` bytes the head of a stream, `data`, inflates to; b"" for none (damaged,
    or not that format). One call of the format's own decompressor, no file object: a walk asks this
    of every file named as a compressed manual page (measured in docs/documents.md)."""
    head = b""
    try:
        # Streams one after another (`gzip -c page >> p.1.gz` after an empty one), as the reader reads them.
        for _ in range(MAX_HEAD_STREAMS):
            decompressor = _decompressor(compression)
            head += decompressor.decompress(data, size - len(head))
            data = decompressor.unused_data.lstrip(b"\0") if compression == ".xz" else decompressor.unused_data
            if len(head) >= size or not decompressor.eof or not data:
                break
    except _DAMAGE:
        pass
    return head


def _decompressor(compression: str) -> Any:
    return (zlib.decompressobj(16 + zlib.MAX_WBITS) if compression == ".gz"
            else bz2.BZ2Decompressor() if compression == ".bz2" else lzma.LZMADecompressor(memlimit=XZ_MEMORY))


def _size(count: int) -> str:
    return f"{count / 2**20:g} MiB" if count >= 2**20 else f"{count:,} bytes"
