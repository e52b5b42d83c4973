"""Which heading of a rebuilt document a link's `#fragment` names.

A passage keeps its links (`[setup](README.md#installation)`), so an agent that follows one reads
`README.md#installation`. The fragment is a heading's anchor as the page's writer's tool made it:
GitHub and pandoc lowercase the heading's text, drop its markup and punctuation and join its words
with `-`, numbering a repeated heading's anchor (`installation-1`); other tools join with `_` or
keep the case. Matched first as GitHub spells it, then by the letters and digits alone, then as
an API entry's name at the start of a line (Sphinx's `tomllib.html#tomllib.load`, `class csv.Dialect`,
a method as `DictWriter.writeheader()` or, inside its class, `  sniff(...)`: api_entry).
A hit's heading trail, its passage's first line (`Guide > Upgrade > Linux`), names its last heading
(trail_offset). A PDF's `#page=N` (Adobe's open parameters, which a citation of a hit's `pages` takes; `#slide=N`
for a deck) names the first section holding that page: page_offset.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from urllib.parse import parse_qsl, unquote

from minirag.chunking.breadcrumb import SEPARATOR
from minirag.chunking.fences import Fences
from minirag.chunking.links import LINK_OR_PICTURE

_HEADING = re.compile(r" {0,3}(#{1,6})[ \t]+(.*)")  # its closing #s are taken off by _heading_text
_NOT_IN_A_SLUG = re.compile(r"[^\w\- ]")
_TRAIL = SEPARATOR  # between the headings of a passage's first line


def slug(heading: str) -> str:
    """A heading's anchor as GitHub writes it: `Usage: the **CLI**` -> `usage-the-cli`."""
    text = LINK_OR_PICTURE.sub(lambda m: m.group(1), heading)
    return _NOT_IN_A_SLUG.sub("", text.strip().lower()).replace(" ", "-")


def _letters(text: str) -> str:
    return "".join(c for c in text.casefold() if c.isalnum())


def headings(text: str) -> list[tuple[int, str]]:
    """(offset of the line, heading text) of each Markdown heading outside fenced code, in order."""
    lines = text.split("\n")
    fences = Fences(lines)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line) + 1)
    out: list[tuple[int, str]] = []
    index = 0
    while index < len(lines):
        end = fences.end(index)
        if end is not None:
            index = end + 1
            continue
        if (match := _HEADING.match(lines[index])) is not None:
            out.append((starts[index], _heading_text(match.group(2))))
        index += 1
    return out


def _heading_text(rest: str) -> str:
    """A heading line's text after its opening #s: without the closing #s and the spaces before them.
    Done in string steps: a pattern for it backtracks over every split of a long run of spaces."""
    text = rest.rstrip(" \t")
    bare = text.rstrip("#")
    if bare != text and (not bare or bare[-1] in " \t"):
        text = bare.rstrip(" \t")
    return text


def heading_offset(text: str, fragment: str) -> int | None:
    """Where the heading `fragment` names starts in `text`; None if no heading has that anchor."""
    wanted = unquote(fragment).strip()
    if not wanted:
        return None
    found = headings(text)
    seen: dict[str, int] = {}
    slugs = []
    for at, heading in found:
        name = slug(heading)
        count = seen.get(name, 0)
        seen[name] = count + 1
        slugs.append((at, name if count == 0 else f"{name}-{count}"))
    lowered = wanted.lower()
    for at, name in slugs:
        if name == lowered:
            return at
    letters = _letters(wanted)
    for at, heading in found:
        if letters and _letters(LINK_OR_PICTURE.sub(lambda m: m.group(1), heading)) == letters:
            return at
    if _TRAIL in wanted and (trailed := trail_offset(text, found, wanted.split(_TRAIL))) is not None:
        return trailed
    return api_entry(text, wanted) if not wanted.startswith("cmdoption-") else option_entry(text, wanted)


def page_offset(fragment: str, spans: Iterable[tuple[int, int | None, int | None]]) -> int | None:
    """Where the first section holding the page `#page=N` (or `#slide=N`, and among other open
    parameters: `page=3&zoom=100`) names starts, of `spans` (start, first page, last page) in order;
    None where the fragment names no page, or a page no section holds."""
    numbers = [value for key, value in parse_qsl(fragment) if key.lower() in ("page", "slide")]
    if not numbers or not numbers[0].isascii() or not numbers[0].isdigit():
        return None
    wanted = int(numbers[0])
    for start, first, last in spans:
        if first is not None and first <= wanted <= (last or first):
            return start
    return None


