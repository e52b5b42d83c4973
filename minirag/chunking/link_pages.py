"""Pages that are lists of links to the site's other pages: a generator's index (Sphinx's
`genindex`, DocBook's `bookindex`, rustdoc's `all.html`), a table of contents, a chapter's list
of its sections. Such a page names what it points to in few words, so both sides of a search
rank it beside or above the page that explains it; fusion.py weighs it down.

Two measures, both needed: the share of the text a reader sees that is the text of links to
other pages of the site, and the share of its lines that hold one. A class's reference page
listing every class that implements it is mostly link text too, but on a few long lines among
its prose; an index is links line after line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from minirag.chunking.fences import code_line_mask
from minirag.chunking.links import LINK_OR_PICTURE

# A page is a link page from this share of its text in links to the site's other pages ...
LINK_PAGE_SHARE = 0.5
# ... when this share of its lines of text (not headings, not code) hold such a link.
LINK_PAGE_LINES = 0.75

# A target with a scheme (`https:`, `mailto:`) or a host (`//cdn`) leads off the site; `#x` stays on the page.
_OFF_SITE_OR_IN_PAGE = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:|//|#")
_WORD = re.compile(r"\w")
_NOT_WORD = re.compile(r"\W+")
_HEADING = re.compile(r" {0,3}#{1,6}(?:[ \t]|$)")


@dataclass(frozen=True)
class SiteLinks:
    """How much of a text is links to other pages of its site, in word characters (so every
    script counts alike) and in lines of text."""

    linked_chars: int = 0  # in the text of such links
    shown_chars: int = 0  # in the text a reader sees (links as their text, pictures as their alt text)
    linked_lines: int = 0  # lines of text holding such a link
    lines: int = 0  # lines of text: outside code, neither headings nor blank

    def __add__(self, other: SiteLinks) -> SiteLinks:
        return SiteLinks(self.linked_chars + other.linked_chars, self.shown_chars + other.shown_chars,
                         self.linked_lines + other.linked_lines, self.lines + other.lines)

    @property
    def share(self) -> float:
        return self.linked_chars / self.shown_chars if self.shown_chars else 0.0

    @property
    def line_share(self) -> float:
        return self.linked_lines / self.lines if self.lines else 0.0


def site_links(markdown: str) -> SiteLinks:
    """The links to other pages of the same site in `markdown`: relative targets, neither in-page
    anchors nor other sites; a picture is no link."""
    lines = markdown.split("\n")
    linked_chars = linked_lines = text_lines = 0
    hidden_chars = 0  # in the addresses (and titles) of links and pictures, which a reader is not shown
    for line, in_code in zip(lines, code_line_mask(lines), strict=True):
        if in_code or _HEADING.match(line) or not _WORD.search(line):
            continue
        text_lines += 1
        if "](" not in line:
            continue
        on_line = 0
        for link in LINK_OR_PICTURE.finditer(line):
            text_chars = _word_chars(link.group(1))
            hidden_chars += _word_chars(link.group()) - text_chars
            if not link.group().startswith("!") and not _OFF_SITE_OR_IN_PAGE.match(link.group(2)):
                on_line += text_chars
        linked_chars += on_line
        linked_lines += on_line > 0
    return SiteLinks(linked_chars, _word_chars(markdown) - hidden_chars, linked_lines, text_lines)


def _word_chars(text: str) -> int:
    return len(text) - sum(map(len, _NOT_WORD.findall(text)))
