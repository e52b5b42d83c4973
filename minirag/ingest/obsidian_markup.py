"""Obsidian's own Markdown, read as its reading view shows a note.

A vault's notes link with `[[Note]]`, `[[Note|shown text]]`, `[[Note#Heading]]` and
`[[Note#^blockid]]`, embed with `![[Other note]]` and `![[diagram.png|300]]`, hide text in
comments (`%% … %%`, on one line or over several), end lines with block ids (`^abc123`),
highlight with `==text==`, and name a note's other names and tags in frontmatter
(`aliases:`, `tags:`). Indexed as written, the brackets, targets, ids and private comments
are words no reader of the note sees, and an alias or a tag, which Obsidian shows as the
note's properties and finds it by, is not in its text at all.

Here a link reads as the text Obsidian shows (its shown text, else `Note > Heading`; a block
reference as its note), an embed as what it names, a comment and a block id as nothing, a
highlight as its text, and `aliases:` and `tags:` as two lines of properties at the top of the
body (under its title heading, where it opens with one).
Code (fenced, or a code span) is left as written, and a `%%` with no `%%` after it hides
nothing. `[[2]](url)`, a Markdown link whose text is `[2]`, is no wikilink. Every scan is
linear in the text.
"""

from __future__ import annotations

import re

from minirag.chunking.fences import code_line_mask
from minirag.chunking.frontmatter import parse_frontmatter
from minirag.ingest.markup_lines import code_spans

# `[[target#heading|shown]]`, an embed with `!`. No part holds a bracket, so a match attempt stops at
# the next one (linear); the target holds no `#` or `|` (Obsidian forbids both in a note's name).
# A `\|` is the pipe written inside a table cell.
_WIKILINK = re.compile(r"(!?)\[\[([^\[\]\n|#]*+)(#[^\[\]\n|]*+)?(?:\|([^\[\]\n]*+))?\]\](?!\()")
_HIGHLIGHT = re.compile(r"==(?=[^=\s])([^=\n]*+)(?<=[^=\s])==")
_BLOCK_ID = re.compile(r"\^[A-Za-z0-9-]++[ \t]*+\Z")
_TITLE = re.compile(r"\s*+# [^\n]*+\n")
_MAYBE = ("[[", "%%", "^", "==")
_PROPERTIES = (("aliases", ("aliases", "alias")), ("tags", ("tags", "tag")))


def read_obsidian(markdown: str) -> str:
    """`markdown` with Obsidian's links, embeds, comments, block ids and highlights as its reading
    view shows them, and its frontmatter's aliases and tags as lines of text after the block."""
    meta, body = parse_frontmatter(markdown)
    properties = _properties(meta)
    marked = any(mark in body for mark in _MAYBE)
    if not properties and not marked:
        return markdown
    head = markdown[: len(markdown) - len(body)] if body is not markdown else ""
    shown = _read_body(body) if marked else body
    if not properties:
        return head + shown
    # Under a title heading that opens the note (as Obsidian shows them under the note's name), so
    # they belong to its first section rather than make a section of their own before it.
    title = _TITLE.match(shown)
    at = title.end() if title else 0
    return head + shown[:at] + "".join(f"{line}\n" for line in properties) + "\n" + shown[at:].lstrip("\n")


def _properties(meta: dict[str, object]) -> list[str]:
    lines = []
    for name, keys in _PROPERTIES:
        values = [word for key in keys for word in _words(meta.get(key), tag=name == "tags")]
        if name == "aliases":  # Hugo's aliases are a page's old addresses, not names
            values = [value for value in values if not value.startswith("/") and "://" not in value]
        if values:
            lines.append(f"{name}: {', '.join(dict.fromkeys(values))}")
    return lines


def _words(value: object, *, tag: bool) -> list[str]:
    """A property's values: a list, or one string (`[a, b]` and `a, b` as Obsidian writes inline lists;
    tags may also be parted by spaces and written with their `#`)."""
    if value is None or isinstance(value, bool):
        return []
    items = value if isinstance(value, list) else str(value).strip().removeprefix("[").removesuffix("]").split(",")
    words = []
    for item in items:
        if item is None:
            continue
        for word in str(item).split() if tag else [str(item)]:
            word = word.strip().strip("\"'").strip()
            words.append(word.lstrip("#") if tag else word)
    return [word for word in words if word]


