"""What typesetting leaves in converted text, taken back out, so words are whole for both sides.

- Soft hyphens (U+00AD) only say where a word may break; they are invisible. Left in,
  FTS5 splits "manip\\u00adulation" into two words and the encoder reads three pieces.
- Ligatures (U+FB00-FB06: ﬀ ﬁ ﬂ ﬃ ﬄ ﬅ ﬆ), which PDF text layers often hold, become their
  letters: "ﬁle" is "file" to a reader, but not to FTS5.
- In PDF text only, a word hyphenated across a line end ("declara-\\ntions") is joined
  again. A PDF's line breaks are layout, not the author's, and in justified text such a
  break is nearly always a word split, seldom a real hyphen (of 28 in libtasn1.pdf, two:
  "non-commercially" becomes "noncommercially", a date format's "hhmm-hh" "hhmmhh").
  A break is joined when the next line goes on in lower case, or both sides are capitals
  ("SE-\\nQUENCE"); a hyphen after a digit or before a capitalised word stays.
"""

from __future__ import annotations

import re

from minirag.keywords import TYPESETTING

_LINE_END_HYPHEN = re.compile(r"([^\W\d_])-[ \t]*\n[ \t]*(?=([^\W\d_]))")


def repair(text: str, *, pdf: bool = False) -> str:
    if not text.isascii():
        text = text.translate(TYPESETTING)
    if pdf and "-" in text:
        text = _LINE_END_HYPHEN.sub(_join_if_split, text)
    return text


def _join_if_split(match: re.Match) -> str:
    before, after = match.group(1), match.group(2)
    if after.islower() or (before.isupper() and after.isupper()):
        return before
    return match.group(0)