def trail_offset(text: str, found: list[tuple[int, str]], trail: list[str]) -> int | None:
    """Where the last part of a hit's heading trail (`Guide > Upgrade > Linux`, its passage's first
    line) starts: each part looked for after the one before it, so `Linux` under `Upgrade` is not the
    one under `Install`; as a heading, else as the line a term or an entry opens (`Function: void
    ffi_call (...)`, cut with `…` where long); a part nothing has (the document's title) is passed over."""
    at, last = -1, None
    for number, part in enumerate(trail):
        letters = _letters(LINK_OR_PICTURE.sub(lambda m: m.group(1), part.removesuffix("…")))
        if not letters:
            continue
        offset = next((offset for offset, heading in found if offset > at
                       and _letters(LINK_OR_PICTURE.sub(lambda m: m.group(1), heading)) == letters), None)
        if offset is None and number == len(trail) - 1:
            offset = _line_opening(text, at + 1, [_letters(piece) for piece in part.split("…")])
        if offset is not None:
            at, last = offset, number
    return at if last == len(trail) - 1 else None


def _line_opening(text: str, start: int, pieces: list[str]) -> int | None:
    """Where the first line from `start` on starts whose letters and digits begin with `pieces[0]` and
    hold the other pieces after it, in order (a long line is cut with `…` in a trail)."""
    begin = text.rfind("\n", 0, start) + 1 if start > 0 else 0
    while begin < len(text):
        end = text.find("\n", begin)
        end = len(text) if end < 0 else end
        if begin >= start and _holds_in_order(_letters(LINK_OR_PICTURE.sub(lambda m: m.group(1), text[begin:end])),
                                              pieces):
            return begin
        begin = end + 1
    return None


def _holds_in_order(line: str, pieces: list[str]) -> bool:
    if not line.startswith(pieces[0]):
        return False
    at = len(pieces[0])
    for piece in pieces[1:]:
        found = line.find(piece, at)
        if found < 0:
            return False
        at = found + len(piece)
    return True


def option_entry(text: str, wanted: str) -> int | None:
    """Where the line of the command-line option Sphinx anchors as `cmdoption-PROGRAM-OPTION` starts
    (`cmdoption-zipfile-list` is zipfile's `--list <zipfile>` line, `cmdoption-zipfile-l` its `-l`);
    the program's name may hold dashes, so each tail of the anchor is tried, the longest first."""
    parts = wanted.split("-")[1:]
    for cut in range(1, min(len(parts), MAX_NAMES)):
        option = "-".join(parts[cut:])
        found = re.search(r"(?m)^[ \t]*--?" + re.escape(option) + r"(?![\w-])", text)
        if found is not None:
            return found.start()
    return None


# The words Sphinx sets before an entry's name (`class csv.Dialect`, `exception csv.Error`).
_KINDS = ("class", "exception", "property", "classmethod", "staticmethod", "abstractmethod", "async",
          "await", "coroutine", "static", "final", "abstract", "method", "function", "attribute", "data")
# A decorator's entry opens with its `@` (`@functools.lru_cache(maxsize=128, typed=False)`).
_ENTRY = r"(?m)^[ \t]*(?:(?:" + "|".join(_KINDS) + r") ){0,3}@?"
MAX_NAMES = 8  # in a qualified name looked up part by part; a longer one only whole


def api_entry(text: str, wanted: str) -> int | None:
    """Where the line of the API entry `wanted` names starts (Sphinx and Javadoc anchor an entry by its
    qualified name, `csv.html#csv.Sniffer.sniff`, on no heading); None for none.

    The line may leave out the names before it: Sphinx writes a method as `DictWriter.writeheader()`
    (no module) and, inside its class's entry, as `  sniff(sample, ...)`. A shortened name is looked
    for after its owner's entry (`class csv.Sniffer`), or from the top where the owner is only the
    module; it must open a call or end its line, as an entry's name does, so prose is no entry."""
    whole = re.search(_ENTRY + re.escape(wanted) + r"(?![\w.])", text)
    if whole is not None:
        return whole.start()
    names = wanted.split(".")
    if not 1 < len(names) <= MAX_NAMES or not all(names):
        return None
    for cut in range(1, len(names)):
        owner = _owner_entry(text, names[:cut])
        if owner is None:
            continue
        found = re.compile(_ENTRY + re.escape(".".join(names[cut:])) + r"(?=\(|\[|[ \t]*$)").search(text, owner)
        if found is not None:
            return found.start()
    return None


def _owner_entry(text: str, names: list[str]) -> int | None:
    """Where the entry of the owner `names` starts, by its whole name or a shorter one; 0 for a
    module alone (it has no entry line); None for an owner of several names with no entry."""
    for cut in range(len(names)):
        found = re.search(_ENTRY + re.escape(".".join(names[cut:])) + r"(?![\w.])", text)
        if found is not None:
            return found.start()
    return 0 if len(names) == 1 else None
