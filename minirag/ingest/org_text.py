"""Org -> Markdown: the structure chunking needs, the text a reader of the exported page sees.

Emacs' Org mode keeps notes, agendas and literate programs as plain text. Read as
text, its headings (`** Install`) are lines like any other and its markup is words no
reader of the exported page sees (`#+BEGIN_SRC`, `:PROPERTIES:` drawers,
`SCHEDULED: <2026-01-02>`). This reads what Org's exporter would:

- headings (`* Title`, `** Section`) become ATX headings of their level, without their
  TODO keyword, priority cookie and tags (`** TODO [#A] Call Bob :work:` reads `Call Bob`);
  a `#+TITLE:` is the document's title;
- source (`#+BEGIN_SRC python`) and example blocks, and fixed-width lines (`: text`),
  become fenced code; quote, verse and center blocks their text; an HTML export block its
  HTML converted; comment blocks and other export blocks nothing;
- tables keep their rows, their rule lines (`|---+---|`) written as Markdown's;
- links read as Markdown links (`[[https://…][text]]`) or their text (a link inside the
  file, or to a file); a description list item (`- term :: text`) reads `- term: text`;
- what exports as nothing goes: comment lines (`# …`), keyword lines (`#+OPTIONS:`),
  drawers (`:PROPERTIES:` … `:END:`, `:LOGBOOK:`), planning lines (`DEADLINE: <…>`), and a
  subtree under a `COMMENT` heading or one tagged `:noexport:`.

Every pass is a walk over the lines: linear in the text.
"""

from __future__ import annotations

import bisect
import re

from minirag.errors import ConversionFailed
from minirag.ingest.html_markdown import fenced, html_to_markdown
from minirag.ingest.markup_lines import next_after
from minirag.ingest.note_text import cited
from minirag.ingest.text_repair import escape_headings

_HEADING = re.compile(r"^(\*+)[ \t]+(.*)$")
_TODO = re.compile(r"^(?:TODO|DONE|NEXT|WAITING|HOLD|CANCELLED|CANCELED|STARTED|SOMEDAY)[ \t]+")
_PRIORITY = re.compile(r"^\[#[A-Za-z0-9]\][ \t]*")
# (Each run of blanks tried once, from its start: from each of its characters, a heading of 40,000
# spaces took 0.8 s; so with a description list's `::` below.)
_TAGS = re.compile(r"(?<![ \t])[ \t]+:(?:[\w@#%]+:)+[ \t]*$")
_KEYWORD = re.compile(r"^[ \t]*#\+(\w+):[ \t]*(.*)$")
_BEGIN = re.compile(r"^[ \t]*#\+begin_(\w+)(?:[ \t]+(.*))?$", re.IGNORECASE)
_COMMENT = re.compile(r"^[ \t]*#(?:[ \t].*)?$")
_DRAWER = re.compile(r"^[ \t]*:([\w-]+):[ \t]*$")
_DRAWER_END = re.compile(r"^[ \t]*:end:[ \t]*$", re.IGNORECASE)
_PLANNING = re.compile(r"^[ \t]*(?:(?:SCHEDULED|DEADLINE|CLOSED):[ \t]*[<\[][^>\]]*[>\]][ \t]*)+$")
_FIXED_WIDTH = re.compile(r"^[ \t]*:(?:[ \t](.*))?$")
_RULE = re.compile(r"^([ \t]*)\|-[-+|]*$")
_DESCRIPTION = re.compile(r"^([ \t]*[-+][ \t]+)(.*?)(?<![ \t])[ \t]+::(?:[ \t]+(.*))?$")
# A link: `[[target][text]]` or `[[target]]`; neither part may hold a bracket, so an attempt stops at the next.
_LINK = re.compile(r"\[\[([^\[\]\n]+)\](?:\[([^\[\]\n]*)\])?\]")
# Footnotes: a definition on a line of its own (`[fn:1] text`, at the line's start), a citation of one,
# and the opening of either a citation or an inline note (`[fn::text]`, `[fn:name:text]`).
_NOTE_DEFINITION = re.compile(r"^\[fn:([\w-]+)\][ \t]*(.*)$")
_NOTE_CITED = re.compile(r"(?<!^)\[fn:([\w-]+)\]")
_NOTE_START = re.compile(r"\[fn:([\w-]*)(\]|:)")
MAX_INLINE_NOTE = 2_000
_CODE_BLOCKS = frozenset({"src", "example"})
_TEXT_BLOCKS = frozenset({"quote", "verse", "center"})


