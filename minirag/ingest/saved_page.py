"""A web page saved whole, as one file (.mhtml, .mht): a browser's "Webpage, Single File", Word's
"Single File Web Page".

Such a file is a MIME message, the container an e-mail is, whose first part (or the part its
`start` parameter names) is the page's HTML, and whose other parts are what the page loads:
pictures, style sheets, scripts, frames. The page reads as the HTML part does, its title the
page's `<title>`, else the message's `Subject` (the browser writes the title there); the other
parts are the page's furniture and are not read. A frameset page (old Javadoc's, a manual's with
its contents beside it) shows nothing of its own: it reads as the frames it names, in order, each
found by its Content-ID (`cid:`) or its Content-Location (a `src` read as an attribute is,
`&amp;` as `&`), in each part's text as decode_text reads it (a UTF-16 part's too). An ordinary page's inline frames
(`<iframe>`: an embedded post, a document viewer; Chrome saves each as a part of its own) read in
their places, found alike, unless no reader sees one (hidden, of no size: a tracker's) or it is
labelled an advertisement; a frame's words inside a page's chrome (its `<nav>`) go with it.
"""

from __future__ import annotations

import email
import email.message
import hashlib
import re
from dataclasses import dataclass, replace
from urllib.parse import urljoin

from minirag.display import shown
from minirag.errors import ConversionFailed, described
from minirag.ingest.email_text import BOUNDED_POLICY, header_text
from minirag.ingest.html_markdown import tag_attributes
from minirag.ingest.page_chrome import hidden_by_markup
from minirag.ingest.text_decoding import decode_text, html_declared_charset

_PAGE_TYPES = ("text/html", "application/xhtml+xml")
MAX_FRAMES = 32  # frames read of one saved page, those within frames counted
MAX_FRAMESET_DEPTH = 8  # frames within frames followed (a frameset's, an inline frame's)
# Frames are looked for in a part's text, as decode_text reads it (a UTF-16 part's too).
_FRAMESET = re.compile(r"<frameset\b", re.IGNORECASE)
# A frame tag's attributes, its first 4,096 characters (an unclosed tag is not read to the end),
# read as an inline frame's are (tag_attributes): `src` written inside another value is none.
_FRAME = re.compile(r"<frame\b([^<>]{0,4096})", re.IGNORECASE)
# An inline frame's start tag, its first 4,096 characters, and its end tag where only fallback text
# stands between (an iframe's content is text, not markup).
_IFRAME = re.compile(r"<iframe\b([^<>]{0,4096})>(?:[^<]*+</iframe\s*>)?", re.IGNORECASE)
_HEADING_MARK = re.compile(r"^#{1,6}[ \t]+", re.MULTILINE)


@dataclass(frozen=True)
class Html:
    html: str  # an ordinary page's with a mark in each inline frame's place that is read (placed)
    warnings: tuple[str, ...]  # decode_text's, reading the part's bytes by their labels
    frames: tuple[Html, ...] = ()  # a frameset's frames in order, or an ordinary page's inline ones in its marks'
    frameset: bool = False  # shows nothing but its frames


@dataclass(frozen=True)
class SavedPage:
    page: Html
    subject: str
    mark: str  # the word that marks an inline frame's place (placed): one no part of the file holds


def saved_page(data: bytes, name: str) -> SavedPage:
    """The page's HTML part, with the frames it shows. ConversionFailed where the file holds none."""
    try:
        message = email.message_from_bytes(data, policy=BOUNDED_POLICY)
        part = _page_part(message)
        # The file's digest: a part holding it would be a part holding the digest of itself.
        mark = f"Minirag{hashlib.blake2b(data, digest_size=8).hexdigest()}Frame"
        frames = _Frames(message, mark, name)
        page = frames.read(part) if part is not None else None
        if page is not None and frames.refused:
            page = replace(page, warnings=(*page.warnings, *frames.refused))
        subject = header_text(message, "Subject")
    except ConversionFailed:  # a part that is no text (decode_text)
        raise
    except RecursionError:
        raise ConversionFailed(f"{name}: refused: its MIME parts nest too deep") from None
    except Exception as exc:  # noqa: BLE001 - the standard library's parser raises anything on a hostile file
        raise ConversionFailed(f"{name}: cannot read the saved page ({described(exc)})") from None
    if page is None:
        raise ConversionFailed(f"{name}: not a saved web page (no HTML part in it)")
    return SavedPage(page, subject.strip(), mark)


