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
        inflater = zlib.decompressobj()
        out = inflater.decompress(data, left + 1)
        if len(out) > left:
            raise InflateLimit
        # A truncated stream gives what it holds instead of raising, as pdfminer's own
        # fallback for corrupt streams would.
        _budget.left = left - len(out)
        return out


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
