"""Keyword side: the text FTS5 indexes and the FTS5 query built from user input.

FTS5's tokenizers stem nothing but English (porter) and cut a run of Chinese or
Japanese characters as one token, so the keyword text is made here, in Python:
each word is stemmed with the Snowball stemmer of its chunk's language (see
language.py), and each run of a script written without spaces (CJK, Thai, Lao,
Myanmar, Khmer) is cut into overlapping character bigrams; FTS5 indexes the
result. Index text and query text go through the same rules, so they always
agree. No user string reaches FTS5 syntax: every term is quoted.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from minirag import language, writing
from minirag.chunking.links import link_texts
from minirag.fts_fold import DIGIT_ZEROS, MARKS_ASTRAL, MARKS_BMP
from minirag.fts_fold import FOLD as FTS5_FOLD
from minirag.keyword_scheme import KEYWORD_SCHEME as KEYWORD_SCHEME  # where callers have read it
from minirag.stopwords import STOPWORDS
from minirag.typesetting import TYPESETTING

# A stemmed word keeps at most this many characters: Snowball leaves many forms of one word apart
# (compound heads, Finnish and Hungarian case endings, Slavic and Scandinavian inflections), and
# their common prefix joins them. Words no stemmer reads are kept whole (docs/search.md).
STEM_CHARS = 7

# Words as FTS5's tokenizer sees them (store/schema.py): runs of letters, digits and combining
# marks, so a word keeps its vowel signs and viramas (`हिन्दी`, `தமிழ்`), which Python's \w leaves
# out. Text without marks takes the plain pattern, the faster one. A class of marks beyond the
# Basic Multilingual Plane costs `re` a test per range for each character, so only a character
# from there (rare: emoji, historic scripts) is tried against it.
_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_ASTRAL = "\U00010000-\U0010ffff"
_MARK_OF = f"[{MARKS_BMP}]|(?=[{_ASTRAL}])[{MARKS_ASTRAL}]"
_MARKED_WORD = re.compile(f"(?:[^\\W_]|{_MARK_OF})++")
_MAY_MARK = re.compile(f"[{MARKS_BMP}{_ASTRAL}]")
# Han, kana, Hangul (and the iteration and closing marks written inside such runs).
CJK_CHARS = ("\u1100-\u11ff\u3005-\u3007\u3040-\u30ff\u3130-\u318f\u31f0-\u31ff\u3400-\u4dbf"
              "\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\uff66-\uff9f\U00020000-\U0003134f")
# Scripts written without spaces between words: CJK, Thai, Lao, Myanmar and Khmer. A run of
# them is cut into overlapping bigrams of its characters, a character being a letter with the
# marks written on it (`ที่` is one), and the characters themselves.
UNSPACED_CHARS = CJK_CHARS + "\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff\u19e0-\u19ff\ua9e0-\ua9ff\uaa60-\uaa7f"
_UNSPACED = re.compile(f"[{UNSPACED_CHARS}]")
_UNSPACED_PIECES = re.compile(f"[{UNSPACED_CHARS}]+|[^{UNSPACED_CHARS}]+")
_CHARACTER = re.compile(f"(?!{_MARK_OF}).(?:{_MARK_OF})*|(?:{_MARK_OF})+")
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

# Characters no reader sees (Unicode's Default_Ignorable_Code_Point): variation selectors (`⚠️` is
# `⚠` and one: written before a word, Python's words took it for the word's first mark, and FTS5
# too), zero-width spaces and joiners, word joiners, bidi controls and marks, tags, Hangul fillers.
# Written inside a word, the word is the word without them, as Unicode's NFKC_Casefold (ICU's
# folding) takes it: `inter\u200bnational`, Sinhala `ශ්\u200dරී` typed `ශ්රී`. Not the zero-width
# non-joiner, which Persian writes between a word's parts (Lucene's Persian analysis reads it as
# a space, as Python's words do).
INVISIBLE = {c: None for c in (0x034F, 0x061C, 0x115F, 0x1160, 0x17B4, 0x17B5, *range(0x180B, 0x1810),
                               0x200B, *range(0x200D, 0x2010), *range(0x202A, 0x202F), *range(0x2060, 0x2070),
                               0x3164, *range(0xFE00, 0xFE10), 0xFEFF, 0xFFA0, *range(0xFFF0, 0xFFF9),
                               *range(0x1BCA0, 0x1BCA4), *range(0x1D173, 0x1D17B), *range(0xE0000, 0xE1000))}

# Spellings a reader takes for the same word, which FTS5 keeps apart. Letters with a stroke or
# joined letters that no Unicode decomposition takes to a base letter, as `é` is taken to `e`,
# and that a keyboard without them writes as the base letters (`zlota` for `złota`, `coeur` for
# `cœur`); not Vietnamese `đ`, whose words differ from d's in their most common ones (`đi`, `di`;
# `đó`, `do`). `ё`, which Russian spelling leaves to the writer; the Arabic yeh and kaf where
# Persian text may hold either form, as Persian spells them.
SPELLING = {ord("ł"): "l", ord("ø"): "o", ord("ħ"): "h", ord("ŧ"): "t", ord("ı"): "i",
            ord("æ"): "ae", ord("œ"): "oe", ord("ß"): "ss", ord("ё"): "е",
            ord("\u064a"): "\u06cc", ord("\u0649"): "\u06cc", ord("\u0643"): "\u06a9"}
# A digit of any script is that digit (`١٢٣`, `२०२४`): a number, not letters of a run to cut.
DIGITS = {zero + i: str(i) for zero in DIGIT_ZEROS for i in range(10)}
# Marks a writer may add or leave out without changing the word: Hebrew points and cantillation,
# Arabic vowel marks (harakat), and the tatweel that stretches an Arabic word for display.
POINTING = {c: None for c in (*range(0x0591, 0x05C8), *range(0x064B, 0x0660), 0x0670, 0x0640)
            if unicodedata.category(chr(c)) == "Mn" or c == 0x0640}

# Marks that enclose what comes before them (the keycap of `#️⃣`, a circle): no letter's part, as
# a word's vowel signs are, so a space, else `#️⃣hashtag` is indexed as `⃣hashtag`, which no query finds.
ENCLOSING = {c: " " for c in (0x0488, 0x0489, 0x1ABE, *range(0x20DD, 0x20E1), *range(0x20E2, 0x20E5),
                              *range(0xA670, 0xA673))}

# What FTS5 folds, and the spellings, pointing and digits above.
_FOLD = {**FTS5_FOLD, **SPELLING, **POINTING, **DIGITS, **TYPESETTING, **INVISIBLE, **ENCLOSING}
# Applied before words are cut and stemmed: typesetting, digits, and the part of _FOLD that deletes a
# character or makes it a space (the rest of _FOLD folds each stem).
_SPLITTING = {**{k: v for k, v in _FOLD.items()
                 if v is None or not _WORD.fullmatch(v if isinstance(v, str) else chr(v))},
              **DIGITS, **TYPESETTING, **INVISIBLE, **ENCLOSING}



def stem(word: str, lang: str | None = None, cut: bool = True) -> str:
    """`word` is lower-case and not yet folded. Stemmed with the stemmer of `lang` when it has
    one for the word's script, else the script's default (language.SCRIPT_DEFAULT), and cut to
    STEM_CHARS unless `cut` is False; words mixing scripts or with digits, and words under 3
    letters, are kept whole, and so is a word the stemmer leaves nothing of (Greek `έως`, Nepali
    `छन्`: an empty term is no token to FTS5)."""
    if len(word) < 3 or word.isdigit():
        return word
    script = language.script_of(word)
    chosen = language.stemmer_for(script, lang) if script else None
    if chosen is None:
        return word
    keep = STEM_CHARS if cut else None
    if chosen == "en":
        # Snowball's English is written for ASCII: it stems the folded word (`naïve` as `naive`).
        folded = word.translate(_FOLD)
        return (language.stem(folded, chosen) or folded)[:keep] if folded.isascii() else folded
    read = word.replace("ё", "е") if chosen == "ru" else word
    return (language.stem(read, chosen) or read)[:keep]


def _composed(text: str) -> str:
    """`text` in Unicode's compatibility composition (NFKC): a letter written in another width or
    form is the letter (`Ｐｙｔｈｏｎ` and `Python`, halfwidth `ｶﾅ` and `カナ`, an Arabic
    presentation form and its letter, `x²` and `x2`), as a reader takes it."""
    if text.isascii() or unicodedata.is_normalized("NFKC", text):
        return text
    return unicodedata.normalize("NFKC", text)


def _folded(text: str) -> str:
    """Composed (`_composed`), lower-case, and folded as FTS5's tokenizer would fold it
    (`é` -> `e`), so that FTS5 finds nothing to change in the keyword text: its vocabulary, and
    the BM25 that search/keyword.py computes from the stored text, then count the same tokens."""
    if text.isascii():
        return text.lower()
    return _composed(text).lower().translate(_FOLD)


def _words_of(text: str) -> list[str]:
    return (_MARKED_WORD if _MAY_MARK.search(text) else _WORD).findall(text)


def words(text: str) -> list[str]:
    return _words_of(_folded(text))


def _prepared(text: str) -> str:
    """`text` composed (`_composed`, by the caller: its names are read from that too), lower-case, with what folding deletes or turns into a space already gone: its
    words are then the words of the folded text, each still spelled as written (for the stemmer)."""
    if text.isascii():
        return text.lower()
    return text.lower().translate(_SPLITTING)


@lru_cache(maxsize=400_000)
def _term(word: str, lang: str | None, cut: bool = True) -> str:
    return stem(word, lang, cut).translate(_FOLD)


def _names(text: str) -> frozenset[str]:
    """The words of `text` written in mixed case with a capital inside (AsyncResult, assertIs,
    iPhone), lower-cased: names, which do not inflect, and two of them may share a long prefix
    (assertIs, assertIsNone), so their stems are not cut. All capitals (GNOME, SETTINGS) is not one."""
    if text == text.lower() or text == text.upper():
        return frozenset()
    # str methods, not a loop over characters: this runs over every chunk written.
    return frozenset(w.lower() for w in _words_of(text) if w[1:] != w[1:].lower() and w != w.upper())


def _word_terms(word: str, langs: tuple[str | None, ...], singles: list[str] | None = None,
                names: frozenset[str] = frozenset()) -> list[str]:
    """The terms of one word (as `_prepared` gives it) for each of `langs`, folded. The single
    characters of its unspaced runs go to `singles` when given (a query ranks them last), else
    inline. A word in `names` (see _names) keeps its whole stem."""
    if not _UNSPACED.search(word):
        cut = word not in names
        return [_term(word, lang, cut) for lang in langs]
    out: list[str] = []
    singles = out if singles is None else singles
    for piece in _UNSPACED_PIECES.findall(word):
        if not _UNSPACED.match(piece):
            out.extend(_term(piece, lang) for lang in langs)
            continue
        chars = _CHARACTER.findall(piece) if _MAY_MARK.search(piece) else piece
        if len(chars) == 1:
            out.append(chars[0].translate(_FOLD))
        else:
            out.extend((chars[i] + chars[i + 1]).translate(_FOLD) for i in range(len(chars) - 1))
            singles.extend(ch.translate(_FOLD) for ch in chars)
    return out


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


def terms(text: str, lang: str | None = None) -> list[str]:
    """The keyword terms of a text written in `lang` (None: unidentified)."""
    text = _composed(text)
    prepared = _prepared(text)  # once: it is on the ingest path for every chunk
    langs = (lang,)
    names = _names(text)
    out = []
    for word in _words_of(prepared):
        out.extend(_word_terms(word, langs, names=names))
    return out + _compounds_of(prepared.translate(_FOLD))


_UNSEEN = {**TYPESETTING, **INVISIBLE}


def text_language(text: str) -> str | None:
    """The language `text` is identified as, read as its letters (`_composed`: presentation forms,
    widths) without typesetting (`ﬁ`, soft hyphens) or invisible characters."""
    return language.identify(_composed(text).translate(_UNSEEN))


@lru_cache(maxsize=64)
def query_language(query: str) -> str | None:
    """text_language of a query, remembered: its terms and its fusion weight both ask."""
    return text_language(query)


def normalize(text: str, lang: str | None = None) -> str:
    """The text stored in the FTS table for a chunk body or a title written in `lang`."""
    return " ".join(terms(text, lang))


@dataclass(frozen=True)
class KeywordText:
    """What the FTS table holds for one chunk: its body and its source's title, both stemmed in the
    language the body is identified as (None: unidentified), and the writing systems the body is
    written in (writing.scripts_of, space-separated: what a query's words can be found in)."""

    language: str | None
    body: str
    title: str
    scripts: str


def keyword_texts(texts: Sequence[str], title: str) -> tuple[KeywordText, ...]:
    """The KeywordText of each chunk of one document. A chunk the identifier is unsure of (a
    heading and a line, a table, a list of names) is taken to be in the language most of the
    document's identified text is written in, not left to its script's default stemmer; so is a
    chunk identified as a close kin of that language (language.KIN: a Serbian page's paragraph
    read as Macedonian), whose stems would otherwise never meet the rest of the document's."""
    found = [text_language(text) for text in texts]
    weight: dict[str, int] = {}
    for text, lang in zip(texts, found, strict=True):
        if lang is not None:
            weight[lang] = weight.get(lang, 0) + len(text)
    usual = max(weight, key=weight.__getitem__) if weight else None
    chosen = [usual if lang is None or language.kin(lang, usual) else lang for lang in found]
    # A link's address (`[max_wal_size](runtime-config-wal.html#GUC-MAX-WAL-SIZE)`) is not the passage's words.
    return tuple(KeywordText(lang, normalize(link_texts(text), lang), normalize(title, lang),
                             " ".join(writing.scripts_of(text)))
                 for text, lang in zip(texts, chosen, strict=True))


def query_terms(text: str, index_languages: tuple[str, ...] = ()) -> list[str]:
    """Distinct terms of a query, stop words dropped when other words remain. Each word is stemmed
    for every language it may be in: the query's own (when identified) and the index's."""
    content, langs, names, prepared = _query_content(text, index_languages)
    seen: dict[str, None] = {}
    singles: list[str] = []
    words_terms = [t for word in content for t in _word_terms(word, langs, singles, names)]
    for term in words_terms + _compounds_of(prepared.translate(_FOLD)) + singles:
        seen.setdefault(term, None)
        if len(seen) >= MAX_QUERY_TERMS:
            break
    return list(seen)


def other_case_terms(text: str, index_languages: tuple[str, ...] = ()) -> list[tuple[str, str]]:
    """(term, other) for each word of a query, in a script with case, whose term differs when the
    word is written in the other case: a name in mixed case keeps its whole stem (`PostgreSQL`:
    postgresql) and a word typed in one case is cut (`postgresql`: postgre), so neither finds the
    other as typed (search/plan.py looks `other` up where the index lacks `term`)."""
    content, langs, names, _prepared_text = _query_content(text, index_languages)
    pairs = []
    for word in content:
        if _UNSPACED.search(word) or word == word.upper():  # no case to have typed otherwise
            continue
        cut = word not in names
        for lang in langs:
            term, other = _term(word, lang, cut), _term(word, lang, not cut)
            if other != term:
                pairs.append((term, other))
    return list(dict.fromkeys(pairs))


def _query_content(text: str, index_languages: tuple[str, ...]):
    """A query's content words (stop words dropped when others remain), the languages to stem
    them for, its names (_names) and its prepared text."""
    composed = _composed(text)
    prepared = _prepared(composed)
    all_words = _words_of(prepared)
    # Identified when a word of a stemmed script is there, alone or joined to an unspaced run
    # (`ANDfi𠀀`): its stems must be the ones the index made of the same text.
    spaced = any(not _UNSPACED.match(piece) for w in all_words for piece in _UNSPACED_PIECES.findall(w))
    own = query_language(text) if spaced else None
    stop = _stopwords(own)
    content = [w for w in all_words if w.translate(_FOLD) not in stop] or all_words
    langs = tuple(dict.fromkeys((own, *index_languages)))
    return content, langs, _names(composed), prepared


def query_words(text: str) -> tuple[str | None, list[str]]:
    """The language a query is identified as (None: unidentified or only unspaced runs) and its
    words as the stemmer takes them (lower-case, not yet folded), unspaced runs left out."""
    spaced = [w for w in _words_of(_prepared(_composed(text))) if not _UNSPACED.search(w)]
    return (query_language(text) if spaced else None), spaced


def word_term(word: str, lang: str | None) -> str:
    """The term a word (as query_words gives it) is indexed as in a text written in `lang`."""
    return _term(word, lang)


@lru_cache(maxsize=64)
def _stopwords(lang: str | None) -> frozenset[str]:
    """Folded, as query words are compared: English and Russian always, and those of `lang`."""
    words = STOPWORDS["en"] | STOPWORDS["ru"] | STOPWORDS.get(lang or "", frozenset())
    return frozenset(w.translate(_FOLD) for w in words)


def match_expression(terms: list[str]) -> str | None:
    """A safe FTS5 MATCH expression: each term quoted, OR-ed. None if no terms."""
    return any_term(terms) if terms else None


def any_term(terms: list[str]) -> str:
    """The FTS5 MATCH expression of one term or more, each quoted, OR-ed."""
    if not terms:
        raise ValueError("an FTS5 MATCH expression needs a term")
    return " OR ".join('"' + t.replace('"', '""') + '"' for t in terms)


def fts_query(text: str) -> str | None:
    return match_expression(query_terms(text))
