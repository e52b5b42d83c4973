"""What the line-by-line readers of lightweight markup share (Markdown's extensions, AsciiDoc, Org)."""

from __future__ import annotations

import bisect
import re

from minirag.ingest.text_repair import escape_headings

# Lines a label is not run into: code, a heading, a quote, a table row, a list item, indented text.
_TICKS = re.compile(r"`+")
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


def code_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of each code span: a run of n backticks up to the next run of exactly n
    (CommonMark); a run with no such closer is text. Each run is looked at once."""
    runs = [(m.start(), m.end()) for m in _TICKS.finditer(text)]
    by_length: dict[int, list[int]] = {}
    for index, (start, end) in enumerate(runs):
        by_length.setdefault(end - start, []).append(index)
    spans, index = [], 0
    while index < len(runs):
        start, end = runs[index]
        same = by_length[end - start]
        after = bisect.bisect_right(same, index)
        if after < len(same) and not (start and text[start - 1] == "\\"):
            closer = same[after]
            spans.append((start, runs[closer][1]))
            index = closer + 1
        else:
            index += 1
    return spans
