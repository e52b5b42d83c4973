"""A manual page's own macros (`.de NAME ... ..`): kept as they are defined, and each use given as
the lines it stands for, its arguments in place (`\\$1`, `\\$*`, `\\n(.$` their count).

bash(1) names its files with `.FN`, strace(1) writes its synopsis with `.OM` and `.OR`, zipinfo(1)
its examples with `.X`: without them, their text was lost. The reader (roff_text.py) reads the
lines a use gives as it reads the page's own, so a macro may use another; the ones it reads itself
(man's and mdoc's, pod2man's `.Vb`) stay its own, whatever a page's preamble defines them as.

Bounded: a use inside a use inside ... stops at MAX_MACRO_DEPTH, and all the uses of a page give
at most MAX_MACRO_CHARS (a macro that calls itself twice doubles at each level).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

MAX_MACROS = 1000  # a page's macros; past it, a new one is not kept
MAX_MACRO_BODY = 100_000  # characters of one macro's definition
MAX_MACRO_DEPTH = 8  # real pages nest two or three (strace's .OM uses .RI)
MAX_MACRO_CHARS = 1_000_000  # what all of a page's uses may give

# In a definition (read in copy mode) `\\` is one backslash; `\$1` (written `\\$1`) an argument,
# `\$*` and `\$@` all of them, `\n(.$` their count. One pass over the body, left to right.
_COPIED = re.compile(r"\\\\?\$(\d|\*|@|\(\d\d|\[\d{1,3}\])|\\\\?n(\(\.\$|\[\.\$\])|\\\\")
_ARGUMENT = re.compile(r"\\\\?\$(?:\d|\*|@|\(\d\d|\[\d{1,3}\])")


@dataclass
class _Body:
    """A macro's definition: its lines, their characters, and how many arguments they name."""

    lines: list[str] = field(default_factory=list)
    chars: int = 0
    named: int = 0


class Macros:
    """A page's macros as defined so far, and what their uses may still give."""

    def __init__(self) -> None:
        self.bodies: dict[str, _Body] = {}
        self.left = MAX_MACRO_CHARS

    def define(self, name: str, lines: list[str], *, append: bool = False) -> None:
        """`.de name` (`.am name`: more of it) with the lines up to its end. An `.am` adds to what is
        there without reading it again: a page of many `.am`s of one macro costs their own lines."""
        if name not in self.bodies and len(self.bodies) >= MAX_MACROS:
            return
        body = self.bodies[name] if append and name in self.bodies else _Body()
        self.bodies[name] = body
        for line in lines:
            room = MAX_MACRO_BODY - body.chars - 1
            if room <= 0:
                break
            line = line[:room]
            body.lines.append(line)
            body.chars += len(line) + 1
            body.named += len(_ARGUMENT.findall(line))

    def expand(self, name: str, args: list[str], depth: int) -> list[str] | None:
        """The lines a use of the macro `name` with `args` stands for; None for a name no macro has.
        A use past MAX_MACRO_DEPTH, or one that could give more than the page's uses may still, stands for nothing."""
        body = self.bodies.get(name)
        if body is None:
            return None
        if depth >= MAX_MACRO_DEPTH or body.chars + body.named * (len(" ".join(args)) + 3) > self.left:
            return []
        text = _substituted("\n".join(body.lines), args)
        self.left -= len(text)
        return text.split("\n")


def _substituted(body: str, args: list[str]) -> str:
    def one(match: re.Match) -> str:
        which, count = match.group(1), match.group(2)
        if count is not None:
            return str(len(args))
        if which is None:
            return "\\"  # `\\`: one backslash
        if which in ("*", "@"):
            return " ".join(args)
        number = int(which.strip("([])"))
        return args[number - 1] if 0 < number <= len(args) else ""

    return _COPIED.sub(one, body)
