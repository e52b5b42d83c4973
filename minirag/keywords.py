"""Keyword side: the text FTS5 indexes and the FTS5 query built from user input.

Both sides pass through the same `normalize` so that index terms and query
terms always agree. No user string reaches FTS5 syntax: every term is quoted.
"""

from __future__ import annotations

import re

# Words as FTS5's unicode61 tokenizer sees them: runs of letters and digits.
_WORD = re.compile(r"[^\W_]+", re.UNICODE)
MAX_QUERY_TERMS = 64


def words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def normalize(text: str) -> str:
    """The text stored in the FTS table for a chunk body or title."""
    return " ".join(words(text))


def fts_query(text: str) -> str | None:
    """A safe FTS5 MATCH expression: distinct terms, each quoted, OR-ed. None if no terms."""
    seen: dict[str, None] = {}
    for word in words(text):
        seen.setdefault(word, None)
        if len(seen) >= MAX_QUERY_TERMS:
            break
    if not seen:
        return None
    return " OR ".join('"' + w.replace('"', '""') + '"' for w in seen)
