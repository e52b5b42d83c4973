"""Blocks -> logical parts for the slide, heading and generic paths."""

from __future__ import annotations

from minirag.chunking.blocks import Block
from minirag.chunking.sections import Part


def generic_parts(blocks: list[Block]) -> list[Part]:
    return [Part(blocks)] if blocks else []


def slide_parts(blocks: list[Block]) -> list[Part]:
    parts: list[Part] = []
    for block in blocks:
        if block.kind == "slide" or not parts:
            parts.append(Part([]))
        parts[-1].blocks.append(block)
    return parts


def heading_parts(blocks: list[Block]) -> list[Part]:
    parts: list[Part] = []
    stack: list[tuple[int, str, int]] = []  # (level, title, heading id)
    for block in blocks:
        if block.kind == "heading":
            while stack and stack[-1][0] >= block.level:
                stack.pop()
            stack.append((block.level, block.title, len(parts)))
            chain = [(title, ident) for _, title, ident in stack if title]
            parts.append(
                Part(
                    [block],
                    crumbs=[title for title, _ in chain],
                    crumb_ids=[ident for _, ident in chain],
                    level=block.level,
                )
            )
        elif not parts:
            parts.append(Part([block]))
        else:
            parts[-1].blocks.append(block)
    return parts
