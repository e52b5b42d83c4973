"""A plain-text body sent as `format=flowed` (RFC 3676) -> its paragraphs as its sender wrote
them, written so that Markdown keeps each at its quote depth.

A line that ends in a space flows into the next one (with `DelSp=yes` the space is the sender's
client's, not the text's, and goes), unless it is the signature separator `-- ` or the next line
is at another quote depth (its count of leading `>`): a soft break there is a hard one (section
4.5). One space after the quote marks is stuffing (a line that began with a space, a `>` or
`From `) and goes. Markdown carries a line on in the quote above it ("lazy continuation"), so a
paragraph that leaves a quote for a shallower depth has a line of that depth before it.
"""

from __future__ import annotations

_SIGNATURE = "-- "


def unflowed(text: str, *, delsp: bool) -> str:
    """`text` (a flowed body's) with its soft breaks joined, as Markdown."""
    lines: list[str] = []
    shown = 0  # the quote depth of the last line written, where it holds text (else 0)
    paragraph: list[str] = []
    depth = 0
    for raw in text.split("\n"):
        line = raw.removesuffix("\r")
        content = line.lstrip(">")
        level = len(line) - len(content)
        content = content.removeprefix(" ")
        if paragraph and level != depth:
            shown = _write(lines, depth, "".join(paragraph), shown)
            paragraph = []
        depth = level
        if content.endswith(" ") and content != _SIGNATURE:
            paragraph.append(content[:-1] if delsp else content)
            continue
        if paragraph and not content:  # (a flowed line before an empty one: the paragraph ends, the empty line stays)
            shown = _write(lines, depth, "".join(paragraph), shown)
            paragraph = []
        paragraph.append(content)
        shown = _write(lines, depth, "".join(paragraph), shown)
        paragraph = []
    if paragraph:
        _write(lines, depth, "".join(paragraph), shown)
    return "\n".join(lines)


def _write(lines: list[str], depth: int, text: str, shown: int) -> int:
    """Write one paragraph at `depth` after a line of text at depth `shown`; the depth now shown."""
    prefix = "> " * depth
    if depth < shown:
        lines.append(prefix.rstrip())
    if text == _SIGNATURE:
        lines.append(prefix + text)
    else:
        lines.append((prefix + text).rstrip(" ") if text.strip() else prefix.rstrip())
    return depth if text.strip() else 0
