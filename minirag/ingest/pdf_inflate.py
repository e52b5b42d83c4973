"""A PDF's compressed streams inflate within a budget, so a decompression bomb is refused.

pdfminer inflates every /FlateDecode stream whole, in memory, with `zlib.decompress`:
a 2 MB PDF holding 2 GB of deflated spaces took 4 GB of memory, and the 100 MB a
file may have would take hundreds. Zip formats have their own check (convert.check_zip);
this is the PDF one. pdfminer looks `zlib` up as a name of its `pdftypes` module, so
that name is pointed at a stand-in whose `decompress` stops at what is left of the
current document's budget (each converting thread has its own). Outside a conversion
it is plain zlib.
"""

from __future__ import annotations

import threading
import zlib
from collections.abc import Iterator
from contextlib import contextmanager

from minirag.errors import ConversionFailed

# Inflated bytes one PDF may produce over all its streams. Text-heavy PDFs of thousands of
# pages stay far below it (their text is a small share of the file); a few scanned-page
# images stored with Flate, 30-40 MB each raw, still fit.
MAX_PDF_INFLATED_BYTES = 512 * 1024 * 1024

_budget = threading.local()
_PIECE = 64 * 1024  # compressed bytes fed to the inflater at a time


class InflateLimit(Exception):
    """The current PDF's streams would inflate past its budget."""


class _BoundedZlib:
    """What pdfminer.pdftypes calls `zlib`."""

    error = zlib.error
    decompressobj = staticmethod(zlib.decompressobj)

    @staticmethod
    def decompress(data: bytes) -> bytes:
        left = getattr(_budget, "left", None)
        if left is None:
            return zlib.decompress(data)
        # Fed in pieces, so a stream that turns corrupt (a bad checksum, garbage midway) gives
        # what inflated before the damage and never raises: pdfminer's own fallback for a
        # raising stream re-inflates it byte by byte, unbounded and in quadratic time.
        inflater, pieces, size = zlib.decompressobj(), [], 0
        for start in range(0, len(data), _PIECE):
            chunk, before = data[start:start + _PIECE], inflater.copy()
            try:
                piece, damaged = inflater.decompress(chunk, left - size + 1), False
            except zlib.error:  # redo this piece a byte at a time to keep what precedes the damage
                piece, damaged = _until_damage(before, chunk, left - size + 1), True
            pieces.append(piece)
            size += len(piece)
            if size > left or (not damaged and inflater.unconsumed_tail):
                raise InflateLimit
            if damaged or inflater.eof:
                break
        _budget.left = left - size
        return b"".join(pieces)


def _until_damage(inflater, chunk: bytes, limit: int) -> bytes:
    """What `chunk` inflates to (at most `limit` bytes) before the byte where it turns corrupt."""
    out, size = [], 0
    for i in range(len(chunk)):
        try:
            piece = inflater.decompress(chunk[i:i + 1], limit - size)
        except zlib.error:
            break
        out.append(piece)
        size += len(piece)
        if size >= limit:
            break
    return b"".join(out)


@contextmanager
def inflate_budget(name: str, limit: int | None = None) -> Iterator[None]:
    """Within: pdfminer's stream inflation in this thread counts against `limit` bytes."""
    import pdfminer.pdftypes

    pdfminer.pdftypes.zlib = _BoundedZlib  # type: ignore[assignment]
    limit = MAX_PDF_INFLATED_BYTES if limit is None else limit
    _budget.left = limit
    try:
        yield
    except InflateLimit:
        raise ConversionFailed(f"{name}: its compressed streams inflate past {limit // (1024 * 1024)} MB; "
                               "refused as a decompression bomb") from None
    finally:
        _budget.left = None
