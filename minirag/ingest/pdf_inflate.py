"""A PDF's compressed streams decode within a budget, so a decompression bomb is refused.

pdfminer inflates every /FlateDecode stream whole, in memory, with `zlib.decompress`,
so a small PDF of deflated spaces takes gigabytes (the files behind these limits:
docs/documents.md#what-the-limits-were-measured-against). Zip formats have their own check (convert.check_zip);
this is the PDF one. pdfminer looks `zlib` up as a name of its `pdftypes` module, so
that name is pointed at a stand-in whose `decompress` stops at what is left of the
current document's budget (each converting thread has its own). Outside a conversion
it is plain zlib. RunLength, LZW and ASCII85 are decoded by bounded stand-ins counted
against the same budget (pdfminer's own LZW grows its table without end and copies it
on every code). Form XObjects drawn inside Form XObjects multiply (10 draws at each of
7 levels: 10 million), so draws per document are counted too. And a reference that leads
back to itself (`6 0 obj 7 0 R`, `7 0 obj 6 0 R`) resolves to nothing, as a missing object
does, where pdfminer followed it for ever.
"""

from __future__ import annotations

import functools
import threading
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from minirag._compat import pdfminer as pdfminer_compat
from minirag.errors import ConversionFailed

# Inflated bytes one PDF may produce over all its streams. Text-heavy PDFs of thousands of
# pages stay far below it (their text is a small share of the file); a few scanned-page
# images stored with Flate still fit.
MAX_PDF_INFLATED_BYTES = 512 * 1024 * 1024
# XObjects one page may draw, nested draws counted one by one: a page usually draws a handful (a
# logo, a header). Each draw of a form re-reads its resources, so nested draws cost time.
MAX_XOBJECT_DRAWS = 500

_budget = threading.local()
_PIECE = 64 * 1024  # compressed bytes fed to the inflater at a time


class InflateLimit(Exception):
    """The current PDF's streams would inflate past its budget."""


def _spend(size: int) -> None:
    """Count `size` decoded bytes against the current document's budget (none outside a conversion)."""
    left = getattr(_budget, "left", None)
    if left is None:
        return
    if size > left:
        raise InflateLimit
    _budget.left = left - size


def _limit() -> int | None:
    return getattr(_budget, "left", None)


def rldecode(data: bytes) -> bytes:
    """RunLengthDecode (PDF 1.7, 7.4.5), stopping at the budget."""
    limit, out, i, n = _limit(), bytearray(), 0, len(data)
    while i < n:
        length = data[i]
        if length == 128:
            break
        if length < 128:
            out += data[i + 1:i + length + 2]
            i += length + 2
        else:
            out += data[i + 1:i + 2] * (257 - length)
            i += 2
        if limit is not None and len(out) > limit:
            raise InflateLimit
    _spend(len(out))
    return bytes(out)


def lzwdecode(data: bytes) -> bytes:
    """LZWDecode with EarlyChange 1 (PDF 1.7, 7.4.4), its table capped at 4,096 codes as the
    format's 12-bit codes allow, stopping at the budget."""
    limit, out = _limit(), bytearray()
    table: list[bytes] = [bytes((c,)) for c in range(256)] + [b"", b""]
    previous = b""
    bit, total_bits = 0, len(data) * 8
    while True:
        width = 9 if len(table) < 511 else 10 if len(table) < 1023 else 11 if len(table) < 2047 else 12
        if bit + width > total_bits:
            break
        start = bit >> 3
        window = int.from_bytes(data[start:start + 3].ljust(3, b"\0"), "big")
        code = (window >> (24 - (bit & 7) - width)) & ((1 << width) - 1)
        bit += width
        if code == 256:
            table, previous = table[:258], b""
            continue
        if code == 257:
            break
        if code < len(table):
            entry = table[code]
        elif code == len(table) and previous:
            entry = previous + previous[:1]
        else:
            break  # corrupt: what decoded so far stands, as pdfminer does
        if previous and len(table) < 4096:
            table.append(previous + entry[:1])
        previous = entry
        out += entry
        if limit is not None and len(out) > limit:
            raise InflateLimit
    _spend(len(out))
    return bytes(out)


