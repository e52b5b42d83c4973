"""Manual pages (roff: man(7) and mdoc(7)) as Markdown: their text and headings, not their layout.

A small reader, not a formatter: one pass over the lines (and the lines a page's own macros stand
for, roff_macros.py), no recursion.

- Text is filled as roff fills it: a paragraph's source lines are one line, joined by a space (none
  between Chinese or Japanese characters); `.br`, `.RS`, `.RE` and a line beginning with a space break it.
- man(7): `.TH` names the page; `.SH`/`.SS` are headings; `.PP`/`.LP`/`.P`/`.sp` end a paragraph;
  `.TP`/`.IP` tagged paragraphs are list items (the tag first), which `.sp` and `.br` do not end;
  `.B`, `.I`, `.BR`, `.IR`... are their words (fonts are not kept); `.nf`/`.fi` and `.EX`/`.EE` are
  code blocks; `.RS`/`.RE` add nothing but an item's end, where an `.RE` closes the block its list is in.
- mdoc(7): `.Dt` names the page; `.Sh`/`.Ss` are headings; `.Nm`, `.Nd`, `.Fl`, `.Ar`, `.Op`, `.Xr`,
  the quoting macros and the rest read as their words; `.Bl`/`.It`/`.El` are lists, `.Bd -literal` code.
- tbl(1) tables (`.TS`/`.TE`): each row's cells as a line, `|` between them.
- Conditionals (`.if`, `.ie`, `.el`, with their `\\{ ... \\}` blocks) as on a terminal: an `n`
  branch is read, a `t` branch and one whose condition the reader cannot tell are not; one of
  numbers alone (a macro's argument count, `2-1`) by its value.
- A page's own macros (`.de`) are read as the lines they stand for, where one is used (roff_macros.py).
- Left out: comments; `.ig` blocks, and every other request, whose arguments are not text. `.so`
  (another page's text) is not followed: what a page includes is not in it, and may be outside
  the roots; a page that is only that says so in its note.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass

from minirag.ingest.mdoc_text import MDOC_MACROS, mdoc_request
from minirag.ingest.roff_characters import named_character, numbered_character
from minirag.ingest.roff_macros import Macros
from minirag.ingest.text_repair import escape_structure

# One escape: a font (`\fB`, `\f(CW`, `\f[B]`), a font family, colour or output switch (`\F[HR]`,
# `\m[blue]`, `\M[red]`, `\O[0]`), a named character (`\(em`, `\[em]`), a string (`\*(lq`, `\*[R]`),
# a size (`\s-1`, `\s[+2]`, `\s'+2'`), a character by name or code (`\C'em'`, `\N'233'`), an escape
# with a quoted argument (`\h'-4'`; an overstrike's `\o'e\(aa'` and `\Z'text'` print theirs), a number
# register (`\n(.g`), or one character. Every
# alternative is bounded: no backtracking.
_ESCAPE = re.compile(r"""\\(?:[fFmMO](?:\[[^\]\n]{0,40}\]|\(..|.)|\((..)|\[([^\]\n]{0,40})\]|\*(?:\((..)|\[([^\]\n]{0,40})\]|(.))"""
                     r"""|s(?:[-+]?\(\d\d|[-+]?\d{1,2}|\[[^\]\n]{0,40}\]|'[^'\n]{0,40}')|([CN])'([^'\n]{0,40})'"""
                     r"""|([oZ])'([^'\n]{0,200})'|[hvwlLxbXHRSYVDAB]'[^'\n]{0,200}'|n(?:\(..|\[[^\]\n]{0,40}\]|.)"""
                     r"""|[kgYV*$](?:\(..|\[[^\]\n]{0,40}\]|.)|(.))""", re.DOTALL)
# The strings man pages' own preambles define most (pod2man's, DocBook's) and mdoc's.
_STRINGS = {"--": "—", "C+": "C++", "Aq": "'", "lq": "“", "rq": "”", "L\"": "“", "R\"": "”", "R": "®", "Tm": "™", "C`": "", "C'": "",
            "PI": "π", "Ba": "|", "q": '"', "Lq": "“", "Rq": "”", "Gt": ">", "Lt": "<", "Le": "≤", "Ge": "≥",
            "Ne": "≠", "Am": "&", "Pi": "π", "If": "∞", "Na": "NaN", "Ua": "↑", "Da": "↓", "Pm": "±"}
_ONE = {"-": "-", "e": "\\", "\\": "\\", " ": " ", "~": " ", "0": " ", "t": " ", "'": "'", "`": "`", ".": ".",
        "_": "_", "E": "\\", "%": "", "&": "", "|": "", "^": "", ")": "", ",": "", "/": "", "c": "", ":": "",
        "{": "", "}": "", "p": "", "a": "", "d": "", "u": "", "r": "", "!": "", "?": "", "z": ""}
# An argument: a quoted string, or a word (an escaped space, `\ `, is within it).
_QUOTED = re.compile(r'"((?:[^"]|"")*)"?|((?:[^\s\\]|\\.)+\\?|\\)')
_TAB = re.compile(r"tab\s*\((.)\)")
# A NAME section's line: the page's names, a dash, what it is.
_NAME_LINE = re.compile(r"([^\n]*?\S)\s+[-—–]+\s+(\S[^\n]*)")
MAX_TITLE_PARTS = 2
# A page's own strings (`.ds`): at most this many, each at most this long.
MAX_STRINGS = 1000
MAX_STRING_CHARS = 1000
MAX_EXPANDED_CHARS = 1_000_000
# The most an mdoc `.It Xo ... .Xc` tag gathers from the lines it spans (a real one is a few words).
MAX_TAG_CHARS = 1000
MAX_HANGING_TAG_CHARS = 200  # of a `.HP` paragraph read as an option's name (help2man's are under 100)
# Conditionals on one line, one the body of the one before (real pages nest two or three): past
# this many the line is left out, as each level is a copy of the line's rest.
MAX_NESTED_CONDITIONS = 20
MAX_NAME_CHARS = 1000  # of a NAME section's paragraph, looked at for the title


class Strings:
    """A page's strings (`.ds`) and the built-in ones, and how much more text their expansions may
    give: a line of `\\*(xx` names a long string many times, and past MAX_EXPANDED_CHARS (far more
    than any page's; top(1)'s expand to a few thousand) names expand to nothing."""

    def __init__(self) -> None:
        self.values = dict(_STRINGS)
        self.left = MAX_EXPANDED_CHARS

    def get(self, name: str, default: str = "") -> str:
        value = self.values.get(name, default)
        if len(value) > self.left:
            return default
        self.left -= len(value)
        return value


def unescaped(text: str, strings: Mapping[str, str] | Strings = _STRINGS) -> str:
    """`text` with its escapes as the characters they print (fonts, sizes and motions as nothing),
    `\\*(xx` as `strings` defines it."""
    if "\\" not in text:
        return text
    return _ESCAPE.sub(functools.partial(_character, strings), text)


def _character(strings: Mapping[str, str] | Strings, match: re.Match) -> str:
    named, bracketed, string2, string_long, string1, by, argument, struck, what, one = match.groups()
    if struck is not None:
        shown = unescaped(what, strings)
        return shown if struck == "Z" else overstruck(shown)
    if named is not None or bracketed is not None:
        return named_character(named if named is not None else bracketed)
    if by is not None:
        return named_character(argument) if by == "C" else numbered_character(argument)
    string = string2 if string2 is not None else string_long if string_long is not None else string1
    if string is not None:
        return strings.get(string, "")
    if one is not None:
        return _ONE.get(one, one)
    return ""  # fonts, sizes, motions, registers


def overstruck(characters: str) -> str:
    """What `\\o'...'` (its characters printed over each other) shows as text: a letter with its
    accents composed (`\\o'e\\(aa'`, é), else the last character, as `col -b` keeps it."""
    letters = [c for c in characters if c.isalpha()]
    accents = [_COMBINING.get(c) for c in characters if not c.isalpha()]
    if len(letters) == 1 and accents and all(accents):
        composed = unicodedata.normalize("NFC", letters[0] + "".join(a for a in accents if a))
        if len(composed) == 1:
            return composed
    return characters[-1:] if characters.strip() else ""


# Spacing accents as an overstrike prints them over a letter, as the combining ones they stand for.
_COMBINING = {"´": "\u0301", "'": "\u0301", "`": "\u0300", "^": "\u0302", "~": "\u0303", "¨": "\u0308",
              "¸": "\u0327", "ˇ": "\u030c", "°": "\u030a", "¯": "\u0304"}


def _uncommented(line: str) -> str:
    """The line without its comment (`\\"` or `\\#` to the line's end), escaped backslashes kept."""
    if "\\" not in line:
        return line
    for match in re.finditer(r"\\(.)", line):
        if match.group(1) in ('"', "#"):
            return line[:match.start()]
    return line


def arguments(rest: str) -> list[str]:
    """A request's arguments: words, or quoted strings (`""` a quote inside one)."""
    return [match.group(1).replace('""', '"') if match.group(1) is not None else match.group(2)
            for match in _QUOTED.finditer(rest)]


@dataclass(frozen=True)
class Page:
    markdown: str
    title: str | None
    included: tuple[str, ...]  # what `.so` lines named (not followed)


class Writer:
    """The Markdown being written: blocks, the paragraph being filled, a list item's tag."""

    def __init__(self) -> None:
        self.blocks: list[str] = []
        self.lines: list[str] = []  # the text lines of the paragraph being filled
        self.joins: list[str] = []  # what goes before each of them: a line break, or the space filling puts
        self.filling = False  # the next text line goes on the last output line, as roff fills it
        self.tag: str | None = None  # the list item the paragraph being filled belongs to
        self.code: list[str] | None = None
        self.level = 0  # how many `.RS` are open (`.RE` closes one), counted from the last heading
        self.item_level = 0  # how many were open when the list item being filled began
        self.outdented = False  # an `.RE` took the item's indent away: text after it is no longer the item's
        self.hanging = False  # the paragraph being filled is a `.HP` one: an untagged `.IP` makes it a tag

    def text(self, line: str) -> None:
        if self.code is not None:
            self.code.append(line)
        elif line.strip():
            if self.outdented:
                self.end()
            words = line.strip()
            # A text line goes on where the last one ended, as roff fills it: the line breaks of the
            # page's source are not the reader's.
            # A line that begins with a space is one of its own (roff breaks before it).
            filled = self.filling and bool(self.lines) and bool(self.lines[-1]) and not line[0].isspace()
            self.joins.append(_filling_space(self.lines[-1], words) if filled else "\n")
            self.lines.append(words)
            self.filling = True

    def line_break(self) -> None:
        """The next text line begins a line of its own (`.br`, and the indent `.RS` and `.RE` change)."""
        self.filling = False

    def end(self) -> None:
        """Ends the paragraph (or list item) being filled."""
        filled = "".join(join + line for join, line in zip(self.joins, self.lines, strict=True))[1:]
        body = escape_structure(filled, item=self.tag is not None and not self.tag.strip())
        if self.tag is not None and (self.tag.strip() or body):
            # A tagged paragraph: its tag, then its text; an untagged item (a bullet's): its text.
            lines = [escape_structure(self.tag.strip(), item=True), *body.split("\n")] if self.tag.strip() else body.split("\n")
            while lines and not lines[0]:
                lines.pop(0)
            while lines and not lines[-1]:
                lines.pop()
            # A blank line between an item's paragraphs stays, each paragraph indented under it.
            self.blocks.append("- " + "\n".join(f"  {line}" if line else "" for line in lines)[2:])
        elif body:
            self.blocks.append(body)
        self.lines, self.joins, self.tag, self.outdented, self.filling = [], [], None, False, False
        self.hanging = False

    def item_paragraph(self) -> bool:
        """A new paragraph in the list item being filled (man's `.IP` with no tag after its text,
        mdoc's `.Pp` in an item); False where no item has text yet."""
        if self.tag is None or not self.lines or self.code is not None:
            return False
        self.outdented = False  # `.RE`, then `.IP`: indented again
        if self.lines[-1]:
            self.lines.append("")
            self.joins.append("\n")
        self.filling = False
        return True

    def hang(self) -> None:
        """`.HP`: a paragraph that an untagged `.IP` after it makes an item's tag (help2man's options)."""
        self.end()
        self.hanging = True

    def tagged_by_hanging(self) -> bool:
        """An untagged `.IP` after a `.HP` paragraph: that paragraph is the item's tag; False where
        the paragraph being filled is no `.HP` one."""
        if not self.hanging or not self.lines or self.tag is not None or self.code is not None:
            return False
        tag = "".join(join + line for join, line in zip(self.joins, self.lines, strict=True))[1:]
        if len(tag) > MAX_HANGING_TAG_CHARS:  # a hanging paragraph of prose, no option's name
            return False
        self.lines, self.joins, self.hanging, self.filling = [], [], False, False
        self.item(tag.replace("\n", " "))
        return True

    def item(self, tag: str) -> None:
        self.end()
        self.tag, self.item_level = tag, self.level

    def indent(self) -> None:
        self.level += 1
        self.filling = False

    def outdent(self, to: int | None) -> None:
        """`.RE` (`.RE n`: back to the n-th level, the first being none open). One that closes the
        block the item being filled began in takes the item's indent away: groff puts text after
        it at that block's margin, out of the item (gpg-agent's text after its list of levels;
        gcloud's `.RE`, `.sp` after a list of `.IP`s; docutils' `.UNINDENT` of the `.INDENT 0.0`
        around its lists). An untagged `.IP` indents again (xz's and man-pages' `.RE`, `.IP`): the
        text is an outer item's, which Markdown written in order cannot go back to; it stays with
        the item being filled, as it did. One closing a block opened within the item leaves it as
        it is (docutils sets the item's indent back after it)."""
        self.level = max(self.level - 1 if to is None else min(to - 1, self.level), 0)
        self.filling = False
        if self.tag is not None and self.level < self.item_level:
            self.outdented = True

    def heading(self, level: int, text: str) -> None:
        self.end()
        self.end_code()
        if text.strip():
            self.blocks.append(f"{'#' * level} {text.strip()}")

    def start_code(self) -> None:
        if self.code is None:
            self.end()
            self.code = []

    def end_code(self) -> None:
        if self.code is not None:
            lines = self.code
            while lines and not lines[-1].strip():
                lines.pop()
            if any(line.strip() for line in lines):
                self.blocks.append("```\n" + "\n".join(line.replace("```", "`\u200b``") for line in lines) + "\n```")
            self.code = None

    def markdown(self) -> str:
        self.end_code()
        self.end()
        return "\n\n".join(self.blocks) + "\n" if self.blocks else ""


# Chinese and Japanese, written without spaces: a line break between two of their characters joins
# them as they are (Korean is written with spaces between words).
_UNSPACED = re.compile("[\u3000-\u303f\u3040-\u30ff\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff01-\uff60]")


def _filling_space(before: str, after: str) -> str:
    """What filling puts where a line break was: a space, none between Chinese or Japanese characters."""
    return "" if _UNSPACED.match(before[-1]) and _UNSPACED.match(after[0]) else " "


# man(7) font macros: their arguments, run together (alternating fonts) or spaced.
_ALTERNATING = frozenset({"BR", "RB", "IR", "RI", "BI", "IB"})
_SPACED = frozenset({"B", "I", "SM", "SB", "CW", "CR", "CI", "CB"})
_PARAGRAPH = frozenset({"PP", "LP", "P", "sp", "HP", "Pp", "Lp", "br", "ns"})
_BULLETS = frozenset({"•", "-", "*", "o", "·", "+", "—", "–"})
_CONDITIONALS = frozenset({"if", "ie", "el", "while"})
_DEFINITIONS = frozenset({"de", "de1", "am", "am1", "ig", "dei", "ami"})
_KEPT_DEFINITIONS = frozenset({"de", "de1", "am", "am1"})  # a page's own macros (roff_macros.py)
# The requests and macros this reader reads itself, whatever a page defines them as (pod2man's
# preamble defines `.Vb`, Asciidoctor's `.URL`, with requests a text reader cannot follow).
_READ_AS_THEY_ARE = frozenset({
    *_ALTERNATING, *_SPACED, *_PARAGRAPH, *_CONDITIONALS, *_DEFINITIONS, *MDOC_MACROS, "ds", "ds1", "TH", "SH", "SS",
    "TP", "IP", "nf", "EX", "Vb", "fi", "EE", "Ve", "so", "TS", "TE", "UR", "MT", "UE", "ME", "URL", "MTO", "OP",
    "SY", "Sp", "RS", "RE"}) - {"CW"}
# (pod2man's `.Sp`, its blank line, is read as nothing: its preamble's definition is conditionals
# on the output device; a page's own `.CW`, fakeroot's code block that its `.CE` ends, is the page's.)


def roff_to_markdown(text: str) -> Page:
    """Markdown for a manual page (man(7) or mdoc(7)), its title, and what `.so` lines named."""
    lines = _joined(text.replace("\r\n", "\n").replace("\r", "\n").split("\n"))
    out = Writer()
    state = PageState()
    skip_to: str | None = None  # the line ending a definition or `.ig`
    depth = 0  # how deep in a conditional's `\{ ... \}` block
    awaiting_tag = False  # a request (`.TP`) said the next line is an item's tag

    def place(words: str) -> None:
        """A line's words where they go: the tag an item awaits, the heading a request began, else text."""
        nonlocal awaiting_tag
        if awaiting_tag:
            out.item(words)
            awaiting_tag = False
        elif state.heading_next:
            out.heading(state.heading_next, words)
            state.synopsis = state.heading_next == 2 and words.strip().upper() == "SYNOPSIS"
            state.heading_next = 0
        else:
            out.text(words)

    defining: tuple[str, str, list[str]] | None = None  # a macro being defined: its request, name, lines so far
    given: list[tuple[str, int]] = []  # the lines a macro's use stands for, the next last, and how deep in uses
    source = iter(lines)
    while True:
        if given:
            raw, level = given.pop()
        else:
            read = next(source, None)
            if read is None:
                break
            raw, level = read, 0
        if skip_to is not None:
            if raw.strip() == skip_to or raw.startswith(skip_to + " "):
                skip_to = None
                if defining is not None:
                    state.macros.define(defining[1], defining[2], append=defining[0] in ("am", "am1"))
                    defining = None
            elif defining is not None:
                defining[2].append(raw)
            continue
        if depth:
            depth = max(depth + _braces(raw), 0)
            continue
        line = _uncommented(raw)
        nested = 0
        while line.startswith((".", "'")) and _split_request(line)[0] in _CONDITIONALS:
            nested += 1
            body = state.branch(*_split_request(line)) if nested <= MAX_NESTED_CONDITIONS else None
            if body is None:  # a branch not taken (or one the reader cannot tell): its block too
                depth = max(_braces(line), 0)
                break
            line = body
        else:
            line = line if line.startswith((".", "'")) or line.strip() else ""
        if depth or not line:
            continue
        if not line.startswith((".", "'")):
            if state.table is not None:
                state.table_row(line, out)
                continue
            place(state.words(line))
            continue
        name, rest = _split_request(line)
        if name in _DEFINITIONS:
            ends = arguments(rest)
            skip_to = "." + ends[1] if name not in ("ig",) and len(ends) > 1 else (
                "." + ends[0] if name == "ig" and ends else "..")
            if name in _KEPT_DEFINITIONS and ends and ends[0] not in _READ_AS_THEY_ARE:
                defining = (name, ends[0], [])
            continue
        if name not in _READ_AS_THEY_ARE:
            expansion = state.macros.expand(name, arguments(rest), level)
            if expansion is not None:
                given.extend((line, level + 1) for line in reversed(_joined(expansion)))
                continue
        if state.table is not None and name != "TE":
            continue
        line_words = _request(name, rest, out, state)
        if line_words is _TAG:
            awaiting_tag = True
        elif line_words is not None:
            if state.extending and out.tag is not None:
                out.tag = f"{out.tag}{state.line_space()}{line_words}".strip()
                state.extending = len(out.tag) < MAX_TAG_CHARS  # past it, what follows is the item's text
            else:
                place(line_words)
    if state.text_block is not None:  # a table cell's `T{` never closed: what it held is still text
        state.row(" ".join(state.text_block), out)
    markdown = out.markdown()
    state.named(out.blocks)
    title = state.title()
    return Page(f"# {title}\n\n{markdown}" if title and markdown else markdown, title, tuple(state.included))


# A request line: its name (up to a space or an escape: `.el\{`) and the rest.
_REQUEST = re.compile(r"[.'][ \t]*([^\s\\]*)[ \t]*(.*)", re.DOTALL)
# A condition a text reader can tell: `n` (a terminal: true, as man shows it), `t` (a typesetter).
_CONDITION = re.compile(r"(!?)([nt])(?=\s|\\\{|$)\s*(.*)", re.DOTALL)
_TAG = "\0tag"
# A condition of numbers alone, as a macro's use makes of its argument count: roff reads it left to
# right, no operator before another (`2-1>0`); true where above 0.
_NUMERIC_CONDITION = re.compile(r"(!?)(-?\d{1,9}(?:(?:[-+*/<>=]|[<>=]=)-?\d{1,9}){0,8})(?=\s|\\\{|$)\s*(.*)", re.DOTALL)
_OPERATION = re.compile(r"([-+*/]|[<>=]=?)(-?\d+)")


def _evaluated(expression: str) -> int | None:
    """A numeric condition's value, read left to right as roff reads it; None for a division by 0."""
    first = re.match(r"-?\d+", expression)
    if first is None:
        return None
    value = int(first.group())
    for operator, operand in _OPERATION.findall(expression[first.end():]):
        number = int(operand)
        if operator == "/" and number == 0:
            return None
        value = {"+": value + number, "-": value - number, "*": value * number, "/": int(value / number) if number else 0,
                 "<": int(value < number), ">": int(value > number), "=": int(value == number),
                 "==": int(value == number), "<=": int(value <= number), ">=": int(value >= number)}[operator]
    return value


def _split_request(line: str) -> tuple[str, str]:
    """A request line's name and the rest."""
    match = _REQUEST.match(line)
    return (match.group(1), match.group(2)) if match else ("", "")  # a request whose next line is a list item's tag (`.TP`)


def _braces(line: str) -> int:
    return line.count("\\{") - line.count("\\}")


def _joined(lines: list[str]) -> list[str]:
    """Lines with their continuations joined: a line ending in an unescaped backslash, and a text
    line ending in `\\c` whose next line is text too (its word goes on there: `foo\\c` `bar`, foobar)."""
    out: list[str] = []
    pending = ""
    for at, line in enumerate(lines):
        trailing = len(line) - len(line.rstrip("\\"))
        if trailing % 2:  # `\` at the end: the next line continues this one
            pending += line[:-1]
            continue
        if line.endswith("\\c") and (len(line) - len(line[:-1].rstrip("\\")) - 1) % 2 \
                and not (pending or line).startswith((".", "'")) and at + 1 < len(lines) \
                and not lines[at + 1].startswith((".", "'")):
            pending += line[:-2]
            continue
        out.append(pending + line)
        pending = ""
    if pending:
        out.append(pending)
    return out


class PageState:
    """What a page's requests said so far: its names, the table being read, a heading to come."""

    def __init__(self) -> None:
        self.th: list[str] = []
        self.name: str | None = None  # mdoc's `.Nm`, the first one given
        self.description: str | None = None  # man's NAME line, mdoc's `.Nd`
        self.heading_next = 0
        self.synopsis = False  # in the SYNOPSIS section, where mdoc breaks the line before each name
        self.table: bool | None = None  # in a tbl table: whether its rows began (its format read); None: in none
        self.tab = "\t"
        self.text_block: list[str] | None = None  # a table cell's `T{` block's lines so far
        self.lists: list[str] = []  # mdoc's open `.Bl` kinds
        self.included: list[str] = []
        self.strings = Strings()
        self.macros = Macros()
        self.link = ""  # the address of the man(7) link (`.UR`) being read
        self.extending = False  # an mdoc `.It Xo` tag goes on over the lines to its `.Xc`
        self.spacing = True  # mdoc's spacing mode: `.Sm off` runs a line's words and lines together
        self.unspaced_lines = 0  # the lines placed since `.Sm off`
        self.otherwise: bool | None = None  # whether the last `.ie`'s `.el` is taken (None: not told)

    def line_space(self) -> str:
        """What goes between the line placed last and the next: a space, but none after the first
        line since `.Sm off` (mandoc and groff: `-L [bind_address:]port:host:hostport`)."""
        if self.spacing:
            return " "
        self.unspaced_lines += 1
        return " " if self.unspaced_lines == 1 else ""

    def branch(self, name: str, rest: str) -> str | None:
        """What a conditional (`.if COND BODY`, `.ie`, `.el BODY`) gives to read: its body, where
        it is taken (`n` is: a terminal's branch is what man shows); None where it is not or its
        condition is one the reader cannot tell (a register, a string comparison)."""
        if name == "while":
            return None
        if name == "el":
            taken, body, self.otherwise = self.otherwise, rest, None
        else:
            condition = _CONDITION.match(rest)
            taken = None if condition is None else (condition.group(2) == "n") != (condition.group(1) == "!")
            body = condition.group(3) if condition else ""
            number = _NUMERIC_CONDITION.match(rest) if condition is None else None
            if number is not None:  # a macro's argument count, given (`\n(.$>1`, `2-1`)
                value = _evaluated(number.group(2))
                taken = None if value is None else (value > 0) != (number.group(1) == "!")
                body = number.group(3)
            if name == "ie":
                self.otherwise = None if taken is None else not taken
        if not taken:
            return None
        body = body.lstrip()
        return body[2:].lstrip() if body.startswith("\\{") else body

    def words(self, text: str) -> str:
        return unescaped(text, self.strings)

    def define(self, args: list[str]) -> None:
        """`.ds name value`: a string the page's text names as `\\*(name`; its value read as it is
        defined, so a string is never expanded within another's expansion."""
        if args and len(self.strings.values) < MAX_STRINGS:
            self.strings.values[args[0]] = self.words(" ".join(args[1:]).removeprefix('"'))[:MAX_STRING_CHARS]

    def named(self, blocks: list[str]) -> None:
        """The page's name and what it is, from its first section's first paragraph (NAME's, or
        its translation's: BEZEICHNUNG, NOM), `ls - list directory contents`, where `.Nd` said none."""
        first = next((at for at, block in enumerate(blocks) if block.startswith("## ")), None)
        if first is None or first + 1 >= len(blocks) or self.description is not None:
            return
        said = _NAME_LINE.match(" ".join(blocks[first + 1][:MAX_NAME_CHARS].split()))
        if said:
            self.description = said.group(2).strip()
            self.name = self.name or said.group(1).split(",")[0].strip()

    def title(self) -> str | None:
        if not self.th:
            return None
        name = self.th[0]
        if self.name and self.name.upper() == name.upper():
            name = self.name
        section = f"({self.th[1]})" if len(self.th) > 1 and self.th[1] else ""
        return f"{name}{section}" + (f" — {self.description}" if self.description else "")

    def table_row(self, line: str, out: Writer) -> None:
        if not self.table:  # its options line (ending in `;`), then format lines, the last ending in `.`
            stripped = line.strip()
            if stripped.endswith(";"):
                tab = _TAB.search(stripped)
                if tab:
                    self.tab = tab.group(1)
            elif stripped.endswith("."):
                self.table = True
            return
        if self.text_block is not None:  # inside a cell's `T{ ... T}` block: its lines are the cell's text
            if not line.startswith("T}"):
                self.text_block.append(line)
                return
            line, self.text_block = " ".join(self.text_block) + line[2:], None
        elif line.strip() in ("_", "=", ""):
            return
        if line.endswith("T{"):  # a cell's text block begins: the row goes on after its `T}`
            self.text_block = [line[:-2]]
            return
        self.row(line, out)

    def row(self, line: str, out: Writer) -> None:
        cells = [self.words(cell.replace("T{", "").replace("T}", "")).strip() for cell in line.split(self.tab)]
        row = " | ".join(cell for cell in cells if cell and cell not in ("_", "="))
        if row:
            out.text(row)
            out.end()


def _request(name: str, rest: str, out: Writer, state: PageState) -> str | None:
    """What the request `.name rest` does to `out`; the words it prints on the current line, if any."""
    args = arguments(rest)
    if name in ("ds", "ds1"):
        state.define(rest.split(" ", 1) if " " in rest else [rest])
        return None
    if name == "TH":
        state.th = [state.words(arg) for arg in args[:MAX_TITLE_PARTS]]
        return None
    if name in ("SH", "Sh", "SS", "Ss"):
        out.level = 0  # a heading sets the margin back, every `.RS` closed
        level = 2 if name in ("SH", "Sh") else 3
        heading = state.words(" ".join(args))
        if level == 2:
            state.synopsis = heading.strip().upper() == "SYNOPSIS"
        if heading:
            out.heading(level, heading)
        else:
            out.end()
            state.heading_next = level  # the heading is the next line
        return None
    if name in _PARAGRAPH:
        if name in ("Pp", "Lp") and state.lists and out.item_paragraph():
            return None
        if name == "HP":
            out.hang()
            return None
        if name in ("sp", "br", "ns") and out.tag is not None and not out.outdented:
            # In a tagged paragraph (`.TP`, `.IP`) vertical space and a break leave the item's
            # indent as it was: what follows is still its text, `.sp` a new paragraph of it.
            if name == "sp":
                out.item_paragraph()
            else:
                out.line_break()
            return None
        if name == "br":
            out.line_break()  # a break, not a paragraph's end: the next line begins a line of its own
            return None
        out.end()
        return None
    if name == "TP":
        out.end()
        return _TAG
    if name == "IP":
        tag = state.words(args[0]).strip() if args else ""
        if tag in _BULLETS:
            out.item("")  # a bulleted list's item: its text alone
        elif tag:
            out.item(tag)
        elif not out.item_paragraph() and not out.tagged_by_hanging():
            out.end()
        return None
    if name == "RS":
        out.indent()
        return None
    if name == "RE":
        out.outdent(int(args[0]) if args and args[0].isdigit() and len(args[0]) < 6 else None)
        return None
    if name in ("nf", "EX", "Vb"):  # `.Vb`/`.Ve`: pod2man's verbatim block, which its preamble defines so
        out.start_code()
        return None
    if name in ("fi", "EE", "Ve"):
        out.end_code()
        return None
    if name in _SPACED:
        return state.words(" ".join(args)) if args else None
    if name in _ALTERNATING:
        return state.words("".join(args)) if args else None
    if name == "so":
        state.included.append(rest)
        return None
    if name == "TS":
        out.end()
        state.table, state.tab = False, "\t"
        return None
    if name == "TE":
        if state.text_block is not None:  # a `T{` never closed: what it held is still the row's
            state.row(" ".join(state.text_block), out)
        state.table, state.text_block = None, None
        return None
    if name in ("UR", "MT"):  # a link: its text follows, its address is written after it, at `.UE`
        state.link = state.words(args[0]) if args else ""
        return None
    if name in ("UE", "ME"):
        address = f"<{'mailto:' if name == 'ME' else ''}{state.link}>" if state.link else ""
        state.link = ""
        return f"{address}{state.words(''.join(args))}" or None
    if name in ("URL", "MTO"):  # Asciidoctor's link and mail macros: address, text, what follows
        address, text, after = [state.words(arg) for arg in (*args, "", "", "")[:3]]
        link = f"<{'mailto:' if name == 'MTO' else ''}{address}>" if address else ""
        return " ".join(part for part in (text, link) if part) + after or None
    if name == "OP":
        return "[" + state.words(" ".join(args)) + "]"
    if name == "SY":
        out.end()
        return state.words(" ".join(args))
    return mdoc_request(name, args, out, state)