def org_to_markdown(text: str) -> tuple[str, str | None]:
    """Markdown for an Org document (see the module's docstring), and its `#+TITLE:`, if any."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    out: list[str] = []
    title: str | None = None
    block_ends: dict[str, list[int]] = {}  # each block kind's `#+END_kind` lines
    drawer_ends: list[int] = []
    headings: list[int] = []
    for number, line in enumerate(lines):
        stripped = line.strip().lower()
        if stripped.startswith("#+end_"):
            block_ends.setdefault(stripped[6:], []).append(number)
        elif _DRAWER_END.match(line):
            drawer_ends.append(number)
        elif _HEADING.match(line):
            headings.append(number)
    notes, note_ends = _footnotes(lines, headings)
    index = 0
    while index < len(lines):
        line = lines[index]
        if index in note_ends:  # a cited note's definition: it reads where it is cited
            index = note_ends[index]
            continue
        if "[fn:" in line:
            line = _notes_cited(line, notes)
        begin = _BEGIN.match(line)
        if begin:
            kind, argument = begin.group(1).lower(), (begin.group(2) or "").strip()
            end = next_after(block_ends.get(kind, []), index)
            if end is not None:
                out += ["", *_block(kind, argument, lines[index + 1 : end]), ""]
                index = end + 1
            else:
                index += 1  # a block never closed: its opening line is markup, what follows it text
            continue
        keyword = _KEYWORD.match(line)
        if keyword:
            if keyword.group(1).lower() == "title" and keyword.group(2).strip() and title is None:
                title = " ".join(_inline(keyword.group(2)).split())
            index += 1
            continue
        drawer = _DRAWER.match(line)
        if drawer and drawer.group(1).lower() != "end":
            end = next_after(drawer_ends, index)
            heading_next = next_after(headings, index)
            if end is not None and (heading_next is None or end < heading_next):
                index = end + 1  # a drawer (properties, a logbook): closed before the next heading
                continue
        if _COMMENT.match(line) or _PLANNING.match(line):
            index += 1
            continue
        heading = _HEADING.match(line)
        if heading and _not_exported(heading.group(2)):
            level = len(heading.group(1))
            after = (headings[at] for at in range(bisect.bisect_right(headings, index), len(headings)))
            index = next((number for number in after
                          if len(_HEADING.match(lines[number]).group(1)) <= level), len(lines))  # type: ignore[union-attr]
            continue
        if heading:
            out += ["", "#" * min(len(heading.group(1)), 6) + " " + _inline(_heading_title(heading.group(2))), ""]
            index += 1
            continue
        if _FIXED_WIDTH.match(line):
            end = index
            while end < len(lines) and _FIXED_WIDTH.match(lines[end]):
                end += 1
            body = [(_FIXED_WIDTH.match(lines[n]).group(1) or "") for n in range(index, end)]  # type: ignore[union-attr]
            out += ["", fenced("\n".join(body), ""), ""]
            index = end
            continue
        out.append(escape_headings(_line(line)))
        index += 1
    return re.sub(r"\n{3,}", "\n\n", "\n".join(out)).strip("\n") + "\n", title


def _footnotes(lines: list[str], headings: list[int]) -> tuple[dict[str, str], dict[int, int]]:
    """The text of each footnote a line cites (`[fn:1]`) and is defined on lines of their own
    (`[fn:1] text`), and where each such definition starts and ends. A definition runs to the next
    one, the next heading or two empty lines, as Org reads it."""
    starts = [(number, found) for number, line in enumerate(lines) if (found := _NOTE_DEFINITION.match(line))]
    if not starts:
        return {}, {}
    cited = {label for line in lines for label in _NOTE_CITED.findall(line)}
    notes: dict[str, str] = {}
    ends: dict[int, int] = {}
    for at, (number, found) in enumerate(starts):
        label = found.group(1)
        if label not in cited or label in notes:
            continue
        stop = min(starts[at + 1][0] if at + 1 < len(starts) else len(lines),
                   next_after(headings, number) or len(lines))
        end = number + 1
        while end < stop and (lines[end].strip() or (end + 1 < stop and lines[end + 1].strip())):
            end += 1
        notes[label] = " ".join([found.group(2), *lines[number + 1:end]])
        ends[number] = end
    return notes, ends


def _notes_cited(text: str, notes: dict[str, str]) -> str:
    """`text` with each footnote it cites read in place (note_text.cited): a defined one's text for
    `[fn:label]`, an inline one's own (`[fn::text]`, `[fn:label:text]`, up to the bracket that closes
    it, within MAX_INLINE_NOTE characters); a note with no text found stays as written."""
    out: list[str] = []
    done = at = 0
    while (found := _NOTE_START.search(text, at)) is not None:
        at = found.end()
        if found.group(2) == "]":
            if found.group(1) in notes:
                out += [text[done:found.start()], cited([notes[found.group(1)]])]
                done = at
            continue
        depth, end, limit = 1, at, min(len(text), at + MAX_INLINE_NOTE)
        while end < limit and depth:
            depth += (text[end] == "[") - (text[end] == "]")
            end += 1
        if depth == 0:
            out += [text[done:found.start()], cited([text[at:end - 1]])]
            done = at = end
    return "".join([*out, text[done:]])


def _not_exported(text: str) -> bool:
    """Whether a heading's subtree is left out of Org's export: a `COMMENT` heading (after its TODO
    keyword and priority), or one tagged `:noexport:`."""
    words = _PRIORITY.sub("", _TODO.sub("", text.strip()))
    tags = _TAGS.search(text)
    return re.match(r"COMMENT(?:[ \t]|$)", words) is not None or (tags is not None and ":noexport:" in tags.group())


def _heading_title(text: str) -> str:
    """A heading's words, without its TODO keyword, priority cookie and tags."""
    text = _PRIORITY.sub("", _TODO.sub("", text.strip()))
    return _TAGS.sub("", text).strip() or text.strip()


