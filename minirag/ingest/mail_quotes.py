"""A plain-text message's quoted lines as its reader sees them: a line a mail client wrapped as it
quoted it, marked as the quote's.

A client that quotes a long line and then wraps it at its line width writes the wrapped part on a
line of its own without the quote's `>` (Outlook, and many a client's reply to a message of long
lines): `> We would like to move the backup from` over `23:00 to 02:00 UTC.`. A reader sees the
quoted sentence go on; written so, the rest of it read as the replier's own words. Such a line takes
the quote's markers when it plainly goes on with the sentence above it: that line, quoted or itself
taken into the quote, ends no sentence, and this line's first word would not have fit on it at a
client's line width (WRAP_WIDTH or more: clients wrap at 70 to 78), and this one begins with a
lower-case letter or a digit. A reply written between quoted lines, with no blank line around it,
begins as a sentence does, or under a line its first word would have fit on, and stays the replier's.
"""

from __future__ import annotations

import re

_MARKERS = re.compile(r"(?:[ \t]{0,3}>)+[ \t]?")
_SENTENCE_END = (".", "!", "?", ":", ";")
WRAP_WIDTH = 70


def requoted(text: str) -> str:
    """`text` with each wrapped part of a quoted line marked as the quote's (see the module's doc)."""
    if ">" not in text:
        return text
    lines = text.split("\n")
    prefix = ""  # the quote markers of the line above, where it is quoted (or taken into a quote)
    above = ""  # the line above as written, where it is quoted (or taken into a quote)
    changed = False
    for index, line in enumerate(lines):
        markers = _MARKERS.match(line)
        if markers is not None:
            prefix, above = markers.group(), line
            continue
        if prefix and line[:1].isalnum() and (line[0].islower() or line[0].isdigit()) and _wrapped(above, line):
            lines[index] = prefix + line
            above = line
            changed = True
            continue
        prefix, above = "", ""
    return "\n".join(lines) if changed else text


def _wrapped(above: str, line: str) -> bool:
    """Whether `line` reads as the rest of `above`, cut at a client's line width: `above` ends no
    sentence, and `line`'s first word would have taken it past WRAP_WIDTH."""
    kept = above.rstrip()
    first_word = line.split(None, 1)[0] if line.strip() else ""
    return not kept.endswith(_SENTENCE_END) and len(kept) + 1 + len(first_word) > WRAP_WIDTH
