"""Bytes as text: by a byte-order mark, a declared charset (a MIME part's, an HTTP response's, a
meta tag's), UTF-8, or the charset detected, and binary data refused. Every reader that gets bytes
which should be text comes here (files, e-mail bodies, fetched pages, standard input), so a text
is decoded one way whatever brought it.
"""

from __future__ import annotations

import codecs
import encodings
import re
import unicodedata

from minirag.errors import ConversionFailed
from minirag.ingest.alphabets import misfit
from minirag.ingest.wide_text import read_wide

# How much of a text's head is looked at to tell text from binary data.
SNIFF = 8192
# Text whose characters are more than this share control characters is binary data.
MAX_CONTROL_SHARE = 0.05
_TEXT_CONTROLS = frozenset("\t\n\r\f\v\x1b")
# The other control characters (Unicode Cc: C0, DEL and C1).
_CONTROLS = re.compile("[\x00-\x08\x0e-\x1a\x1c-\x1f\x7f-\x9f]")
# Those that separate what stands either side of them: the information separators (fields,
# records) and the C1 next-line, which words must not be joined across.
_SEPARATING = {0x1C: " ", 0x1D: " ", 0x1E: " ", 0x1F: " ", 0x85: "\n"}
# A vertical tab is a line break to a reader (PowerPoint's soft line break, Shift+Enter). A form
# feed stays as it is: it ends a page (a PDF's, OCR's, a printed listing's, an RFC's), and chunks
# cite pages (chunking/pages.py).
_LINE_BREAKS = str.maketrans("\v", "\n")

# A charset declared for a text (None where none is), or several in the order they rank.
Declared = str | tuple[str | None, ...] | None


def decode_text(data: bytes, name: str, *, declared: Declared = None) -> tuple[str, tuple[str, ...]]:
    """Text by its byte-order mark (UTF-8, UTF-16 or UTF-32), else by the UTF-16 or UTF-32 its
    `declared` charset names (a MIME part's or an HTTP response's label, an HTML meta tag), else
    UTF-8, else the charset declared, else the best detected charset, with a warning. A declared
    charset the bytes belie, or that no codec reads, is as none (wide_text.py); of several, in the
    order they rank (an HTTP label before the page's meta tag), the first the bytes bear out is read.

    Binary data (NUL bytes without a UTF-16/32 mark or label, or mostly control characters) is refused.
    """
    labels = (declared,) if declared is None or isinstance(declared, str) else declared
    lying = _lying_mark(data)
    text, warnings = _decode_marked(data, name) if not lying else (None, ())
    if text is None:
        data = data[lying:]
        text = next((wide for wide in (read_wide(data, label) for label in labels) if wide is not None), None)
    if text is None:
        text = _read_iso_2022(data, labels)
    if text is None:
        if b"\x00" in data[:SNIFF]:
            raise ConversionFailed(f"{name}: looks like a binary file (NUL bytes), not text; UTF-16 text "
                                   "is read only with its byte-order mark or a charset declared for it")
        try:
            text, warnings = data.decode("utf-8-sig"), ()
        except UnicodeDecodeError as exc:
            body = data.removeprefix(codecs.BOM_UTF8)  # a mark that lies: its bytes would sway the detector
            text = next((read for read in (_decode_declared(body, _known_codec(label)) for label in labels)
                         if read is not None), None)
            if text is None:
                text, warnings = _decode_detected(body, name, exc.start)
    if lying:
        warnings = (f"{name}: a UTF-16 or UTF-32 byte-order mark before text that is neither; read without it",
                    *warnings)
    text, said = without_controls(text, name)
    return text, (*warnings, *said)


