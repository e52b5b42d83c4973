"""A query's compound words the index does not hold, read as two words, in the languages that
write compounds closed.

German, Dutch, the Scandinavian languages, Finnish, Estonian and Hungarian write a
compound as one word (`Druckereinstellungen`, `näppäimistöasettelu`), where a page
may say the same with the words apart (`Einstellungen des Druckers`). The stemmer
keeps a compound whole, so a query's compound that no page of the index writes
found nothing. Such a word is also read as two words, at the split whose two
parts the index holds most often (the product of their chunk counts: Koehn and
Knight's frequency rule, *Empirical Methods for Compound Splitting*, EACL 2003,
with the index's vocabulary as the dictionary, so a split only adds words the
index holds); a linking `s` may end the first part (`Anmeldungsoptionen`: `Anmeldung`,
`Optionen`).

A word the index holds (as its term: the stem cut to keywords.STEM_CHARS) is left
whole. Its pages are found as written, and its parts are common words (`färg` and
`profil` on every page about colour) that would lift every page of the topic
above them (docs/evaluation.md#compound-words-in-queries-2026-12-04). Documents
are not split: their stems are cut to seven characters, so the head of a
compound there is out of reach, and an index being written has no vocabulary yet.
"""

from __future__ import annotations

from collections.abc import Callable

from minirag import keywords

CLOSED_COMPOUNDS = frozenset({"da", "de", "et", "fi", "hu", "nl", "nn", "no", "sv"})
# Either part of a split: at least this many letters, and a term at least as long (shorter
# pieces are mostly endings and syllables that happen to be words: `at`, `en`, `om`).
MIN_PART_CHARS = 4
# Bounds on the work one query can ask for: longer words are not compounds of two words,
# and a query of many long words is read for its first ones.
MAX_WORD_CHARS = 64
MAX_WORDS = 16


def compound_parts(query: str, counts: Callable[[list[str]], dict[str, int]]) -> list[str]:
    """The terms of the two parts of each compound word of `query` the index does not hold, in
    word order.

    `counts(terms)`: the chunks holding each term, for the terms the index holds
    (search/keyword.py's document counts).
    """
    lang, words = keywords.query_words(query)
    if lang not in CLOSED_COMPOUNDS:
        return []
    long_words = [w for w in dict.fromkeys(words)
                  if 2 * MIN_PART_CHARS <= len(w) <= MAX_WORD_CHARS and w.isalpha()][:MAX_WORDS]
    wholes = {w: keywords.word_term(w, lang) for w in long_words}
    held = counts(sorted(set(wholes.values()))) if wholes else {}
    readings = [_splits(w, lang) for w in long_words if wholes[w] not in held]
    asked = {part for splits in readings for pair in splits for part in pair}
    held = counts(sorted(asked)) if asked else {}
    parts: list[str] = []
    for splits in readings:
        best, best_score = None, 0
        for head, tail in splits:
            score = held.get(head, 0) * held.get(tail, 0)  # the geometric mean's order
            if score > best_score:
                best, best_score = (head, tail), score
        if best is not None:
            parts.extend(best)
    return parts


def _splits(word: str, lang: str) -> list[tuple[str, str]]:
    """The (head, tail) terms of every way to cut `word` in two parts of MIN_PART_CHARS or more."""
    out = []
    for cut in range(MIN_PART_CHARS, len(word) - MIN_PART_CHARS + 1):
        head, tail = word[:cut], word[cut:]
        tail_term = keywords.word_term(tail, lang)
        heads = (head, head[:-1]) if head.endswith("s") and cut > MIN_PART_CHARS else (head,)
        for written in heads:
            head_term = keywords.word_term(written, lang)
            if min(len(head_term), len(tail_term)) >= MIN_PART_CHARS:
                out.append((head_term, tail_term))
    return out
