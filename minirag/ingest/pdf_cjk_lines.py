"""Lines of Chinese or Japanese that a PDF's line breaks cut inside a sentence, read on as one.

Chinese and Japanese are written without spaces between words, and a typesetter breaks their lines
between any two characters, inside a word too (the TeX Live guide's Chinese translation ends a line
in 最大的努 and starts the next with 力). pdfminer ends each line with a line break, which the
keyword side reads as a word's end (the bigram across it, 努力, was lost) and a reader as a space.

A line that ends in such a character and runs to its box's right edge (within two of its
characters: a paragraph's last line stops short, and so does a title over its text) goes on into
the next line of its box without a break, where that line starts with such a character too. A line
that ends or starts in a spaced script (Latin, Korean, whose lines break at its spaces) keeps its
break, which stands for a space there. Thai, Lao, Khmer and Myanmar are written without spaces too,
but their lines break between phrases as often as inside them, and are left as they are.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from pdfminer.layout import LTTextBox, LTTextLine

# Han (with its radicals, strokes and compatibility forms), kana, CJK punctuation and the
# full-width forms (`，`, `（`): the characters a Chinese or Japanese line breaks between.
_WIDE = ("\u2e80-\u2fdf\u3001-\u303f\u3040-\u30ff\u31c0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
         "\ufe30-\ufe4f\uff01-\uff60\uff61-\uff9f\U00020000-\U0003134f")
_ENDS_WIDE = re.compile(f"[{_WIDE}][ \t]*\n?\\Z")
_STARTS_WIDE = re.compile(f"[ \t]*[{_WIDE}]")
REACH = 2.0  # how far short of its box's right edge a line that goes on may stop, in its height


def goes_on(line: Sequence[LTTextLine], text: str, following: Sequence[LTTextLine], box: LTTextBox) -> bool:
    """Whether the row of lines `line` (whose text is `text`) goes on into the row `following` of
    `box` without a break: both are Chinese or Japanese where they meet, and `line` is full."""
    if not _ENDS_WIDE.search(text) or not _STARTS_WIDE.match(following[0].get_text() if len(following) == 1
                                                             else min(following, key=lambda part: part.x0).get_text()):
        return False
    right = max(part.x1 for part in line)
    height = max(part.height for part in line)
    return right >= box.x1 - REACH * height