# ISO-2022-JP (RFC 1468: the charset Japanese mail is sent in) is 7-bit, so valid UTF-8: its kanji are
# ASCII letters after a designation (`ESC $ B`, `ESC $ @`; `ESC ( I` half-width katakana) until
# `ESC ( B` or `ESC ( J`. Such designations in text are ISO-2022-JP's, labelled or not; a terminal's
# colours (`ESC [`) are none.
_ISO_2022_JP = re.compile(rb"\x1b(?:\$[@B]|\(I)")
_ISO_2022_JP_CODECS = ("iso2022_jp", "iso2022_jp_ext", "iso2022_jp_2", "iso2022_jp_3")


def _read_iso_2022(data: bytes, labels: tuple[str | None, ...]) -> str | None:
    """`data` read as ISO-2022-JP where it designates ISO-2022-JP's character sets (the codec its
    label names first, then the variants from the plainest); None where it does not, or no variant
    reads it."""
    if b"\x1b" not in data or not _ISO_2022_JP.search(data):
        return None
    named = [codec for label in labels if (codec := _codec_name(label)) and codec.startswith("iso2022_jp")]
    for codec in (*named, *_ISO_2022_JP_CODECS):
        try:
            return data.decode(codec)
        except UnicodeDecodeError:
            continue
    return None


def _codec_name(label: str | None) -> str | None:
    try:
        return encodings.normalize_encoding(codecs.lookup(label.strip().strip("\"'")).name).lower() if label else None
    except (LookupError, ValueError):
        return None


def without_controls(text: str, name: str) -> tuple[str, tuple[str, ...]]:
    """`text` with its stray control characters (a NUL in a log) taken out, never indexed, and a
    warning saying so; ConversionFailed for binary data, in its head or behind a text head."""
    sample = text[:SNIFF]
    controls = sum(1 for c in sample if c not in _TEXT_CONTROLS and unicodedata.category(c) == "Cc")
    if sample and controls > MAX_CONTROL_SHARE * len(sample):
        raise ConversionFailed(f"{name}: looks like binary data ({controls} control characters in the first "
                               f"{len(sample)}), not text")
    stray = len(_CONTROLS.findall(text))
    if stray > MAX_CONTROL_SHARE * len(text):
        raise ConversionFailed(f"{name}: looks like binary data ({stray} control characters in "
                               f"{len(text)}), not text")
    return controls_out(text, name)


def controls_out(text: str, name: str) -> tuple[str, tuple[str, ...]]:
    """`text` with its stray control characters taken out (a separator becomes a space or a line
    break, and so does a vertical tab), and a warning saying how many; what every converter's text
    gets, whatever its format."""
    text = text.translate(_LINE_BREAKS)
    stray = len(_CONTROLS.findall(text))
    if not stray:
        return text, ()
    text = _CONTROLS.sub(lambda control: _SEPARATING.get(ord(control.group()), ""), text)
    return text, (f"{name}: {stray} control characters (NUL and the like) taken out of the text",)


# UTF-32's marks first: UTF-32-LE's begins with UTF-16-LE's. Windows tools write UTF-16 with its
# mark (PowerShell's `>`, Notepad's "Unicode"), and its ASCII characters are half NUL bytes.
_BYTE_ORDER_MARKS = ((codecs.BOM_UTF32_LE, "utf-32-le"), (codecs.BOM_UTF32_BE, "utf-32-be"),
                     (codecs.BOM_UTF16_LE, "utf-16-le"), (codecs.BOM_UTF16_BE, "utf-16-be"))


def _decode_marked(data: bytes, name: str) -> tuple[str | None, tuple[str, ...]]:
    for mark, codec in _BYTE_ORDER_MARKS:
        if data.startswith(mark):
            body = data[len(mark):]
            try:
                return body.decode(codec), ()
            except UnicodeDecodeError as exc:
                return body.decode(codec, errors="replace"), (
                    f"{name}: invalid {codec.upper()} at byte {exc.start + len(mark)}; undecodable bytes replaced",)
    return None, ()


