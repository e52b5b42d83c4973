"""E-mail messages -> Markdown: a saved message (.eml, RFC 5322 with MIME) read by the standard
library's parser, and the page both it and an Outlook message (msg_text.py) are written as.

A message reads as a reader sees it in a mail client: the subject as its title and heading, then
who sent it, to whom and when, then the body, then the names of its attachments and, under them,
each attached document and forwarded message read as a section of its own (attachments.py); the
files Outlook packs into a winmail.dat (tnef.py) are attachments as any other. The
body is the HTML part converted as any page is, as a client shows it, or its plain alternative
where that says far more (mapi_body.says_far_more), else the plain part (unwrapped where it is sent
`format=flowed`: flowed_text.py); header
fields arrive decoded (`=?utf-8?b?...?=`), and a body is read as any text is (decode_text), its
part's charset its label. A message
of more than MAX_PARTS parts, those of forwarded messages counted, is refused.
"""

from __future__ import annotations

import base64
import binascii
import codecs
import email
import email.policy
import quopri
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, cast

from minirag.chunking.rows import RowMap
from minirag.errors import ConversionFailed, MessageTooLong, described
from minirag.ingest.attachments import AttachedFiles, Attachment, joined_pages
from minirag.ingest.flowed_text import unflowed
from minirag.ingest.mapi_body import body_markdown, body_text
from minirag.ingest.sheet_text import SheetText
from minirag.ingest.text_decoding import html_declared_charset
from minirag.ingest.text_repair import escape_headings
from minirag.ingest.tnef import MAX_TNEF_ATTACHMENTS, TnefError, read_tnef

MAX_PARTS = 1_000
MAX_WARNINGS = 20
# The standard library's header parser takes time quadratic in a hostile header's length (quoted
# pairs, encoded words); a header longer than this is read by _decoded_words, in one pass.
MAX_PARSED_HEADER = 4_096
# A part's `Content-*` fields are parsed again at each of some ten reads, each read quadratic in the
# field: past this many characters they are cut (an RFC 2231 file name of 255 bytes, encoded, fits).
MAX_CONTENT_FIELD = 1_024
_ENCODED_WORD = re.compile(r"=\?([^?\s]{1,64})\?([bBqQ])\?([^?\s]{0,2048})\?=")
_TNEF_TYPES = ("application/ms-tnef", "application/vnd.ms-tnef")
# What the standard library leaves of an encoded word its charset's label undersells: U+FFFD for
# bytes outside it (GBK words labelled GB2312), a C1 control for windows-1252's curly quotes and
# euro sign labelled ISO-8859-1.
_MISREAD = re.compile("[\x80-\x9f\ufffd]")
# Labels mail clients read as a superset of them (Python's codec names), as browsers do.
_SUPERSETS = {"gb2312": "gb18030", "gbk": "gb18030", "iso8859-1": "cp1252", "ascii": "cp1252",
              "iso8859-9": "cp1254", "euc_kr": "cp949", "shift_jis": "cp932", "big5": "big5hkscs",
              "tis-620": "cp874", "iso8859-11": "cp874"}


class _BoundedPolicy(email.policy.EmailPolicy):
    """The standard policy, with a part's `Content-*` fields cut to MAX_CONTENT_FIELD characters
    before they are parsed (the parser reads them as it splits the parts, and whenever a part's type,
    file name or encoding is asked). No honest one is that long: a file name is at most 255 bytes,
    three times that encoded."""

    def header_fetch_parse(self, name: str, value: str) -> Any:
        if len(value) > MAX_CONTENT_FIELD and name.lower().startswith("content-"):
            value = " ".join(value.split())[:MAX_CONTENT_FIELD]
        return super().header_fetch_parse(name, value)


# Its message factory is the standard one's, EmailMessage (typeshed cannot tell it from the class).
BOUNDED_POLICY = cast("email.policy.EmailPolicy[email.message.EmailMessage]", _BoundedPolicy())


@dataclass(frozen=True)
class Message:
    subject: str
    sender: str = ""
    to: str = ""
    cc: str = ""
    date: str = ""
    body: str = ""  # Markdown
    attachments: tuple[Attachment, ...] = ()

    def markdown(self) -> str:
        return self.page().markdown

    def page(self) -> SheetText:
        """The message's Markdown, with the sheets and rows of its attached spreadsheets' lines."""
        heading = f"# {' '.join(self.subject.split())}" if self.subject.strip() else ""
        fields = "\n".join(f"{label}: {' '.join(value.split())}" for label, value in
                           (("From", self.sender), ("To", self.to), ("Cc", self.cc), ("Date", self.date))
                           if value.strip())
        names = ", ".join(" ".join(item.name.split()) for item in self.attachments if item.name.strip())
        parts = [SheetText(part, None) for part in (heading, escape_headings(fields), self.body.strip(),
                                                    f"Attachments: {names}" if names else "") if part]
        parts += [item.section() for item in self.attachments if item.markdown.strip()]
        return joined_pages(parts)


