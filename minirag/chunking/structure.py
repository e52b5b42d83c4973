"""Blocks -> logical parts for the slide, heading and generic paths."""

from __future__ import annotations

from minirag.chunking.blocks import Block
from minirag.chunking.sections import Part


def generic_parts(blocks: list[Block]) -> list[Part]:
    return [Part(blocks)] if blocks else []


def slide_parts(blocks: list[Block]) -> list[Part]:
    """A part a slide; a slide that opens with a heading (its title) has it as its breadcrumb, so
    every chunk of a long slide, its speaker notes' too, says which slide it is."""
    parts: list[Part] = []
    for block in blocks:
        if block.kind == "slide" or not parts:
            parts.append(Part([]))
        part = parts[-1]
        if block.kind == "heading" and block.title.strip() and all(b.kind == "slide" for b in part.blocks):
            part.crumbs, part.crumb_ids = [block.title], [len(parts) - 1]
        part.blocks.append(block)
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
    return _listed_runs(parts)


def _listed_runs(parts: list[Part]) -> list[Part]:
    """Runs of two or more sibling headings with nothing under any of them (an API's aliases, each a
    `#####` line; a contents list written as headings) as one part, whose headings are its text.
    Alone, each would be a chunk of one line, close to every query on the vector side."""

    def bare(index: int) -> bool:
        part = parts[index]
        return bool(part.level) and len(part.blocks) == 1 and bool(part.blocks[0].title.strip())

    def siblings(a: int, b: int) -> bool:
        return parts[a].level == parts[b].level and parts[a].crumb_ids[:-1] == parts[b].crumb_ids[:-1]

    runs: list[range] = []
    index = 0
    while index < len(parts):
        end = index + 1
        if bare(index):
            while end < len(parts) and bare(end) and siblings(index, end):
                end += 1
            # The run's last heading is a leaf too: what follows it is no heading under it.
            if end < len(parts) and parts[end].level > parts[index].level:
                end -= 1
        runs.append(range(index, max(end, index + 1)))
        index = max(end, index + 1)
    if all(len(run) == 1 for run in runs):
        return parts
    renumbered = {old: new for new, run in enumerate(runs) for old in run}
    out: list[Part] = []
    for run in runs:
        first = parts[run.start]
        ids = [renumbered[ident] for ident in first.crumb_ids]
        if len(run) == 1:
            out.append(Part(first.blocks, first.label, first.crumbs, ids, first.level, first.listed))
            continue
        blocks = [parts[n].blocks[0] for n in run]
        out.append(Part(blocks, None, first.crumbs[:-1], ids[:-1], first.level, listed=True))
    return out
