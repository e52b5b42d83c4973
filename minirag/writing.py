"""Which writing system a letter, or most of a text, is written in.

The model's gate (encoder.Encoder.reads) asks it of a query's letters; the fusion asks whether a
chunk is written in the query's writing system at all, since the keyword side can only find a
query's words in a text written in the same letters (search/fusion.py).
"""

from __future__ import annotations

import unicodedata
from functools import lru_cache

# Characters read per text: enough to tell which writing systems it is in, at a bounded cost per chunk.
MAX_CHARS = 2000
# A writing system counts as one a text is written in from this share of its letters: a Latin
# identifier or two in a Japanese page, a quoted Russian title in an English one, do not.
MIN_SHARE = 0.1

# Scripts one text mixes in one writing system: Japanese writes its words in kanji and both kana,
# and a Chinese or Japanese query's words can be found in a text of either's characters.
_FAMILY = {"hiragana": "cjk", "katakana": "cjk", "katakana-hiragana": "cjk", "halfwidth": "cjk", "cjk": "cjk"}


@lru_cache(maxsize=4096)
def script_of(char: str) -> str:
    """A coarse writing-system name for one letter, from its Unicode name (`latin`, `cyrillic`,
    `cjk`, `hiragana`, `hangul`, ...)."""
    if char.isascii():
        return "latin"
    name = unicodedata.name(char, "")
    return name.split(" ", 1)[0].lower() if name else "unknown"


def scripts_of(text: str) -> tuple[str, ...]:
    """The writing systems that hold at least MIN_SHARE of `text`'s letters, most first (kanji
    and kana as one, `cjk`); () for a text with no letters."""
    import numpy as np  # here: a keyword query's process tokenizes the query but never calls this

    points = np.frombuffer(text[:MAX_CHARS].encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
    latin = int(np.count_nonzero(((points >= 65) & (points <= 90)) | ((points >= 97) & (points <= 122))))
    counts: dict[str, int] = {"latin": latin} if latin else {}
    # Counted by code point in numpy, then named once per distinct letter: a Python loop over every
    # character costs more than all the rest of a chunk's keyword text.
    for point, times in zip(*np.unique(points[points >= 128], return_counts=True), strict=True):
        char = chr(point)
        if char.isalpha():
            family = script_of(char)
            family = _FAMILY.get(family, family)
            counts[family] = counts.get(family, 0) + int(times)
    seen = sum(counts.values())
    held = [family for family, count in counts.items() if count >= MIN_SHARE * seen]
    return tuple(sorted(held, key=lambda family: -counts[family]))


def main_script(text: str) -> str | None:
    """The writing system most of `text`'s letters are in; None for a text with no letters."""
    found = scripts_of(text)
    return found[0] if found else None