def placed(markdown: str, frames: list[str], mark: str) -> str:
    """A page's Markdown with each inline frame's in its mark's place (the i-th frame's at mark i,
    once): a block of its own where the mark is one, else (in a table's cell, a list's item) its
    text on one line, without heading marks, a bar escaped as a cell's is. A mark the page's chrome
    took out takes its frame with it. Only the page's own Markdown is searched for marks."""
    if not frames:
        return markdown
    marks = re.compile(rf"{mark}(\d+)Here")
    left = dict(enumerate(frames))  # each frame's text goes to one place

    def inline(found: re.Match[str]) -> str:
        return " ".join(_HEADING_MARK.sub("", left.pop(int(found.group(1)), "")).replace("|", "\\|").split())

    blocks = []
    for text in markdown.split("\n\n"):
        alone = marks.fullmatch(text.strip())
        blocks.append(left.pop(int(alone.group(1)), "").strip() if alone else marks.sub(inline, text))
    return "\n\n".join(text for text in blocks if text)


class _Frames:
    """The frames of one saved page: each part found by its Content-ID (`cid:`) or its
    Content-Location, read once, up to MAX_FRAMES, to MAX_FRAMESET_DEPTH frames within frames."""

    def __init__(self, message: email.message.EmailMessage, mark: str, name: str) -> None:
        self.mark = mark
        self.name = name
        self.by_id: dict[str, email.message.Message] = {}
        self.by_location: dict[str, email.message.Message] = {}
        for part in message.walk():
            if not part.is_multipart() and part.get_content_type() in _PAGE_TYPES:
                self.by_id.setdefault(_content_id(str(part.get("content-id") or "")), part)
                self.by_location.setdefault(str(part.get("content-location") or "").strip(), part)
        self.seen: set[int] = set()
        self.refused: list[str] = []  # frames whose part is no text (decode_text), each in a warning

    def read(self, part: email.message.Message, depth: int = 0) -> Html | None:
        """The part's HTML with the frames it shows: a frameset's, or an ordinary page's inline ones."""
        self.seen.add(id(part))
        html = _html(part, self.name)
        if html is None:
            return None
        base = str(part.get("content-location") or "").strip()
        frames: list[Html] = []
        if _FRAMESET.search(html.html):
            for found in _FRAME.finditer(html.html):
                frame = self._frame(tag_attributes(found.group(1)).get("src", ""), base, depth)
                if frame is not None:
                    frames.append(frame)
            return replace(html, frames=tuple(frames), frameset=True)

        def mark(found: re.Match[str]) -> str:
            attributes = tag_attributes(found.group(1))
            frame = None if _unseen(attributes) else self._frame(attributes.get("src", ""), base, depth)
            if frame is None:
                return found.group()
            frames.append(frame)
            return f"<div>{self.mark}{len(frames) - 1}Here</div>"

        marked = _IFRAME.sub(mark, html.html)
        return replace(html, html=marked, frames=tuple(frames))

    def _frame(self, source: str, base: str, depth: int) -> Html | None:
        source = source.strip()
        target = (self.by_id.get(_content_id(source[4:])) if source.lower().startswith("cid:")
                  else self.by_location.get(urljoin(base, source)))
        if target is None or id(target) in self.seen or len(self.seen) > MAX_FRAMES or depth >= MAX_FRAMESET_DEPTH:
            return None
        try:
            return self.read(target, depth + 1)
        except ConversionFailed as exc:  # that frame's part is no text: it alone is left out, as an attachment is
            reason = str(exc).removeprefix(f"{self.name}: ")
            self.refused.append(f"{self.name} › frame {shown(source)}: not read ({reason})")
            return None


def _unseen(attributes: dict[str, str]) -> bool:
    """An inline frame no reader sees, or reads for the page: hidden, of no size (a tracker's), or
    labelled an advertisement."""
    label = f"{attributes.get('title', '')} {attributes.get('aria-label', '')}".lower()
    return (hidden_by_markup(attributes) or attributes.get("aria-hidden", "").lower() == "true"
            or any(attributes.get(side, "").strip().lower() in ("0", "0px") for side in ("width", "height"))
            or "advertisement" in label)


def _html(part: email.message.Message, name: str) -> Html | None:
    """The part's text, read by the charset its Content-Type declares, then its meta tag's."""

    data = part.get_payload(decode=True)
    if not isinstance(data, bytes):
        return None
    text, warnings = decode_text(data, name, declared=(part.get_content_charset(), html_declared_charset(data)))
    return Html(text, warnings)


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
