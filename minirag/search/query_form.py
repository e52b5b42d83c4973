"""The default fusion weight, from the form of the query: a question leans on the vector side.

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

This is only the default. A weight set by RAG_HYBRID_WEIGHT is used as given
for every query.
"""

from __future__ import annotations

import re
import unicodedata

from minirag.config import DEFAULT_HYBRID_WEIGHT, QUESTION_HYBRID_WEIGHT

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
# After the mark: closing quotes and brackets (a quoted question is one), "?!", "?.." and spaces.
CLOSERS = "\"')]}»”’」』）】!.…" + "\u00a0 \t\r\n"
_WORD = re.compile(r"\w+")


def is_question(text: str) -> bool:
    """A natural-language question of at least three words: it ends with a question mark, or opens
    with an interrogative word (so "where clause" or "how-to guides" is not one), or with an
    auxiliary and a pronoun ("can I ...", "is there ..."), or has "ли" second ("можно ли ...")."""
    # Format characters (bidi marks, zero-width spaces) are invisible and never decide.
    stripped = "".join(ch for ch in text if unicodedata.category(ch) != "Cf").strip()
    if stripped.rstrip(CLOSERS).endswith(QUESTION_MARKS):
        return True
    if len(_WORD.findall(stripped)) < 3:
        return False
    # Each word up to an apostrophe: what's -> what, can't -> can, don’t -> don.
    words = [re.split("['’]", w, maxsplit=1)[0] for w in stripped.lower().split()[:3]]
    words = [w.strip(",:;") for w in words]
    return (words[0] in INTERROGATIVES
            or (words[0] in AUXILIARIES and len(words) > 1 and words[1] in SUBJECTS
                and not (words[0] in IMPERATIVE_VERBS and words[1] in OBJECTS_TOO))
            or (len(words) > 1 and words[1] == RUSSIAN_QUESTION_PARTICLE and words[0] != RUSSIAN_QUESTION_PARTICLE))


def default_hybrid_weight(text: str) -> float:
    """The keyword side's share for `text` when RAG_HYBRID_WEIGHT is not set."""
    return QUESTION_HYBRID_WEIGHT if is_question(text) else DEFAULT_HYBRID_WEIGHT
