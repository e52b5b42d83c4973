"""The part of a hit's text the CLI shows: the stretch that holds the most of the query's words.

A chunk runs to a few thousand characters and the CLI shows SNIPPET_CHARS of it. Its opening
says what the chunk is about, but the words that made it a hit may lie anywhere in it (a row
of a long table, the last paragraph of a section). Words are matched as the keyword side
matches them (keywords.py: stemmed in the chunk's language, Chinese and Japanese runs as
character pairs), so `printing` finds `printed` and `消息` finds `飞书消息`.
"""

from __future__ import annotations

import bisect
import math
import re
from collections.abc import Mapping

from minirag import keywords
from minirag.fts_fold import MARKS_ASTRAL, MARKS_BMP

SNIPPET_CHARS = 300
#: How much text before the first matched word a window keeps, so the match is read in context.
LEAD_CHARS = 60
#: Windows tried at most, one opening on each of that many matches spread over the text.
MAX_WINDOWS = 400
#: How far into a chunk the snippet reads. A chunk minirag writes is cut at the model's token
#: budget, far shorter; a longer one was planted in the index, and matching its words costs more
#: than in proportion to its length (one giant word is stemmed whole).
SCAN_CHARS = 64 * 1024

_UNSPACED = keywords.UNSPACED_CHARS
_MARK = f"[{MARKS_BMP}{MARKS_ASTRAL}]"
# Words as keywords.py reads them: letters and digits with the combining marks written on them
# (`पुस्तकालय`, Arabic with its vowel signs), which Python's \w leaves out.
_SPACED_WORD = re.compile(f"(?:[^\\W_{_UNSPACED}]|(?![{_UNSPACED}]){_MARK})+")
# A character of an unspaced script with the marks written on it (Thai `ที่` is one): the keyword
# side pairs such characters.
_UNSPACED_CHARACTER = re.compile(f"(?!{_MARK})[{_UNSPACED}]{_MARK}*")


def snippet(text: str, query: str | None = None, weights: Mapping[str, float] | None = None,
            width: int = SNIPPET_CHARS) -> str:
    """`text` on one line, cut to `width` characters around the query's words (from its start
    when they are there already, or absent), `…` marking each cut. Each distinct query term a
    stretch holds counts for its weight (keywords.query_terms' terms: 1 when not given)."""
    cut = len(text) > SCAN_CHARS
    flat = " ".join(text[:SCAN_CHARS].split())
    if len(flat) <= width:
        return flat + ("…" if cut else "")
    start = _best_start(flat, query, weights or {}, width) if query else 0
    if start > len(flat) - width:  # a window near the end is moved back to be full
        start = _word_start(flat, len(flat) - width, start)
    end = start + width
    if end < len(flat) and _in_a_word(flat, end) and (space := flat.rfind(" ", start, end)) > start + width // 2:
        end = space  # not in the middle of a word (a word longer than half the window is cut)
    return ("…" if start else "") + flat[start:end].strip() + ("…" if end < len(flat) or cut else "")


def _best_start(flat: str, query: str, weights: Mapping[str, float], width: int) -> int:
    """Where the window whose distinct query terms weigh most begins: of equals, the one that
    opens on the weightiest word (not one that only just reaches it), then the earliest."""
    lang = keywords.text_language(flat)
    matches = _matches(flat, set(keywords.query_terms(query, (lang,) if lang else ())), lang)
    # The opening wins ties: it says what the chunk is about.
    opening = [_weight(found, weights) for start, end, found in matches if end <= width]
    starts = [start for start, _end, _found in matches]
    best, best_rank = 0, (_held(matches, starts, 0, width, weights), max(opening, default=0.0))
    # Each window costs the matches inside it: on a text matched everywhere (a long run of one
    # word) only every few matches opens a window, so the whole stays linear in the text.
    for start, _end, found in matches[:: max(1, len(matches) // MAX_WINDOWS)]:
        begin = _word_start(flat, max(0, start - LEAD_CHARS), start)
        rank = (_held(matches, starts, begin, width, weights), _weight(found, weights))
        if rank > best_rank:
            best, best_rank = begin, rank
    return best


def _matches(flat: str, wanted: set[str], lang: str | None) -> list[tuple[int, int, set[str]]]:
    """(start, end, the query terms found there) for each word of `flat` the query holds; in an
    unspaced run, each pair of characters (a single character, as common as `的`, is no match)."""
    found = []
    for word in _SPACED_WORD.finditer(flat):
        if terms := wanted.intersection(keywords.terms(word.group(), lang)):
            found.append((word.start(), word.end(), terms))
    # Only a pair opening on a character that opens a wanted term is made into a term: a long
    # Chinese chunk is tens of thousands of pairs. (A pair in another width than the query's is
    # missed, and the snippet opens the chunk as before.)
    firsts = {term[0] for term in wanted}
    previous = None
    for character in _UNSPACED_CHARACTER.finditer(flat):
        if (previous is not None and previous.end() == character.start() and flat[previous.start()].lower() in firsts
                and (pair := keywords.terms(flat[previous.start() : character.end()], lang)[0]) in wanted):
            found.append((previous.start(), character.end(), {pair}))
        previous = character
    return sorted(found, key=lambda match: match[0])


def _held(matches: list[tuple[int, int, set[str]]], starts: list[int], begin: int, width: int,
          weights: Mapping[str, float]) -> float:
    """The weight of the distinct query terms the window of `width` from `begin` holds (`starts`:
    the matches' starts, so only the matches inside it are read)."""
    held: set[str] = set()
    for at in range(bisect.bisect_left(starts, begin), len(matches)):
        start, end, found = matches[at]
        if start >= begin + width:
            break
        if end <= begin + width:
            held |= found
    return _weight(held, weights)


def _weight(terms: set[str], weights: Mapping[str, float]) -> float:
    # fsum: the same terms weigh the same whatever order a set gives them in (a plain sum's last
    # bit depends on it, and with it which of two equal windows is shown).
    return math.fsum(weights.get(term, 1.0) for term in terms)


def _in_a_word(flat: str, at: int) -> bool:
    """Whether `at` falls inside a spaced word (an unspaced run may be cut between any two characters)."""
    found = _SPACED_WORD.match(flat, at - 1, at + 1)
    return found is not None and found.end() == at + 1


def _word_start(flat: str, begin: int, match: int) -> int:
    """`begin` moved on to the start of a word, never past the match."""
    if begin == 0 or not _in_a_word(flat, begin):
        return begin
    space = flat.find(" ", begin, match)
    return match if space < 0 else space + 1