def _lying_mark(data: bytes) -> int:
    """The length of a UTF-16 or UTF-32 mark that the bytes after it belie; 0 for none.

    Every UTF-32 character holds a zero byte, and so does every ASCII one (a space, a line break) in
    UTF-16: text behind such a mark without one is 8-bit text, for UTF-16 when it is UTF-8 too (text
    all in CJK may hold no zero byte, but is no valid UTF-8).
    """
    for mark, codec in _BYTE_ORDER_MARKS:
        if data.startswith(mark):
            body = data[len(mark):]
            if b"\x00" in body:
                return 0
            if codec.startswith("utf-16"):
                try:
                    body.decode("utf-8")
                except UnicodeDecodeError:
                    return 0
            return len(mark)
    return 0


# As browsers read them (the WHATWG Encoding Standard): pages that declare Latin-1 or ASCII are
# written in windows-1252 (its curly quotes, dashes and euro sign would otherwise come out as
# invisible C1 controls), and Latin-5 is windows-1254.
_DECLARED_AS = {"iso8859_1": "cp1252", "ascii": "cp1252", "iso8859_9": "cp1254"}
# Python codecs that are not a web page's charset: a declaration naming one falls back to detection.
_NOT_WEB_CHARSETS = frozenset({"utf_7", "unicode_escape", "raw_unicode_escape", "punycode", "idna", "undefined",
                               "palmos", "mbcs", "oem"})


def _decode_declared(data: bytes, codec: str | None) -> str | None:
    """`data` in the declared `codec`; None where a byte is not of it (the declaration is wrong)."""
    if codec is None:
        return None
    try:
        return data.decode(codec)
    except (LookupError, UnicodeError, ValueError):  # not of it, or a codec Python has but cannot apply here
        return None


def _known_codec(label: str | None) -> str | None:
    """Python's codec for a declared charset label, as a browser reads it; None for an unknown or
    unusable one (a bytes-to-bytes codec such as base64, UTF-7), or one that cannot be right for
    bytes that are not UTF-8 (UTF-8 itself; UTF-16/32, which a mark would have shown)."""
    if not label:
        return None
    try:
        info = codecs.lookup(label.strip().strip("\"'"))
    except (LookupError, ValueError):
        return None
    codec = encodings.normalize_encoding(info.name).lower()  # "iso8859_1", "utf_8", "unicode_escape"
    if not getattr(info, "_is_text_encoding", True) or codec in _NOT_WEB_CHARSETS:
        return None
    if codec.startswith(("utf_8", "utf_16", "utf_32")):
        return None
    return _DECLARED_AS.get(codec, codec)


# When the detector scores several single-byte charsets alike (short text, few letters outside
# ASCII), the one most text is written in: `Café crème` is cp1252, not cp1250's `Café crčme`. A
# reading that gives the same text under several names (German umlauts and `€` sit on the same
# bytes in cp1250 and cp1252) is named by the most prevalent of them too.
_PREVALENCE = ("cp1252", "cp1251", "cp1250", "koi8_r", "iso8859_15", "latin_1")
# Code pages no browser guesses for unlabelled text (DOS's, the classic Mac's, HP's): on a few lines
# the detector scores them as high as the Windows ones, and read `Müller` in cp852 as `MŘller`.
_NO_WEB_CHARSET = re.compile(r"cp(437|7\d\d|8[5-6]\d)$|mac_|hp_roman8$")
# ... so one is read only where it is clearly the less chaotic reading, by more than this (the
# detector's chaos of a German CSV with a `€` was 0.040 as mac_latin2, 0.042 as cp1250, and 0.0 as
# cp775 beside 0.054 as cp1250; Russian in cp866 read as cp1251 is far past it).
NON_WEB_LEAD = 0.1
# Readings this close in chaos are told apart by whether their accented letters are one
# language's (alphabets.misfit): Czech read as cp1252 scored 0.082 to cp1250's 0.0, and as
# 0.0 beside it on three lines.
CHAOS_TIE = 0.1
# ... and a reading in which the detector finds no language's words where another reads as one (Latin-1
# credits read as Shift-JIS, Urdu or DOS Ukrainian: coherence 0.0 beside 0.72) is no reading of
# them, however its letters fit an alphabet.
COHERENCE_GAP = 0.3
# Text the detector cannot place is read as windows-1252 where at most this share of its bytes is
# past ASCII: Western text with a few accented letters (Cyrillic or CJK is mostly such bytes).
MAX_LATIN_SHARE = 0.5


