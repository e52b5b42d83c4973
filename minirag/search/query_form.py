"""The default fusion weight, from the form of the query: a question leans on the vector side.

Dense encoders are trained on question -> passage pairs and read a question's
meaning; BM25 matches its words, and many words of a question (need, work,
happen, way) say little about the page that answers it. On two question sets
(the Python FAQ's questions over its answers and 1,300 other sections of the
Python docs; GNOME help pages whose titles are questions, titles removed),
hybrid at the keyword side's usual share of 0.4 lost 0.015-0.019 nDCG@10 to
the vector side alone with both e5-small and MiniLM-L6; with 0.2 for
questions it beat the vector side on both. Keyword-style queries (index terms,
descriptions) keep 0.4: on them the keyword side is as strong as the vector
side and the mix gains most (docs/evaluation.md has the numbers).

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
QUESTION_MARKS = ("?", "\uff1f", "\u061f", "\u037e")  # ASCII, full-width, Arabic, Greek
# After the mark: closing quotes and brackets (a quoted question is one), "?!", "?.." and spaces.
CLOSERS = "\"')]}»”’」』）】!.…" + "\u00a0 \t\r\n"
_WORD = re.compile(r"\w+")


def is_question(text: str) -> bool:
    """A natural-language question: it ends with a question mark, or opens with an interrogative
    word and has at least three words (so "where clause" or "how-to guides" is not one)."""
    # Format characters (bidi marks, zero-width spaces) are invisible and never decide.
    stripped = "".join(ch for ch in text if unicodedata.category(ch) != "Cf").strip()
    if stripped.rstrip(CLOSERS).endswith(QUESTION_MARKS):
        return True
    first = stripped.split(maxsplit=1)[0].lower().rstrip(",:") if stripped else ""
    first = re.split("['’]", first, maxsplit=1)[0]  # what's, how's, where's
    return first in INTERROGATIVES and len(_WORD.findall(stripped)) >= 3


def default_hybrid_weight(text: str) -> float:
    """The keyword side's share for `text` when RAG_HYBRID_WEIGHT is not set."""
    return QUESTION_HYBRID_WEIGHT if is_question(text) else DEFAULT_HYBRID_WEIGHT
