"""Transcripts: turns that open with a timestamp line, grouped into 120-second windows.

Clock times alone do not make a transcript: ops logs, changelogs, agendas and
meeting notes are full of them. A document is a transcript when timestamp lines
are dense (at least 3, and a quarter of its non-blank lines), their times never
run backwards (but for a rare slip), and it shows what only recordings have:

- subtitle cues: most timestamp lines are `start --> end` (SRT, WebVTT); or
- speaker turns: most timestamp lines are a name and a time with the words on
  the lines below (Teams, Zoom, Otter exports), or at least two capitalised
  names each take two or more turns (`[00:01:02] Anna: ...`); or
- a recording's clock: the first time is within five minutes of zero, most
  times move on from the one before, and the words between them read as speech
  (mostly letters) rather than log fields.

A window's section opens with a label quoting the window's first and last
timestamps as the document writes them: it names nothing the document does not.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from minirag.chunking.blocks import Block, parse_blocks
from minirag.chunking.sections import Part

WINDOW_SECONDS = 120
RECORDING_START_S = 300  # a recording's first timestamp falls within its first five minutes

_TIME = r"(?:\d{1,2}:)?\d{1,3}:[0-5]\d(?:[.,]\d{1,3})?"
# An optional speaker (a name of at most five words, no leading digit), then a
# timestamp, optionally a cue end time, then optionally the words spoken.
_LINE = re.compile(
    r"^\s*(?:\*\*)?"
    r"(?:(?P<speaker>[^\W\d_][\w.'’-]*(?:\s+[\w.'’()-]+){0,4}?)(?:\*\*)?\s*[:,–—-]?\s+)?"
    rf"[(\[]?(?P<time>{_TIME})[)\]]?"
    rf"(?:\s*(?P<range>-->|–|-)\s*[(\[]?{_TIME}[)\]]?)?"
    r"(?:\*\*)?(?P<rest>(?:\s+.*|\s*[:|–—-].*)?)$"
)
_TIME_ANYWHERE = re.compile(_TIME)
_WEBVTT = re.compile(r"\s*\ufeff?WEBVTT(?:[ \t]|$)")  # a WebVTT file's first line, as subtitles.py reads it
STAMP_WITHIN_CHARS = 200  # a five-word speaker, markup and brackets fit well within this
# A speaker named right after the time: `[00:01:02] Anna Smith: words`.
_INLINE_SPEAKER = re.compile(r"^\s*[:|–—-]?\s*(?P<name>[^\W\d_][\w.'’-]*(?:\s+[\w.'’-]+){0,3}?)\s*:\s")


@dataclass(frozen=True)
class Stamp:
    seconds: int
    written: str  # the time as the document writes it
    speaker: str | None  # a name before the time, or right after it followed by a colon
    header: bool  # a name and a time with nothing else on the line: the words follow below
    cue: bool  # `start --> end`
    rest: str  # what follows the time on its line


def _seconds(written: str) -> int:
    parts = [int(p) for p in re.split(r"[.,]", written)[0].split(":")]
    hours, minutes, seconds = ([0] * (3 - len(parts)) + parts)[-3:]
    return hours * 3600 + minutes * 60 + seconds


def stamp(line: str) -> Stamp | None:
    """The timestamp ``line`` opens with, or None when it is not a timestamp line."""
    # A stamp comes within a speaker's name of the start. Lines without one near the start
    # never reach _LINE, whose optional speaker backtracks quadratically over long lines.
    if not _TIME_ANYWHERE.search(line, 0, STAMP_WITHIN_CHARS):
        return None
    match = _LINE.match(line)
    if not match:
        return None
    rest = match.group("rest") or ""
    before = match.group("speaker")
    after = _INLINE_SPEAKER.match(rest)
    return Stamp(
        seconds=_seconds(match.group("time")),
        written=match.group("time"),
        speaker=before or (after.group("name") if after else None),
        header=before is not None and not rest.strip(),
        cue=match.group("range") == "-->",
        rest=rest,
    )


def timestamp(line: str) -> int | None:
    """Seconds into the recording when ``line`` is a timestamp line, else None."""
    found = stamp(line)
    return None if found is None else found.seconds


def _speech_like(text: str) -> bool:
    visible = [c for c in text if not c.isspace()]
    return bool(visible) and sum(c.isalpha() for c in visible) >= 0.75 * len(visible)


def _turns(lines: list[str]) -> list[tuple[Stamp, str]]:
    """Each timestamp with the words of its turn: the rest of its line and the lines below."""
    turns: list[tuple[Stamp, list[str]]] = []
    for line in lines:
        found = stamp(line)
        if found is not None:
            turns.append((found, [found.rest]))
        elif turns and line.strip():
            turns[-1][1].append(line)
    return [(found, " ".join(words)) for found, words in turns]


def looks_like_transcript(lines: list[str]) -> bool:
    filled = [line for line in lines if line.strip()]
    turns = _turns(filled)
    stamps = [found for found, _ in turns]
    if len(stamps) < 3 or len(stamps) * 4 < len(filled):
        return False
    steps = list(zip(stamps, stamps[1:], strict=False))
    if sum(b.seconds < a.seconds for a, b in steps) * 10 > len(steps):
        return False  # a recording's clock only moves forward
    half = len(stamps) / 2
    if sum(s.cue for s in stamps) >= half:
        return True
    if sum(s.header for s in stamps) >= half:
        return True
    names = [s.speaker for s in stamps if s.speaker and s.speaker[0].isupper()]
    if len(names) >= half and sum(names.count(n) >= 2 for n in set(names)) >= 2:
        return True
    moving = sum(b.seconds > a.seconds for a, b in steps)
    spoken = sum(_speech_like(words) for _, words in turns)
    return stamps[0].seconds <= RECORDING_START_S and moving >= 0.8 * len(steps) and spoken >= 0.7 * len(turns)


def _label(written: list[str]) -> str:
    return f"[{written[0]}]" if len(written) == 1 else f"[{written[0]}–{written[-1]}]"


def _after_webvtt_header(preamble: list[str]) -> int:
    """Where the preamble's content starts: after a WebVTT header block (its `WEBVTT` line and the
    header lines up to the first blank line), which the .vtt reader leaves out too (ingest/subtitles.py);
    0 where there is none. Kept, it stood as a chunk of its own that matched any query about the file."""
    opening = next((i for i, line in enumerate(preamble) if line.strip()), None)
    if opening is None or not _WEBVTT.match(preamble[opening]):
        return 0
    return next((i for i in range(opening + 1, len(preamble)) if not preamble[i].strip()), len(preamble))


def transcript_parts(lines: list[str], pages: list[int | None]) -> list[Part]:
    parts: list[Part] = []
    first = next((i for i, line in enumerate(lines) if stamp(line) is not None), len(lines))
    start = _after_webvtt_header(lines[:first])
    preamble = parse_blocks(lines[start:first], pages[start:first])
    if preamble:
        parts.append(Part(preamble))
    windows: list[tuple[Part, list[str]]] = []  # each window and the times it holds, as written
    window: int | None = None
    last = 0
    turn_lines: list[str] = []
    turn_pages: list[int | None] = []
    for line, page in zip(lines[first:], pages[first:], strict=True):
        found = stamp(line)
        if found is not None:
            if turn_lines:
                windows[-1][0].blocks.append(Block("paragraph", turn_lines, turn_pages))
                turn_lines, turn_pages = [], []
            last = max(last, found.seconds)  # a clock that jumps back stays in the current window
            if last // WINDOW_SECONDS != window:
                window = last // WINDOW_SECONDS
                windows.append((Part([]), []))
            windows[-1][1].append(found.written)
        if line.strip():
            turn_lines.append(line)
            turn_pages.append(page)
    if turn_lines:
        windows[-1][0].blocks.append(Block("paragraph", turn_lines, turn_pages))
    for part, written in windows:
        part.label = _label(written)
        parts.append(part)
    return parts
