"""Outlook messages (.msg, [MS-OXMSG]) -> Markdown, from the compound file's property streams
(cfb.py), written as a saved e-mail is (email_text.Message).

Each property of the message is a stream in the root storage named by its tag,
`__substg1.0_TTTTYYYY` (an id and a type: 001F UTF-16 text, 001E 8-bit text in the message's
code page, 0102 bytes); fixed-size ones (the times) sit in `__properties_version1.0`. The subject,
the sender, the To and Cc lines (each recipient storage's name and address, else the display
lines of names) and the delivery time head the page; the body is the plain-text
body, else the HTML body converted as any page is (an 8-bit or binary one read as any text is, by
the code page the message declares for it), else the compressed RTF body (rtf_compressed.py) read
as any RTF file is. Each attachment storage (`__attach_version1.0_#N`)
gives a file name and the file's bytes (`__substg1.0_37010102`), read as a document of its own, or
a forwarded message in a storage of its own (`__substg1.0_3701000D`, its property stream opening
with 24 bytes), read as this message is (attachments.py). Properties inside an attachment (a
forwarded message's own subject) are never taken for the message's; a damaged attachment costs
only itself.
"""

from __future__ import annotations

import datetime
import struct

from minirag.errors import ConversionFailed, MessageTooLong
from minirag.ingest.attachments import AttachedFiles, Attachment
from minirag.ingest.cfb import CompoundFile, CompoundFileError, Entry
from minirag.ingest.email_text import Message, ReadMessage, said
from minirag.ingest.mapi_body import body_markdown, body_text, page_label
from minirag.ingest.rtf_tokens import code_page
from minirag.ingest.text_decoding import html_declared_charset

_SUBJECT, _BODY, _HTML, _RTF_COMPRESSED = 0x0037, 0x1000, 0x1013, 0x1009
_SENDER_NAME, _SENDER_EMAIL, _SENDER_SMTP = 0x0C1A, 0x0C1F, 0x5D01
_DISPLAY_TO, _DISPLAY_CC = 0x0E04, 0x0E03
_RECIPIENT_TYPE, _TO, _CC = 0x0C15, 1, 2
_DISPLAY_NAME, _ADDRESS_TYPE, _ADDRESS, _SMTP_ADDRESS = 0x3001, 0x3002, 0x3003, 0x39FE
_DELIVERY_TIME, _SUBMIT_TIME = 0x0E06, 0x0039
_CODEPAGE, _INTERNET_CODEPAGE = 0x3FFD, 0x3FDE
_ATTACH_LONG_NAME, _ATTACH_NAME, _ATTACH_DISPLAY, _ATTACH_MIME = 0x3707, 0x3704, 0x3001, 0x370E
_ATTACH_METHOD, _EMBEDDED_MESSAGE = 0x3705, 5
_ATTACHED_FILE, _ATTACHED_MESSAGE = "__SUBSTG1.0_37010102", "__SUBSTG1.0_3701000D"
_SYSTIME, _LONG = 0x0040, 0x0003
# The property stream opens with 32 bytes in the message, 24 in a forwarded one, 8 in an attachment
# or a recipient.
_TOP_HEADER, _EMBEDDED_HEADER, _ATTACHMENT_HEADER = 32, 24, 8


class _Overread(CompoundFileError):
    """A file whose streams or storages are shared between its entries, so that reading each
    attachment once would read the same bytes over and over."""


class _Reading:
    """The compound file, its bytes and directory entries read about once each, whatever the
    directory claims: many entries may point at the same sectors, many storages at the same
    children, and a forged file must not have one stream read a thousand times."""

    def __init__(self, compound: CompoundFile) -> None:
        self.compound = compound
        self.bytes_left = 2 * len(compound.data) + 65_536
        self.entries_left = 3 * len(compound.entries) + 64

    def children(self, storage: Entry | None) -> list[Entry]:
        found = self.compound.children(storage)
        self.entries_left -= len(found)
        if self.entries_left < 0:
            raise _Overread("its storages share their entries, read over and over")
        return found

    def read(self, entry: Entry) -> bytes:
        self.bytes_left -= entry.size
        if self.bytes_left < 0:
            raise _Overread("its entries share their streams' sectors, read over and over")
        return self.compound.read(entry)


