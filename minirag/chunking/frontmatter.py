"""Lifecycle frontmatter: a `---` block of simple `key: value` lines at the very start.

Only the subset callers need is understood (strings, quoted strings, booleans,
numbers, null, `- item` lists under a bare key, and `>`/`|` values folded to one
line); no YAML library is used. Indented lines under a key (a nested map) belong
to the block but are not read. A line outside that shape means the block is not
frontmatter and the text is returned untouched.
"""

from __future__ import annotations

import re

# Values are taken whole and stripped in code: a lazy `(.*?)\s*$` is quadratic on a long line of spaces.
_KEY = re.compile(r"^([A-Za-z_][\w.-]*)\s*:(?:\s+(.*))?$")
_ITEM = re.compile(r"^\s+-\s+(.*)$|^-\s+(.*)$")
_COMMENT = re.compile(r"(?<=\s)#")  # not `\s+#.*$`: quadratic on a long run of spaces
_INT = re.compile(r"^[-+]?\d+$")
_FLOAT = re.compile(r"^[-+]?(?:\d+\.\d*|\.\d+)(?:[eE][-+]?\d+)?$")
_BLOCK_SCALARS = frozenset({">", "|", ">-", "|-", ">+", "|+"})  # a folded or literal value on the lines below
# A longer run of digits is kept as written: Python refuses to read an int of over 4,300 digits,
# and no date, count or version a caller reads has more than a few.
MAX_INT_CHARS = 100


def _scalar(raw: str) -> object:
    if len(raw) >= 2 and raw[0] == raw[-1] and raw[0] in "'\"":
        inner = raw[1:-1]
        return inner.replace("''", "'") if raw[0] == "'" else inner.replace('\\"', '"')
    comment = _COMMENT.search(raw)  # `value  # note`: YAML's comment starts at a `#` after white space
    if comment:
        raw = raw[: comment.start()].rstrip()
    lowered = raw.lower()
    if lowered in ("true", "false"):
        return lowered == "true"
    if lowered in ("null", "~", ""):
        return None
    if _INT.match(raw) and len(raw) <= MAX_INT_CHARS:
        return int(raw)
    if _FLOAT.match(raw):
        return float(raw)
    return raw


def _parse(lines: list[str]) -> dict[str, object] | None:
    meta: dict[str, object] = {}
    list_key: str | None = None
    folded_key: str | None = None  # a `key: >` or `key: |` value, whose indented lines follow
    # Each folded value's lines, joined once at the end: rebuilding the value at every line was
    # quadratic in the block (a 4.3 MB summary took 22 s, in the syncing process itself).
    folded: dict[str, list[str]] = {}
    for line in lines:
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        item = _ITEM.match(line)
        if item and list_key is not None:
            value = meta.get(list_key)
            if not isinstance(value, list):
                value = []
                meta[list_key] = value
            value.append(_scalar((item.group(1) or item.group(2) or "").strip()))
            continue
        if line[:1] in (" ", "\t"):
            # An indented line under a key: a folded value's text, or a nested map, which no caller
            # reads (next.js' `related:` blocks). It belongs to the block either way.
            if not meta:
                return None
            if folded_key is not None:
                folded[folded_key].append(line.strip())
            elif _KEY.match(line.strip()):
                list_key = None  # items under a nested key are its own, not the top-level key's
            continue
        match = _KEY.match(line)
        if not match:
            return None
        key, raw = match.group(1), (match.group(2) or "").strip()
        folded_key = None
        folded.pop(key, None)  # a key given again: its last value wins
        if raw is None or raw == "":
            meta[key] = None
            list_key = key
        elif raw in _BLOCK_SCALARS:
            meta[key], folded_key, list_key = "", key, None
            folded[key] = []
        else:
            meta[key] = _scalar(raw)
            list_key = None
    for key, lines in folded.items():
        meta[key] = " ".join(lines)
    return meta


def parse_frontmatter(markdown: str) -> tuple[dict[str, object], str]:
    """Return (metadata, body without the frontmatter); ({}, markdown) when there is none."""
    text = markdown[1:] if markdown.startswith("\ufeff") else markdown
    lines = text.split("\n")
    if not lines or lines[0].rstrip("\r").rstrip() != "---":
        return {}, markdown
    for end in range(1, len(lines)):
        if lines[end].rstrip("\r").rstrip() in ("---", "..."):
            meta = _parse([line.rstrip("\r") for line in lines[1:end]])
            if meta is None:
                return {}, markdown
            return meta, "\n".join(lines[end + 1 :])
    return {}, markdown
