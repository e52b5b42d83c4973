"""Token accounting on top of the caller's counter.

Counting ever-growing strings is quadratic, so each piece is counted once and
pieces are summed. Wordpiece counts are additive across whitespace, so a sum of
per-piece counts (minus each piece's special tokens) is exact up to the rare
normalizer quirk; every final chunk is still verified with one real count.

A text also costs at least one token per MAX_CHARS_PER_TOKEN characters. A
wordpiece tokenizer reads a word longer than its word limit as one unknown token
however long it is, so without this floor a 3 MB word would be one token and fit
any chunk; with it every budget is a character bound as well.
"""

from __future__ import annotations

from minirag.chunking.model import TokenCounter

MAX_CHARS_PER_TOKEN = 16  # a chunk holds at most this many characters per token of its budget


class Tokens:
    def __init__(self, count_tokens: TokenCounter) -> None:
        self._count = count_tokens
        self._cache: dict[str, int] = {}
        self.special = count_tokens("")

    def full(self, text: str) -> int:
        """The real count, special tokens included, or the text's length in characters over
        MAX_CHARS_PER_TOKEN plus the special tokens, if that is more."""
        cached = self._cache.get(text)
        if cached is None:
            floor = self.special + -(-len(text) // MAX_CHARS_PER_TOKEN) if text else 0
            cached = max(self._count(text), floor)
            self._cache[text] = cached
        return cached

    def content(self, text: str) -> int:
        """Tokens ``text`` adds when joined to other text by whitespace."""
        return max(0, self.full(text) - self.special)
