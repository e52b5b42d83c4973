"""Markdown lines -> structural blocks: headings, paragraphs, tables, code, slide markers."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from minirag.chunking.fences import Fences
from minirag.chunking.pages import page_span

# The text is taken whole and its closing #s cut in code (parse_heading): a lazy `(.*?)`
# before an optional closing sequence and `[ \t]*$` is quadratic on a long line of spaces.
_HEADING = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*))?$")
_SLIDE = re.compile(r"^\s*<!--\s*Slide number:\s*(\d+)\s*-->\s*$", re.IGNORECASE)
# Possessive white space and dashes: `\s*` runs next to each other were quadratic on `|---` + spaces.
_SEPARATOR = re.compile(r"^\s*+\|?\s*+:?-++:?\s*+(?:\|\s*+:?-++:?\s*+)*+\|?\s*+$")


@dataclass
class Block:
    kind: str  # heading | paragraph | table | code | slide
    lines: list[str]  # for tables: the rows under the header
    pages: list[int | None]  # one per line of ``lines``
    header: list[str] = field(default_factory=list)  # table header row + separator line
    level: int = 0  # heading level
    title: str = ""  # heading text without the # marks
    continued: bool = False  # a table or paragraph carried over from the previous section
    terms: tuple[str, ...] = ()  # the definitions it is inside, outermost first (definitions.py)
    opens_term: bool = False  # its first lines are the innermost of `terms`
    header_pages: list[int | None] = field(default_factory=list)  # one per line of ``header``

    def render(self) -> str:
        return "\n".join([*self.header, *self.lines])

    @property
    def span(self) -> tuple[int | None, int | None]:
        """The first and last page of its text: a table's header too, unless it is repeated (continued)."""
        return page_span(self.pages if self.continued else [*self.header_pages, *self.pages])

    def part(self, lines: list[str], pages: list[int | None], continued: bool) -> Block:
        return Block(self.kind, lines, pages, self.header, self.level, self.title, continued, self.terms,
                     self.opens_term and not continued, self.header_pages)


def parse_heading(line: str) -> tuple[int, str] | None:
    """(level, text) of an ATX heading line, its optional closing `#`s removed; else None."""
    match = _HEADING.match(line)
    if not match:
        return None
    text = (match.group(2) or "").rstrip(" \t")
    unclosed = text.rstrip("#")
    if unclosed != text and (not unclosed or unclosed[-1] in " \t"):
        text = unclosed  # `## Title ##`: the closing sequence follows a space (or is all there is)
    return len(match.group(1)), text.strip()


def _is_table_line(line: str) -> bool:
    return line.lstrip().startswith("|")


def _table(rows: list[str], pages: list[int | None]) -> Block:
    # Only a header with data rows under it is repeated; a lone header is content.
    if len(rows) > 2 and _SEPARATOR.match(rows[1]):
        return Block("table", rows[2:], pages[2:], header=rows[:2], header_pages=pages[:2])
    return Block("table", rows, pages)


def parse_blocks(lines: list[str], pages: list[int | None]) -> list[Block]:
    blocks: list[Block] = []
    para: list[str] = []
    para_pages: list[int | None] = []

    def flush() -> None:
        if para:
            blocks.append(Block("paragraph", list(para), list(para_pages)))
            para.clear()
            para_pages.clear()

    fences = Fences(lines)
    index = 0
    while index < len(lines):
        line = lines[index]
        stripped = line.strip()
        if not stripped:
            flush()
            index += 1
            continue
        end = fences.end(index) if stripped.startswith(("```", "~~~")) else None
        if end is not None:
            flush()
            blocks.append(Block("code", lines[index : end + 1], pages[index : end + 1]))
            index = end + 1
            continue
        heading = parse_heading(line)
        if heading:
            flush()
            level, text = heading
            blocks.append(Block("heading", [line], [pages[index]], level=level, title=text))
            index += 1
            continue
        if _SLIDE.match(line):
            flush()
            blocks.append(Block("slide", [line], [pages[index]]))
            index += 1
            continue
        if _is_table_line(line):
            flush()
            start = index
            while index < len(lines) and _is_table_line(lines[index]):
                index += 1
            blocks.append(_table(lines[start:index], pages[start:index]))
            continue
        if para and para_pages[-1] != pages[index]:
            flush()  # a page break ends a paragraph, so every paragraph sits on one page
        para.append(line)
        para_pages.append(pages[index])
        index += 1
    flush()
    return blocks
