"""Parent sections: logical parts of a document, cut to the 4,000-character cap.

A part over the cap is cut between blocks; a table over the cap between rows,
with the header repeated as context; a paragraph over the cap where a sentence
ends if its lines are wrapped prose, else between lines (a line over the cap
where its sentences end); a code block between lines, each part fenced with the block's own
opening (language included) and closing lines. One row, sentence or code line
longer than the cap stays whole up to UNIT_CAP characters; past that it is cut at
white space, and a word longer than UNIT_CAP every UNIT_CAP characters, so no
section (the parent text a query returns) holds megabytes. So is a heading or a
slide marker line, each piece a section of its own.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from minirag.chunking.blocks import Block
from minirag.chunking.model import Section
from minirag.chunking.pages import page_span
from minirag.chunking.split import (
    item_runs,
    line_sentences,
    pack_by_chars,
    sentence_spans,
    wrapped_prose,
)

SECTION_CAP = 4000
UNIT_CAP = 4 * SECTION_CAP
# A table's header is repeated above each section cut from it only up to this size; a wider one
# is the first section's first rows, like any other.
MAX_REPEATED_HEADER = SECTION_CAP // 2


@dataclass
class Part:
    """A logical section before the cap: a heading section, a slide, a transcript window."""

    blocks: list[Block]
    label: str | None = None  # context line opening every section cut from this part
    crumbs: list[str] = field(default_factory=list)  # heading chain, outermost first
    crumb_ids: list[int] = field(default_factory=list)  # heading ids matching ``crumbs``
    level: int = 0  # heading level of a heading part, 0 otherwise
    listed: bool = False  # a run of sibling headings with no text under any of them, read as one list


@dataclass
class Draft:
    part: Part
    blocks: list[Block]
    first: bool  # the first section cut from its part

    def section(self, with_pages: bool) -> Section:
        # A slide's marker is no text of the deck: its number is the section's page (slide_pages.py).
        body = "\n\n".join(block.render() for block in self.blocks if block.kind != "slide")
        context = 0
        if self.blocks and self.blocks[0].continued and self.blocks[0].kind == "table":
            context = len(self.blocks[0].header)
        text = body
        if self.part.label is not None:
            text = f"{self.part.label}\n{body}"
            context += 1
        start, end = self.span if with_pages else (None, None)
        return Section(text, start, end, context)

    @property
    def span(self) -> tuple[int | None, int | None]:
        """The first and last page (or place: rows.py) of its lines."""
        return page_span([p for block in self.blocks for p in block.span])


def _greedy(sizes: list[int], limit: int, joiner: int) -> list[range]:
    runs: list[range] = []
    start, used = 0, 0
    for index, size in enumerate(sizes):
        extra = size + (joiner if index > start else 0)
        if index > start and used + extra > limit:
            runs.append(range(start, index))
            start, used, extra = index, 0, size
        used += extra
    if start < len(sizes):
        runs.append(range(start, len(sizes)))
    return runs


def _fit_cap(text: str, cap: int = UNIT_CAP) -> list[tuple[str, str]]:
    """`text` as (separator before it, run) pairs each within `cap` characters: cut at spaces where
    it has any, and a word longer than the cap every `cap` characters (separator "")."""
    if len(text) <= cap:
        return [("", text)]
    out: list[tuple[str, str]] = []
    for run in pack_by_chars(text.split(" "), cap, " "):
        for start in range(0, len(run), cap):
            out.append(("" if start else " ", run[start : start + cap]))
    return out


def _short_lines(block: Block, cap: int) -> Block:
    """The block with every line longer than `cap` cut into lines within it."""
    if all(len(line) <= cap for line in block.lines):
        return block
    lines: list[str] = []
    pages: list[int | None] = []
    for line, page in zip(block.lines, block.pages, strict=True):
        parts = [part for _, part in _fit_cap(line, cap)]
        lines.extend(parts)
        pages.extend([page] * len(parts))
    return block.part(lines, pages, block.continued)


def _cut_table(block: Block) -> list[Block]:
    header = sum(len(line) + 1 for line in block.header)
    if header > MAX_REPEATED_HEADER:
        # Repeated, it would leave the rows no room: a 4,000-column CSV's header cut every row
        # into one-character lines, each in a section of its own with the whole header again.
        block = Block("table", [*block.header, *block.lines], block.header_pages + block.pages,
                      terms=block.terms)
        header = 0
    block = _short_lines(block, UNIT_CAP - header)
    runs = _greedy([len(row) for row in block.lines], SECTION_CAP - header, 1)
    return [
        block.part(block.lines[run.start : run.stop], block.pages[run.start : run.stop], n > 0)
        for n, run in enumerate(runs)
    ]


def _cut_paragraph(block: Block) -> list[Block]:
    units: list[tuple[str, str, int | None]] = []  # (separator before it, text, page)
    runs = item_runs(block.lines)
    if len(runs) == len(block.lines) and wrapped_prose(block.lines):
        _sentence_units(block, units)
    else:
        for run in runs:
            item = "\n".join(block.lines[run.start : run.stop])
            if len(run) > 1 and len(item) <= SECTION_CAP:
                units.append(("\n", item, block.pages[run.start]))  # a list item whole, with what continues it
                continue
            for line, page in zip(block.lines[run.start : run.stop], block.pages[run.start : run.stop], strict=True):
                _line_units(line, page, units)
    runs = _greedy([len(text) for _, text, _ in units], SECTION_CAP, 1)
    cut: list[Block] = []
    for n, run in enumerate(runs):
        chosen = units[run.start : run.stop]
        text = chosen[0][1] + "".join(sep + piece for sep, piece, _ in chosen[1:])
        lines = text.split("\n")
        pages = [chosen[0][2]] * len(lines)
        cut.append(block.part(lines, pages, n > 0))
    return cut


def _sentence_units(block: Block, units: list[tuple[str, str, int | None]]) -> None:
    """Append a wrapped paragraph's sentences as units (wrapped_prose: its line breaks fall inside
    sentences, so a cut between lines would part one); a sentence over the cap, by its lines."""
    for sentence in line_sentences(block.lines):
        page = block.pages[sentence.first_line]
        if len(sentence.text) <= SECTION_CAP:
            units.append((sentence.sep, sentence.text, page))
            continue
        before = len(units)
        for line in sentence.text.split("\n"):
            _line_units(line, page, units)
        units[before] = (sentence.sep, *units[before][1:])


def _line_units(line: str, page: int | None, units: list[tuple[str, str, int | None]]) -> None:
    """Append one line of a paragraph as units within the cap: whole, or its sentences, or runs of words."""
    if len(line) <= SECTION_CAP:
        pieces = [("\n", line)]
    else:
        pieces = [("\n" if n == 0 else sep, line[start:end]) for n, (start, end, sep) in enumerate(sentence_spans(line))]
    for sep, piece in pieces:
        for m, (fit_sep, part) in enumerate(_fit_cap(piece)):
            units.append((fit_sep if m else sep, part, page))


def _cut_code(block: Block) -> list[Block]:
    opening, closing = block.lines[0], block.lines[-1]
    frame = len(opening) + len(closing) + 2
    inner, pages = block.lines[1:-1], block.pages[1:-1]
    if not inner:
        return [block]
    body = _short_lines(Block("code", inner, pages), max(1, UNIT_CAP - frame))
    inner, pages = body.lines, body.pages
    runs = _greedy([len(line) for line in inner], SECTION_CAP - frame, 1)
    return [
        block.part([opening, *inner[run.start : run.stop], closing],
                   [pages[run.start], *pages[run.start : run.stop], pages[run.stop - 1]], n > 0)
        for n, run in enumerate(runs)
    ]


def _units(block: Block) -> list[Block]:
    if len(block.render()) <= SECTION_CAP:
        return [block]
    if block.kind == "table":
        return _cut_table(block)
    if block.kind == "paragraph":
        return _cut_paragraph(block)
    if block.kind == "code":
        return _cut_code(block)
    if block.kind in ("heading", "slide"):
        return _cut_line(block)
    return [block]


def _cut_line(block: Block) -> list[Block]:
    """A heading or slide line over UNIT_CAP in pieces within it, each a section of its own (a
    heading's words are its title's too: the breadcrumb and the chunks read them from there)."""
    cut = _short_lines(block, UNIT_CAP)
    return [block.part([line], [page], n > 0) for n, (line, page) in enumerate(zip(cut.lines, cut.pages, strict=True))]


def cut_part(part: Part) -> list[Draft]:
    label = len(part.label) + 1 if part.label is not None else 0
    drafts: list[Draft] = []
    current: list[Block] = []
    used = label
    for block in part.blocks:
        for unit in _units(block):
            size = len(unit.render()) + 2
            if current and (unit.continued or used + size > SECTION_CAP):
                drafts.append(Draft(part, current, not drafts))
                current, used = [], label
            current.append(unit)
            used += size
    if current or not drafts:
        drafts.append(Draft(part, current, not drafts))
    return drafts
