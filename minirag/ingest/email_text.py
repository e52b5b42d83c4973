"""E-mail messages -> Markdown: a saved message (.eml, RFC 5322 with MIME) read by the standard
library's parser, and the page both it and an Outlook message (msg_text.py) are written as.

A message reads as a reader sees it in a mail client: the subject as its title and heading, then
who sent it, to whom and when, then the body, then the names of its attachments (their contents
are not read: an attachment is a file of its own to index). The body is the plain-text part, or
the HTML part converted as any page is when there is none; header fields arrive decoded
(`=?utf-8?b?...?=`), and a body in any charset its part declares. A multipart tree nested past
MAX_PARTS parts is read as far as that.
"""

from __future__ import annotations

import email
import email.policy
from dataclasses import dataclass

from minirag.errors import ConversionFailed, described
from minirag.ingest.text_repair import escape_headings

MAX_PARTS = 1_000


@dataclass(frozen=True)
class Message:
    subject: str
    sender: str = ""
    to: str = ""
    cc: str = ""
    date: str = ""
    body: str = ""  # Markdown
    attachments: tuple[str, ...] = ()

    def markdown(self) -> str:
        heading = f"# {' '.join(self.subject.split())}" if self.subject.strip() else ""
        fields = "\n".join(f"{label}: {' '.join(value.split())}" for label, value in
                           (("From", self.sender), ("To", self.to), ("Cc", self.cc), ("Date", self.date))
                           if value.strip())
        names = ", ".join(" ".join(name.split()) for name in self.attachments if name.strip())
        parts = (heading, escape_headings(fields), self.body.strip(), f"Attachments: {names}" if names else "")
        return "\n\n".join(part for part in parts if part)


def eml_to_markdown(data: bytes, name: str) -> tuple[str, str | None]:
    """The message's Markdown and its subject (None where it has none)."""
    if b"\x00" in data[:8192]:
        raise ConversionFailed(f"{name}: not an e-mail message (a binary file: NUL bytes)")
    try:
        message = email.message_from_bytes(data, policy=email.policy.default)
        for parts, _ in enumerate(message.walk(), 1):
            if parts > MAX_PARTS:
                raise ConversionFailed(f"{name}: refused: more than {MAX_PARTS:,} MIME parts")
        read = Message(subject=_header(message, "Subject"), sender=_header(message, "From"),
                       to=_header(message, "To"), cc=_header(message, "Cc"), date=_header(message, "Date"),
                       body=_body(message), attachments=tuple(_attachments(message)))
    except RecursionError:
        raise ConversionFailed(f"{name}: refused: its MIME parts nest too deep") from None
    except ConversionFailed:
        raise
    except Exception as exc:  # noqa: BLE001 - the standard library's parser raises anything on a hostile message
        raise ConversionFailed(f"{name}: cannot read the message ({described(exc)})") from None
    if not (read.subject or read.body or read.sender):
        raise ConversionFailed(f"{name}: not an e-mail message (no headers or body found)")
    return read.markdown(), read.subject.strip() or None


def _header(message: email.message.Message, field: str) -> str:
    try:
        value = message.get(field)
        return str(value) if value is not None else ""
    except (ValueError, TypeError, IndexError, AttributeError):  # a header the parser cannot model: as written
        raw = next((value for name, value in message.raw_items() if name.lower() == field.lower()), "")
        return " ".join(str(raw).split())


def _body(message: email.message.EmailMessage) -> str:
    part = message.get_body(preferencelist=("plain", "html"))
    if part is None:
        return ""
    text = _content(part)
    if part.get_content_subtype() == "html":
        from minirag.ingest.html_markdown import html_to_markdown

        try:
            return html_to_markdown(text)[0]
        except ConversionFailed:
            return ""
    return escape_headings(text)


def _content(part: email.message.Message) -> str:
    try:
        content = part.get_content()  # type: ignore[attr-defined]
        return content if isinstance(content, str) else ""
    except (LookupError, ValueError, AssertionError, KeyError):  # an unknown charset, a broken encoding
        payload = part.get_payload(decode=True)
        return payload.decode("utf-8", "replace") if isinstance(payload, bytes) else ""


def _attachments(message: email.message.EmailMessage) -> list[str]:
    names = []
    for part in message.iter_attachments():
        filename = part.get_filename()
        if filename:
            names.append(filename)
        elif part.get_content_type() == "message/rfc822":
            inner = part.get_payload(0) if part.is_multipart() else None
            subject = inner.get("Subject") if isinstance(inner, email.message.Message) else None
            names.append(str(subject) if subject else "a forwarded message")
    return names
