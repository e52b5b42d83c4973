"""A web page saved whole, as one file (.mhtml, .mht): a browser's "Webpage, Single File", Word's
"Single File Web Page".

Such a file is a MIME message, the container an e-mail is, whose first part (or the part its
`start` parameter names) is the page's HTML, and whose other parts are what the page loads:
pictures, style sheets, scripts, frames. The page reads as the HTML part does, its title the
page's `<title>`, else the message's `Subject` (the browser writes the title there); the other
parts are the page's furniture and are not read.
"""

from __future__ import annotations

import codecs
import email
import email.message
from dataclasses import dataclass

from minirag.errors import ConversionFailed, described
from minirag.ingest.email_text import BOUNDED_POLICY, header_text

_PAGE_TYPES = ("text/html", "application/xhtml+xml")
_UTF16_MARKS = {"utf-16le": codecs.BOM_UTF16_LE, "utf-16be": codecs.BOM_UTF16_BE}


@dataclass(frozen=True)
class SavedPage:
    html: bytes
    charset: str | None  # as the HTML part's Content-Type declares it
    subject: str


def saved_page(data: bytes, name: str) -> SavedPage:
    """The page's HTML part. ConversionFailed where the file holds none."""
    try:
        message = email.message_from_bytes(data, policy=BOUNDED_POLICY)
        part = _page_part(message)
        html = part.get_payload(decode=True) if part is not None else None
        charset = part.get_content_charset() if part is not None else None
        subject = header_text(message, "Subject")
    except RecursionError:
        raise ConversionFailed(f"{name}: refused: its MIME parts nest too deep") from None
    except Exception as exc:  # noqa: BLE001 - the standard library's parser raises anything on a hostile file
        raise ConversionFailed(f"{name}: cannot read the saved page ({described(exc)})") from None
    if not isinstance(html, bytes):
        raise ConversionFailed(f"{name}: not a saved web page (no HTML part in it)")
    return SavedPage(_marked(html, charset), charset, subject.strip())


def _page_part(message: email.message.EmailMessage) -> email.message.Message | None:
    """The part `start` names (by its Content-ID, with or without its angle brackets), else the first
    HTML part, in one walk."""
    start = message.get_param("start", header="content-type") if message.is_multipart() else None
    wanted = _content_id(start) if isinstance(start, str) else None
    first = None
    for part in message.walk():
        if part.is_multipart():
            continue
        if wanted and _content_id(str(part.get("content-id") or "")) == wanted:
            return part
        if first is None and part.get_content_type() in _PAGE_TYPES:
            first = part
            if not wanted:
                return first
    return first


def _content_id(value: str) -> str:
    return value.strip().removeprefix("<").removesuffix(">").strip()


def _marked(html: bytes, charset: str | None) -> bytes:
    """A part its charset labels UTF-16 with the byte-order mark the label stands for, where it has
    none: the label is its bytes' own, as HTTP's is (UTF-16LE and UTF-16BE are written without a
    mark, and text is read as UTF-16 only by one); a part with no zero byte is no UTF-16. UTF-16
    alone: the order its first character's zero byte shows."""
    label = (charset or "").lower().replace("_", "-")
    if (not label.startswith("utf-16") or html.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE))
            or b"\x00" not in html[:1024]):  # a label on 8-bit text is a wrong one
        return html
    return (_UTF16_MARKS.get(label) or (codecs.BOM_UTF16_LE if html[1:2] == b"\x00" else codecs.BOM_UTF16_BE)) + html
