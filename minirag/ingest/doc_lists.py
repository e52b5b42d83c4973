"""The numbers of a Word 97-2003 document's lists ([MS-DOC] PlfLst and PlfLfo), which Word does
not keep in the text: each list paragraph names a list override (its ilfo) and a level, the
override names a list (its lsid), and the list's level says how the number is written
(decimal, roman, letters), where it starts, and the text around it (`\x00.\x01.` for `1.2.`).

Numbers are counted as Word counts them: each list on its own, a level's count restarting after
an item of a higher level. Every count and size comes from the file, so each is checked against
the bytes; a table that does not fit ends where it stops fitting.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field

PLF_LST, PLF_LFO = 73, 74  # FibRgFcLcb97's pairs: the lists, the list overrides
# Word writes a few characters around at most nine numbers; a level claiming 65,535 would be
# written again before every item.
MAX_LIST_TEXT = 64
# What an item's list text may add to it: nine levels' numbers and their dots (`1.1.1.1.1.1.1.1.1.`)
# fit; a forged level of 64 placeholders from -2147483648 made each 2-byte paragraph 710 characters.
MAX_MARKER = 24
_LSTF, _LVLF, _LFO, _LEVELS = 28, 28, 16, 9
_SIMPLE = 0x01  # an LSTF whose list has one level
_STARTS, _FORMATTED = 0x10, 0x20  # an LFOLVL that restarts its level; one with a whole LVL after it
_DECIMAL, _UPPER_ROMAN, _LOWER_ROMAN, _UPPER_LETTER, _LOWER_LETTER, _LEADING_ZERO = 0, 1, 2, 3, 4, 22
_BULLET, _NONE = 23, 255
_ROMAN = ((1000, "m"), (900, "cm"), (500, "d"), (400, "cd"), (100, "c"), (90, "xc"), (50, "l"), (40, "xl"),
          (10, "x"), (9, "ix"), (5, "v"), (4, "iv"), (1, "i"))


@dataclass(frozen=True)
class Level:
    start: int
    style: int  # the number format (nfc)
    text: str  # the list text, levels' numbers as the characters 0 to 8


@dataclass
class Lists:
    levels: dict[int, tuple[Level, ...]] = field(default_factory=dict)  # by list id
    overrides: list[int] = field(default_factory=list)  # the list id of each override, by ilfo - 1
    # Where an override restarts its list's levels (level -> number), by ilfo - 1: "restart
    # numbering" in Word, a new override of the same list. Each is used up by its first item.
    restarts: list[dict[int, int]] = field(default_factory=list)
    _counts: dict[int, list[int | None]] = field(default_factory=dict)

    def marker(self, ilfo: int, level: int) -> str:
        """The list text of the next item of override `ilfo` at `level`: `3.`, `b)`, `1.2.`, or a
        bullet; "" where the file does not say."""
        if not 0 < ilfo <= len(self.overrides):
            return ""
        list_id = self.overrides[ilfo - 1]
        levels = self.levels.get(list_id, ())
        if not 0 <= level < len(levels):
            return ""
        counts = self._counts.setdefault(list_id, [None] * _LEVELS)
        current = counts[level]
        restart = self.restarts[ilfo - 1].pop(level, None) if ilfo <= len(self.restarts) else None
        if restart is not None:
            counts[level] = restart
        else:
            counts[level] = levels[level].start if current is None else current + 1
        for deeper in range(level + 1, _LEVELS):
            counts[deeper] = None
        marker = ""
        for char in levels[level].text:
            marker += _number(levels[ord(char)], counts[ord(char)]) if ord(char) < len(levels) else char
            if len(marker) >= MAX_MARKER:
                break
        return marker[:MAX_MARKER]


def read_lists(table: bytes, lists: tuple[int, int], overrides: tuple[int, int]) -> Lists:
    """The lists and overrides at the (offset, length) pairs the FIB gives in the table stream
    (the lists' levels, which the length leaves out, right after them)."""
    found = Lists()
    data = table[lists[0]:] if lists[1] else b""  # the lists' levels follow the table the FIB measures
    try:
        count, = struct.unpack_from("<h", data, 0)
        ids, simple = [], []
        for index in range(max(0, count)):
            list_id, = struct.unpack_from("<i", data, 2 + index * _LSTF)
            ids.append(list_id)
            simple.append(bool(data[2 + index * _LSTF + 26] & _SIMPLE))
        at = 2 + max(0, count) * _LSTF
        for list_id, one in zip(ids, simple, strict=True):
            levels = []
            for _ in range(1 if one else _LEVELS):
                level, at = _level(data, at)
                levels.append(level)
            found.levels.setdefault(list_id, tuple(levels))
    except (struct.error, IndexError):
        pass  # the lists read so far stand
    data = table[overrides[0]:overrides[0] + overrides[1]]
    try:
        count, = struct.unpack_from("<I", data, 0)
        sizes = []
        for index in range(count):
            if 4 + (index + 1) * _LFO > len(data):
                break
            found.overrides.append(struct.unpack_from("<i", data, 4 + index * _LFO)[0])
            sizes.append(data[4 + index * _LFO + 12])  # clfolvl: the level overrides its data holds
        at = 4 + len(sizes) * _LFO
        for size in sizes:  # each override's data: a CP, then its level overrides
            at += 4
            restarts = {}
            for _ in range(size):
                start, flags = struct.unpack_from("<iI", data, at)
                at += 8
                if flags & _FORMATTED:
                    _, at = _level(data, at)
                if flags & _STARTS:
                    restarts[min(flags & 0xF, _LEVELS - 1)] = start
            found.restarts.append(restarts)
    except (struct.error, IndexError):
        pass  # the overrides read so far stand
    return found


def _level(data: bytes, at: int) -> tuple[Level, int]:
    start, style = struct.unpack_from("<iB", data, at)
    chpx, papx = data[at + 24], data[at + 25]
    at += _LVLF + papx + chpx
    chars, = struct.unpack_from("<H", data, at)
    text = data[at + 2:at + 2 + 2 * chars]
    if len(text) < 2 * chars:
        raise struct.error("a level's text runs past the table")
    return Level(start, style, text.decode("utf-16-le", "replace")[:MAX_LIST_TEXT]), at + 2 + 2 * chars


def _number(level: Level, count: int | None) -> str:
    value = level.start if count is None else count
    if level.style in (_BULLET, _NONE):
        return ""
    if level.style in (_UPPER_ROMAN, _LOWER_ROMAN) and 0 < value < 4000:
        roman = _roman(value)
        return roman.upper() if level.style == _UPPER_ROMAN else roman
    if level.style in (_UPPER_LETTER, _LOWER_LETTER) and value > 0:
        letters = ""
        while value > 0:
            value, rest = divmod(value - 1, 26)
            letters = chr(ord("a") + rest) + letters
        return letters.upper() if level.style == _UPPER_LETTER else letters
    if level.style == _LEADING_ZERO:
        return f"{value:02d}"
    return str(value)


def _roman(value: int) -> str:
    digits = []
    for amount, letters in _ROMAN:
        times, value = divmod(value, amount)
        digits.append(letters * times)
    return "".join(digits)
