"""A footnote's or endnote's text as it reads where it is cited, one rule for every reader that
places notes so (ODT, DOCX, RTF): ` (its text)` right after the citation mark, its paragraphs, list
items and breaks one line, so a chunk holds the note with the sentence it explains."""

from __future__ import annotations

from collections.abc import Iterable


def cited(pieces: Iterable[str]) -> str:
    """The note's pieces of text as they read after its citation; nothing for a note of no words."""
    note = " ".join(" ".join(pieces).split())
    return f" ({note})" if note else ""
