"""TNEF ([MS-OXTNEF]): the `winmail.dat` attachment (`application/ms-tnef`) in which Outlook sends
a message's formatting and its real attachments to other mail programs, read for those
attachments and the body.

After a 4-byte signature and a 2-byte key come attributes: a level (1 the message, 2 an
attachment), a 4-byte id (the attribute's number in the low half), a 4-byte length, the data and
a 2-byte checksum (not checked: a file whose sums are wrong is read as well as it can be). An
attachment starts at its rendering attribute (attAttachRendData); its title (an 8.3 name), its
data and its MAPI properties (the long file name, the MIME type) follow in any order. The
message's MAPI properties hold its body: plain, HTML or compressed RTF (mapi_body.py).

MAPI properties are a count, then each: a type and an id (a named property's GUID and name
after an id past 0x8000), then the value: fixed-size ones padded to 4 bytes, variable ones (text,
bytes, objects) as a count of values each with its length and padded data; a multi-valued type
gives its count first. Every length is checked against the bytes left, so a claimed count or
length costs no more than the bytes that are there.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

from minirag.ingest.mapi_body import body_markdown, body_text, page_label
from minirag.ingest.rtf_tokens import code_page
from minirag.ingest.text_decoding import html_declared_charset

SIGNATURE = 0x223E9F78
# Attachments read from one stream, as many as an e-mail may have MIME parts (email_text.MAX_PARTS);
# those past it are counted, not kept: each rendering attribute (11 bytes) opened one, kept to the
# end, and a stream of nothing else held 15 times its bytes.
MAX_TNEF_ATTACHMENTS = 1_000
_MESSAGE, _ATTACHMENT = 1, 2
_ATT_BODY, _ATT_ATTACH_DATA, _ATT_ATTACH_TITLE = 0x800C, 0x800F, 0x8010
_ATT_RENDER, _ATT_MESSAGE_PROPS, _ATT_ATTACH_PROPS, _ATT_CODEPAGE = 0x9002, 0x9003, 0x9005, 0x9007
_BODY, _HTML, _RTF_COMPRESSED, _INTERNET_CODEPAGE = 0x1000, 0x1013, 0x1009, 0x3FDE
_ATTACH_DATA, _ATTACH_LONG_NAME, _ATTACH_NAME, _ATTACH_MIME = 0x3701, 0x3707, 0x3704, 0x370E
_STRING8, _UNICODE, _BINARY, _OBJECT, _LONG = 0x001E, 0x001F, 0x0102, 0x000D, 0x0003
# Fixed-size values: a single one padded to 4 bytes; in a multi-valued property 2-byte ones are
# side by side, the run padded.
_FIXED = {0x0002: 4, 0x0003: 4, 0x0004: 4, 0x000A: 4, 0x000B: 4, 0x0005: 8, 0x0006: 8, 0x0007: 8,
          0x0014: 8, 0x0040: 8, 0x0048: 16, 0x0001: 0}
_FIXED_EACH = {0x0002: 2, 0x000B: 2}
_VARIABLE = {_STRING8, _UNICODE, _BINARY, _OBJECT}
_MULTIPLE = 0x1000
_IID_STORAGE = bytes.fromhex("0b00000000000000c000000000000046")
_NAMED = 0x8000


class TnefError(ValueError):
    """Bytes that are no TNEF stream."""


@dataclass(frozen=True)
class TnefFile:
    name: str
    data: bytes | None  # None for an attachment that is no file (an embedded object)
    content_type: str = ""


@dataclass(frozen=True)
class Tnef:
    body: str  # Markdown
    files: tuple[TnefFile, ...]
    left_out: int = 0  # attachments past MAX_TNEF_ATTACHMENTS
    warnings: tuple[str, ...] = ()  # what reading its body said (a charset detected)


class _Attachment:
    def __init__(self) -> None:
        self.title = ""
        self.data: bytes | None = None
        self.properties: dict[int, bytes | str | int] = {}

    def file(self) -> TnefFile:
        name = _text(self.properties.get(_ATTACH_LONG_NAME)) or _text(self.properties.get(_ATTACH_NAME)) or self.title
        data = self.data if self.data is not None else self.properties.get(_ATTACH_DATA)
        return TnefFile(name, data if isinstance(data, bytes) else None, _text(self.properties.get(_ATTACH_MIME)))


def read_tnef(data: bytes, name: str = "winmail.dat") -> Tnef:
    if len(data) < 6 or struct.unpack_from("<I", data)[0] != SIGNATURE:
        raise TnefError("not a TNEF stream (no signature)")
    codec = "cp1252"
    page: str | None = None  # the codec of the code page the stream declares, for its body's bytes
    message: dict[int, bytes | str | int] = {}
    plain = b""
    attachments: list[_Attachment] = []
    left_out = 0
    at = 6
    while at + 9 <= len(data):
        level, attribute, length = struct.unpack_from("<BII", data, at)
        value = data[at + 9:at + 9 + length]
        if len(value) < length:
            break  # cut short: what came before stands
        at += 9 + length + 2
        number = attribute & 0xFFFF
        if level == _MESSAGE:
            if number == _ATT_CODEPAGE and len(value) >= 4:
                page = code_page(struct.unpack_from("<I", value)[0])
                codec = page or codec
            elif number == _ATT_BODY:
                plain = value.rstrip(b"\0")
            elif number == _ATT_MESSAGE_PROPS:
                message.update(_properties(value, codec))
        elif level == _ATTACHMENT and not left_out:
            if number == _ATT_RENDER or not attachments:
                if len(attachments) == MAX_TNEF_ATTACHMENTS:
                    left_out = 1
                    continue
                attachments.append(_Attachment())
            if number == _ATT_ATTACH_TITLE:
                attachments[-1].title = value.rstrip(b"\0").decode(codec, "replace")
            elif number == _ATT_ATTACH_DATA:
                attachments[-1].data = value
            elif number == _ATT_ATTACH_PROPS:
                attachments[-1].properties.update(_properties(value, codec))
        elif level == _ATTACHMENT and number == _ATT_RENDER:
            left_out += 1

    warnings: list[str] = []
    html, internet = message.get(_HTML), message.get(_INTERNET_CODEPAGE)
    # HTML in the code page the message declares for it (PR_INTERNET_CPID), else its own; an 8-bit
    # body in its own: each read as any text is (decode_text), UTF-8 where it is that.
    labels = (page_label(internet) if isinstance(internet, int) else None, page)
    html_text = (body_text(html, (*labels, html_declared_charset(html)), name, warnings) if isinstance(html, bytes)
                 else _text(html))
    rtf = message.get(_RTF_COMPRESSED)
    text = _text(message.get(_BODY)) or (body_text(plain, (page,), name, warnings) if plain else "")
    body = body_markdown(text, html_text, rtf if isinstance(rtf, bytes) else None)
    files = (item.file() for item in attachments)
    return Tnef(body, tuple(file for file in files if file.name or file.data), left_out, tuple(warnings))


def _text(value: bytes | str | int | None) -> str:
    return value if isinstance(value, str) else ""


def _properties(data: bytes, codec: str) -> dict[int, bytes | str | int]:
    """The single-valued text and byte properties in `data`, by id; as many as the bytes hold."""
    found: dict[int, bytes | str | int] = {}
    try:
        count, = struct.unpack_from("<I", data)
        at = 4
        for _ in range(count):
            if at >= len(data):
                break
            kind, number = struct.unpack_from("<HH", data, at)
            at += 4
            if number >= _NAMED:  # a GUID, then a number or a name
                named_by, = struct.unpack_from("<I", data, at + 16)
                at += 20
                at += 4 if named_by == 0 else 4 + _padded(struct.unpack_from("<I", data, at)[0])
            multiple = bool(kind & _MULTIPLE)
            kind &= ~_MULTIPLE
            if kind in _VARIABLE:  # a count of values, each with its length (one for a single value)
                first, at = _variable(data, at, kind, codec)
                if not multiple and first is not None:
                    found.setdefault(number, first)
            elif kind in _FIXED and multiple:  # a count, then the values side by side
                values, = struct.unpack_from("<I", data, at)
                at += 4 + _padded(values * _FIXED_EACH.get(kind, _FIXED[kind]))
            elif kind in _FIXED:
                if kind == _LONG:
                    found.setdefault(number, struct.unpack_from("<I", data, at)[0])
                at += _FIXED[kind]
            else:
                break  # a type no writer uses: where the next property starts is unknown
    except struct.error:
        pass  # cut short: the properties read so far stand
    return found


def _variable(data: bytes, at: int, kind: int, codec: str) -> tuple[bytes | str | None, int]:
    values, = struct.unpack_from("<I", data, at)
    at += 4
    first: bytes | str | None = None
    for index in range(values):
        if at + 4 > len(data):
            raise struct.error("cut short")
        size, = struct.unpack_from("<I", data, at)
        at += 4
        if at + size > len(data):
            raise struct.error("cut short")
        if index == 0:
            raw = data[at:at + size]
            if kind == _UNICODE:
                first = raw.decode("utf-16-le", "replace").rstrip("\0")
            elif kind == _STRING8:
                first = raw.decode(codec, "replace").rstrip("\0")
            elif kind == _OBJECT:  # a file kept as a storage (a compound file) is read; a message is not
                first = raw[16:] if raw[:16] == _IID_STORAGE else None
            else:
                first = raw
        at += _padded(size)
    return first, at


def _padded(size: int) -> int:
    return size + (-size % 4)
