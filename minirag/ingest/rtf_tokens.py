"""RTF source as tokens, and the code pages its bytes are written in.

An RTF file is 7-bit text in principle: braces open and close groups, a backslash starts a
control word (`\\par`, `\\f2`, `\\u8364`) or a control symbol (`\\~`, `\\{`), and `\\'e9` is one
byte of the current code page. The file is read as Latin-1 here, one character a byte, so a
`\\binN` block (N raw bytes) is skipped by counting and a stray 8-bit byte stays a byte until the
reader (rtf_text.py) decodes it with the code page in force.
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Iterator
from typing import NamedTuple

# A control word is at most 32 letters and its parameter a signed number of at most 10 digits
# (the specification's limits); one blank after it is its delimiter, not text.
_TOKEN = re.compile(r"\\([a-zA-Z]{1,32})(-?\d{1,10})? ?|\\'([0-9a-fA-F]{2})|\\(.)|([{}])|([^\\{}]+)|\\$", re.DOTALL)


class Token(NamedTuple):
    kind: str  # "{", "}", "word", "symbol", "byte" (a \'hh), "text"
    text: str = ""  # the word's name, the symbol, the text; a byte's character (its code as Latin-1)
    param: int | None = None  # the word's number


def tokens(source: str) -> Iterator[Token]:
    """The tokens of `source` (the file's bytes as Latin-1), a `\\binN` block's N bytes left out."""
    position, size = 0, len(source)
    while position < size:
        match = _TOKEN.match(source, position)
        if match is None:  # pragma: no cover - every character starts some alternative
            break
        position = match.end()
        word, param, byte, symbol, brace, text = match.groups()
        if word is not None:
            number = int(param) if param is not None else None
            if word == "bin":
                position = min(size, position + max(0, number or 0))
                continue
            yield Token("word", word, number)
        elif text is not None:
            yield Token("text", text)
        elif byte is not None:
            yield Token("byte", chr(int(byte, 16)))
        elif brace is not None:
            yield Token(brace)
        elif symbol is not None:
            yield Token("symbol", symbol)


# Windows code page numbers (\ansicpgN, a font's \cpgN) Python names otherwise than `cpN`.
_CODE_PAGES = {10000: "mac_roman", 10001: "cp932", 10003: "cp949", 10004: "mac_arabic", 10006: "mac_greek",
               10007: "mac_cyrillic", 10008: "cp936", 10029: "mac_latin2", 10079: "mac_iceland",
               10081: "mac_turkish", 20866: "koi8_r", 21866: "koi8_u", 20932: "euc_jp", 51932: "euc_jp",
               51949: "euc_kr", 54936: "gb18030", 65001: "utf-8", 1361: "johab"}
_ISO_PAGES = range(28591, 28606)  # 28591 is ISO 8859-1, 28605 ISO 8859-15
# A font's \fcharsetN: the code page its \'hh bytes are in (1, the default, is the document's).
_FONT_CHARSETS = {0: "cp1252", 2: "cp1252", 77: "mac_roman", 78: "cp932", 79: "cp949", 80: "cp936",
                  81: "cp950", 83: "cp1255", 84: "cp1256", 85: "mac_greek", 86: "mac_turkish", 87: "cp874",
                  88: "mac_latin2", 89: "mac_cyrillic", 128: "cp932", 129: "cp949", 130: "johab", 134: "cp936",
                  136: "cp950", 161: "cp1253", 162: "cp1254", 163: "cp1258", 177: "cp1255", 178: "cp1256",
                  186: "cp1257", 204: "cp1251", 222: "cp874", 238: "cp1250", 254: "cp437", 255: "cp850"}
# The document's character set words, before any \ansicpgN.
CHARACTER_SETS = {"ansi": "cp1252", "mac": "mac_roman", "pc": "cp437", "pca": "cp850"}
DEFAULT_CODEC = "cp1252"


def code_page(number: int | None) -> str | None:
    """Python's codec for a Windows code page number; None for one it does not have."""
    if number is None or number <= 0:
        return None
    if number in _ISO_PAGES:
        name = f"iso8859_{number - 28590}"
    else:
        name = _CODE_PAGES.get(number, f"cp{number}")
    return name if _known(name) else None


def font_charset(number: int | None) -> str | None:
    """The codec of a font's \\fcharsetN; None for the document's own (1, or one not listed)."""
    return _FONT_CHARSETS.get(number) if number is not None else None


def _known(name: str) -> bool:
    try:
        return bool(getattr(codecs.lookup(name), "_is_text_encoding", True))
    except LookupError:
        return False
