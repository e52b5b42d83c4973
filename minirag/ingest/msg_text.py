"""Outlook messages (.msg, [MS-OXMSG]) -> Markdown, from the compound file's property streams
(cfb.py), written as a saved e-mail is (email_text.Message).

Each property of the message is a stream in the root storage named by its tag,
`__substg1.0_TTTTYYYY` (an id and a type: 001F UTF-16 text, 001E 8-bit text in the message's
code page, 0102 bytes); fixed-size ones (the times) sit in `__properties_version1.0`. The subject,
the sender, the To and Cc lines and the delivery time head the page; the body is the plain-text
body, else the HTML body converted as any page is, else the compressed RTF body
(rtf_compressed.py) read as any RTF file is; each attachment storage
(`__attach_version1.0_#N`) gives its file name. Properties inside an attachment (a forwarded
message's own subject) are never taken for the message's.
"""

from __future__ import annotations

import datetime
import struct

from minirag.errors import ConversionFailed
from minirag.ingest.cfb import CompoundFile, CompoundFileError, Entry
from minirag.ingest.email_text import Message
from minirag.ingest.rtf_compressed import decompressed
from minirag.ingest.rtf_text import rtf_to_markdown
from minirag.ingest.rtf_tokens import code_page
from minirag.ingest.text_repair import escape_headings

_SUBJECT, _BODY, _HTML, _RTF_COMPRESSED = 0x0037, 0x1000, 0x1013, 0x1009
_SENDER_NAME, _SENDER_EMAIL, _SENDER_SMTP = 0x0C1A, 0x0C1F, 0x5D01
_DISPLAY_TO, _DISPLAY_CC = 0x0E04, 0x0E03
_DELIVERY_TIME, _SUBMIT_TIME = 0x0E06, 0x0039
_CODEPAGE, _INTERNET_CODEPAGE = 0x3FFD, 0x3FDE
_ATTACH_LONG_NAME, _ATTACH_NAME, _ATTACH_DISPLAY = 0x3707, 0x3704, 0x3001
_SYSTIME, _LONG = 0x0040, 0x0003
_TOP_HEADER = 32  # the message's own property stream opens with 32 bytes; an attachment's with 8


class _Properties:
    def __init__(self, compound: CompoundFile, storage: Entry | None, header: int) -> None:
        self.compound, self.storage = compound, storage
        self.streams = {entry.name.upper(): entry for entry in compound.children(storage)}
        self.fixed: dict[tuple[int, int], bytes] = {}
        table = self.streams.get("__PROPERTIES_VERSION1.0")
        data = compound.read(table) if table is not None else b""
        for at in range(header, len(data) - 15, 16):
            tag, = struct.unpack_from("<I", data, at)
            self.fixed[tag >> 16, tag & 0xFFFF] = data[at + 8:at + 16]
        codec = None
        for prop in (_INTERNET_CODEPAGE, _CODEPAGE):
            if (prop, _LONG) in self.fixed:
                codec = code_page(struct.unpack_from("<I", self.fixed[prop, _LONG])[0]) or codec
        self.codec = codec or "cp1252"

    def raw(self, prop: int, kind: int) -> bytes | None:
        entry = self.streams.get(f"__SUBSTG1.0_{prop:04X}{kind:04X}")
        return self.compound.read(entry) if entry is not None else None

    def text(self, prop: int) -> str:
        wide = self.raw(prop, 0x001F)
        if wide is not None:
            return wide.decode("utf-16-le", "replace").rstrip("\x00")
        narrow = self.raw(prop, 0x001E)
        return narrow.decode(self.codec, "replace").rstrip("\x00") if narrow is not None else ""

    def time(self, prop: int) -> str:
        value = self.fixed.get((prop, _SYSTIME))
        if value is None:
            return ""
        ticks, = struct.unpack("<Q", value)
        try:
            moment = datetime.datetime(1601, 1, 1) + datetime.timedelta(microseconds=ticks // 10)
        except OverflowError:
            return ""
        return moment.strftime("%Y-%m-%d %H:%M UTC")


def msg_to_markdown(data: bytes, name: str) -> tuple[str, str | None]:
    """The message's Markdown and its subject (None where it has none)."""
    try:
        compound = CompoundFile(data)
        message = _Properties(compound, None, _TOP_HEADER)
        if not any(key.startswith("__SUBSTG1.0_") for key in message.streams):
            raise ConversionFailed(f"{name}: an Office file, but not an Outlook message")
        sender = message.text(_SENDER_NAME)
        address = message.text(_SENDER_SMTP) or message.text(_SENDER_EMAIL)
        if address and "@" in address and address not in sender:
            sender = f"{sender} <{address}>" if sender else address
        read = Message(subject=message.text(_SUBJECT), sender=sender, to=message.text(_DISPLAY_TO),
                       cc=message.text(_DISPLAY_CC), date=message.time(_DELIVERY_TIME) or message.time(_SUBMIT_TIME),
                       body=_body(message), attachments=tuple(_attachments(compound)))
    except (CompoundFileError, struct.error) as exc:
        raise ConversionFailed(f"{name}: not a valid .msg file (damaged: {exc or 'truncated'})") from None
    return read.markdown(), read.subject.strip() or None


def _body(message: _Properties) -> str:
    text = message.text(_BODY)
    if text.strip():
        return escape_headings(text.replace("\r\n", "\n"))
    html = message.raw(_HTML, 0x0102)
    if html is None:
        html = (message.text(_HTML) or "").encode("utf-8")
        codec = "utf-8"
    else:
        codec = message.codec
    if html.strip():
        from minirag.ingest.html_markdown import html_to_markdown

        try:
            return html_to_markdown(html.decode(codec, "replace"))[0]
        except ConversionFailed:
            return ""
    compressed = message.raw(_RTF_COMPRESSED, 0x0102)
    if compressed is None:
        return ""
    try:
        return rtf_to_markdown(decompressed(compressed), "body")[0]
    except (ValueError, ConversionFailed):
        return ""


def _attachments(compound: CompoundFile) -> list[str]:
    names = []
    for entry in compound.children():
        if entry.is_storage and entry.name.upper().startswith("__ATTACH_VERSION1.0_"):
            attachment = _Properties(compound, entry, 8)
            names.append(attachment.text(_ATTACH_LONG_NAME) or attachment.text(_ATTACH_NAME)
                         or attachment.text(_ATTACH_DISPLAY))
    return [name for name in names if name]
