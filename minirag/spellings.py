"""A path that names nothing, and the name beside it that it was likely meant as.

On Linux a name is its bytes: `café.md` written with a combining accent (NFD, as macOS and
some tools write names) and `Café.md` are other names than `café.md`, and on a screen the
first looks exactly like it. A refusal that said only "no such file", naming in the same-looking
letters the file that is there, left a client nothing to go on: it names that file, both names
escaped so they can be told apart.
"""

from __future__ import annotations

import os
import unicodedata

MAX_ENTRIES = 10_000  # names of the folder looked through at most: a miss never costs a walk of a huge folder


def escaped(name: str) -> str:
    """`name` with every character outside ASCII as its escape (`caf\\xe9`, `cafe\\u0301`)."""
    return name.encode("ascii", "backslashreplace").decode("ascii")


def other_spelling(path: str) -> str | None:
    """Why `path`, which names nothing, is not the file beside it whose name differs from its own only
    in Unicode normalization (or else only in letter case); None when no name there does. The caller
    has checked that the folder lies inside the roots: its names are not to be told otherwise."""
    folder, name = os.path.split(path)
    if not name:
        return None
    composed = unicodedata.normalize("NFC", name)
    normalized, cased = None, None
    try:
        with os.scandir(folder) as entries:
            for number, entry in enumerate(entries):
                if number >= MAX_ENTRIES:
                    break
                other = unicodedata.normalize("NFC", entry.name)
                if entry.name != name and other == composed:
                    normalized = entry.name
                    break
                if cased is None and entry.name != name and other.casefold() == composed.casefold():
                    cased = entry.name
    except (OSError, ValueError):  # not a folder, unreadable, or a name no path can hold
        return None
    there = normalized or cased
    if there is None:
        return None
    how = ("in another Unicode normalization (accents composed or combining: NFC, NFD)" if normalized
           else "in other letter case")
    return (f"its folder holds '{escaped(there)}', the same name {how} as '{escaped(name)}' "
            f"given: the file is {os.path.join(folder, there)}")
