"""Token accounting on top of the caller's counter.

Counting ever-growing strings is quadratic, so each piece is counted once and
pieces are summed. Wordpiece counts are additive across whitespace, so a sum of
per-piece counts (minus each piece's special tokens) is exact up to the rare
normalizer quirk; every final chunk is still verified with one real count.
"""

from __future__ import annotations

from minirag.chunking.model import TokenCounter


class Tokens:
    def __init__(self, count_tokens: TokenCounter) -> None:
        self._count = count_tokens
        self._cache: dict[str, int] = {}
        self.special = count_tokens("")

    def full(self, text: str) -> int:
        """The real count, special tokens included."""
        cached = self._cache.get(text)
        if cached is None:
            cached = self._count(text)
            self._cache[text] = cached
        return cached

    def content(self, text: str) -> int:
        """Tokens ``text`` adds when joined to other text by whitespace."""
        return max(0, self.full(text) - self.special)
