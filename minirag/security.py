"""Root containment: the single definition of "inside".

A path is inside a root when its real path (symlinks followed) equals the
root or continues it past a separator; `/docs/proj` never contains
`/docs/project-secret`.
"""

from __future__ import annotations

import bisect
import contextlib
import errno
import functools
import os
import stat
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from minirag.display import shown
from minirag.errors import PathOutsideRoots
from minirag.store import held_files

MAX_PATH_BYTES = 4096  # PATH_MAX on Linux; longer paths fail in the OS with less helpful errors


def is_under(path: str, prefix: str, sep: str = "/") -> bool:
    """True when `path` is `prefix` or lies below it, matching whole segments only."""
    prefix = prefix.rstrip(sep) if prefix != sep else prefix
    if path == prefix:
        return True
    return path.startswith(prefix if prefix.endswith(sep) else prefix + sep)


@dataclass(frozen=True)
class _RootTable:
    """`roots` looked up by their text as is_under compares it, so that the roots holding a path are
    found from the path's own folders (a handful) instead of by trying every root: a walk asks this
    for every folder and file, so a comparison with every root cost roots x files."""

    roots: tuple[Path, ...]
    position: dict[str, int]  # a root's text, trailing separators off (but `/`), to its first place in `roots`
    texts: tuple[str, ...]  # those texts, sorted

    @classmethod
    @functools.lru_cache(maxsize=8)  # noqa: B019 (a few tables of a few root tuples; each small)
    def of(cls, roots: tuple[Path, ...]) -> _RootTable:
        position: dict[str, int] = {}
        for n, root in enumerate(roots):
            position.setdefault(_key(str(root)), n)
        return cls(roots, position, tuple(sorted(position)))


def _key(text: str) -> str:
    return text.rstrip(os.sep) if text != os.sep else text


# The tables of the root tuples in use (a Config's, a walk's), by identity, which costs nothing where
# hashing a thousand paths would (_RootTable.of, by content, serves the rest): the tuple is kept with
# its table, so its id is not reused meanwhile. A few, since few configurations live at once.
_TABLES: dict[int, tuple[tuple[Path, ...], _RootTable]] = {}
_TABLES_KEPT = 8


def _table(roots: Iterable[Path]) -> _RootTable:
    if not isinstance(roots, tuple):
        return _RootTable.of(tuple(roots))
    held = _TABLES.get(id(roots))
    if held is not None and held[0] is roots:
        return held[1]
    table = _RootTable.of(roots)  # maybe an equal tuple's: the roots it gives are equal
    if len(_TABLES) >= _TABLES_KEPT:
        _TABLES.clear()
    _TABLES[id(roots)] = (roots, table)
    return table


def _holding(path: str, table: _RootTable) -> list[int]:
    """The places in `table.roots` of the roots `path` is under (is_under), in no order."""
    found = [table.position[path]] if path in table.position else []
    at = path.find(os.sep)
    while at != -1:
        place = table.position.get(path[:at] if at else os.sep)
        if place is not None:
            found.append(place)
        at = path.find(os.sep, at + 1)
    return found


def containing_root(real: Path, roots: Iterable[Path]) -> Path | None:
    """The first of `roots` (in their order) holding `real`, or None."""
    table = _table(roots)
    places = _holding(str(real), table)
    return table.roots[min(places)] if places else None


def innermost_root(path: str | Path, roots: Iterable[Path]) -> Path | None:
    """The deepest of `roots` holding `path` (roots may nest), or None."""
    table = _table(roots)
    places = _holding(str(path), table)
    return table.roots[max(places, key=lambda n: (len(str(table.roots[n])), -n))] if places else None


def outer_roots_of(path: str, roots: Iterable[Path]) -> list[Path]:
    """The roots that hold `path` and are not `path` itself."""
    table = _table(roots)
    return [table.roots[n] for n in sorted(set(_holding(path, table))) if str(table.roots[n]) != path]


