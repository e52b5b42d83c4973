"""Transcripts: turns that open with a timestamp line, grouped into 120-second windows."""

from __future__ import annotations

import re

from minirag.chunking.blocks import Block, parse_blocks
from minirag.chunking.sections import Part

WINDOW_SECONDS = 120

_TIME = r"(?:(\d{1,2}):)?(\d{1,3}):([0-5]\d)(?:[.,]\d{1,3})?"
_TIME_BARE = r"(?:\d{1,2}:)?\d{1,3}:[0-5]\d(?:[.,]\d{1,3})?"
# An optional speaker (a name of at most five words, no leading digit), then a
# timestamp, optionally a cue end time, then optionally the words spoken.
_LINE = re.compile(
    r"^\s*(?:\*\*)?"
    r"(?:[^\W\d_][\w.'’-]*(?:\s+[\w.'’()-]+){0,4}?(?:\*\*)?\s*[:,–—-]?\s+)?"
    rf"[(\[]?{_TIME}[)\]]?"
    rf"(?:\s*(?:-->|–|-)\s*[(\[]?{_TIME_BARE}[)\]]?)?"
    r"(?:\*\*)?(?:\s+.*|\s*[:|–—-].*)?$"
)


def timestamp(line: str) -> int | None:
    """Seconds into the meeting when ``line`` is a timestamp line, else None."""
    match = _LINE.match(line)
    if not match:
        return None
    hours, minutes, seconds = match.group(1), match.group(2), match.group(3)
    return int(hours or 0) * 3600 + int(minutes) * 60 + int(seconds)


def looks_like_transcript(lines: list[str]) -> bool:
    # Measured: real transcripts have about half of their non-blank lines
    # matching, every other document none; the threshold sits in that gap.
    filled = [line for line in lines if line.strip()]
    hits = sum(1 for line in filled if timestamp(line) is not None)
    return hits >= 3 and hits * 4 >= len(filled)


def _clock(seconds: int) -> str:
    return f"{seconds // 60:02d}:{seconds % 60:02d}"


def transcript_parts(lines: list[str], pages: list[int | None], title: str) -> list[Part]:
    parts: list[Part] = []
    first = next((i for i, line in enumerate(lines) if timestamp(line) is not None), len(lines))
    preamble = parse_blocks(lines[:first], pages[:first])
    if preamble:
        parts.append(Part(preamble))
    window: int | None = None
    last = 0
    turn_lines: list[str] = []
    turn_pages: list[int | None] = []
    for line, page in zip(lines[first:], pages[first:], strict=True):
        seconds = timestamp(line)
        if seconds is not None:
            if turn_lines:
                parts[-1].blocks.append(Block("paragraph", turn_lines, turn_pages))
                turn_lines, turn_pages = [], []
            last = max(last, seconds)  # a clock that jumps back stays in the current window
            if last // WINDOW_SECONDS != window:
                window = last // WINDOW_SECONDS
                start = window * WINDOW_SECONDS
                label = f"[{_clock(start)}–{_clock(start + WINDOW_SECONDS)}] {title}".rstrip()
                parts.append(Part([], label=label))
        if line.strip():
            turn_lines.append(line)
            turn_pages.append(page)
    if turn_lines:
        parts[-1].blocks.append(Block("paragraph", turn_lines, turn_pages))
    return parts
