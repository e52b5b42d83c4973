"""Cutting text at the finest boundary needed: lines, then sentences, then whitespace."""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass
from itertools import accumulate

from minirag.chunking.tokens import Tokens

_ENDS_SENTENCE = re.compile(r"[.!?…。！？][\"'”’)\]」』）】]*\s*$")  # closing quotes and brackets after the mark
# Where a sentence ends: white space after `.!?…` (group 1), or what follows a CJK mark and its
# closing brackets and quotes, white space or none (group 2).
_SENTENCE_GAP = re.compile(r"(?<=[.!?…])(\s+)|[。！？][\"'”’)\]」』）】]*(\s*)")
# A list item's first line: a bullet or a number (`1.`, `1)`) after any indentation, then a space or
# nothing. Bullets other than Markdown's are what PDFs and plain text set (`•`, `◦`, `▪`, `‣`, `●`, `○`, `■`).
_ITEM = re.compile(r"^([ \t]*)(?:[-*+•◦▪‣●○■]|\d{1,9}[.)])(?:[ \t]|$)")


def item_runs(lines: list[str], *, nested: bool = False) -> list[range]:
    """The lines of a paragraph grouped as a reader groups them: a list item with the lines that
    continue it (indented, or wrapped without indentation, which Markdown still reads as the
    item's), every line outside a list alone. Only the outermost items start a run, so an item
    keeps its sub-items; `nested`: every item does."""
    starts: list[int | None] = []  # each line's indentation where it starts an item, else None
    for line in lines:
        match = _ITEM.match(line)
        starts.append(len(match.group(1).expandtabs(4)) if match else None)
    indents = [indent for indent in starts if indent is not None]
    if not indents:
        return [range(n, n + 1) for n in range(len(lines))]
    outermost = min(indents)
    runs: list[range] = []
    in_item = False
    for n, indent in enumerate(starts):
        if indent is not None and (nested or indent <= outermost):
            runs.append(range(n, n + 1))
            in_item = True
        elif in_item:
            runs[-1] = range(runs[-1].start, n + 1)
        else:
            runs.append(range(n, n + 1))
    return runs


def wrapped_prose(lines: list[str]) -> bool:
    """Whether a paragraph's lines are prose wrapped at a width (a Markdown source's, a PDF's
    visual lines), where a line break falls inside a sentence, rather than lines that are each a
    unit (records, one sentence a line): most of its line breaks end no sentence, and some line
    ends one, at its end (a sentence broken at its clauses) or inside it."""
    if len(lines) < 2:
        return False
    ends = [bool(_ENDS_SENTENCE.search(line)) for line in lines]
    within = ends[:-1].count(False)
    return within * 2 > len(lines) - 1 and (any(ends) or any(_ends_inside(line.strip()) for line in lines))


def _ends_inside(line: str) -> bool:
    """Whether a sentence ends inside `line` (stripped), text after it."""
    return any(gap.end() < len(line) for gap in _SENTENCE_GAP.finditer(line))


def sentence_spans(text: str) -> list[tuple[int, int, str]]:
    """(start, end, separator before it) of each sentence of `text`, line breaks inside one kept:
    a sentence ends at `.`, `!`, `?` or `…` before white space, or after a Chinese or Japanese full
    stop, question or exclamation mark and the brackets and quotes that close on it, with or
    without white space (`。」`). The separator is a line break where the space before the
    sentence held one, else that space as written (none between two Chinese sentences)."""
    spans: list[tuple[int, int, str]] = []
    start, sep = 0, ""
    last = len(text.rstrip())
    for match in _SENTENCE_GAP.finditer(text):
        gap_start, gap_end = match.span(1) if match.group(1) is not None else match.span(2)
        if gap_end >= last:
            break
        if gap_start > start:
            spans.append((start, gap_start, sep))
        gap = text[gap_start:gap_end]
        start, sep = gap_end, "\n" if "\n" in gap else gap
    if start < len(text):
        spans.append((start, len(text), sep))
    return spans


@dataclass(frozen=True)
class LineSentence:
    """One sentence of a paragraph's lines, and the lines it spans."""

    text: str  # line breaks inside it kept
    sep: str  # before it: a line break, the white space as written, or "" (the first; between CJK sentences)
    first_line: int
    last_line: int


def line_sentences(lines: list[str]) -> list[LineSentence]:
    """The sentences of a paragraph (sentence_spans), whichever of its lines each spans."""
    text = "\n".join(lines)
    line_starts = list(accumulate((len(line) + 1 for line in lines[:-1]), initial=0))
    return [LineSentence(text[start:end], sep, bisect_right(line_starts, start) - 1, bisect_right(line_starts, end - 1) - 1)
            for start, end, sep in sentence_spans(text)]


def words_to_fit(text: str, tokens: Tokens, room: int, word_room: int | None = None) -> list[str]:
    """Greedy runs of whitespace-separated words, each within ``room`` content tokens.

    A single word longer than ``room`` stands alone, and is cut into character
    runs only past ``word_room`` (default ``room``): the only way left to respect
    the budget. Code, which may exceed the budget, keeps its words whole longer.
    """
    room = max(1, room)
    word_room = max(room, word_room or room)
    runs: list[str] = []
    current: list[str] = []
    used = 0
    for word in text.split():
        size = tokens.content(word)
        if size > room:
            if current:
                runs.append(" ".join(current))
                current, used = [], 0
            runs.extend(_cut_word(word, tokens, word_room))
            continue
        if current and used + size > room:
            runs.append(" ".join(current))
            current, used = [], 0
        current.append(word)
        used += size
    if current:
        runs.append(" ".join(current))
    return runs


def _cut_word(word: str, tokens: Tokens, room: int) -> list[str]:
    if len(word) <= 1 or tokens.content(word) <= room:
        return [word]
    middle = len(word) // 2
    return _cut_word(word[:middle], tokens, room) + _cut_word(word[middle:], tokens, room)


def pack_by_chars(parts: list[str], limit: int, joiner: str) -> list[str]:
    """Greedy runs of ``parts`` joined by ``joiner``, each within ``limit`` characters if possible."""
    runs: list[str] = []
    current: list[str] = []
    size = 0
    for part in parts:
        extra = len(part) + (len(joiner) if current else 0)
        if current and size + extra > limit:
            runs.append(joiner.join(current))
            current, size = [], 0
            extra = len(part)
        current.append(part)
        size += extra
    if current:
        runs.append(joiner.join(current))
    return runs
