"""Text in UTF-16 or UTF-32 without a byte-order mark, read by the charset its label names.

A MIME part's or an HTTP response's charset labels its bytes: UTF-16LE and UTF-16BE are written
without a mark (RFC 2781), and so is UTF-16 now and then. Such a label is believed only where the
bytes bear it out: every UTF-32 code unit holds a zero byte and decodes to a character, and UTF-16
text holds its zero bytes in its code units' high bytes (ASCII's, a line break's); a label on 8-bit
text, or on UTF-16 of the other byte order, is a wrong one, and the text is read as if unlabelled.
"""

from __future__ import annotations

import re

# Labels as squashed by _squashed, with the WHATWG Encoding Standard's UTF-16 names; a bare UTF-16
# or UTF-32 label reads in the byte order its bytes show.
_ORDERS = {
    "utf16le": ("utf-16-le",), "utf16be": ("utf-16-be",), "unicodefffe": ("utf-16-be",),
    **dict.fromkeys(("utf16", "ucs2", "unicode", "csunicode", "iso10646ucs2", "unicodefeff"),
                    ("utf-16-le", "utf-16-be")),
    "utf32le": ("utf-32-le",), "utf32be": ("utf-32-be",), "utf32": ("utf-32-le", "utf-32-be"),
}
_NOT_LETTERS = re.compile(r"[^a-z0-9]")
# The bytes whose zero bytes are counted: as many as decode_text sniffs for NUL bytes.
SAMPLE = 8192


def read_wide(data: bytes, label: str | None) -> str | None:
    """`data` as the UTF-16 or UTF-32 its `label` names, without a byte-order mark; None where the
    label names neither, or the bytes belie it."""
    orders = _ORDERS.get(_squashed(label or ""))
    if orders is None or b"\x00" not in data[:SAMPLE]:
        return None
    for codec in orders:
        if codec.startswith("utf-16") and not _high_bytes_zero(data[:SAMPLE], little=codec.endswith("le")):
            continue
        try:
            return data.decode(codec)
        except UnicodeDecodeError:  # an odd length, a lone surrogate, a code point past U+10FFFF
            continue
    return None


def _squashed(label: str) -> str:
    return _NOT_LETTERS.sub("", label.strip().strip("\"'").lower())


def _high_bytes_zero(sample: bytes, *, little: bool) -> bool:
    """Whether more of the sample's zero bytes are high bytes of UTF-16 code units in this order
    than low ones: each ASCII character's is, and a low byte is zero for few characters (U+4E00)."""
    odd, even = sample[1::2].count(0), sample[0::2].count(0)  # little-endian's high bytes are odd
    return odd > even if little else even > odd
