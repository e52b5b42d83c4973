"""Headings a reader of a plain text (.txt) file sees, written as Markdown's ATX headings.

Three shapes, each taken only on evidence, so that a stray line never becomes a heading:

- the text's title: its first line, set apart by a blank line with text below, when it is plainly
  one: written `# Release notes` (escaped, as every `#` line of plain text is, until read so), or in
  title case (`Widget 2.0 Release Notes`: two words capitalized or more, every word of four letters
  or more capitalized, no sentence's or greeting's closing mark), its next line not alike (a list of
  names, a block of `#` comments), and no copyright notice (a licence's first line). It is level 1,
  and so the document's title (titles.py) before its file's name;

- a title underlined with `=` or `-` (README, NEWS): a line after a blank one (or under an
  overline of the same character), its underline about as long as it, or as long as the file's
  other underlines (a house style: `0.2.1 (2009-04-05)` over `===`, three times or more). A table's
  row (wide gaps, `|`), a paragraph's last line or a `----` with no title above stays text;
- an RFC or Internet-Draft's numbered section title (`2.4.  Salt`, `Appendix A.  Acknowledgments`):
  at column 0 between blank lines, its body indented deeper, in a file whose text is mostly so
  indented and which has at least three such titles whose numbers rise in order. A numbered list
  (its items close together or its body not indented as a section's) stays text.

`=` is level 2, `-` level 3, a numbered title one level below its depth (`2.` level 2, `2.4.` level
3): none is level 1, so without a title line a plain text file's title is what it was (its name; a
README's folder too, titles.py), never its first section's. A Debian or GNU changelog's entry lines are
level 2 headings too (changelog_entries.py). Every line stays a line (an underline
becomes blank), so form feeds and line positions are kept.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections import Counter

from minirag.chunking.frontmatter import parse_frontmatter
from minirag.ingest.changelog_entries import changelog_headings

_UNDERLINE = re.compile(r"( {0,3})(=++|-++)[ \t\r]*+")
# `2.4.  Salt`, `10 Security`, `A.1.  Foo`, `Appendix A.  Acknowledgments`: a bounded, possessive
# number, so a long line costs one pass.
_NUMBERED = re.compile(r"(Appendix[ \t]++([A-Z])|([A-Z])(?=\.\d)|(\d{1,3}+))((?:\.\d{1,3}+)*+)\.?+[ \t]++(\S.*+)")
_TABLE_GAP = re.compile(r"\S {3}|[\t|]")  # a table row's gap or rule, not a sentence's two spaces
_LETTER = re.compile(r"[^\W_]")

MIN_HOUSE_UNDERLINES = 3  # underlines of one length that make it the file's own style
MIN_NUMBERED_TITLES = 3  # numbered titles rising in order that make a file sectioned
MIN_INDENTED_SHARE = 0.6  # of the other non-blank lines, indented 3 or more: an RFC's body
MAX_TITLE = 120
# The title line: `\# ` (as escape_headings writes a `#` line), or a line of words; a word of title case.
_ESCAPED_TITLE = re.compile(r"\\# ++(\w.*+)")
_WORD = re.compile(r"[^\W\d_][\w'’-]*+")
MIN_CAPITALIZED = 2  # words of a title-case line
SMALL_WORD = 3  # letters of the words title case leaves lowercase (`of`, `and`, `for`)
_CLOSING = (".", ",", ";", ":", "!")  # a sentence's, a greeting's or a label's end
_TITLE_ENDS = frozenset(")]?\"'’”")
_COPYRIGHT = re.compile(r"(?:copyright\b|©|\(c\))", re.IGNORECASE)  # a licence's notice, not its title

Heading = tuple[int, str, tuple[int, ...]]  # level, title, the lines it blanks (an underline, a wrapped title's end)
Numbered = tuple[int, tuple[int, ...], str, tuple[int, ...]]  # line, number as a rising key, title, lines blanked


def mark_headings(text: str) -> str:
    """`text` with its underlined and numbered titles as ATX headings (see the module's doc)."""
    if "\n" not in text:
        return text
    _, body = parse_frontmatter(text)  # its closing `---` underlines no title
    if len(body) < len(text):
        return text[: len(text) - len(body)] + _marked(body)
    return _marked(text)


def _marked(text: str) -> str:
    lines = text.split("\n")
    headings = _underlined(lines)
    headings.update(_numbered(lines, headings))
    headings.update(changelog_headings(lines))
    headings.update(_title_line(lines, headings))
    if not headings:
        return text
    for index, (level, title, blanked) in headings.items():
        lines[index] = f"{'#' * level} {title}"
        for other in blanked:
            lines[other] = ""
    return "\n".join(lines)


def _blank(lines: list[str], index: int) -> bool:
    return index < 0 or index >= len(lines) or not lines[index].strip()


def _title(line: str) -> str | None:
    """The text of a line that could be a title: indented at most 3, short, with a letter or digit,
    no table gaps, not itself a line of `=` or `-`."""
    stripped = line.strip()
    if (not stripped or len(stripped) > MAX_TITLE or line.startswith(("    ", "\t", "\f"))
            or _UNDERLINE.fullmatch(line) or _TABLE_GAP.search(stripped) or not _LETTER.search(stripped)):
        return None
    return stripped


def _underlined(lines: list[str]) -> dict[int, Heading]:
    # title index, title, underline, the lines it blanks (the underline; an overline too)
    candidates: list[tuple[int, str, str, tuple[int, ...]]] = []
    for index in range(1, len(lines)):
        underline = _UNDERLINE.fullmatch(lines[index])
        if not underline or len(underline.group(2)) < 3:
            continue
        title = _title(lines[index - 1])
        # under the title's own indent: a line quoted deeper than its underline is an example's
        if title is None or not lines[index - 1].startswith(underline.group(1) + title[0]):
            continue
        mark = underline.group(2)
        blanked: tuple[int, ...] = (index,)
        if not _blank(lines, index - 2):
            over = _UNDERLINE.fullmatch(lines[index - 2])
            if not (over and over.group(2) == mark and _blank(lines, index - 3)):
                continue
            blanked = (index - 2, index)
        candidates.append((index - 1, title, mark, blanked))
    house = Counter(mark for _, _, mark, blanked in candidates if len(blanked) == 1)
    overlines = {blanked[0] for *_, blanked in candidates if len(blanked) > 1}
    # A line of the mark after a blank line parts text; under a title it is only a loose underline.
    rules = {line.strip() for index, line in enumerate(lines)
             if _blank(lines, index - 1) and index not in overlines and _UNDERLINE.fullmatch(line)}
    found = {}
    for index, title, mark, blanked in candidates:
        if (len(blanked) > 1 or abs(len(mark) - len(title)) <= 2 or mark not in rules
                and (_fits(len(mark), len(title)) or house[mark] >= MIN_HOUSE_UNDERLINES)):
            found[index] = (2 if mark[0] == "=" else 3, title, blanked)
    return found


def _title_line(lines: list[str], taken: dict[int, Heading]) -> dict[int, Heading]:
    """The text's first line as its title, where it is plainly one (see the module's doc)."""
    first = next((index for index, line in enumerate(lines) if line.strip()), None)
    if first is None or first in taken or first + 2 >= len(lines) or not _blank(lines, first + 1):
        return {}
    below = next((index for index in range(first + 2, len(lines)) if lines[index].strip()), None)
    if below is None or below in taken:
        return {}
    line = lines[first].rstrip()
    escaped = _ESCAPED_TITLE.fullmatch(line)
    if escaped is not None:  # (a block of `#` comments is no title over its text)
        title = escaped.group(1).strip()
        plain = _title(title) and not title.endswith(_CLOSING) and not _ESCAPED_TITLE.match(lines[below].strip())
    else:
        title = _title(line) or ""
        plain = (bool(title) and title[0].isalnum() and not title.endswith(_CLOSING) and not _NUMBERED.fullmatch(title)
                 and _title_case(title) and not _title_case(lines[below].strip()))
    ends = bool(title) and (title[-1].isalnum() or title[-1] in _TITLE_ENDS)  # (a shell line continued ends in `\\`)
    return {first: (1, title, ())} if plain and ends and not _COPYRIGHT.match(title) else {}


def _title_case(line: str) -> bool:
    """Whether a line's words are capitalized as a title's: MIN_CAPITALIZED of them or more, and every
    one longer than SMALL_WORD."""
    words = _WORD.findall(line)
    capitalized = sum(1 for word in words if word[0].isupper())
    return capitalized >= MIN_CAPITALIZED and all(word[0].isupper() for word in words if len(word) > SMALL_WORD)


def _fits(underline: int, title: int) -> bool:
    """An underline about as long as its title: from 4/5 of it to 1/8 longer."""
    return 4 * title <= 5 * underline and underline <= title + title // 8 + 2


def _numbered(lines: list[str], taken: dict[int, Heading]
              ) -> dict[int, Heading]:
    candidates: list[Numbered] = []
    for index, line in enumerate(lines):
        if not line[:1].isalnum() or index in taken or not _blank(lines, index - 1):
            continue
        match = _NUMBERED.fullmatch(line.rstrip())
        if match is None or len(line) > MAX_TITLE or _TABLE_GAP.search(match.group(6)):
            continue
        title = " ".join(line.split())
        wrapped: tuple[int, ...] = ()
        if not _blank(lines, index + 1):  # a long title wraps once, then a blank line
            if not _blank(lines, index + 2) or len(lines[index + 1]) > MAX_TITLE or index + 1 in taken:
                continue
            title, wrapped = f"{title} {' '.join(lines[index + 1].split())}", (index + 1,)
        letter = match.group(2) or match.group(3)
        top = (1, ord(letter)) if letter else (0, int(match.group(4)))
        key = top + tuple(int(part) for part in match.group(5).split(".")[1:])
        candidates.append((index, key, title, wrapped))
    if len(candidates) < MIN_NUMBERED_TITLES:
        return {}
    at = {index for index, _, _, _ in candidates}
    candidates = [c for c in candidates if _body_below(lines, c[0] + len(c[3]), at)]
    if not _mostly_indented(lines, at):
        return {}
    rising = _rising(candidates)
    if len(rising) < MIN_NUMBERED_TITLES:
        return {}
    return {index: (min(6, len(key)), title, wrapped) for index, key, title, wrapped in rising}


def _body_below(lines: list[str], index: int, titles: set[int]) -> bool:
    """The next non-blank line below the title ending at `index` is indented (a section's body)
    or is another title."""
    for below in range(index + 1, min(len(lines), index + 4)):
        line = lines[below]
        if line.strip():
            return below in titles or line.startswith(("  ", "\t"))
    return False


def _mostly_indented(lines: list[str], titles: set[int]) -> bool:
    text = [line for index, line in enumerate(lines) if line.strip() and index not in titles]
    indented = sum(1 for line in text if line.startswith(("   ", "\t")))
    return bool(text) and indented >= MIN_INDENTED_SHARE * len(text)


def _rising(candidates: list[Numbered]) -> list[Numbered]:
    """The longest run of candidates whose numbers rise in order (patience sorting: n log n)."""
    tails: list[tuple[int, ...]] = []  # the least last key of a rising run of each length
    tail_at: list[int] = []
    before: list[int] = []
    for position, (_, key, _, _) in enumerate(candidates):
        length = bisect_left(tails, key)
        before.append(tail_at[length - 1] if length else -1)
        if length == len(tails):
            tails.append(key)
            tail_at.append(position)
        else:
            tails[length] = key
            tail_at[length] = position
    run: list[Numbered] = []
    position = tail_at[-1] if tail_at else -1
    while position >= 0:
        run.append(candidates[position])
        position = before[position]
    return run[::-1]
