"""Cutting text at the finest boundary needed: lines, then sentences, then whitespace."""

from __future__ import annotations

import re

from minirag.chunking.tokens import Tokens

_SENTENCE_END = re.compile(r"(?<=[.!?…])\s+")


def sentences(text: str) -> list[str]:
    return [s for s in _SENTENCE_END.split(text.strip()) if s]


def words_to_fit(text: str, tokens: Tokens, room: int, word_room: int | None = None) -> list[str]:
    """Greedy runs of whitespace-separated words, each within ``room`` content tokens.

    A single word longer than ``room`` stands alone, and is cut into character
    runs only past ``word_room`` (default ``room``): the only way left to respect
    the budget. Code, which may exceed the budget, keeps its words whole longer.
    """
    room = max(1, room)
    word_room = max(room, word_room or room)
    runs: list[str] = []
    current: list[str] = []
    used = 0
    for word in text.split():
        size = tokens.content(word)
        if size > room:
            if current:
                runs.append(" ".join(current))
                current, used = [], 0
            runs.extend(_cut_word(word, tokens, word_room))
            continue
        if current and used + size > room:
            runs.append(" ".join(current))
            current, used = [], 0
        current.append(word)
        used += size
    if current:
        runs.append(" ".join(current))
    return runs


def _cut_word(word: str, tokens: Tokens, room: int) -> list[str]:
    if len(word) <= 1 or tokens.content(word) <= room:
        return [word]
    middle = len(word) // 2
    return _cut_word(word[:middle], tokens, room) + _cut_word(word[middle:], tokens, room)


def pack_by_chars(parts: list[str], limit: int, joiner: str) -> list[str]:
    """Greedy runs of ``parts`` joined by ``joiner``, each within ``limit`` characters if possible."""
    runs: list[str] = []
    current: list[str] = []
    size = 0
    for part in parts:
        extra = len(part) + (len(joiner) if current else 0)
        if current and size + extra > limit:
            runs.append(joiner.join(current))
            current, size = [], 0
            extra = len(part)
        current.append(part)
        size += extra
    if current:
        runs.append(joiner.join(current))
    return runs