def _read_body(body: str) -> str:
    lines = body.split("\n")
    code = code_line_mask(lines)
    # A comment never closed hid nothing: the text is read again with its opening `%%` as text. No
    # `%%` follows that one, so a second reading opens no comment of its own (two passes at most).
    out, never_closed = _read_lines(lines, code, -1)
    if never_closed is not None:
        out, _ = _read_lines(lines, code, never_closed)
    return "\n".join(out)


def _read_lines(lines: list[str], code: list[bool], not_opening: int) -> tuple[list[str], int | None]:
    """The lines as shown, and the line whose comment is still open at the end (None: all closed).
    `not_opening`: the line whose last `%%` is text."""
    out: list[str] = []
    opened_on: int | None = None
    for index, line in enumerate(lines):
        if opened_on is not None:  # inside a comment: hidden up to the next `%%`, code and all
            close = next((at for at in _marks(line) if _standalone(line, at)), -1)
            if close < 0:
                continue
            opened_on, line = None, line[close + 2 :]
            if not line.strip():
                continue
        elif code[index]:
            out.append(line)
            continue
        shown, opens = _visible(line, may_open=index != not_opening)
        if not (opens and not shown.strip()):  # a line that only opens a comment is no line
            out.append(_shown(shown))
        if opens:
            opened_on = index
    return out, opened_on


def _visible(line: str, *, may_open: bool) -> tuple[str, bool]:
    """`line` without its comments (`%%` pairs outside code spans), and whether a last `%%` opens a
    comment that runs on past the line (the text after it is then left out here)."""
    if "%%" not in line:
        return line, False
    spans = code_spans(line) if "`" in line else []
    marks, at, span = [], 0, 0
    while (found := line.find("%%", at)) >= 0:
        while span < len(spans) and spans[span][1] <= found:
            span += 1
        if span < len(spans) and spans[span][0] <= found:
            at = spans[span][1]
            continue
        if _standalone(line, found):
            marks.append(found)
        at = found + 2
    if len(marks) % 2 and not may_open:
        marks.pop()
    pieces, kept = [], 0
    for start, end in zip(marks[::2], marks[1::2], strict=False):
        pieces.append(line[kept:start])
        kept = end + 2
    if len(marks) % 2:
        pieces.append(line[kept : marks[-1]])
        return "".join(pieces).rstrip(), True
    pieces.append(line[kept:])
    return "".join(pieces), False


def _marks(line: str):
    at = line.find("%%")
    while at >= 0:
        yield at
        at = line.find("%%", at + 2)


# A comment's `%%` stands apart, a word of its own: `%% draft %%`, or a line of its own. Written
# against a word it is no comment mark: a printf format's `100%%`, a batch file's `%%i`. (Obsidian
# hides `%%a%%` too; outside a vault that is text, and hiding it there loses what a reader sees.)
def _standalone(line: str, at: int) -> bool:
    return (at == 0 or line[at - 1].isspace()) and (at + 2 == len(line) or line[at + 2].isspace())


def _shown(line: str) -> str:
    """A line's links, embeds, highlights and block id as shown, code spans kept as written."""
    if not any(mark in line for mark in _MAYBE):
        return line
    spans = code_spans(line) if "`" in line else []
    pieces, at = [], 0
    for start, end in spans:
        pieces += [_rendered(line[at:start]), line[start:end]]
        at = end
    tail = _rendered(line[at:])
    block_id = _BLOCK_ID.search(tail)
    if block_id and (block_id.start() == 0 and not pieces or tail[block_id.start() - 1 : block_id.start()] in (" ", "\t")):
        tail = tail[: block_id.start()].rstrip(" \t")
    return "".join(pieces) + tail


def _rendered(text: str) -> str:
    if "[[" in text:
        text = _WIKILINK.sub(_link, text)
    if "==" in text:
        text = _HIGHLIGHT.sub(r"\1", text)
    return text


def _link(match: re.Match) -> str:
    embed, target, heading, shown = match.group(1), match.group(2), match.group(3) or "", match.group(4)
    target = target.removesuffix("\\").strip()
    if not target and not heading.strip("#"):
        return match.group(0)
    if not embed and shown is not None and shown.strip():
        return shown.strip()  # an embed's `|…` is a picture's size or a caption Obsidian does not show
    parts = [part.strip() for part in heading.split("#") if part.strip() and not part.startswith("^")]
    return " > ".join(([target] if target else []) + parts) or target
