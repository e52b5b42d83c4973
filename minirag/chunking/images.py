"""Pictures in the Markdown a document became, as a reader of its text meets them.

markitdown writes each inlined picture as a base64 `data:` image: only its alt text
is kept. A picture with no alt text (`![](logo.svg)`: an avatar, a spacer, an
unlabelled screenshot or badge) says nothing to a reader of text and its address
is noise to both search sides, so it goes; a link it was the whole text of then
has no text, and links.py drops it (`[![](badge.svg)](https://ci.example)`). HTML
pages and HTML inside Markdown were converted by the same rule
(html_markdown.link_markdown).
"""

from __future__ import annotations

import re

from minirag.chunking.fences import sub_outside_code

# The alt text holds no `[` and the address runs possessively: linear in the line (see links.py).
_DATA_IMAGE = re.compile(r"!\[([^\[\]\n]*)\]\(\s*data:[^)\s]*+(?:\s+\"[^\"\n]*\")?\s*\)")
_UNLABELLED_IMAGE = re.compile(r"!\[\s*\]\(\s*[^)\s]*+(?:\s+\"[^\"\n]*\"|\s+'[^'\n]*')?\s*\)")


def strip_pictures(markdown: str) -> str:
    """Inlined `data:` pictures as their alt text and pictures without alt text taken out, except
    inside fenced code."""
    markdown = sub_outside_code(markdown, "data:", _DATA_IMAGE, r"\1")
    return sub_outside_code(markdown, "![", _UNLABELLED_IMAGE, "")
