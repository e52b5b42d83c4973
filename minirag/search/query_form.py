"""The default fusion weight, from the form of the query: prose leans on the vector side.

Dense encoders are trained on question -> passage pairs and read a question's
meaning; BM25 matches its words, and many words of a question (need, work,
happen, way) say little about the page that answers it. On two question sets
(the Python FAQ's questions over its answers and 1,300 other sections of the
Python docs; GNOME help pages whose titles are questions, titles removed),
hybrid at the keyword side's usual share of 0.4 scored below the vector side
alone with both e5-small and MiniLM-L6; with 0.2 for questions it beat the
vector side on both. Keyword-style queries (index terms, descriptions) keep
0.4: on them the keyword side is as strong as the vector side and the mix
gains most. Users and agents also type questions without the mark: yes/no
questions ("can I undo a sync") are told by an auxiliary and a pronoun. The
numbers: see docs/evaluation.md#question-sets.

A statement written as a sentence (a description, an instruction: it ends with
a full stop) is prose too, with the same excess of words that say little, but
fewer of them than a question: it gets a share between the two (on the page
descriptions of the help sets, in four languages and with both models that
read them, 0.3 beat 0.4: docs/evaluation.md#sentences).

A query of one or two words each written as a name or a code is written (`ColorMunki`,
`GTIFF`, `Dana-Farber`, `3945ABG`: a capital past the first letter, a digit, or a hyphen
inside it) is a lookup: the encoder cuts such a word into pieces whose
vectors say little, while the keyword side matches it exactly. It gets 0.7: on
known-item queries drawn from five dev corpora (a word only the relevant page holds),
hybrid at the default share lost 0.01-0.18 nDCG@10 to the keyword side alone, and at
0.7 it is level with it (docs/evaluation.md#names-and-codes).

A model trained on a few languages (all-MiniLM-L6-v2: English) reads a query
in another language poorly, though its script is one it spells: there the
keyword side leads, with 0.7 (docs/evaluation.md#sentences). A query in a
script the model cannot spell at all is left to the keyword side alone
(plan.py).

This is only the default. A weight set by RAG_HYBRID_WEIGHT is used as given
for every query.
"""

from __future__ import annotations

import re
import unicodedata

from minirag import keywords
from minirag.config import (
    DEFAULT_HYBRID_WEIGHT,
    FOREIGN_HYBRID_WEIGHT,
    NAME_HYBRID_WEIGHT,
    QUESTION_HYBRID_WEIGHT,
    SENTENCE_HYBRID_WEIGHT,
)
from minirag.fts_fold import MARKS
from minirag.keywords import UNSPACED_CHARS, query_language

# Words that open a question without a question mark ("how do I delete a file").
# English and Russian only: elsewhere the question mark alone decides.
INTERROGATIVES = frozenset({
    "what", "why", "how", "when", "where", "which", "who", "whom", "whose",
    "как", "что", "почему", "зачем", "когда", "где", "куда", "откуда", "кто", "чем", "сколько",
    "какой", "какая", "какое", "какие", "каким", "какую",
})
# A yes/no question has no interrogative word: English inverts an auxiliary and its subject ("can I
# undo a sync", "is there a limit"); the subject must be a pronoun, since an auxiliary alone also
# opens index terms and instructions ("does not divide relation", "Have a delay between...").
AUXILIARIES = frozenset({
    "am", "is", "are", "was", "were", "do", "does", "did", "have", "has", "had", "can", "could",
    "will", "would", "shall", "should", "may", "might", "must", "cannot",
    # before n't: "can't you", "don't I", "isn't there"
    "isn", "aren", "wasn", "weren", "don", "doesn", "didn", "haven", "hasn", "hadn", "won", "wouldn",
    "shouldn", "couldn", "mustn",
})
SUBJECTS = frozenset({
    "i", "you", "we", "they", "he", "she", "it", "there", "this", "that", "these", "those",
    "my", "your", "our", "their", "its", "his", "her", "someone", "anyone",
})
# "do it yourself", "have this ready": an imperative takes these as its object, not its subject.
IMPERATIVE_VERBS = frozenset({"do", "have"})
OBJECTS_TOO = frozenset({"it", "this", "that", "these", "those"})
# Russian marks a yes/no question with the particle "ли" right after its first word ("можно ли ...").
RUSSIAN_QUESTION_PARTICLE = "ли"
QUESTION_MARKS = ("?", "\uff1f", "\u061f", "\u037e")  # ASCII, full-width, Arabic, Greek
# ASCII, ideographic, full-width, half-width, Devanagari danda, Urdu
FULL_STOPS = (".", "\u3002", "\uff0e", "\uff61", "\u0964", "\u06d4")
MIN_SENTENCE_WORDS = 3  # "e.g.", "v1.2.", "Wi-Fi." are not sentences
# After the mark: closing quotes and brackets (a quoted question is one), "?!", "?.." and spaces.
QUOTES_AND_SPACES = "\"')]}»”’」』）】" + "\u00a0 \t\r\n"
CLOSERS = QUOTES_AND_SPACES + "!.…"
MAX_NAME_WORDS = 2  # "Dana-Farber", "ColorMunki 3945ABG"; a longer query says more than a name
# A joiner inside one name (`Dana-Farber`, `Wi-Fi`). Not `_`, `.`, `::` or `/`: they join or part the words of
# a code identifier (`get_stack`, `random.choices`), which the encoder reads, and there the default did better.
NAME_JOINERS = ("-",)
NAME_EDGE_PUNCTUATION = "\"'`()[]{}<>,;:!?.«»“”‘’"  # quotes and marks around a name are no part of it
# A word of a sentence, with its combining marks: each character of a script written without
# spaces (CJK, Thai) counts as one.
_SENTENCE_WORD = re.compile(f"[{UNSPACED_CHARS}]|(?:[^\\W{UNSPACED_CHARS}]|[{MARKS}])+")