class _Properties:
    def __init__(self, compound: _Reading, storage: Entry | None, header: int) -> None:
        self.compound, self.storage = compound, storage
        self.streams = {entry.name.upper(): entry for entry in compound.children(storage)}
        self.fixed: dict[tuple[int, int], bytes] = {}
        table = self.streams.get("__PROPERTIES_VERSION1.0")
        data = compound.read(table) if table is not None else b""
        for at in range(header, len(data) - 15, 16):
            tag, = struct.unpack_from("<I", data, at)
            self.fixed[tag >> 16, tag & 0xFFFF] = data[at + 8:at + 16]
        internet, page = (page_label(self.number(prop)) for prop in (_INTERNET_CODEPAGE, _CODEPAGE))
        # The labels a body's bytes are read by (decode_text): the HTML's is PR_INTERNET_CPID's
        # page, an 8-bit body's, as every 8-bit string's, PR_MESSAGE_CODEPAGE's ([MS-OXCMSG]).
        self.html_labels, self.text_labels = (internet, page), (page, internet)
        self.codec = code_page(self.number(_CODEPAGE)) or code_page(self.number(_INTERNET_CODEPAGE)) or "cp1252"

    def raw(self, prop: int, kind: int) -> bytes | None:
        entry = self.streams.get(f"__SUBSTG1.0_{prop:04X}{kind:04X}")
        return self.compound.read(entry) if entry is not None else None

    def text(self, prop: int) -> str:
        wide = self.raw(prop, 0x001F)
        if wide is not None:
            return wide.decode("utf-16-le", "replace").rstrip("\x00")
        narrow = self.raw(prop, 0x001E)
        return narrow.decode(self.codec, "replace").rstrip("\x00") if narrow is not None else ""

    def number(self, prop: int) -> int | None:
        value = self.fixed.get((prop, _LONG))
        return struct.unpack_from("<I", value)[0] if value is not None else None

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


def msg_to_markdown(data: bytes, name: str, files: AttachedFiles | None = None) -> ReadMessage:
    """The message as a page; `files` reads its attachments (None: they are only named)."""
    warnings: list[str] = []
    try:
        compound = CompoundFile(data)
        damage = compound.directory_damage()
        message = _Properties(_Reading(compound), None, _TOP_HEADER)
        if not any(key.startswith("__SUBSTG1.0_") for key in message.streams):
            raise CompoundFileError(f"its directory {damage}") if damage else \
                ConversionFailed(f"{name}: an Office file, but not an Outlook message")
        read = _message(message, files, name, warnings)
        if damage and not read.markdown().strip():
            raise CompoundFileError(f"its directory {damage}, and no text is left")
    except (CompoundFileError, struct.error) as exc:
        raise ConversionFailed(f"{name}: not a valid .msg file (damaged: {exc or 'truncated'})") from None
    if damage:  # (before what its attachments say: it is the message's own)
        warnings.insert(0, f"{name}: its directory is damaged (it {damage}); what it led to is lost, the rest is read")
    page = read.page()
    return ReadMessage(page.markdown, read.subject.strip() or None, said(warnings), page.rows)


def _message(message: _Properties, files: AttachedFiles | None, name: str, warnings: list[str]) -> Message:
    sender = _mailbox(message.text(_SENDER_NAME), message.text(_SENDER_SMTP) or message.text(_SENDER_EMAIL))
    to, cc = _recipients(message)
    return Message(subject=message.text(_SUBJECT), sender=sender, to=to or message.text(_DISPLAY_TO),
                   cc=cc or message.text(_DISPLAY_CC), date=message.time(_DELIVERY_TIME) or message.time(_SUBMIT_TIME),
                   body=_body(message, name, warnings), attachments=tuple(_attachments(message, files, name, warnings)))


def _mailbox(name: str, address: str) -> str:
    if address and "@" in address and address not in name:
        return f"{name} <{address}>" if name else address
    return name


