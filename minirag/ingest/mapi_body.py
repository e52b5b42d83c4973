"""A message's body from the forms it may be kept in, as a saved e-mail (email_text.py), an
Outlook message file (msg_text.py) and a TNEF attachment (winmail.dat, tnef.py) hold them: the
HTML converted as any page is (what a mail client shows; a plain alternative beside it that says
far more, says_far_more, in its place), else the plain text, else Outlook's compressed RTF (rtf_compressed.py) read as
any RTF file is. An 8-bit or binary body is read as any text is (body_text: decode_text), by the
labels its message gives it (a code page, an HTML body's meta tag).
"""

from __future__ import annotations

import re

from minirag.errors import ConversionFailed
from minirag.ingest.mail_quotes import requoted
from minirag.ingest.rtf_compressed import decompressed
from minirag.ingest.rtf_text import rtf_to_markdown
from minirag.ingest.rtf_tokens import code_page
from minirag.ingest.text_decoding import decode_text
from minirag.ingest.text_repair import escape_headings


def body_markdown(plain: str, html: str, compressed_rtf: bytes | None) -> str:
    if html.strip():  # what a mail client shows, unless its plain alternative says far more
        from minirag.ingest.html_markdown import html_to_markdown

        try:
            markdown = html_to_markdown(html)[0]
        except ConversionFailed:
            markdown = ""
        if (markdown.strip() or not plain.strip()) and not says_far_more(plain, markdown):
            return markdown
    if plain.strip():
        return escape_headings(requoted(plain.replace("\r\n", "\n")))
    if compressed_rtf is None:
        return ""
    try:
        return rtf_to_markdown(decompressed(compressed_rtf), "body")[0]
    except (ValueError, ConversionFailed):
        return ""


# A plain alternative is read in place of the HTML where it holds PLAIN_FACTOR times the HTML's
# visible words and PLAIN_MARGIN more: one that repeats the HTML, or only sends its reader to a
# browser, leaves the HTML read, and so does one a few words longer (its pictures' descriptions).
PLAIN_FACTOR = 3
PLAIN_MARGIN = 20
# Link targets, which no reader reads as words: Markdown's `](...)`, `<scheme:...>` and bare
# addresses. Each scan stops at a bracket or a space, so the pattern is linear in the text.
_TARGET = re.compile(r"\]\([^()\[\]\s]*\)|<[A-Za-z][\w+.-]{0,31}:[^<>\s]*>|[A-Za-z][\w+.-]{0,31}://\S*|mailto:\S*")
_IDEOGRAPHS = "\u3040-\u30ff\u3400-\u9fff\uf900-\ufaff"  # kana and CJK ideographs: scripts written without spaces
_WORD = re.compile(f"[{_IDEOGRAPHS}]|[^\\W\\d_{_IDEOGRAPHS}]+")


def says_far_more(plain: str, shown: str) -> bool:
    """Whether the plain alternative `plain` says far more than `shown`, the HTML one's Markdown: a
    newsletter whose HTML is pictures of its text (their alt words shown by no client) sends the
    text in its plain part."""
    words = visible_words(plain)
    return words >= PLAIN_MARGIN and words >= PLAIN_FACTOR * visible_words(shown) + PLAIN_MARGIN


def visible_words(text: str) -> int:
    """The words a reader reads in `text`: runs of letters outside link targets, an ideograph or
    kana each."""
    return sum(1 for _ in _WORD.finditer(_TARGET.sub(" ", text)))


def body_text(data: bytes, labels: tuple[str | None, ...], name: str, warnings: list[str]) -> str:
    """A body's bytes as decode_text reads them by `labels`, in the order they rank; "" with a warning
    where they are binary data."""

    try:
        text, said = decode_text(data, f"{name} › body", declared=labels)
    except ConversionFailed as exc:
        warnings.append(str(exc))
        return ""
    warnings.extend(said)
    return text


# Code pages of UTF-16 and UTF-32 (an HTML body's PR_INTERNET_CPID may be one), as their labels.
_WIDE_PAGES = {1200: "utf-16le", 1201: "utf-16be", 12000: "utf-32le", 12001: "utf-32be"}


def page_label(number: int | None) -> str | None:
    """The charset label of a Windows code page number, for body_text (an .msg's and a winmail.dat's
    alike); None for one no codec is."""
    return _WIDE_PAGES.get(number) if number in _WIDE_PAGES else code_page(number)
