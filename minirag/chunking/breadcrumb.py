"""Heading breadcrumbs, held to a third of the budget.

Past that share the chain is elided from the middle, keeping the outermost
heading and as many of the innermost as fit: chunks that are mostly one shared
prefix embed to nearly the same vector.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from minirag.chunking.split import words_to_fit
from minirag.chunking.tokens import Tokens

SEPARATOR = " > "
ELLIPSIS = "…"
# A link or picture in a heading, inline or by reference: a breadcrumb shows its text. Neither part
# may hold a bracket or parenthesis, so each match attempt stops at the next one: linear in the heading.
_HEADING_LINK = re.compile(r"!?\[([^\[\]\n]*)\](?:\([^()\n]*\)|\[[^\[\]\n]*\])")


def heading_text(heading: str) -> str:
    """A heading as a breadcrumb shows it: its links and pictures as their text, not their addresses
    (`[26.1.0](https://github.com/…/26.1.0) - 2026-03-19` reads `26.1.0 - 2026-03-19`)."""
    if "](" not in heading and "][" not in heading:
        return heading
    return " ".join(_HEADING_LINK.sub(r"\1", heading).split())


def as_read(heading: str) -> str:
    """A heading's words as a reader reads them: Markdown's inline marks and escapes are never read,
    so a page's plain `<title>` and its heading that marks code are one (`Scheduling Tasks with cron`
    and ``Scheduling Tasks with `cron` ``)."""
    return " ".join(heading.translate(_INLINE_MARKUP).split()).casefold()


_INLINE_MARKUP = str.maketrans("", "", "`*_\\")


def opens_with_title(line: str, title: str) -> bool:
    """Whether a chunk's first line is its breadcrumb: the document's title, or the heading that reads
    as the title (which the breadcrumb names in its place), then its headings."""
    first, wanted = as_read(line.lstrip("#")), as_read(title)
    return bool(wanted) and (first == wanted or first.startswith(wanted + SEPARATOR))


@dataclass(frozen=True)
class Crumb:
    text: str
    kept: frozenset[int]  # positions in the chain that appear in full
    truncated: bool  # the innermost heading itself had to be shortened


def _render(titles: list[str], keep: list[int]) -> str:
    parts: list[str] = []
    for position, index in enumerate(keep):
        if position > 0 and index != keep[position - 1] + 1 or position == 0 and index != 0:
            parts.append(ELLIPSIS)
        parts.append(titles[index])
    return SEPARATOR.join(parts)


def make_breadcrumb(titles: list[str], tokens: Tokens, budget: int) -> Crumb:
    limit = budget // 3
    count = len(titles)
    if not count:
        return Crumb("", frozenset(), False)
    sizes = [tokens.content(title) for title in titles]
    link = tokens.content(">")
    gap = tokens.content(ELLIPSIS) + link
    candidates: list[list[int]] = [list(range(count))]
    for inner in range(count - 2, 0, -1):
        candidates.append([0, *range(count - inner, count)])
    candidates.append([count - 1])
    for keep in candidates:
        estimate = sum(sizes[i] for i in keep) + link * (len(keep) - 1)
        estimate += gap * (
            (keep[0] != 0) + any(b != a + 1 for a, b in zip(keep, keep[1:], strict=False))
        )
        if estimate <= limit:
            text = _render(titles, keep)
            if tokens.content(text) <= limit:
                return Crumb(text, frozenset(keep), False)
    prefix = ELLIPSIS + SEPARATOR if count > 1 else ""
    room = limit - tokens.content(prefix + ELLIPSIS) - 1
    head = words_to_fit(titles[-1], tokens, max(1, room))[0]
    return Crumb(f"{prefix}{head} {ELLIPSIS}", frozenset(), True)