def _decode_detected(data: bytes, name: str, position: int) -> tuple[str, tuple[str, ...]]:
    try:
        from charset_normalizer import from_bytes

        matches = list(from_bytes(data))
    except ImportError:  # pragma: no cover - markitdown depends on it
        matches = []
    if not matches and sum(byte > 0x7F for byte in data) <= MAX_LATIN_SHARE * len(data):
        # Mostly ASCII, too little of the rest to tell: read as browsers read unlabelled legacy text.
        return data.decode("cp1252", errors="replace"), (
            f"{name}: not UTF-8 (invalid at byte {position}); too little text to detect its charset, decoded as cp1252",
        )
    if not matches:  # mostly other bytes: a script no single-byte guess would spell
        return data.decode("utf-8", errors="replace"), (
            f"{name}: invalid UTF-8 at byte {position}; undecodable bytes replaced",
        )
    named = {id(m): _charset_name(m.could_be_from_charset or [m.encoding]) for m in matches}
    web = [m for m in matches if not _NO_WEB_CHARSET.match(named[id(m)])]
    if web and min(m.chaos for m in web) <= min(m.chaos for m in matches) + NON_WEB_LEAD:
        matches = web  # a DOS or Mac code page only where it reads the bytes clearly better
    least = min(m.chaos for m in matches)
    close = [m for m in matches if m.chaos <= least + CHAOS_TIE]
    most = max(m.coherence for m in close)
    close = [m for m in close if m.coherence >= most - COHERENCE_GAP]
    texts = {id(m): str(m) for m in close}
    best = min(close, key=lambda m: (_unwritten(texts[id(m)]), misfit(texts[id(m)]), m.chaos, -m.coherence,
                                     _prevalence(named[id(m)])))
    return texts[id(best)], (f"{name}: not UTF-8 (invalid at byte {position}); decoded as {named[id(best)]}",)


def _unwritten(text: str) -> bool:
    """Whether a reading spells some bytes as code points no text is written in: private-use (a
    code page's vendor extras, Shift-JIS's `\\uf8f1` for Latin-1's `ý`) or unassigned. Such a reading
    loses to one without, whatever alphabets the other mixes (a NEWS file's credits: Czech, Polish
    and French names in one Latin-1 text, which no single language's alphabet fits)."""
    return any(unicodedata.category(c) in ("Co", "Cn") for c in text if ord(c) > 0x7F)


def _prevalence(charset: str) -> int:
    return _PREVALENCE.index(charset) if charset in _PREVALENCE else len(_PREVALENCE)


def _charset_name(charsets: list[str]) -> str:
    """The name of a reading that several charsets give alike: the most prevalent web charset."""
    return min(charsets, key=lambda charset: (bool(_NO_WEB_CHARSET.match(charset)), _prevalence(charset)))


_META_CHARSET = re.compile(rb"""<meta\b[^>]*?charset\s*=\s*["']?\s*([A-Za-z0-9._:-]+)""", re.IGNORECASE)
_XML_ENCODING = re.compile(rb"""\s*<\?xml\s[^>]*?\bencoding\s*=\s*["']([A-Za-z0-9._:-]+)["']""")


def html_declared_charset(data: bytes) -> str | None:
    """The charset an HTML document's meta tag declares in its first 1,024 bytes (where browsers look),
    else the encoding an XHTML document's XML declaration names."""
    found = _META_CHARSET.search(data[:1024]) or _XML_ENCODING.match(data[:1024])
    return found.group(1).decode("ascii") if found else None