def _visible(text: str) -> str:
    """`text` without format characters (bidi marks, zero-width spaces): they are invisible and never decide."""
    return "".join(ch for ch in text if unicodedata.category(ch) != "Cf")


def is_question(text: str) -> bool:
    """A natural-language question of at least three words: it ends with a question mark, or opens
    with an interrogative word (so "where clause" or "how-to guides" is not one), or with an
    auxiliary and a pronoun ("can I ...", "is there ..."), or has "ли" second ("можно ли ...")."""
    stripped = _visible(text).strip()
    if stripped.rstrip(CLOSERS).endswith(QUESTION_MARKS):
        return True
    if len(keywords.words(stripped)) < 3:
        return False
    # Each word up to an apostrophe: what's -> what, can't -> can, don’t -> don.
    words = [re.split("['’]", w, maxsplit=1)[0] for w in stripped.lower().split()[:3]]
    words = [w.strip(",:;") for w in words]
    return (words[0] in INTERROGATIVES
            or (words[0] in AUXILIARIES and len(words) > 1 and words[1] in SUBJECTS
                and not (words[0] in IMPERATIVE_VERBS and words[1] in OBJECTS_TOO))
            or (len(words) > 1 and words[1] == RUSSIAN_QUESTION_PARTICLE and words[0] != RUSSIAN_QUESTION_PARTICLE))


def is_sentence(text: str) -> bool:
    """A statement of at least MIN_SENTENCE_WORDS words that ends with a full stop ("Use the Orca
    screen reader with a Braille display.", "アカウントを追加します。")."""
    stripped = _visible(text).strip()
    body = stripped.rstrip(QUOTES_AND_SPACES)
    if not body.endswith(FULL_STOPS) or body.endswith(("..", "\u2026")):
        return False
    return len(_SENTENCE_WORD.findall(stripped)) >= MIN_SENTENCE_WORDS


def _written_as_name(word: str) -> bool:
    """`word` as names and codes are written: a capital past its first letter (`ColorMunki`, `GTIFF`),
    a digit (`3945ABG`, `18.04`), or a hyphen between its characters (`Dana-Farber`). A dotted path
    without a digit (`random.choices`, `gzip.GzipFile`) is a code identifier of words, not one."""
    core = word.strip(NAME_EDGE_PUNCTUATION)
    if not any(ch.isalnum() for ch in core):
        return False
    digits = any(ch.isdigit() for ch in core)
    if "." in core and not digits:
        return False
    return (digits or any(ch.isupper() for ch in core[1:])
            or any(joiner in core[1:-1] for joiner in NAME_JOINERS))


def is_name(text: str) -> bool:
    """A lookup of one or two words, each written as a name or a code is ("ColorMunki", "Dana-Farber",
    "GTIFF driver" is not: `driver` is a plain word)."""
    words = _visible(text).split()
    return 1 <= len(words) <= MAX_NAME_WORDS and all(_written_as_name(word) for word in words)


def default_hybrid_weight(text: str, model_languages: tuple[str, ...] = ()) -> float:
    """The keyword side's share for `text` when RAG_HYBRID_WEIGHT is not set. `model_languages`:
    those the model was trained on, when it names a few (ModelSpec.languages)."""
    if is_name(text):
        return NAME_HYBRID_WEIGHT
    if model_languages and query_language(text) not in (None, *model_languages):
        return FOREIGN_HYBRID_WEIGHT
    if is_question(text):
        return QUESTION_HYBRID_WEIGHT
    return SENTENCE_HYBRID_WEIGHT if is_sentence(text) else DEFAULT_HYBRID_WEIGHT
