"""A plain-text message's quoted lines as its reader sees them: a line a mail client wrapped as it
quoted it, marked as the quote's.

A client that quotes a long line and then wraps it at its line width writes the wrapped part on a
line of its own without the quote's `>` (Outlook, and many a client's reply to a message of long
lines): `> We would like to move the backup from` over `23:00 to 02:00 UTC.`. A reader sees the
quoted sentence go on; written so, the rest of it read as the replier's own words. Such a line takes
the quote's markers when it plainly goes on with the sentence above it: that line, quoted or itself
taken into the quote, is long (MIN_WRAPPED characters past its markers) and ends no sentence, and
this one begins with a lower-case letter or a digit. A reply written between quoted lines, with no
blank line around it, begins as a sentence does, and stays the replier's.
"""

from __future__ import annotations

import re

_MARKERS = re.compile(r"(?:[ \t]{0,3}>)+[ \t]?")
_SENTENCE_END = (".", "!", "?", ":", ";")
MIN_WRAPPED = 40


def requoted(text: str) -> str:
    """`text` with each wrapped part of a quoted line marked as the quote's (see the module's doc)."""
    if ">" not in text:
        return text
    lines = text.split("\n")
    prefix = ""  # the quote markers of the line above, where it is quoted (or taken into a quote)
    wrapped = False  # whether the line above looks cut at a client's line width
    changed = False
    for index, line in enumerate(lines):
        markers = _MARKERS.match(line)
        if markers is not None:
            content = line[markers.end():]
            prefix, wrapped = markers.group(), _looks_wrapped(content)
            continue
        if prefix and wrapped and line[:1].isalnum() and (line[0].islower() or line[0].isdigit()):
            lines[index] = prefix + line
            wrapped = _looks_wrapped(line)
            changed = True
            continue
        prefix, wrapped = "", False
    return "\n".join(lines) if changed else text


def _looks_wrapped(content: str) -> bool:
    stripped = content.rstrip()
    return len(stripped) >= MIN_WRAPPED and not stripped.endswith(_SENTENCE_END)
