"""Markdown links as retrieval text: in-page anchors and permalinks carry no meaning
outside a browser, but cost tokens in every chunk (and breadcrumb) that holds them.

`[¶](#x "Permalink")` goes, `[text](#anchor)` becomes `text`, and a link title
attribute (`[t](url "title")`) is dropped; links to other pages and sites stay.
Fenced code is left alone.
"""

from __future__ import annotations

import re

from minirag.chunking.fences import code_line_mask

_LINK = re.compile(r"(?<!!)\[([^\]\n]*)\]\(\s*([^)\s]+)(?:\s+\"[^\"\n]*\"|\s+'[^'\n]*')?\s*\)")
_PERMALINK_TEXT = {"¶", "#", "§", "🔗", ""}


def _simplify(match: re.Match) -> str:
    text, target = match.group(1), match.group(2)
    if text.strip() in _PERMALINK_TEXT:
        return ""
    if target.startswith("#"):
        return text
    return f"[{text}]({target})"


def simplify_links(markdown: str) -> str:
    if "](" not in markdown:
        return markdown
    lines = markdown.split("\n")
    mask = code_line_mask(lines)
    return "\n".join(
        line if in_code or "](" not in line else _LINK.sub(_simplify, line)
        for line, in_code in zip(lines, mask, strict=True)
    )