def _recipients(message: _Properties) -> tuple[str, str]:
    """The To and Cc lines from the recipient storages, each name with its address (the display
    lines hold the names only); empty where there are none, or they are damaged."""
    lines: dict[int, list[str]] = {_TO: [], _CC: []}
    try:
        for entry in sorted(message.streams.values(), key=lambda entry: entry.name.upper()):
            if entry.is_storage and entry.name.upper().startswith("__RECIP_VERSION1.0_"):
                recipient = _Properties(message.compound, entry, _ATTACHMENT_HEADER)
                kind = recipient.number(_RECIPIENT_TYPE)
                smtp = recipient.text(_ADDRESS) if recipient.text(_ADDRESS_TYPE).upper() == "SMTP" else ""
                mailbox = _mailbox(recipient.text(_DISPLAY_NAME), recipient.text(_SMTP_ADDRESS) or smtp)
                if kind in lines and mailbox:
                    lines[kind].append(mailbox)
    except _Overread:
        raise
    except (CompoundFileError, struct.error):
        return "", ""
    return ", ".join(lines[_TO]), ", ".join(lines[_CC])


def _body(message: _Properties, name: str, warnings: list[str]) -> str:
    """The body; an 8-bit text or HTML body read by decode_text, by the labels its code page gives."""

    html = message.raw(_HTML, 0x0102)
    if html is None and message.raw(_HTML, 0x001F) is None:
        html = (message.raw(_HTML, 0x001E) or b"").rstrip(b"\x00") or None  # (an 8-bit string ends in a NUL)
    html_text = (body_text(html, (*message.html_labels, html_declared_charset(html)), name, warnings)
                 if html is not None else message.text(_HTML))
    narrow = message.raw(_BODY, 0x001E) if message.raw(_BODY, 0x001F) is None else None
    plain = (body_text(narrow.rstrip(b"\x00"), message.text_labels, name, warnings) if narrow is not None
             else message.text(_BODY))
    return body_markdown(plain, html_text, message.raw(_RTF_COMPRESSED, 0x0102))


def _attachments(message: _Properties, files: AttachedFiles | None, name: str,
                 warnings: list[str]) -> list[Attachment]:
    found = []
    for entry in sorted(message.streams.values(), key=lambda entry: entry.name.upper()):
        if not (entry.is_storage and entry.name.upper().startswith("__ATTACH_VERSION1.0_")):
            continue
        label = ""
        try:
            attachment = _Properties(message.compound, entry, _ATTACHMENT_HEADER)
            filename = attachment.text(_ATTACH_LONG_NAME) or attachment.text(_ATTACH_NAME)
            label = " ".join((filename or attachment.text(_ATTACH_DISPLAY)).split())
            found.append(_attachment(attachment, filename, label, files, name, warnings))
        except (_Overread, MessageTooLong):
            raise
        except ConversionFailed as exc:
            warnings.append(str(exc))
            found.append(Attachment(label))
        except (CompoundFileError, struct.error) as exc:
            warnings.append(f"{name}: attachment {label or entry.name!r} not read (damaged: {exc or 'truncated'})")
            found.append(Attachment(label))
    return [item for item in found if item.name or item.markdown]


def _attachment(attachment: _Properties, filename: str, label: str, files: AttachedFiles | None, name: str,
                warnings: list[str]) -> Attachment:
    """One attachment storage: a file, a forwarded message, or (an OLE object, a link) a name."""
    if files is None:
        return Attachment(label)
    stored = attachment.streams.get(_ATTACHED_MESSAGE)
    if stored is not None and stored.is_storage and _is_message(attachment, stored):
        nested = files.inner(label or "a forwarded message")
        forwarded = _Properties(attachment.compound, stored, _EMBEDDED_HEADER)
        if nested is None:
            return Attachment(label or forwarded.text(_SUBJECT))
        read = _message(forwarded, nested, f"{name} › {label or 'a forwarded message'}", warnings)
        page = read.page()
        return Attachment(label or read.subject, page.markdown, page.rows)
    data = attachment.streams.get(_ATTACHED_FILE)
    if data is None or data.is_storage:
        return Attachment(label)
    read_file = files.read(attachment.compound.read(data), filename, attachment.text(_ATTACH_MIME))
    if read_file is None:
        return Attachment(label)
    warnings.extend(read_file.warnings)
    return Attachment(label, read_file.markdown, read_file.rows)


def _is_message(attachment: _Properties, stored: Entry) -> bool:
    """Whether an attachment's storage holds a forwarded message (not an OLE object's streams)."""
    method = attachment.number(_ATTACH_METHOD)
    if method is not None:
        return method == _EMBEDDED_MESSAGE
    return any(entry.name.upper() == "__PROPERTIES_VERSION1.0" for entry in attachment.compound.children(stored))