def _block(kind: str, argument: str, content: list[str]) -> list[str]:
    if kind in _CODE_BLOCKS:
        language = argument.split()[0] if kind == "src" and argument else ""
        # Org escapes a line starting with `*` or `#+` inside a block with a comma.
        body = [line[1:] if line.lstrip().startswith((",*", ",#+")) else line for line in content]
        return [fenced("\n".join(body), language)]
    if kind in _TEXT_BLOCKS:
        return [escape_headings(_line(line)) for line in content]
    if kind == "export" and argument.lower().startswith("html"):
        try:
            converted, _title = html_to_markdown("\n".join(content))
        except ConversionFailed:
            return []
        return converted.split("\n")
    return []  # comment blocks, other export formats: nothing a reader sees


def _line(line: str) -> str:
    rule = _RULE.match(line)
    if rule:
        cells = line.strip().strip("|").split("+")
        return rule.group(1) + "|" + "|".join("-" * max(3, len(cell)) for cell in cells) + "|"
    description = _DESCRIPTION.match(line)
    if description:
        marker, term, definition = description.groups()
        return f"{marker}{_inline(term)}: {_inline(definition or '')}".rstrip()
    return _inline(line)


def _inline(text: str) -> str:
    if "[[" not in text:
        return _code(text)
    out: list[str] = []
    done = 0
    for link in _LINK.finditer(text):  # a link's target and words keep their marks
        out += [_code(text[done:link.start()]), _link(link)]
        done = link.end()
    return "".join([*out, _code(text[done:])])


# Org's rules for an emphasis mark (org-emphasis-regexp-components): it opens after a line's start or
# one of _OPENS_AFTER, before a character that is not blank; it closes after one that is not blank,
# before a line's end or one of _CLOSES_BEFORE.
_OPENS_AFTER = frozenset(" \t-('\"{")
_CLOSES_BEFORE = frozenset(" \t-.,:!?;'\")}[")
_CODE_MARK = re.compile(r"[=~]")


def _code(text: str) -> str:
    """`text` with its verbatim (`=x=`) and code (`~x~`) spans written as Markdown code: each mark
    that may close pairs with the first open one of its kind before it, as Org's shortest match
    from the leftmost opening does; one pass over the marks."""
    if "=" not in text and "~" not in text:
        return text
    out: list[str] = []
    done = 0
    opened: dict[str, int] = {}  # each kind's first open mark since the last span
    for found in _CODE_MARK.finditer(text):
        at, mark = found.start(), found.group()
        start = opened.get(mark)
        if (start is not None and at >= start + 2 and not text[at - 1].isspace()
                and (at + 1 == len(text) or text[at + 1] in _CLOSES_BEFORE) and "`" not in text[start + 1:at]):
            out += [text[done:start], f"`{text[start + 1:at]}`"]
            done = at + 1
            opened.clear()
        elif mark not in opened and (at == 0 or text[at - 1] in _OPENS_AFTER) \
                and at + 1 < len(text) and not text[at + 1].isspace():
            opened[mark] = at
    return "".join([*out, text[done:]])


def _link(match: re.Match) -> str:
    target, text = match.group(1), match.group(2)
    if re.match(r"(?:https?|ftp|mailto):", target):
        return f"[{text or target}]({target})"
    shown = text or target
    return shown.lstrip("*#").removeprefix("file:")  # a heading, an id or a file: its words


