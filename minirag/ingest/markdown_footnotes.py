"""Markdown's footnotes (GitHub, PHP Markdown Extra, Pandoc, MyST, Obsidian), read where they are cited.

`text[^label]` cites a note defined on a line of its own, `[^label]: its text`, whose lines run on
until a blank line, and whose further paragraphs are indented four spaces. A renderer shows a number
where the note is cited and the notes at the page's foot. Indexed as written, `[^1]` was noise in the
sentence, and the notes stood at the end of the file, in its last section, far from what they explain
(a note of a bare address was even read as a link reference: `docs[^1](https://…)`).

So a note cited once reads in parentheses right after its citation (note_text.cited), as every
reader with notes places them, and its definition goes. A note cited more than once (Node.js's
BUILDING.md cites one in ten rows of a table) and one no sentence cites stay where they are written,
as the line `[label] its text`, and each citation of it reads `[label]`; a citation of no definition
stays as written (`[^a-z]` in a
regular expression is none). Labels match as CommonMark matches a link's: case and runs of spaces
aside. Fenced code and code spans are left as written. A text that defines no footnote is returned
as it is, character for character.
"""

from __future__ import annotations

import re
from collections import Counter

from minirag.chunking.fences import code_line_mask
from minirag.chunking.frontmatter import parse_frontmatter
from minirag.ingest.markup_lines import code_spans
from minirag.ingest.note_text import cited

# A definition's first line: at most three spaces in, the label (no space or bracket in it), its text.
_DEFINITION = re.compile(r" {0,3}\[\^([^\]\s]++)\]:[ \t]*+(.*+)")
_CITATION = re.compile(r"\[\^([^\]\s]++)\](?!:)")
# A line that ends a definition's paragraph without a blank line: a heading, a fence, a quote, a rule.
_INTERRUPTS = re.compile(r" {0,3}(?:#{1,6}(?:[ \t]|$)|```|~~~|>|(?:[-*_][ \t]*+){3,}$)")
_INDENTED = ("    ", "\t")


def read_footnotes(markdown: str) -> str:
    """`markdown` with its cited footnotes in place (see the module's doc)."""
    if "[^" not in markdown or "]:" not in markdown:
        return markdown
    text = markdown.replace("\r\n", "\n")
    lines = text.split("\n")
    _meta, body = parse_frontmatter(text)
    skip = text.count("\n") - body.count("\n") if body is not text else 0
    code = code_line_mask(lines)
    notes, spans = _definitions(lines, code, skip)
    if not notes:
        return markdown
    starts = {start: (label, end, written) for label, start, end, written in spans}
    inside = bytearray(len(lines))  # lines of a definition
    for _, start, end, _ in spans:
        inside[start:end] = b"\x01" * (end - start)
    citations = Counter(_label(found.group(1)) for index, line in enumerate(lines)
                        if index >= skip and not code[index] and not inside[index] and "[^" in line
                        for found in _CITATION.finditer(_outside_spans(line)))
    # A note cited once reads there; one cited again and again (a table's rows) stays a line of its own.
    once = {label: text for label, text in notes.items() if citations[label] == 1}
    out: list[str] = []
    index = 0
    while index < len(lines):
        if index in starts:
            label, end, written = starts[index]
            if label in once:
                index = end
                while out and not out[-1].strip() and index < len(lines) and not lines[index].strip():
                    index += 1  # the blank line before it and the one after it are one
                continue
            out.append(written)
            index = end
            continue
        line = lines[index]
        if not code[index] and index >= skip and "[^" in line:
            line = _cited(line, notes, once)
        out.append(line)
        index += 1
    while len(out) > 1 and not out[-1].strip() and not out[-2].strip():
        out.pop()  # the notes stood at the end: one line end after the text, as before them
    return "\n".join(out)


def _label(raw: str) -> str:
    return " ".join(raw.split()).casefold()


def _definitions(lines: list[str], code: list[bool], skip: int) -> tuple[dict[str, str], list[tuple[str, int, int, str]]]:
    """Each defined note's text by label (the first definition of a label wins), and each definition's
    label, first line, the line after its last, and the line it stays as where no sentence cites it."""
    notes: dict[str, str] = {}
    spans: list[tuple[str, int, int, str]] = []
    index = skip
    while index < len(lines):
        found = None if code[index] else _DEFINITION.fullmatch(lines[index].rstrip())
        if found is None:
            index += 1
            continue
        label = _label(found.group(1))
        pieces = [found.group(2)]
        end = index + 1
        while end < len(lines) and not code[end]:
            line = lines[end]
            if line.strip():
                if _DEFINITION.fullmatch(line.rstrip()) or (not line.startswith(_INDENTED) and _INTERRUPTS.match(line)):
                    break
                pieces.append(line.strip())  # a line run on, or a paragraph indented under the note
                end += 1
                continue
            after = end
            while after < len(lines) and not lines[after].strip():
                after += 1
            if after < len(lines) and lines[after].startswith(_INDENTED) and not code[after]:
                end = after  # its next paragraph, indented under it
                continue
            break
        words = " ".join(" ".join(pieces).split())
        notes.setdefault(label, words)
        spans.append((label, index, end, f"[{found.group(1)}] {words}".rstrip()))
        index = end
    return notes, spans


def _outside_spans(line: str) -> str:
    """The line with its code spans blanked (their length kept)."""
    pieces, at = [], 0
    for start, end in code_spans(line):
        pieces += [line[at:start], " " * (end - start)]
        at = end
    return "".join([*pieces, line[at:]])


def _cited(line: str, notes: dict[str, str], once: dict[str, str]) -> str:
    """`line` with each citation of a defined note, outside code spans, replaced by the note's text
    where it is cited `once`, else by its label in brackets (`[1]`, as the note's line reads)."""
    visible = _outside_spans(line)
    out: list[str] = []
    at = 0
    last = ""  # the last character written
    for found in _CITATION.finditer(visible):
        label = _label(found.group(1))
        if label not in notes:
            continue
        before = line[at:found.start()]
        last = before[-1:] or last
        if label in once:  # (a space before the mark, or none at the line's start, is the note's own)
            shown = cited([once[label]])[1 if not last or last.isspace() else 0:]
        else:
            shown = f"[{found.group(1)}]"
        out += [before, shown]
        last = shown[-1:] or last
        at = found.end()
    return "".join([*out, line[at:]]) if out else line
