"""A path that names nothing, and the name beside it that it was likely meant as.

On Linux a name is its bytes: `café.md` written with a combining accent (NFD, as macOS and
some tools write names) and `Café.md` are other names than `café.md`, and on a screen the
first looks exactly like it. A refusal that said only "no such file", naming in the same-looking
letters the file that is there, left a client nothing to go on: it names that file, both names
escaped so they can be told apart.

The other way round, on a file system that looks names up regardless of case or normalization
(macOS, Windows), a path in another spelling than its folder lists opens the file: as_listed gives
the listed spelling, the one a sync's walk stores, so the file is one source however it was named.
"""

from __future__ import annotations

import os
import unicodedata
from collections.abc import Iterable
from pathlib import Path

from minirag.security import folder_inside_roots

MAX_ENTRIES = 10_000  # names of the folder looked through at most: a miss never costs a walk of a huge folder


def escaped(name: str) -> str:
    """`name` with every character outside ASCII as its escape (`caf\\xe9`, `cafe\\u0301`)."""
    return name.encode("ascii", "backslashreplace").decode("ascii")


def other_spelling(path: str, roots: Iterable[Path]) -> str | None:
    """Why `path`, which names nothing, is not the file beside it whose name differs from its own only
    in Unicode normalization (or else only in letter case); None when no name there does, or its folder
    lies outside `roots`. The folder is listed through security.folder_inside_roots' descriptor, never by
    name: a folder swapped for a link out after the caller's check lists nothing."""
    folder, name = os.path.split(path)
    if not name:
        return None
    composed = unicodedata.normalize("NFC", name)
    normalized, cased = None, None
    opened = folder_inside_roots(folder, roots)
    if opened is None:
        return None
    try:
        with os.scandir(opened) as entries:
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
    finally:
        os.close(opened)
    there = normalized or cased
    if there is None:
        return None
    how = ("in another Unicode normalization (accents composed or combining: NFC, NFD)" if normalized
           else "in other letter case")
    return (f"its folder holds '{escaped(there)}', the same name {how} as '{escaped(name)}' "
            f"given: the file is {os.path.join(folder, there)}")


def as_listed(path: str, root: str) -> str:
    """`path` (absolute and normalized, inside `root`) spelled as the folders below `root` list it: a part
    its folder does not list as given, though it opens (a file system that looks names up regardless of
    letter case or Unicode normalization: macOS's APFS, Windows' NTFS), becomes the listed name equal to it
    case-folded in NFC that is the same entry (its lstat's device and inode). So `/d/NOTES.md` is the
    `/d/Notes.md` a sync's walk stores. A name is looked for among those its folder lists, except where
    the folder's file system tells letter case apart (an ASCII name in the other case opens nothing): there
    a name that opens is listed as given, and no folder is read. `path` as given where a part names
    nothing or its folder lists more than MAX_ENTRIES names first."""
    if path == root or not path.startswith(root.rstrip(os.sep) + os.sep):
        return path
    spelled = root
    parts = path[len(root.rstrip(os.sep)) + 1:].split(os.sep)
    for at, name in enumerate(parts):
        listed = _listed_name(spelled, name)
        if listed is None:
            return os.path.join(spelled, *parts[at:])
        spelled = os.path.join(spelled, listed)
    return spelled


def _listed_name(folder: str, name: str) -> str | None:
    """`name` where `folder` lists it so; else the listed name that is the same entry; else None."""
    key = unicodedata.normalize("NFC", name).casefold()
    alike = []
    try:
        given = os.lstat(os.path.join(folder, name))  # a name that opens nothing is not looked for
        if _tells_case_apart(folder, name):
            return name
        with os.scandir(folder) as entries:
            for number, entry in enumerate(entries):
                if entry.name == name:
                    return name
                if number >= MAX_ENTRIES:
                    return None
                if unicodedata.normalize("NFC", entry.name).casefold() == key:
                    alike.append(entry.name)
        return next((other for other in alike if os.path.samestat(os.lstat(os.path.join(folder, other)), given)), None)
    except (OSError, ValueError):  # not a folder, unreadable, gone, or a name no path can hold
        return None


def _tells_case_apart(folder: str, name: str) -> bool:
    """Whether `folder`'s file system shows that `name`, which opens, is listed as given: an ASCII name
    (so no Unicode normalization can differ) whose other-case spelling opens nothing. A scoped query
    or a read names a path each time; on Linux this spares reading each folder on it (5 ms for 10,000 names)."""
    other = name.swapcase()
    if not name.isascii() or other == name:
        return False
    try:
        os.lstat(os.path.join(folder, other))
    except FileNotFoundError:
        return True
    except OSError:
        return False
    return False
