"""A web page saved whole, as one file (.mhtml, .mht): a browser's "Webpage, Single File", Word's
"Single File Web Page".

Such a file is a MIME message, the container an e-mail is, whose first part (or the part its
`start` parameter names) is the page's HTML, and whose other parts are what the page loads:
pictures, style sheets, scripts, frames. The page reads as the HTML part does, its title the
page's `<title>`, else the message's `Subject` (the browser writes the title there); the other
parts are the page's furniture and are not read. A frameset page (old Javadoc's, a manual's with
its contents beside it) shows nothing of its own: it reads as the frames it names, in order, each
found by its Content-ID (`cid:`) or its Content-Location. An inline frame of an ordinary page (an
advertisement, a widget) is not read.
"""

from __future__ import annotations

import email
import email.message
import re
from dataclasses import dataclass
from urllib.parse import urljoin

from minirag.errors import ConversionFailed, described
from minirag.ingest.email_text import BOUNDED_POLICY, header_text

_PAGE_TYPES = ("text/html", "application/xhtml+xml")
MAX_FRAMES = 32  # frames read of one saved page, those of nested framesets counted
MAX_FRAMESET_DEPTH = 8  # framesets within framesets followed
_FRAMESET = re.compile(rb"<frameset\b", re.IGNORECASE)
# A frame tag's source, within its first 4,096 characters: an unclosed tag is not read to the end.
_FRAME_SOURCE = re.compile(rb"""<frame\b[^<>]{0,4096}?\ssrc\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))""", re.IGNORECASE)


@dataclass(frozen=True)
class Html:
    html: bytes
    charset: str | None  # as its part's Content-Type declares it: its bytes' label (decode_text)


@dataclass(frozen=True)
class SavedPage:
    page: Html
    frames: tuple[Html, ...]  # what a frameset page shows, in order; () for any other page
    subject: str


def saved_page(data: bytes, name: str) -> SavedPage:
    """The page's HTML part. ConversionFailed where the file holds none."""
    try:
        message = email.message_from_bytes(data, policy=BOUNDED_POLICY)
        part = _page_part(message)
        page = _html(part) if part is not None else None
        frames = tuple(_frames(message, part)) if part is not None and page is not None else ()
        subject = header_text(message, "Subject")
    except RecursionError:
        raise ConversionFailed(f"{name}: refused: its MIME parts nest too deep") from None
    except Exception as exc:  # noqa: BLE001 - the standard library's parser raises anything on a hostile file
        raise ConversionFailed(f"{name}: cannot read the saved page ({described(exc)})") from None
    if page is None:
        raise ConversionFailed(f"{name}: not a saved web page (no HTML part in it)")
    return SavedPage(page, frames, subject.strip())


def _html(part: email.message.Message) -> Html | None:
    html = part.get_payload(decode=True)
    if not isinstance(html, bytes):
        return None
    charset = part.get_content_charset()
    return Html(html, charset)


def _frames(message: email.message.EmailMessage, page: email.message.Message) -> list[Html]:
    """The frames a frameset page names, in order, those of a frameset among them in its place; up to
    MAX_FRAMES, each part once."""
    by_id: dict[str, email.message.Message] = {}
    by_location: dict[str, email.message.Message] = {}
    for part in message.walk():
        if not part.is_multipart() and part.get_content_type() in _PAGE_TYPES:
            by_id.setdefault(_content_id(str(part.get("content-id") or "")), part)
            by_location.setdefault(str(part.get("content-location") or "").strip(), part)
    shown: list[Html] = []
    seen = {id(page)}

    def visit(part: email.message.Message, depth: int) -> None:
        html = _html(part)
        if html is None or not _FRAMESET.search(html.html):
            if depth and html is not None:
                shown.append(html)
            return
        base = str(part.get("content-location") or "").strip()
        for found in _FRAME_SOURCE.finditer(html.html):
            source = next(group for group in found.groups() if group is not None).decode("latin-1").strip()
            target = (by_id.get(source[4:].strip()) if source.lower().startswith("cid:")
                      else by_location.get(urljoin(base, source)))
            if target is None or id(target) in seen or len(shown) >= MAX_FRAMES or depth >= MAX_FRAMESET_DEPTH:
                continue
            seen.add(id(target))
            visit(target, depth + 1)

    visit(page, 0)
    return shown


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
