"""Fenced code block boundaries.

A fence counts only when a matching closing marker follows it: one stray
opening line must not turn the rest of a document into a single block.
"""

from __future__ import annotations

import re


def _runs(marks: str) -> str:
    return "|".join(f"{re.escape(mark)}{{3,}}" for mark in marks)


class Fences:
    """Where the fenced code block opened on a line of `lines` ends.

    Whether any closing line follows an opening is read from the longest closing run of the
    fence's character below it, so a line that opens nothing costs no scan: a scan to the end
    of the document for each of them made thousands of stray openings take minutes. A scan
    that finds its closing line covers only the lines of the block, which callers then skip.
    `marks`: the characters a fence is a run of (CommonMark's backtick and tilde; MyST's
    directives may also be fenced with colons).
    """

    def __init__(self, lines: list[str], marks: str = "`~") -> None:
        self._lines = lines
        self._open = re.compile(rf"^ {{0,3}}({_runs(marks)})(.*)$")
        closing_line = re.compile(rf"^ {{0,3}}({_runs(marks)})\s*$")
        self.openers = tuple(mark * 3 for mark in marks)
        # _longest[c][i]: the longest run of `c` on a closing line at index i or below.
        longest = {mark: [0] * (len(lines) + 1) for mark in marks}
        for index in range(len(lines) - 1, -1, -1):
            for run in longest.values():
                run[index] = run[index + 1]
            line = lines[index]
            if line.lstrip(" ").startswith(self.openers):
                closing = closing_line.match(line)
                if closing:
                    run = longest[closing.group(1)[0]]
                    run[index] = max(run[index], len(closing.group(1)))
        self._longest = longest

    def end(self, start: int) -> int | None:
        """Index of the closing fence line for an opening fence at ``start``, else None."""
        match = self._open.match(self._lines[start])
        if not match:
            return None
        marker, info = match.group(1), match.group(2)
        if marker[0] == "`" and "`" in info:
            return None
        if self._longest[marker[0]][start + 1] < len(marker):
            return None
        closing = re.compile(rf"^ {{0,3}}{re.escape(marker[0])}{{{len(marker)},}}\s*$")
        for index in range(start + 1, len(self._lines)):
            if closing.match(self._lines[index]):
                return index
        raise AssertionError("a closing fence was counted below the opening but not found")


def code_line_mask(lines: list[str]) -> list[bool]:
    """For each line, whether it belongs to a genuine fenced code block."""
    mask = [False] * len(lines)
    fences = Fences(lines)
    index = 0
    while index < len(lines):
        end = fences.end(index) if lines[index].lstrip(" ").startswith(("```", "~~~")) else None
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