@dataclass(frozen=True)
class ReadMessage:
    markdown: str
    title: str | None  # the subject, None where it has none
    warnings: tuple[str, ...] = ()  # attachments that could not be read
    rows: RowMap | None = None  # the sheets and rows of its attached spreadsheets' lines


def said(warnings: list[str], more: int = 0) -> tuple[str, ...]:
    """A message's warnings, the first MAX_WARNINGS of them and how many more (`more` of them
    already left out)."""
    lines = [" ".join(warning.split()) for warning in warnings]  # names inside them are the sender's text
    more += max(0, len(lines) - MAX_WARNINGS)
    return (*lines[:MAX_WARNINGS], *((f"... and {more:,} more warnings like these",) if more else ()))


def eml_to_markdown(data: bytes, name: str, files: AttachedFiles | None = None) -> ReadMessage:
    """The message as a page; `files` reads its attachments (None: they are only named)."""
    data, warnings = _without_stray_nuls(data, name)
    try:
        message = email.message_from_bytes(data, policy=BOUNDED_POLICY)
        for parts, _ in enumerate(message.walk(), 1):
            if parts > MAX_PARTS:
                raise ConversionFailed(f"{name}: refused: more than {MAX_PARTS:,} MIME parts")
        read = _message(message, files, name, warnings)
    except RecursionError:
        raise ConversionFailed(f"{name}: refused: its MIME parts nest too deep") from None
    except ConversionFailed:
        raise
    except Exception as exc:  # noqa: BLE001 - the standard library's parser raises anything on a hostile message
        raise ConversionFailed(f"{name}: cannot read the message ({described(exc)})") from None
    if not (read.subject or read.body or read.sender):
        raise ConversionFailed(f"{name}: not an e-mail message (no headers or body found)")
    page = read.page()
    return ReadMessage(page.markdown, read.subject.strip() or None, said(warnings), page.rows)


# A message's opening: an mbox `From ` line or not, then a header field's name and its colon.
_FIELD = re.compile(rb"(?:From [^\n]*\n)?[!-9;-~]{1,76}:")
_CONTROL = re.compile(rb"[\x00-\x08\x0b\x0e-\x1f\x7f]")
_SNIFF = 8192
# Bytes of a message's opening that may be control characters (a NUL or two a mail store's damage
# left, or a client's bug): past it, the file is binary data, as decode_text rules for text.
MAX_CONTROL_SHARE = 0.05


def _without_stray_nuls(data: bytes, name: str) -> tuple[bytes, list[str]]:
    """`data` with its NUL bytes taken out, and a warning counting them, where its opening holds a
    few and is a header field; ConversionFailed for binary data (NULs where no field opens it, or
    more control characters than text holds)."""
    head = data[:_SNIFF]
    if b"\x00" not in head:
        return data, []
    if len(_CONTROL.findall(head)) > MAX_CONTROL_SHARE * len(head) or not _FIELD.match(head.replace(b"\x00", b"").lstrip()):
        raise ConversionFailed(f"{name}: not an e-mail message (a binary file: NUL bytes)")
    nuls = data.count(b"\x00")
    return data.replace(b"\x00", b""), [f"{name}: {nuls:,} NUL byte{'s' if nuls > 1 else ''} taken out of the message"]


def _message(message: email.message.EmailMessage, files: AttachedFiles | None, name: str,
             warnings: list[str]) -> Message:
    shown = message.get_body(preferencelist=("html", "plain"))  # what a mail client shows, where both are sent
    attachments, (carried_body, carried_said) = _attachments(message, shown, files, name, warnings)
    body = _body(shown, _plain_beside(message, shown), name, warnings)
    if not body.strip():
        body = carried_body
        warnings.extend(carried_said)  # (what reading the body said: only of a body that is read)
    return Message(subject=header_text(message, "Subject"), sender=header_text(message, "From"), to=header_text(message, "To"),
                   cc=header_text(message, "Cc"), date=header_text(message, "Date"),
                   body=body, attachments=tuple(attachments))


def header_text(message: email.message.Message, field: str) -> str:
    """A header field's value as a reader sees it (encoded words decoded); "" where it is absent."""
    raw = next((value for name, value in message.raw_items() if name.lower() == field.lower()), None)
    if raw is None:
        return ""
    if len(str(raw)) > MAX_PARSED_HEADER:
        return _decoded_words(str(raw))
    try:
        value = message.get(field)
        text = str(value) if value is not None else ""
    except (ValueError, TypeError, IndexError, AttributeError):  # a header the parser cannot model: as written
        return " ".join(str(raw).split())
    if _MISREAD.search(text) and _ENCODED_WORD.search(str(raw)):
        return _decoded_words(str(raw))  # read by the charset its label stands for, as clients read it
    return text


