"""A message's attachments: the files it carries, read as documents of their own, and the messages
forwarded inside it, each placed under the message's text as a section of its page.

A saved message is often all a user has of what was sent: the report or the contract is inside
it, not beside it. So an attached file in a format minirag reads is converted as that file would
be (convert.py supplies the reader, `AttachedFiles`) and a forwarded message is read as a message,
to MAX_NESTED_MESSAGES messages deep. An attachment that is not a document (a picture, an archive)
or cannot be read keeps its name in the message's "Attachments:" line, with a warning where it
failed. An attached spreadsheet's rows travel with its text (sheet_text.py): a hit in it names its
sheet, the attachment's name before the sheet's (`stock.xlsx › Stock`, `orders.csv`: a message may
carry several files, and a CSV file's one sheet has no name of its own), and its rows.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Protocol

from minirag.chunking.blocks import parse_heading
from minirag.chunking.fences import Fences
from minirag.chunking.rows import RowMap
from minirag.ingest.sheet_text import SheetText

MAX_NESTED_MESSAGES = 3
_DEEPEST = 6  # Markdown has six heading levels


@dataclass(frozen=True)
class Attachment:
    name: str  # the file name the sender gave it, or a forwarded message's subject
    markdown: str = ""  # its text where it was read
    rows: RowMap | None = None  # the sheet and row each line of `markdown` shows, a spreadsheet's

    def section(self) -> SheetText:
        """The attachment as a section of its message's page: a heading naming it, its own
        headings two levels below the message's title, and its own title where it only repeats
        the name dropped; with the rows its lines show, its sheets named after it."""
        body = self.markdown.strip()
        cut = _leading_lines(self.markdown)  # lines above the body's first
        first, _, rest = body.partition("\n")
        heading = parse_heading(first)
        if heading is not None and heading[0] == 1 and " ".join(heading[1].split()) == " ".join(self.name.split()):
            body = rest.strip()
            cut += 1 + _leading_lines(rest)
        name = " ".join(self.name.split())
        text = f"## Attached: {name}\n\n{demoted(body, 2)}".strip()
        lines = text.count("\n") + 1
        if self.rows is None or self.rows.lines != self.markdown.count("\n") + 1 or not body:
            return SheetText(text, None)
        named = replace(self.rows, sheets=tuple(name if sheet is None else f"{name} › {sheet}"
                                                for sheet in self.rows.sheets))
        return SheetText(text, RowMap.joined([(2, named.lines_from(cut, body.count("\n") + 1))], lines))


@dataclass(frozen=True)
class ReadFile:
    """An attached file read: its Markdown, its warnings, and its rows where it is a spreadsheet."""

    markdown: str
    warnings: tuple[str, ...] = ()
    rows: RowMap | None = None


def joined_pages(parts: list[SheetText]) -> SheetText:
    """Texts one after another, a blank line between two, with the rows their lines show."""
    at, placed = 0, []
    for part in parts:
        placed.append((at, part.rows))
        at += part.markdown.count("\n") + 2
    return SheetText("\n\n".join(part.markdown for part in parts), RowMap.joined(placed, max(at - 1, 1)))


def _leading_lines(text: str) -> int:
    """How many lines strip() takes off the front of `text`."""
    return text[:len(text) - len(text.lstrip())].count("\n")


class AttachedFiles(Protocol):
    """How a message reader reads what a message carries."""

    def read(self, data: bytes, filename: str, content_type: str,
             charset: str | None = None) -> ReadFile | None:
        """An attached file's Markdown, warnings and rows; None where it is no document minirag reads,
        or a message that would lie past MAX_NESTED_MESSAGES. ConversionFailed where it is one but
        cannot be read. `charset`: the one its message declares for it, if any."""
        ...

    def inner(self, label: str) -> AttachedFiles | None:
        """The reader for the attachments of the message `label` forwarded inside this one; None
        where that message would lie past MAX_NESTED_MESSAGES (it is then only named)."""
        ...


def demoted(markdown: str, levels: int) -> str:
    """`markdown` with each ATX heading outside code blocks `levels` deeper (at most level 6)."""
    lines = markdown.split("\n")
    fences = Fences(lines)
    index = 0
    while index < len(lines):
        line = lines[index]
        if line.lstrip(" ").startswith(fences.openers):
            end = fences.end(index)
            if end is not None:
                index = end + 1
                continue
        heading = parse_heading(line)
        if heading is not None:
            level, text = heading
            lines[index] = f"{'#' * min(_DEEPEST, level + levels)} {text}".rstrip()
        index += 1
    return "\n".join(lines)
