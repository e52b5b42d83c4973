"""A message's attachments: the files it carries, read as documents of their own, and the messages
forwarded inside it, each placed under the message's text as a section of its page.

A saved message is often all a user has of what was sent: the report or the contract is inside
it, not beside it. So an attached file in a format minirag reads is converted as that file would
be (convert.py supplies the reader, `AttachedFiles`) and a forwarded message is read as a message,
to MAX_NESTED_MESSAGES messages deep. An attachment that is not a document (a picture, an archive)
or cannot be read keeps its name in the message's "Attachments:" line, with a warning where it
failed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from minirag.chunking.blocks import parse_heading
from minirag.chunking.fences import Fences

MAX_NESTED_MESSAGES = 3
_DEEPEST = 6  # Markdown has six heading levels


@dataclass(frozen=True)
class Attachment:
    name: str  # the file name the sender gave it, or a forwarded message's subject
    markdown: str = ""  # its text where it was read

    def section(self) -> str:
        """The attachment as a section of its message's page: a heading naming it, its own
        headings two levels below the message's title, and its own title where it only repeats
        the name dropped."""
        body = self.markdown.strip()
        first, _, rest = body.partition("\n")
        heading = parse_heading(first)
        if heading is not None and heading[0] == 1 and " ".join(heading[1].split()) == " ".join(self.name.split()):
            body = rest.strip()
        return f"## Attached: {' '.join(self.name.split())}\n\n{demoted(body, 2)}".strip()


class AttachedFiles(Protocol):
    """How a message reader reads what a message carries."""

    def read(self, data: bytes, filename: str, content_type: str,
             charset: str | None = None) -> tuple[str, tuple[str, ...]] | None:
        """An attached file's Markdown and its warnings; None where it is no document minirag reads,
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