def ascii85decode(data: bytes) -> bytes:
    """ASCII85Decode; `z` stands for four zero bytes, so the output is bounded before decoding."""
    from pdfminer.ascii85 import ascii85decode as decode

    limit = _limit()
    if limit is not None and data.count(b"z") * 4 + len(data) > limit:
        raise InflateLimit
    out = decode(data)
    _spend(len(out))
    return out


def _counting_do(real):
    def do_Do(self, xobjid_arg) -> None:  # noqa: N802 - pdfminer's operator name
        draws = getattr(_budget, "draws", None)
        if draws is not None:
            if draws >= MAX_XOBJECT_DRAWS:
                _budget.cut_pages.add(_budget.page)
                return  # the page's drawings past the limit are not read
            _budget.draws = draws + 1
        real(self, xobjid_arg)

    return do_Do


def _page_counted(real):
    def process_page(self, page) -> None:
        if getattr(_budget, "draws", None) is not None:
            _budget.draws = 0
            _budget.page += 1
        real(self, page)

    return process_page


def _acyclic(real):
    def resolve(self, default: object = None) -> object:
        """The object a chain of references ends at; `default` for a chain that loops."""
        from pdfminer.pdftypes import PDFObjRef

        seen, value = {self.objid}, real(self, default)
        while isinstance(value, PDFObjRef):
            if value.objid in seen:
                return default
            seen.add(value.objid)
            value = real(value, default)
        return value

    return resolve


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


@dataclass
class Drawings:
    """What a conversion within inflate_budget left undrawn: the pages (1-based) that draw more
    XObjects than MAX_XOBJECT_DRAWS, whose drawings past it were not read."""

    cut_pages: set[int] = field(default_factory=set)

    def warning(self, name: str) -> str | None:
        if not self.cut_pages:
            return None
        pages = sorted(self.cut_pages)
        shown = ", ".join(map(str, pages[:10])) + (f" and {len(pages) - 10:,} more" if len(pages) > 10 else "")
        return (f"{name}: page{'s' * (len(pages) > 1)} {shown} draw{'s' * (len(pages) == 1)} more than "
                f"{MAX_XOBJECT_DRAWS} XObjects (a dense plot, or forms nested as a drawing bomb is); "
                "what they draw past that was not read")


def _each_section_once(read_xref_from: Callable) -> Callable:
    """A cross-reference section whose trailer leads back to a section already read (/Prev naming
    itself) is not read again: pdfminer followed it until Python's stack ran out, and the whole
    PDF was refused. The sections read stand, as a viewer reads them."""

    @functools.wraps(read_xref_from)
    def reading(document, parser, start: int, xrefs: list) -> None:
        starts = document.__dict__.setdefault("_minirag_xref_starts", set())
        if start in starts:
            return
        starts.add(start)
        read_xref_from(document, parser, start, xrefs)

    return reading


@contextmanager
def inflate_budget(name: str, limit: int | None = None) -> Iterator[Drawings]:
    """Within: pdfminer's stream inflation in this thread counts against `limit` bytes, and each page
    draws at most MAX_XOBJECT_DRAWS XObjects (the pages that draw more are in what it yields)."""
    pdfminer_compat.replace_decoders(zlib=_BoundedZlib, rldecode=rldecode, lzwdecode=lzwdecode,
                                     ascii85decode=ascii85decode)
    pdfminer_compat.wrap_interpreter(do_Do=_counting_do, process_page=_page_counted)
    pdfminer_compat.wrap_reference(_acyclic)
    pdfminer_compat.wrap_xref_reader(_each_section_once)
    limit = MAX_PDF_INFLATED_BYTES if limit is None else limit
    drawings = Drawings()
    _budget.left, _budget.draws, _budget.page, _budget.cut_pages = limit, 0, 0, drawings.cut_pages
    try:
        yield drawings
    except InflateLimit:
        raise ConversionFailed(f"{name}: its compressed streams inflate past {limit // (1024 * 1024)} MB; "
                               "refused as a decompression bomb") from None
    finally:
        _budget.left = _budget.draws = _budget.page = _budget.cut_pages = None