def _decoded_words(raw: str) -> str:
    """A header's value with its encoded words (RFC 2047, `=?utf-8?b?...?=`) decoded, in one pass:
    the white space between two encoded words goes, as the RFC says; anything else stays as
    written."""
    decoded: list[str] = []
    end = 0
    for word in _ENCODED_WORD.finditer(raw):
        between = raw[end:word.start()]
        if not (end and not between.strip()):  # (white space after an encoded word, before another)
            decoded.append(between)
        charset, encoding, text = word.groups()
        try:
            data = (base64.b64decode(text + "=" * (-len(text) % 4)) if encoding in "bB"
                    else quopri.decodestring(text.replace("_", " ").encode("ascii", "replace"), header=True))
            decoded.append(data.decode(_read_as(charset.split("*")[0]), "replace"))
        except (ValueError, LookupError, binascii.Error):
            decoded.append(word.group())
        end = word.end()
    decoded.append(raw[end:])
    return " ".join("".join(decoded).split())


def _read_as(label: str) -> str:
    """The codec a mail client reads text labelled `label` with: the label's, or the superset that
    clients (and browsers: the WHATWG Encoding Standard) read in its place."""
    try:
        codec = codecs.lookup(label).name
    except LookupError:
        return label  # (the caller's decode fails, and the word stays as written)
    return _SUPERSETS.get(codec, codec)


def _body(part: email.message.Message | None, plain: email.message.Message | None, name: str,
          warnings: list[str]) -> str:
    """The body `part` as Markdown; an HTML one gives way to its plain alternative `plain` where that
    says far more (body_markdown)."""
    if part is None:
        return ""
    if part.get_content_subtype() != "html":
        return body_markdown(_plain_text(part, name, warnings), "", None)
    html = _content(part, name, warnings)
    return body_markdown(_plain_text(plain, name, warnings) if plain is not None else "", html, None)


def _plain_beside(message: email.message.EmailMessage, shown: email.message.Message | None) -> email.message.Message | None:
    """The plain alternative of the HTML body `shown`: the plain part of the multipart/alternative
    nearest above it (the HTML may sit in a multipart/related beside its pictures); None where
    there is none."""
    if shown is None or shown.get_content_subtype() != "html":
        return None
    parents: dict[int, email.message.EmailMessage] = {}
    for part in message.walk():
        if part.get_content_maintype() == "multipart":
            parents.update((id(child), part) for child in part.iter_parts())
    above = parents.get(id(shown))
    while above is not None and above.get_content_type() != "multipart/alternative":
        above = parents.get(id(above))
    plain = above.get_body(preferencelist=("plain",)) if above is not None else None
    return plain if plain is not None and plain.get_content_type() == "text/plain" else None


def _plain_text(part: email.message.Message, name: str, warnings: list[str]) -> str:
    """A plain part's text, its soft breaks joined where it is sent `format=flowed` (RFC 3676)."""
    text = _content(part, name, warnings)
    if str(part.get_param("format", "")).strip().lower() != "flowed":
        return text
    return unflowed(text, delsp=str(part.get_param("delsp", "")).strip().lower() == "yes")


def _content(part: email.message.Message, name: str, warnings: list[str]) -> str:
    """A body part's text as decode_text reads its bytes by the charset the part declares (an HTML
    part's meta tag after it), as any text is; "" with a warning where it is binary data."""

    payload = part.get_payload(decode=True)
    if not isinstance(payload, bytes):
        return ""
    declared = part.get_content_charset()
    labels = (declared, html_declared_charset(payload)) if part.get_content_subtype() == "html" else (declared,)
    return body_text(payload, labels, name, warnings)