def roots_under(folder: str, roots: Iterable[Path]) -> list[Path]:
    """The roots at or under `folder` (is_under(root, folder)), in the order of `roots`."""
    table = _table(roots)
    key = _key(folder)
    prefix = key if key.endswith(os.sep) else key + os.sep
    texts = table.texts
    start = bisect.bisect_left(texts, prefix)
    end = bisect.bisect_left(texts, prefix[:-1] + chr(ord(os.sep) + 1))
    places = [table.position[text] for text in texts[start:end]]
    if key in table.position:
        places.append(table.position[key])
    return [table.roots[n] for n in sorted(set(places))]


NAMED_ROOTS = 5  # the most roots one message names


def roots_named(roots: Iterable[Path | str], name: Callable[[str], str] = shown) -> str:
    """The roots, for a message, each as `name` writes it: each of a few; of many (a thousand
    collections made one refusal a 24 KB line), the first NAMED_ROOTS and how many there are."""
    texts = [name(str(root)) for root in roots]
    if len(texts) <= NAMED_ROOTS:
        return ", ".join(texts)
    return f"{', '.join(texts[:NAMED_ROOTS])} and {len(texts) - NAMED_ROOTS} more ({len(texts)} roots)"


def root_changed(root: Path) -> str | None:
    """Why `root` (a real path, as the configuration resolved it) cannot be used now: gone, or
    a symlink (or a file) in its place or in place of a folder on its path; None when it can."""
    try:
        st = os.stat(root, follow_symlinks=False)
    except FileNotFoundError:
        return "the root folder is gone"
    except OSError as exc:
        return f"the root folder cannot be examined ({exc.strerror})"
    if stat.S_ISLNK(st.st_mode):
        return "the root folder was replaced by a symlink"
    if not stat.S_ISDIR(st.st_mode):
        return "the root folder was replaced by a file"
    if os.path.realpath(root) != str(root):
        return "a folder on the root's path was replaced by a symlink"
    return None


def root_repointed(named: Path, root: Path) -> str | None:
    """Why the root named `named`, which led to the real folder `root` when the configuration was
    read, is not that folder now (a link on its way re-pointed, or gone); None while it leads there."""
    try:
        now = os.path.realpath(named, strict=True)
    except OSError:
        return f"document root {named} no longer leads to a folder (it led to {root} when minirag started)"
    if now == str(root):
        return None
    return f"document root {named} now leads to {now}, not to {root} as when minirag started"


def open_root(root: Path) -> int:
    """A descriptor of the root folder, opened from `/` one component at a time with O_NOFOLLOW.

    A root is a real path (the configuration resolved it), so no link is followed on the way: a
    root, or a folder above it, swapped for a symlink to elsewhere makes the open fail (ELOOP or
    ENOTDIR) instead of leading there. A folder made again under the root's name is that root.
    """
    parts = Path(root).parts
    return _descend(os.open(parts[0], os.O_RDONLY | os.O_DIRECTORY | getattr(os, "O_CLOEXEC", 0)), parts[1:])


def _descend(directory: int, parts: tuple[str, ...]) -> int:
    """The folder `parts` below the open folder `directory`, one component at a time, no symlink
    followed; `directory` is closed either way."""
    try:
        for part in parts:
            inner = os.open(part, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0),
                            dir_fd=directory)
            os.close(directory)
            directory = inner
    except BaseException:
        os.close(directory)
        raise
    return directory


def is_plain(source: str) -> bool:
    """Whether a stored file source is spelled as a sync stores one: absolute, with no `.` or `..`
    part and no doubled separator. `<root>/../elsewhere` starts with the root's path and is no
    file of it; only an index someone else wrote holds such a name."""
    return os.path.isabs(source) and os.path.normpath(source) == source


def served_by_roots(source: str, roots: Iterable[Path]) -> bool:
    """Whether a stored file source lies in one of `roots`, as stored or as its real path:
    a file of a root since removed from the configuration is not served, and a sync drops it."""
    if not is_plain(source):
        return False
    prefixes = [str(root) for root in roots]
    if any(is_under(source, prefix, os.sep) for prefix in prefixes):
        return True
    real = os.path.realpath(source)
    return any(is_under(real, prefix, os.sep) for prefix in prefixes)


