"""A message's body from the forms it may be kept in, as a saved e-mail (email_text.py), an
Outlook message file (msg_text.py) and a TNEF attachment (winmail.dat, tnef.py) hold them: the
HTML converted as any page is (what a mail client shows; a plain alternative beside it may say
what it does not), else the plain text, else Outlook's compressed RTF (rtf_compressed.py) read as
any RTF file is. An 8-bit or binary body is read as any text is (body_text: decode_text), by the
labels its message gives it (a code page, an HTML body's meta tag).
"""

from __future__ import annotations

from minirag.errors import ConversionFailed
from minirag.ingest.rtf_compressed import decompressed
from minirag.ingest.rtf_text import rtf_to_markdown
from minirag.ingest.text_repair import escape_headings


def body_markdown(plain: str, html: str, compressed_rtf: bytes | None) -> str:
    if html.strip():  # what a mail client shows: a plain alternative may say what the HTML does not
        from minirag.ingest.html_markdown import html_to_markdown

        try:
            markdown = html_to_markdown(html)[0]
        except ConversionFailed:
            markdown = ""
        if markdown.strip() or not plain.strip():
            return markdown
    if plain.strip():
        return escape_headings(plain.replace("\r\n", "\n"))
    if compressed_rtf is None:
        return ""
    try:
        return rtf_to_markdown(decompressed(compressed_rtf), "body")[0]
    except (ValueError, ConversionFailed):
        return ""


def body_text(data: bytes, labels: tuple[str | None, ...], name: str, warnings: list[str]) -> str:
    """A body's bytes as decode_text reads them by `labels`, in the order they rank; "" with a warning
    where they are binary data."""
    from minirag.ingest.convert import decode_text

    try:
        text, said = decode_text(data, f"{name} › body", declared=labels)
    except ConversionFailed as exc:
        warnings.append(str(exc))
        return ""
    warnings.extend(said)
    return text
