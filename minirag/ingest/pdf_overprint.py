"""A dash drawn as two glyphs, one over the other, read as the one dash it shows.

ConTeXt sets a compound word's hyphen (`read||only`) as two hyphens, the second drawn over a third
of the first, for a longer stroke: pdfminer gave both, and pdftex-a.pdf and luatex.pdf read
`read--only` and `re--encoding` (117 times). Two hyphens set side by side (`42--111` in typewriter
type, where `--` is no en dash) stand apart, or touch, and stay two.
"""

from __future__ import annotations

from collections.abc import Iterable

from pdfminer.layout import LTChar, LTTextLine

DASHES = frozenset("-\u2010\u2011\u2012\u2013\u2014\u2015\u2212")
# Of a dash's width, how much of it the next one must cover to be drawn over it: kerning moves
# glyphs a few hundredths of an em.
MIN_OVERLAP = 0.2


def overprinted_dashes_dropped(lines: Iterable[LTTextLine]) -> None:
    """Take out of each line a dash drawn over MIN_OVERLAP of the same dash just before it, but at
    the line's end: there the two (`upward--` / `compatible`) keep the word's hyphen, which the
    join of a word hyphenated across a line end (text_repair.py) takes out of one."""
    for line in lines:
        items = list(line)
        last = max((at for at, item in enumerate(items) if isinstance(item, LTChar)), default=-1)
        dropped = {at for at in range(1, last) if _over(items[at - 1], items[at])}
        if dropped:
            line._objs = [item for at, item in enumerate(items) if at not in dropped]


def _over(before: object, after: object) -> bool:
    if not (isinstance(before, LTChar) and isinstance(after, LTChar)):
        return False
    text = before.get_text()
    return text in DASHES and after.get_text() == text and before.width > 0 \
        and before.x0 < after.x0 < before.x1 - MIN_OVERLAP * before.width
