"""A changelog's entries, each a heading of a plain text file, so that each entry is a section.

Two shapes, each taken only where the whole text is a changelog of that shape:

- Debian's (`changelog`, `changelog.Debian.gz`): an entry opens at column 0 with
  `pkg (1.2-3) unstable; urgency=medium` and closes with its trailer,
  ` -- Name <mail>  Mon, 01 Jan 2024 12:00:00 +0100`. The text has MIN_ENTRIES entry lines or more
  and as many trailers as entries, about (an entry cut off at the file's end has none);
- GNU's (`ChangeLog`): an entry opens at column 0 with its date and author,
  `2024-01-31  Name  <mail>` (or `Mon Dec  9 00:49:22 GMT 2013  Name  <mail>`, or CVS's
  `2001-07-20 11:35  name`) after a blank line, its body below indented (a log's dated line runs on
  from the line above). MIN_ENTRIES such lines or more, half the lines at column 0 or more (a NEWS
  file's dated release lines sit among its prose).

Each entry's first line is a level 2 heading, its text the line's words; the trailer, the entry's
last line, stays in its section, above the next entry's heading. A text that mentions `foo (1.0)`
once, or a dated line, is no changelog and is unchanged.
"""

from __future__ import annotations

import re

Heading = tuple[int, str, tuple[int, ...]]  # as text_headings.Heading: level, title, lines blanked

MIN_ENTRIES = 2
MIN_GNU_SHARE = 0.5  # of the lines at column 0 that are not a title's underline, dated entry lines

_DEBIAN_ENTRY = re.compile(r"[A-Za-z0-9][A-Za-z0-9+.~_-]*+ \([^()\s]++\) [^;\n]++; *+[A-Za-z-]++=.*+")
_DEBIAN_TRAILER = re.compile(r" -- \S.*?<[^<>\s]*+>\s++\S.*+")
_DAY = r"(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)"
_GNU_ENTRY = re.compile(
    rf"(?:\d{{4}}-\d\d-\d\d(?: \d\d:\d\d(?::\d\d)?)?+|{_DAY} [A-Z][a-z]{{2}} [ \d]\d \d\d:\d\d:\d\d(?: [A-Z]{{2,5}})? \d{{4}})"
    r"[ \t]++\S.*+")
_RULE = re.compile(r"[=\-_*#~ ]*+")


def changelog_headings(lines: list[str]) -> dict[int, Heading]:
    """The entry lines of a Debian or GNU changelog as level 2 headings, by line; {} for any other text."""
    debian = [index for index, line in enumerate(lines) if _DEBIAN_ENTRY.fullmatch(line.rstrip())]
    if len(debian) >= MIN_ENTRIES:
        trailers = sum(1 for line in lines if _DEBIAN_TRAILER.fullmatch(line.rstrip()))
        if trailers >= len(debian) - 1:
            return _headings(lines, debian)
    gnu = [index for index, line in enumerate(lines) if _GNU_ENTRY.fullmatch(line.rstrip()) and _set_apart(lines, index)]
    if len(gnu) < MIN_ENTRIES:
        return {}
    at_column_0 = sum(1 for line in lines if line[:1].strip() and not _RULE.fullmatch(line.rstrip()))
    return _headings(lines, gnu) if len(gnu) >= MIN_GNU_SHARE * at_column_0 else {}


def _headings(lines: list[str], at: list[int]) -> dict[int, Heading]:
    return {index: (2, " ".join(lines[index].split()), ()) for index in at}


def _set_apart(lines: list[str], index: int) -> bool:
    """The line at `index` follows a blank line (or opens the text) and its body below is indented
    (a co-author's line too): a log's dated line runs on from the line above it."""
    if index > 0 and lines[index - 1].strip():
        return False
    for below in range(index + 1, min(len(lines), index + 3)):
        if lines[below].strip():
            return lines[below].startswith(("  ", "\t"))
    return False
