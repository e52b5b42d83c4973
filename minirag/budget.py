"""What a result costs a client in tokens, and where a page of text ends.

The count is a bound, not the client's tokenizer: one token per 3 ASCII characters
and one per other character. Clients' tokenizers (Claude's, OpenAI's) spend more
than 3 ASCII characters a token on English and JSON, and at most one token a
character on Cyrillic and CJK text, so the bound errs on the safe side without
loading any model. It is counted on the JSON a client receives (indent 2, as the
MCP SDK writes a structured result, and as the CLI's --json prints it).
"""

from __future__ import annotations

import json

from minirag.display import escaped_json

ASCII_CHARS_PER_TOKEN = 3
BOUNDARY_SHARE = 4  # a page ends at a paragraph or line break found in its last quarter


def estimate_tokens(text: str) -> int:
    ascii_chars = len(text.encode("ascii", errors="ignore"))
    return -(-ascii_chars // ASCII_CHARS_PER_TOKEN) + (len(text) - ascii_chars)


def serialized(payload) -> str:
    return escaped_json(json.dumps(payload, ensure_ascii=False, indent=2))


def cost(payload) -> int:
    """The tokens `payload` costs as JSON."""
    return estimate_tokens(serialized(payload))


def largest_fitting(count: int, fits) -> int:
    """The largest n in 0..count with fits(n), for a `fits` true up to some n and false after."""
    low, high = 0, count
    while low < high:
        middle = (low + high + 1) // 2
        if fits(middle):
            low = middle
        else:
            high = middle - 1
    return low


def page_end(text: str, offset: int, max_chars: int | None, tokens: int | None) -> int:
    """Where a page of `text` starting at `offset` ends: at most `max_chars` characters, at most
    `tokens` tokens as a JSON string, and at a paragraph or line break when one is in the page's
    last quarter. Always past `offset` while text remains, so paging always moves on."""
    total = len(text)
    end = total if max_chars is None else min(total, offset + max_chars)
    if tokens is not None and end > offset:
        fit = largest_fitting(end - offset, lambda n: estimate_tokens(json.dumps(text[offset:offset + n],
                                                                                 ensure_ascii=False)) <= tokens)
        end = offset + fit
    end = max(end, min(total, offset + 1))
    if end >= total:
        return total
    floor = end - max(1, (end - offset) // BOUNDARY_SHARE)
    for mark in ("\n\n", "\n"):
        at = text.rfind(mark, floor, end)
        if at >= 0:
            return at + len(mark)
    return end
