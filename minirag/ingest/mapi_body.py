"""A message's body from the forms it may be kept in, as a saved e-mail (email_text.py), an
Outlook message file (msg_text.py) and a TNEF attachment (winmail.dat, tnef.py) hold them: the
plain text, else the HTML converted as any page is, else Outlook's compressed RTF
(rtf_compressed.py) read as any RTF file is.
"""

from __future__ import annotations

from minirag.errors import ConversionFailed
from minirag.ingest.rtf_compressed import decompressed
from minirag.ingest.rtf_text import rtf_to_markdown
from minirag.ingest.text_repair import escape_headings


def body_markdown(plain: str, html: str, compressed_rtf: bytes | None) -> str:
    if plain.strip():
        return escape_headings(plain.replace("\r\n", "\n"))
    if html.strip():
        from minirag.ingest.html_markdown import html_to_markdown

        try:
            return html_to_markdown(html)[0]
        except ConversionFailed:
            return ""
    if compressed_rtf is None:
        return ""
    try:
        return rtf_to_markdown(decompressed(compressed_rtf), "body")[0]
    except (ValueError, ConversionFailed):
        return ""
