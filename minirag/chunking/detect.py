"""Which splitting path a document takes, read off its converted Markdown.

Detection fails safe: anything that does not clearly match is generic.
"""

from __future__ import annotations

from minirag.chunking.blocks import Block
from minirag.chunking.fences import code_line_mask
from minirag.chunking.transcript import looks_like_transcript


def detect_category(lines: list[str], blocks: list[Block]) -> str:
    mask = code_line_mask(lines)
    if looks_like_transcript([line for line, code in zip(lines, mask, strict=True) if not code]):
        return "transcript"
    if any(block.kind == "slide" for block in blocks):
        return "slides"
    if sum(1 for block in blocks if block.kind == "heading") >= 2:
        return "headings"
    return "generic"
