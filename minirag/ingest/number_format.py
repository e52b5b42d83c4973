"""What a spreadsheet's number format shows of a value, as far as the readers need to know it."""

from __future__ import annotations

import decimal
import functools
import re

_SECTION_BREAK = re.compile(r'"[^"]*"|\\.|;')  # a quoted literal and an escaped character hold no break


def hidden_by_format(value, number_format: str) -> bool:
    """Whether the number format's section for the value is empty, so Excel shows nothing: `;;;`
    is Excel's own way to hide a cell's contents (`0;;` hides the negative numbers and zeros).
    A format's sections are for positive, negative and zero numbers and for text; with two, the
    first is for zero too; one is for every number; text has its own only in a fourth."""
    if ";" not in number_format:
        return False
    sections = _sections(number_format)
    if isinstance(value, str):
        return len(sections) >= 4 and not sections[3].strip()
    if isinstance(value, (int, float)):
        if len(sections) == 1 or value > 0 or (value == 0 and len(sections) == 2):
            section = sections[0]
        else:
            section = sections[1] if value < 0 else sections[2]
        return not section.strip()
    return len(sections) >= 3 and not sections[0].strip() and not sections[1].strip() and not sections[2].strip()


def _sections(number_format: str) -> list[str]:
    sections, start = [], 0
    for part in _SECTION_BREAK.finditer(number_format):
        if part.group() == ";":
            sections.append(number_format[start:part.start()])
            start = part.end()
    sections.append(number_format[start:])
    return sections


# Excel's own limit on a number format's length: a longer one (`0` ten thousand times) is no format
# Excel wrote, and laid out in every cell it would make the text that long.
MAX_FORMAT_CHARS = 255
# A section's pieces: a quoted literal, an escaped character, a bracket (a colour, a condition, or
# `[$€-407]`, a currency symbol and its locale), a space as wide as a character (`_)`), a fill
# (`*-`), Excel's `General`, or one character.
_PIECE = re.compile(r'"([^"]*)"|\\(.)|\[([^\]]*)\]|_.|\*.|(General)|(.)', re.IGNORECASE | re.DOTALL)
_PLACEHOLDERS = frozenset("0#?")
_DIGITS = _PLACEHOLDERS | {".", ","}
# What this reader does not lay out: dates and times, fractions, scientific notation, text.
_UNREAD = frozenset("dmyhsDMYHSeE/@")


def shown_number(value: int | float, number_format: str) -> str | None:
    """The number as its format shows it, for formats of digits, thousands, decimals, percent
    signs and literal text (`#,##0.00 [$€-407]`, `0.0%`, `00000`, `"USD "#,##0`); None for
    `General` and for what this does not lay out (dates, fractions, scientific notation). Grouping
    is Excel's in English (`1,234.50`), as the file does not say the reader's locale."""
    if value != value or len(number_format) > MAX_FORMAT_CHARS:  # NaN; a format no Excel writes
        return None
    sections = _sections(number_format)
    if len(sections) == 1 or value > 0 or (value == 0 and len(sections) == 2):
        section, signed = sections[0], value < 0  # one section for all: a negative number keeps its sign
    else:
        section, signed = sections[1] if value < 0 else sections[2], False  # the section writes the sign
    layout = _layout(section)
    if layout is None:
        return None
    before, core, after = layout
    if not core:  # a section of text alone: an accounting format's `"-"` for zero
        return before.strip() or None
    try:
        number = _laid_out(abs(value) * 100 ** (before + after).count("%"), core)
    except (OverflowError, decimal.InvalidOperation):  # past what a cell shows in digits (1e300, inf)
        return None
    if number is None:
        return None
    return (("-" if signed else "") + before + number + after).strip()


@functools.lru_cache(maxsize=256)
def _layout(section: str) -> tuple[str, str, str] | None:
    """A section as the literal text before its digits, the digits (`#,##0.00`) and the text
    after them; None where it holds what this does not lay out, or text between digits (a phone
    number's `000-0000`)."""
    before: list[str] = []
    core: list[str] = []
    after: list[str] = []
    for piece in _PIECE.finditer(section):
        quoted, escaped, bracket, general, char = piece.groups()
        if general is not None or (char is not None and char in _DIGITS and (core or char != ",")):
            if after:
                return None
            core.append("General" if general is not None else char)
        elif char is not None and char in _UNREAD:
            return None
        elif quoted is not None or escaped is not None:
            (after if core else before).append(quoted if quoted is not None else escaped)
        elif bracket is not None:  # a colour or a condition shows nothing; `[$€-407]` its symbol
            (after if core else before).append(bracket[1:].split("-")[0] if bracket.startswith("$") else "")
        else:  # `_)` a space as wide as its character, `*-` a fill, or a character as it is
            text = piece.group()
            (after if core else before).append(" " if text[0] == "_" else "" if text[0] == "*" else text)
    return "".join(before), "".join(core), "".join(after)


def _laid_out(value: float, core: str) -> str | None:
    """A non-negative number in the digits of `core` (`#,##0.00`); None for `General`, which
    shows the number as it is (the caller's)."""
    whole, _, fraction = core.partition(".")
    if "General" in core or "." in fraction:
        return None
    scaled = whole.rstrip(",")
    value /= 1000 ** (len(whole) - len(scaled))  # each trailing comma shows thousands
    places = sum(char in _PLACEHOLDERS for char in fraction)
    kept = len(fraction) - len(fraction.lstrip("0"))  # zeros shown even where the digit is 0
    rounded = decimal.Decimal(repr(float(value))).quantize(decimal.Decimal(1).scaleb(-places), decimal.ROUND_HALF_UP)
    integer, _, decimals = f"{rounded:f}".partition(".")
    if len(decimals) > kept:  # `#` and `?` show a digit only where it is not a trailing zero
        decimals = decimals.rstrip("0").ljust(kept, "0")
    integer = integer.zfill(scaled.count("0"))
    if not integer.strip("0") and "0" not in scaled:  # `#.##` shows 0.5 as `.5`
        integer = ""
    if "," in scaled and integer:
        integer = f"{int(integer):,}"
    return integer + ("." + decimals if decimals else "")
