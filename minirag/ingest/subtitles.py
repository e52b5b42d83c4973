"""Subtitles and captions (.srt, .vtt: a film's subtitles, a meeting's or a video's captions) as the
transcript chunker reads them (chunking/transcript.py): each cue's timing line, `start --> end`,
and the words under it.

Left out, as a viewer never sees them: SRT's cue numbers and WebVTT's cue identifiers, its header,
NOTE, STYLE and REGION blocks, a cue's settings after its times (`align:start position:0%`), the
markup inside a cue (`<i>`, `<c.color>`, karaoke times `<00:00:01.500>`, SRT's `{\\an8}`), and a
line a cue repeats from the one before it (YouTube's rolling captions show each line twice, as it
scrolls up). A ruby's reading over a word (`<rt>`) is left out too, its base text kept (as .docx's
and ODF's are), so the word is not run together with its reading. A voice tag (`<v Anna>`, what Teams and Zoom write) is the speaker's name before the
words, `Anna: `, as a transcript names its speakers. A blank line inside a SubRip cue does not
end it, as in players; in WebVTT it does, as the spec says.
"""

from __future__ import annotations

import html
import re
from itertools import pairwise

_TIME = r"(?:\d{1,4}:)?\d{1,3}:[0-5]\d[.,]\d{1,3}"
_TIMING = re.compile(rf"^\s*({_TIME})\s*-->\s*({_TIME})(?:\s.*)?$")
# A voice's name ends at the next `<` too, so a line of voice tags never closed is read in one pass.
_VOICE = re.compile(r"<v(?:\.[\w.-]*+)?[ \t]++([^<>]*+)>")
# A tag opens with a name, a slash or a time (`<i>`, `</i>`, `<00:00:01.500>`): SubRip's text is not
# escaped, and `x < y` is words.
_TAG = re.compile(r"<(?=[/A-Za-z0-9])[^<>]*+>|\{\\[^{}]*+\}")
# A ruby's reading (`<rt>kan</rt>`, its end tag optional before `</ruby>`) is no text, as .docx's is not:
# the base text is the word.
_RUBY_TEXT = re.compile(r"<rt(?=[\s.>])[^<>]*+>[^<]*+(?:</rt\s*+>)?")
_TIME_FIRST = re.compile(rf"\s*{_TIME}")
_BLANK_LINES = re.compile(r"\n[ \t]*\n")
# A WebVTT file opens so (after a byte-order mark); SubRip has no header.
_WEBVTT = re.compile(r"\ufeff?WEBVTT(?:[ \t\n]|$)")
MAX_CARRIED_LINES = 3


def subtitles_to_text(text: str) -> str:
    """The cues of an SRT or WebVTT file, each its timing line and its words, a blank line between."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    webvtt = _WEBVTT.match(text) is not None
    cues: list[tuple[str, str, list[str]]] = []  # each cue's times and its lines as written
    held: int | None = None  # where the cue before ends in a number line, after a blank line in it
    for block in _BLANK_LINES.split(text):
        lines = block.split("\n")
        # A block without a timing line is a header, a NOTE, STYLE or REGION block, a lost cue number;
        # one with several is cues written without the blank line between them.
        timings = [(n, found.groups()) for n, found in enumerate(map(_TIMING.match, lines)) if found]
        lead = timings[0][0] if timings else len(lines)
        if timings and lead and lines[lead - 1].strip().isdigit():
            lead -= 1  # the cue's SubRip number
        # Lines before a block's first cue: in SubRip, the text of the cue before, after a blank line
        # inside it, as players show it (FFmpeg's reader ends a cue only at the next timing line),
        # unless they hold a cue whose timing line is malformed. In WebVTT a blank line ends a cue
        # (the spec, and browsers' parsers): what follows it is no cue's.
        written = lines[:lead]
        if held is not None and timings and not any(line.strip() for line in lines[:timings[0][0]]):
            del cues[-1][2][held]  # this cue's number, only blank lines between it and its timing line
        held = None
        if cues and not webvtt and not _cue_start(written):
            said = cues[-1][2]
            said.extend(written)
            # A number line last: the next cue's if a timing line comes next, as FFmpeg reads it.
            last = next((n for n in range(len(said) - 1, len(said) - len(written) - 1, -1) if said[n].strip()), None)
            held = last if last is not None and said[last].strip().isdigit() else None
        if not timings:
            continue
        for (n, (start, end)), following in zip(timings, [*(n for n, _ in timings[1:]), len(lines)], strict=True):
            if following < len(lines) and following - 1 > n and lines[following - 1].strip().isdigit():
                following -= 1  # the next cue's SubRip number, with no blank line before it
            cues.append((start, end, lines[n + 1 : following]))
        if not webvtt:  # a number line last in the block: the next cue's if its timing line comes next
            said = cues[-1][2]
            last = next((n for n in range(len(said) - 1, -1, -1) if said[n].strip()), None)
            held = last if last is not None and said[last].strip().isdigit() else None
    shown: list[str] = []
    before: list[str] = []  # the lines of the cue before, to leave out what a rolling caption repeats
    for start, end, written in cues:
        words = [line for line in map(_shown, written) if line]
        carried = _carried(before, words)
        before = words
        if words[carried:]:
            shown.append("\n".join([f"{start} --> {end}", *words[carried:]]))
    return "\n\n".join(shown)


def _cue_start(lines: list[str]) -> bool:
    """Whether `lines` hold a cue's start, a number line and a line opening with a time under it,
    whose timing line is no timing line (`00:00:03,000 -> 00:00:04,000`)."""
    return any(number.strip().isdigit() and _TIME_FIRST.match(timing) for number, timing in pairwise(lines))


def _carried(before: list[str], words: list[str]) -> int:
    """How many of the lines before `words` opens with, carried up by a rolling caption (at most
    MAX_CARRIED_LINES: a caption shows two or three lines at a time)."""
    for size in range(min(len(before), len(words), MAX_CARRIED_LINES), 0, -1):
        if before[len(before) - size :] == words[:size]:
            return size
    return 0


def _shown(line: str) -> str:
    """A cue's line as a viewer reads it: a voice as its speaker's name, other markup out."""
    line = _VOICE.sub(lambda voice: f"{voice.group(1).strip()}: ", line)
    line = _RUBY_TEXT.sub("", line)
    return " ".join(html.unescape(_TAG.sub("", line)).split())
