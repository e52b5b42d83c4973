"""What the line-by-line readers of lightweight markup share (Markdown's extensions, AsciiDoc, Org)."""

from __future__ import annotations

import bisect

from minirag.ingest.text_repair import escape_headings

# Lines a label is not run into: code, a heading, a quote, a table row, a list item, indented text.
_BLOCK_STARTS = (" ", "\t", "#", ">", "|", "```", "~~~", "- ", "* ", "+ ", "1. ")


def labelled(label: str, body: list[str]) -> list[str]:
    """`label` before `body` (an admonition's `Note:`, a box's title): a label ending in `:` on the
    first line of text, a title or a label before code or a list on a line of its own."""
    at = next((n for n, line in enumerate(body) if line.strip()), len(body))
    if not label:
        return body[at:]
    first = body[at] if at < len(body) else ""
    if label.endswith(":") and first and not first.startswith(_BLOCK_STARTS):
        return [escape_headings(f"{label} {first}"), *body[at + 1 :]]
    return [escape_headings(label), *body[at:]]


def next_after(positions: list[int], index: int) -> int | None:
    """The first of the sorted `positions` past `index`, or None: where a block opened at `index` closes."""
    at = bisect.bisect_right(positions, index)
    return positions[at] if at < len(positions) else None