def resolve_inside_roots(path: Path, roots: Iterable[Path]) -> Path:
    """The real path of `path` if it lands inside a root; else PathOutsideRoots."""
    return _real_and_root(path, list(roots))[0]


def _real_and_root(path: Path, roots: list[Path]) -> tuple[Path, Path]:
    """The real path of `path` and the root it lands inside; else PathOutsideRoots."""
    try:
        real = Path(os.path.realpath(path))
    except OSError as exc:  # a link this process may not follow (/proc/1/cwd): nothing it can serve
        raise PathOutsideRoots(f"path outside configured document roots: {shown(str(path))} (it cannot be followed: "
                               f"{exc.strerror or exc}); roots: {roots_named(roots)}") from None
    root = containing_root(real, roots)
    if root is None:
        # Where a link leads is not said: a client could learn any link's target on the machine.
        named = shown(str(path)) + (" (a link to a place outside them)" if real != Path(os.path.abspath(path)) else "")
        raise PathOutsideRoots(
            f"path outside configured document roots: {named}; roots: {roots_named(roots)}"
        )
    return real, root


def read_inside_roots(path: str | Path, roots: Iterable[Path], max_bytes: int) -> bytes:
    """The bytes of a regular file inside a root (read_file_inside_roots, without its stat)."""
    return read_file_inside_roots(path, roots, max_bytes)[0]


