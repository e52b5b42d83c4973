"""Right-to-left text that a PDF gave in the order it is drawn, put back in the order it is read.

A PDF draws glyphs left to right on the page; for Arabic, Persian or Hebrew the reader's first
letter is the rightmost. pdfminer gives the drawn order unless the producer stored the text in
reading order too, and XeLaTeX and many others do not: `علوم` came out `مولع`, so no word of such a
document matched a query, and the encoder read letter soup.

Whether a text is drawn order is told from the letters themselves, which only stand at one end of
a word: Arabic's presentation forms (an initial form starts a word, a final form ends one), its
ta marbuta `ة` (only at a word's end), Hebrew's final letters (`ם ן ץ ף ך`, only at a word's end).
Where those stand at the wrong end of most words, each line is turned around: a line mostly of
right-to-left letters is reversed whole and its runs of left-to-right text (Latin words, numbers)
turned back; in a line mostly of left-to-right text, each right-to-left run is reversed. Text
already in reading order, or with too few such letters to tell, is left as it is.
"""

from __future__ import annotations

import re
import unicodedata
from itertools import pairwise

_RTL_LETTERS = ("\u0590-\u05ff\u0600-\u065f\u066a-\u06ef\u06fa-\u08ff\ufb1d-\ufdff\ufe70-\ufefe")
_DIGITS = "0-9\u0660-\u0669\u06f0-\u06f9"  # Arabic-Indic digits are read left to right, as ours are
_RTL_WORD = re.compile(f"[{_RTL_LETTERS}]+")
# A run read left to right inside right-to-left text: words and numbers, with what joins them
# (`tabriz-thesis`, `3.14`, `1442/5/4`).
_LTR_RUN = re.compile(f"[^\\s{_RTL_LETTERS}]+(?:[ ]+[^\\s{_RTL_LETTERS}]+)*")
_RTL_RUN = re.compile(f"[{_RTL_LETTERS}]+(?:[^\\S\\n]+[{_RTL_LETTERS}]+)*")
_HEBREW_FINALS = frozenset("ךםןףץ")
_TA_MARBUTA = "\u0629"
# Neighbouring forms only reading order has, and only drawn order. (An initial form beside a final
# one tells nothing: a letter that joins no letter after it, alef or reh, ends a run inside a word.)
_READ_PAIRS = frozenset({("initial", "medial"), ("medial", "final")})
_DRAWN_PAIRS = frozenset({("medial", "initial"), ("final", "medial")})
# Drawn order is taken when its signs are at least this many, and this many times those of reading order.
MIN_SIGNS = 3
MIN_SIGN_RATIO = 2
_MIRRORED = str.maketrans("()[]{}<>«»", ")(][}{><»«")
_AS_IS: dict[int, int] = {}
_LINE_BREAK = re.compile("([\n\f])")
_FIRST_BRACKET = re.compile(r"[()\[\]{}]")


def is_right_to_left(character: str) -> bool:
    return _RTL_WORD.fullmatch(character) is not None


def reading_order(text: str) -> str:
    """`text` with its right-to-left lines in reading order, where its letters show it is drawn order."""
    return turned(text) if in_drawn_order(text) else text


def turned(text: str) -> str:
    """Each line of a text known to be in drawn order (a PDF's title, whose document's text says
    so) in reading order; a page break stays where it stands, between lines."""
    return "".join(part if part in "\n\f" else _line_in_reading_order(part) for part in _LINE_BREAK.split(text))


def in_drawn_order(text: str) -> bool:
    """Whether the text's right-to-left words stand in drawn order, by their letters' signs."""
    if not _RTL_WORD.search(text):
        return False
    drawn, read = _signs(text)
    return drawn >= MIN_SIGNS and drawn >= MIN_SIGN_RATIO * read


def _signs(text: str) -> tuple[int, int]:
    """(how many word ends say drawn order, how many say reading order)."""
    drawn = read = 0
    for found in _RTL_WORD.finditer(text):
        word = "".join(character for character in found.group() if not unicodedata.combining(character))
        if not word:  # marks alone (vowel signs, points) say nothing of either end
            continue
        forms = [_form(character) for character in word]
        drawn += (forms[0] == "final") + (forms[-1] == "initial") + _only_last(word[0])
        read += (forms[0] == "initial") + (forms[-1] == "final") + _only_last(word[-1])
        for pair in pairwise(forms):  # a joined letter's neighbours: initial, medial..., final as read
            drawn += pair in _DRAWN_PAIRS
            read += pair in _READ_PAIRS
    return drawn, read


def _only_last(letter: str) -> bool:
    """Whether a letter only ever ends a word: Arabic's ta marbuta, Hebrew's final forms."""
    return letter == _TA_MARBUTA or letter in _HEBREW_FINALS


def _form(character: str) -> str:
    """An Arabic presentation form's place in its word ("initial", "final", ...); "" for other letters."""
    if not "\ufb50" <= character <= "\ufeff":
        return ""
    name = unicodedata.name(character, "")
    for form in ("initial", "medial", "final", "isolated"):
        if f"{form.upper()} FORM" in name:
            return form
    return ""


def _line_in_reading_order(line: str) -> str:
    rtl = sum(len(run) for run in _RTL_WORD.findall(line))
    if not rtl:
        return line
    ltr = sum(1 for character in line if character.isalpha()) - rtl
    if ltr > rtl:
        return _RTL_RUN.sub(lambda run: run.group()[::-1], line)
    # A right-to-left line: reversed whole, its left-to-right runs turned back. Some producers write
    # a bracket as the character it looks like, the mirror image of the one meant (`(` drawn for
    # `)`); so where the reversed line's first bracket closes, its brackets are mirrored back.
    reversed_line = line[::-1]
    opening = _FIRST_BRACKET.search(reversed_line)
    mirror = _MIRRORED if opening is not None and opening.group() in ")]}" else _AS_IS
    return _LTR_RUN.sub(lambda run: _turned_back(run.group(), mirror), reversed_line.translate(mirror))


def _turned_back(run: str, mirror: dict[int, int]) -> str:
    """A run of a reversed right-to-left line in its own order again, where it holds a word or a
    number; punctuation alone belongs to the right-to-left text around it."""
    return run[::-1].translate(mirror) if any(character.isalnum() for character in run) else run
