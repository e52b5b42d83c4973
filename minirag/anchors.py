"""Which heading of a rebuilt document a link's `#fragment` names.

A passage keeps its links (`[setup](README.md#installation)`), so an agent that follows one reads
`README.md#installation`. The fragment is a heading's anchor as the page's writer's tool made it:
GitHub and pandoc lowercase the heading's text, drop its markup and punctuation and join its words
with `-`, numbering a repeated heading's anchor (`installation-1`); other tools join with `_` or
keep the case. Matched first as GitHub spells it, then by the letters and digits alone, then as
an API entry's name at the start of a line (Sphinx's `tomllib.html#tomllib.load`).
"""

from __future__ import annotations

import re
from urllib.parse import unquote

from minirag.chunking.fences import Fences
from minirag.chunking.links import LINK_OR_PICTURE

_HEADING = re.compile(r" {0,3}(#{1,6})[ \t]+(.*)")  # its closing #s are taken off by _heading_text
_NOT_IN_A_SLUG = re.compile(r"[^\w\- ]")


def slug(heading: str) -> str:
    """A heading's anchor as GitHub writes it: `Usage: the **CLI**` -> `usage-the-cli`."""
    text = LINK_OR_PICTURE.sub(lambda m: m.group(1), heading)
    return _NOT_IN_A_SLUG.sub("", text.strip().lower()).replace(" ", "-")


def _letters(text: str) -> str:
    return "".join(c for c in text.casefold() if c.isalnum())


def headings(text: str) -> list[tuple[int, str]]:
    """(offset of the line, heading text) of each Markdown heading outside fenced code, in order."""
    lines = text.split("\n")
    fences = Fences(lines)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line) + 1)
    out: list[tuple[int, str]] = []
    index = 0
    while index < len(lines):
        end = fences.end(index)
        if end is not None:
            index = end + 1
            continue
        if (match := _HEADING.match(lines[index])) is not None:
            out.append((starts[index], _heading_text(match.group(2))))
        index += 1
    return out


def _heading_text(rest: str) -> str:
    """A heading line's text after its opening #s: without the closing #s and the spaces before them.
    Done in string steps: a pattern for it backtracks over every split of a long run of spaces."""
    text = rest.rstrip(" \t")
    bare = text.rstrip("#")
    if bare != text and (not bare or bare[-1] in " \t"):
        text = bare.rstrip(" \t")
    return text


def heading_offset(text: str, fragment: str) -> int | None:
    """Where the heading `fragment` names starts in `text`; None if no heading has that anchor."""
    wanted = unquote(fragment).strip()
    if not wanted:
        return None
    found = headings(text)
    seen: dict[str, int] = {}
    slugs = []
    for at, heading in found:
        name = slug(heading)
        count = seen.get(name, 0)
        seen[name] = count + 1
        slugs.append((at, name if count == 0 else f"{name}-{count}"))
    lowered = wanted.lower()
    for at, name in slugs:
        if name == lowered:
            return at
    letters = _letters(wanted)
    for at, heading in found:
        if letters and _letters(LINK_OR_PICTURE.sub(lambda m: m.group(1), heading)) == letters:
            return at
    # Sphinx and Javadoc anchor an API entry by its qualified name, on a line of its own, no heading.
    entry = re.search(rf"(?m)^{re.escape(wanted)}(?![\w.])", text)
    return entry.start() if entry is not None else None
