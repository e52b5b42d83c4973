"""Fenced code block boundaries.

A fence counts only when a matching closing marker follows it: one stray
opening line must not turn the rest of a document into a single block.
"""

from __future__ import annotations

import re

_OPEN = re.compile(r"^ {0,3}(`{3,}|~{3,})(.*)$")


def fence_end(lines: list[str], start: int) -> int | None:
    """Index of the closing fence line for an opening fence at ``start``, else None."""
    match = _OPEN.match(lines[start])
    if not match:
        return None
    marker, info = match.group(1), match.group(2)
    if marker[0] == "`" and "`" in info:
        return None
    closing = re.compile(rf"^ {{0,3}}{re.escape(marker[0])}{{{len(marker)},}}\s*$")
    for index in range(start + 1, len(lines)):
        if closing.match(lines[index]):
            return index
    return None


def code_line_mask(lines: list[str]) -> list[bool]:
    """For each line, whether it belongs to a genuine fenced code block."""
    mask = [False] * len(lines)
    index = 0
    while index < len(lines):
        end = (
            fence_end(lines, index) if lines[index].lstrip(" ").startswith(("```", "~~~")) else None
        )
        if end is None:
            index += 1
            continue
        for inner in range(index, end + 1):
            mask[inner] = True
        index = end + 1
    return mask


def sub_outside_code(markdown: str, needle: str, pattern: re.Pattern, repl) -> str:
    """`pattern.sub(repl, line)` on each line outside fenced code that contains `needle`."""
    if needle not in markdown:
        return markdown
    lines = markdown.split("\n")
    mask = code_line_mask(lines)
    return "\n".join(
        line if in_code or needle not in line else pattern.sub(repl, line)
        for line, in_code in zip(lines, mask, strict=True)
    )
