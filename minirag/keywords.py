"""Keyword side: the text FTS5 indexes and the FTS5 query built from user input.

FTS5's tokenizers do no stemming beyond English (porter) and none at all for
Russian, so words are stemmed here, in Python, with Snowball — English for
Latin-script words, Russian for Cyrillic ones — and FTS5 indexes the stems.
Index text and query text go through the same `terms`, so they always agree.
No user string reaches FTS5 syntax: every term is quoted.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

import snowballstemmer

from minirag.fts_fold import FOLD as FTS5_FOLD

#: Bumped whenever `terms` changes for the same input: the FTS table is then
#: rebuilt from the stored chunks the next time the index is opened for writing.
KEYWORD_SCHEME = 5

# Words as FTS5's unicode61 tokenizer sees them: runs of letters and digits.
_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_CYRILLIC = re.compile(r"[\u0400-\u04ff]")
_LATIN = re.compile(r"[a-z]")
MAX_QUERY_TERMS = 64
# An identifier written as one token: letter and digit runs joined by "_", "." or "::"
# (`os.path.join`, `persistent_load`, `std::vector`, `config.yaml`). Its parts are words
# like any other; the identifier is also a term of its own (see `compounds`), so a query
# that names it ranks the chunks that spell it out above those that only hold its parts.
# A match starts only at a word's first character and its runs never give characters back,
# so a long word without joiners costs linear time (backtracking made it quadratic). A dot
# between two digits is a decimal point, not a joiner: `2.5mg` and `v1.10` are not names.
_COMPOUND = re.compile(r"(?<![^\W_])[^\W_]++(?:(?:_+|(?<!\d)\.|\.(?!\d)|::)[^\W_]++)+", re.UNICODE)
_SCOPE = re.compile(r"\.|::")
MIN_COMPOUND_CHARS = 3  # "e.g", "i.e", "U.S" are abbreviations, not identifiers
# Longer runs are not identifiers, and each tail is another term: a hostile "a.a.a.a…"
# must not turn n bytes into n²/2 bytes of terms.
MAX_COMPOUND_CHARS = 100
MAX_COMPOUND_SEGMENTS = 8

# Typesetting that is not part of any word: the soft hyphen (U+00AD, an invisible break hint) and the
# Latin ligatures (U+FB00-FB06) PDF text layers hold. Conversion takes them out of documents
# (ingest/text_repair.py); the keyword text folds them too, so a query pasted from a PDF viewer
# ("signiﬁcant") matches, and so do chunks stored before that repair.
TYPESETTING = {0x00AD: None, 0xFB00: "ff", 0xFB01: "fi", 0xFB02: "fl", 0xFB03: "ffi", 0xFB04: "ffl",
               0xFB05: "st", 0xFB06: "st"}

# What FTS5 folds, and `ё` as `е`, which Russian spelling leaves to the writer (FTS5 keeps it).
_FOLD = {**FTS5_FOLD, ord("ё"): "е", **TYPESETTING}

_STEMMERS = {"en": snowballstemmer.stemmer("english"), "ru": snowballstemmer.stemmer("russian")}

# Dropped from queries (never from the index) when the query has other words:
# they match nearly every chunk, cost posting-list scans and add only noise.
_STOPWORDS = frozenset(
    ["a", "an", "and", "are", "as", "at", "be", "by", "for", "from", "how", "i", "in", "is", "it", "of", "on", "or", "that", "the", "this", "to", "was", "what", "when", "where", "which", "who", "why", "will", "with", "you", "your", "do", "does", "can", "my", "me", "и", "в", "во", "на", "не", "что", "с", "со", "как", "а", "то", "все", "она", "так", "его", "но", "да", "ты", "к", "у", "же", "вы", "за", "бы", "по", "только", "ее", "мне", "было", "вот", "от", "меня", "еще", "нет", "о", "из", "ему", "теперь", "когда", "даже", "ну", "ли", "если", "уже", "или", "ни", "быть", "был", "него", "до", "вас", "нибудь", "опять", "уж", "вам", "ведь", "там", "потом", "себя", "ничего", "ей", "может", "они", "тут", "где", "есть", "надо", "ней", "для", "мы", "тебя", "их", "чем", "была", "сам", "чтоб", "без", "будто", "чего", "раз", "тоже", "себе", "под", "будет", "ж", "тогда", "кто", "этот", "того", "потому", "этого", "какой", "совсем", "ним", "здесь", "этом", "один", "почти", "мой", "тем", "чтобы", "нее", "сейчас", "были", "куда", "зачем", "всех", "никогда", "можно", "при", "наконец", "два", "об", "другой", "хоть", "после", "над", "больше", "тот", "через", "эти", "нас", "про", "всего", "них", "какая", "много", "разве", "три", "эту", "моя", "впрочем", "хорошо", "свою", "этой", "перед", "иногда", "лучше", "чуть", "том", "нельзя", "такой", "им", "более", "всегда", "конечно", "всю", "между"]
)


@lru_cache(maxsize=200_000)
def stem(word: str) -> str:
    """`word` is already lower-case. Words mixing scripts or with digits are kept whole."""
    if word.isdigit() or len(word) < 3:
        return word
    if _CYRILLIC.search(word):
        return _STEMMERS["ru"].stemWord(word.replace("ё", "е")) if not _LATIN.search(word) else word
    if word.isascii() and word.isalpha():
        return _STEMMERS["en"].stemWord(word)
    return word


def _folded(text: str) -> str:
    """Composed (NFC), lower-case, and folded as FTS5's tokenizer would fold it (`é` -> `e`),
    so that FTS5 finds nothing to change in the keyword text: its vocabulary, and the BM25
    that search/keyword.py computes from the stored text, then count the same tokens."""
    if text.isascii():
        return text.lower()
    if not unicodedata.is_normalized("NFC", text):
        text = unicodedata.normalize("NFC", text)
    return text.lower().translate(_FOLD)


def words(text: str) -> list[str]:
    return _WORD.findall(_folded(text))


def compounds(text: str) -> list[str]:
    """Each identifier of `text` as terms, lower-case, joiners dropped: the whole name and each
    shorter qualified tail (`os.path.join` gives `ospathjoin` and `pathjoin`; `decimal.MIN_EMIN`
    gives `decimalminemin` and `minemin`), so `path.join` or `MIN_EMIN` finds the chunk that
    spells the full name. A lone segment is a compound only if it had underscores; none without
    a letter (`3.11`, `1.5` are numbers), none under MIN_COMPOUND_CHARS (`e.g`, `U.S`)."""
    return _compounds_of(_folded(text))


def _compounds_of(folded: str) -> list[str]:
    out = []
    for match in _COMPOUND.findall(folded):
        segments = _SCOPE.split(match)
        if len(match) > MAX_COMPOUND_CHARS or len(segments) > MAX_COMPOUND_SEGMENTS:
            continue
        for start in range(len(segments)):
            tail = segments[start:]
            if len(tail) == 1 and "_" not in tail[0]:
                continue
            joined = "".join(tail).replace("_", "")
            if len(joined) >= MIN_COMPOUND_CHARS and any(ch.isalpha() for ch in joined):
                out.append(joined)
    return out


def terms(text: str) -> list[str]:
    folded = _folded(text)  # once: it is on the ingest path for every chunk
    return [stem(w) for w in _WORD.findall(folded)] + _compounds_of(folded)


def normalize(text: str) -> str:
    """The text stored in the FTS table for a chunk body or a title."""
    return " ".join(terms(text))


def query_terms(text: str) -> list[str]:
    """Distinct stemmed terms of a query, stop words dropped when other words remain."""
    folded = _folded(text)
    all_words = _WORD.findall(folded)
    content = [w for w in all_words if w not in _STOPWORDS] or all_words
    seen: dict[str, None] = {}
    for term in [stem(word) for word in content] + _compounds_of(folded):
        seen.setdefault(term, None)
        if len(seen) >= MAX_QUERY_TERMS:
            break
    return list(seen)


def match_expression(terms: list[str]) -> str | None:
    """A safe FTS5 MATCH expression: each term quoted, OR-ed. None if no terms."""
    if not terms:
        return None
    return " OR ".join('"' + t.replace('"', '""') + '"' for t in terms)


def fts_query(text: str) -> str | None:
    return match_expression(query_terms(text))