def read_file_inside_roots(path: str | Path, roots: Iterable[Path], max_bytes: int) -> tuple[bytes, os.stat_result]:
    """The bytes of a regular file inside a root, read through one handle that cannot have escaped,
    and that handle's stat (taken before the read): the stat of the bytes read, where a stat of
    the name taken earlier may be another file's (one renamed over it since).

    The name is resolved (symlinks followed) and must land inside a root; then the
    file is opened by walking that real path down from the root one component at
    a time with O_NOFOLLOW (openat), so a file or folder swapped for a symlink
    after the check makes the open fail instead of leading outside; the root itself
    is reached from `/` the same way (open_root), so a root swapped for a link to
    elsewhere fails too. Where the OS
    has no openat (Windows) the opened file must be the inode its real path names.
    Opened non-blocking so a FIFO swapped in cannot hang the read. At most
    `max_bytes + 1` bytes are read, so the caller can tell "too large".
    """
    real, root = _real_and_root(Path(path), list(roots))
    try:
        fd = _open_beneath(root, real) if _HAS_OPENAT else _open_checked(real)
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENOTDIR, errno.EMLINK):
            raise PathOutsideRoots(f"{shown(str(path))}: changed while being opened (a file or folder was swapped for a "
                                   "link); not read") from None
        raise
    opened = os.fstat(fd)
    if held_files.is_held(opened):  # its close would drop SQLite's locks on the index (held_files.py)
        held_files.close(fd)
        raise PathOutsideRoots(f"{shown(str(path))}: is the index itself (a link to it, or another name for it); not read")
    with os.fdopen(fd, "rb", buffering=0) as handle:
        if not stat.S_ISREG(opened.st_mode):
            raise PathOutsideRoots(f"{shown(str(path))}: not a regular file")
        chunks, left = [], max_bytes + 1
        while left > 0:
            chunk = handle.read(min(left, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
        return b"".join(chunks), opened


_READ_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOCTTY", 0)
_HAS_OPENAT = os.open in os.supports_dir_fd and hasattr(os, "O_NOFOLLOW") and hasattr(os, "O_DIRECTORY")


def _open_folder_beneath(root: Path, parts: tuple[str, ...]) -> int:
    """A descriptor of the folder `parts` below `root`, no symlink followed from `/` down."""
    return _descend(open_root(root), parts)


def _open_beneath(root: Path, real: Path) -> int:
    """Open `real` (a symlink-free path inside `root`) with no symlink followed below the root."""
    parts = real.relative_to(root).parts
    directory = _open_folder_beneath(root, parts[:-1])
    try:
        return os.open(parts[-1], _READ_FLAGS | os.O_NOFOLLOW, dir_fd=directory)
    finally:
        os.close(directory)


def open_below(base: Path, name: str) -> int:
    """A read descriptor of `base / name` (`name` relative, `/`-separated) with no link followed from
    `/` down, `base` (a real path) included; OSError where one is on the way. Without openat
    (Windows) the opened file must be the inode its path names, and that path its own real path."""
    path = base.joinpath(*name.split("/"))
    if _HAS_OPENAT:
        return _open_beneath(base, path)
    if os.path.realpath(path) != str(path):
        raise OSError(errno.ELOOP, "a link on the way", str(path))
    return _open_checked(path)


def folder_inside_roots(folder: str, roots: Iterable[Path]) -> int | None:
    """A descriptor of `folder` (links followed to its real path) where that lies in a root, opened down
    from `/` with no link followed, as read_inside_roots opens files: a folder on the way swapped for a
    link since the path was resolved opens nothing, so nothing outside the roots is looked at. None where
    it lies outside every root, cannot be opened, or the OS has no openat (Windows: no name is looked up)."""
    if not _HAS_OPENAT:  # pragma: no cover - Windows
        return None
    real = Path(os.path.realpath(folder))
    root = containing_root(real, roots)
    if root is None:
        return None
    try:
        return _open_folder_beneath(root, real.relative_to(root).parts)
    except OSError:
        return None


def entry_inside_roots(path: str, roots: Iterable[Path], *, follow: bool = True) -> os.stat_result | None:
    """The stat of what `path` names inside the roots, looked up beneath folder_inside_roots' descriptor
    of its folder (a link as the last part followed where `follow`, and only to a place in the roots);
    None where nothing is there, it lies outside every root, or a folder on the way became a link."""
    roots = tuple(roots)
    real = os.path.realpath(path) if follow else os.path.join(os.path.realpath(os.path.dirname(path)),
                                                             os.path.basename(path))
    if not _HAS_OPENAT:  # pragma: no cover - Windows: by name, the real path checked as _open_checked does
        try:
            return os.lstat(real) if containing_root(Path(real), roots) is not None else None
        except OSError:
            return None
    folder, name = os.path.split(real)
    if not name or containing_root(Path(real), roots) is None:
        return None
    if Path(real) in roots:  # a root itself: its folder lies outside them
        try:
            fd = open_root(Path(real))
        except OSError:
            return None
        try:
            return os.fstat(fd)
        finally:
            os.close(fd)
    opened = folder_inside_roots(folder, roots)
    if opened is None:
        return None
    try:
        return os.stat(name, dir_fd=opened, follow_symlinks=False)
    except OSError:
        return None
    finally:
        os.close(opened)


@contextlib.contextmanager
def folder_entries(directory: str, real: str, root: Path) -> Iterator[list[os.DirEntry]]:
    """The entries of `directory` (a name whose real path `real` lies in `root`), sorted by name.

    Listed through a descriptor opened down from `/` with no link followed (as read_inside_roots
    opens files), so a folder swapped for a link out of the roots after it was resolved makes the
    open fail (ELOOP, ENOTDIR) instead of listing what lies outside. The descriptor stays open while
    the entries are used: their `is_dir` and `stat` look beneath it. An entry's `path` is its name
    under `directory`. Without openat (Windows), `directory` is listed by name.
    """
    if not _HAS_OPENAT or os.scandir not in os.supports_fd:
        with os.scandir(directory) as listing:
            yield sorted(listing, key=lambda e: e.name)
        return
    fd = _open_folder_beneath(root, Path(real).relative_to(root).parts)
    try:
        with os.scandir(fd) as listing:
            yield sorted(listing, key=lambda e: e.name)
    finally:
        os.close(fd)


def _open_checked(real: Path) -> int:
    """Without openat: open, then require that the real path still names the opened inode."""
    fd = os.open(real, _READ_FLAGS)
    opened, named = os.fstat(fd), os.lstat(real)
    if (named.st_dev, named.st_ino) != (opened.st_dev, opened.st_ino):
        os.close(fd)
        raise OSError(errno.ELOOP, "changed while being opened", str(real))
    return fd
