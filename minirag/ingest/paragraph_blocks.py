"""A word processor's paragraphs laid out as Markdown: an RTF document's (rtf_text.py) and a Word
97-2003 document's (doc_text.py), each read into Blocks.

Runs of list items make one list, nested by their level, its numbers kept where the list text
was a number; runs of code lines one fenced block, the empty paragraphs between them kept as
blank lines, unless the whole document is in a fixed-pitch font (a typewritten letter is not
code); tables arrive laid out.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from minirag.ingest.html_markdown import fenced
from minirag.ingest.text_repair import escape_headings

_NUMBERED = re.compile(r"\(?(\d{1,9})[.)]?$")


@dataclass(frozen=True)
class Block:
    kind: str  # "p", "h", "item", "code", "table", "empty"
    text: str
    level: int = 0  # a heading's 1-6, an item's nesting from 0
    marker: str = ""  # an item's list text: "1.", "a)", a bullet
    group: int = 0  # an item's list: a counted list beside another list is a list of its own


def blocks_markdown(blocks: list[Block]) -> str:
    has_prose = any(block.kind in ("p", "h", "item") for block in blocks)
    parts: list[str] = []
    code: list[str] = []
    items: list[str] = []
    group, counted = 0, False
    for block in blocks:
        kind = "p" if block.kind == "code" and not has_prose else block.kind
        if kind == "empty" and code:
            code.append("")
            continue
        if kind != "code" and code:
            parts.append(fenced("\n".join(code), ""))
            code = []
        if items and (kind not in ("item", "empty") or (kind == "item" and block.group != group
                                                         and (_counted(block) or counted))):
            parts.append("\n".join(items))  # (bullets of two lists read alike: they stay one)
            items = []
        if kind == "item":
            group, counted = block.group, _counted(block)
        if kind == "code":
            code += block.text.replace("\t", "    ").split("\n")
        elif kind == "item":
            items.append(_item(block))
        elif kind == "h":
            parts.append(f"{'#' * block.level} {block.text}")
        elif kind == "table":
            parts.append(block.text)
        elif kind == "p":
            parts.append("\n".join(escape_headings(line) for line in _lines(block.text)))
    if code:
        parts.append(fenced("\n".join(code), ""))
    if items:
        parts.append("\n".join(items))
    return "\n\n".join(part for part in parts if part)


def _lines(text: str) -> list[str]:
    lines = (" ".join(line.split()) for line in text.split("\n"))
    return [line for line in lines if line]


def _counted(block: Block) -> bool:
    """Whether an item's list text counts (`1.`, `a)`), not a bullet."""
    return any(ch.isalnum() for ch in block.marker)


def _item(block: Block) -> str:
    number = _NUMBERED.match(block.marker)
    if number:
        marker = f"{number.group(1)}. "
    elif any(ch.isalnum() for ch in block.marker):
        marker = f"- {block.marker} "
    else:
        marker = "- "
    lines = _lines(block.text)
    indent = "  " * block.level
    first = f"{indent}{marker}{escape_headings(lines[0]) if lines else ''}"
    return "\n".join([first, *(f"{indent}  {line}" for line in lines[1:])])