def _attachments(message: email.message.EmailMessage, shown: email.message.Message | None,
                 files: AttachedFiles | None, name: str,
                 warnings: list[str]) -> tuple[list[Attachment], tuple[str, tuple[str, ...]]]:
    """The message's attachments (beside its body `shown`), and the body Outlook sent inside a
    winmail.dat (for a message that has none outside it) with what reading it said."""
    found = []
    carried_body: tuple[str, tuple[str, ...]] = ("", ())
    for part in _attached_parts(message, shown):
        filename = part.get_filename() or ""
        if part.get_content_type() == "message/rfc822":
            inner = _forwarded(part, name)
            if not isinstance(inner, email.message.EmailMessage):
                found.append(Attachment(filename or "a forwarded message"))
                continue
            label = " ".join((filename or header_text(inner, "Subject")).split()) or "a forwarded message"
            nested = files.inner(label) if files is not None else None
            forwarded = _message(inner, nested, f"{name} › {label}", warnings) if nested is not None else None
            page = forwarded.page() if forwarded is not None else SheetText("", None)
            found.append(Attachment(label, page.markdown, page.rows))
            continue
        payload = part.get_payload(decode=True)
        data = payload if isinstance(payload, bytes) else b""
        if part.get_content_type() in _TNEF_TYPES or filename.casefold() == "winmail.dat":
            try:
                carried = read_tnef(data, f"{name} › {filename or 'winmail.dat'}")
            except TnefError as exc:
                warnings.append(f"{name} › {filename or 'winmail.dat'}: not read ({exc})")
                found.append(Attachment(filename or "winmail.dat"))
                continue
            carried_body = carried_body if carried_body[0] else (carried.body, carried.warnings)
            if carried.left_out:
                warnings.append(f"{name} › {filename or 'winmail.dat'}: {carried.left_out:,} attachments past the "
                                f"first {MAX_TNEF_ATTACHMENTS:,} not read")
            for item in carried.files:
                read = _attached_file(item.data, item.name, item.content_type, None, files, warnings)
                found.append(Attachment(item.name or "an attachment", read.markdown, read.rows))
            continue
        read = _attached_file(data, filename, part.get_content_type(), part.get_content_charset(), files, warnings)
        if filename or read.markdown:
            found.append(Attachment(filename or part.get_content_type(), read.markdown, read.rows))
    return found, carried_body


# Containers whose parts a mail client shows one after another (RFC 2046's mixed, digest and
# parallel, RFC 1847's signed and encrypted, RFC 6522's report): the body is in one of them.
_SEQUENCES = frozenset({"mixed", "digest", "parallel", "signed", "encrypted", "report"})


def _attached_parts(container: email.message.MIMEPart,
                    shown: email.message.Message | None) -> Iterator[email.message.MIMEPart]:
    """The parts of `container` a mail client shows after its body `shown`, in their order: each
    part of a mixed (signed, report...) container but the one that holds the body, and those that
    one holds beside it; a message that is all a forwarded message (GroupWise forwards so), that
    message. The standard library's iter_attachments looks one level down only (a signed message's
    attachments are inside its signed part) and takes the first text part of each kind for a body
    candidate even where the body is another part (an inline notice after a multipart/alternative)."""
    if container.get_content_type() == "message/rfc822":
        yield container
        return
    if container.get_content_maintype() != "multipart" or container.get_content_subtype() not in _SEQUENCES:
        yield from container.iter_attachments()  # an alternative or related body: the library's rule
        return
    for part in container.iter_parts():
        if shown is not None and any(inner is shown for inner in part.walk()):
            if part is not shown and part.get_content_subtype() in _SEQUENCES:
                yield from _attached_parts(part, shown)
        elif part.get_content_maintype() == "multipart" and part.get_content_subtype() in _SEQUENCES:
            yield from _attached_parts(part, None)
        else:
            yield part


def _forwarded(part: email.message.Message, name: str) -> object:
    """The message a message/rfc822 part holds. RFC 2046 gives such a part no encoding but 7bit, 8bit
    or binary, so the parser reads its body as the message; clients base64 one all the same (Windows
    types a saved page, .mht, message/rfc822), and that message is its body decoded. Its parts count
    against MAX_PARTS as the outer message's do."""
    inner = part.get_payload(0) if part.is_multipart() else None
    if ((part.get("content-transfer-encoding") or "").strip().lower() != "base64"
            or not isinstance(inner, email.message.Message) or inner.keys() or inner.is_multipart()):
        return inner
    body = inner.get_payload()
    try:
        data = base64.b64decode("".join(body.split()) if isinstance(body, str) else "")
    except binascii.Error:
        return inner
    decoded = email.message_from_bytes(data, policy=BOUNDED_POLICY)
    for parts, _ in enumerate(decoded.walk(), 1):
        if parts > MAX_PARTS:
            raise ConversionFailed(f"{name}: refused: more than {MAX_PARTS:,} MIME parts")
    return decoded


def _attached_file(data: bytes | None, filename: str, content_type: str, charset: str | None,
                   files: AttachedFiles | None, warnings: list[str]) -> SheetText:
    if files is None or not data:
        return SheetText("", None)
    try:
        read = files.read(data, filename, content_type, charset)
    except MessageTooLong:
        raise
    except ConversionFailed as exc:
        warnings.append(str(exc))
        return SheetText("", None)
    if read is None:
        return SheetText("", None)
    warnings.extend(read.warnings)
    return SheetText(read.markdown, read.rows)
