"""Markdown links as retrieval text: in-page anchors and permalinks carry no meaning
outside a browser, but cost tokens in every chunk (and breadcrumb) that holds them.

`[¶](#x "Permalink")` goes, `[text](#anchor)` becomes `text`, and a link title
attribute (`[t](url "title")`) is dropped; links to other pages and sites stay. The text may hold
a pair of brackets (`[[2]](#id3)`, a Sphinx footnote reference as html_markdown writes it).
Fenced code is left alone. The keyword side reads a link as its text alone
(`link_texts`): an address's words are not the passage's.
"""

from __future__ import annotations

import re

from minirag.chunking.fences import sub_outside_code

# The text may hold brackets in pairs one deep (`[[2]](#id3)`, what html_markdown writes for a
# Sphinx footnote reference `<a>[2]</a>`); the target none. An attempt from a `[` runs over whole
# pairs only, so a later attempt that starts inside what it ran over stops at its pair's `]`: linear
# in the line (`[^)\s]+` alone made `[](` * 20000 quadratic).
_TEXT_AND_TARGET = (r"\[((?:[^\[\]\n]++|\[[^\[\]\n]*+\])*+)\]\(\s*([^)\s\[\]]++)"
                    r"(?:\s+\"[^\"\n]*\"|\s+'[^'\n]*')?\s*\)")
_LINK = re.compile(r"(?<!!)" + _TEXT_AND_TARGET)
_PERMALINK_TEXT = {"¶", "#", "§", "🔗", "◆", ""}  # ◆: Doxygen's, before each member's name
# A link or a picture, as _LINK reads one: what a reader sees of it is its text (or alt text).
LINK_OR_PICTURE = re.compile(r"!?" + _TEXT_AND_TARGET)


def _simplify(match: re.Match) -> str:
    text, target = match.group(1), match.group(2)
    if text.strip() in _PERMALINK_TEXT:
        return ""
    if target.startswith("#"):
        return text
    return f"[{text}]({target})"


def simplify_links(markdown: str) -> str:
    return sub_outside_code(markdown, "](", _LINK, _simplify)


def link_texts(markdown: str) -> str:
    """`markdown` with each link and picture outside fenced code as its text alone, without its address."""
    return sub_outside_code(markdown, "](", LINK_OR_PICTURE, r"\1")

