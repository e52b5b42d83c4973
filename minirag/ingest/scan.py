"""Walk the document roots: supported files, containment-checked, symlinks handled safely."""

from __future__ import annotations

import errno
import functools
import os
import stat
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from minirag.config import INDEX_DIRNAME
from minirag.display import is_utf8, printable
from minirag.ingest.doc_names import (
    HEAD_BYTES,
    NOT_READ_FORMATS,
    NamedAs,
    is_roff_head,
    is_text_head,
    named_as,
    supported_extensions,
)
from minirag.ingest.ignore import IgnoreReason, IgnoreRules
from minirag.security import (
    MAX_PATH_BYTES,
    containing_root,
    folder_entries,
    innermost_root,
    is_under,
    open_below,
    root_changed,
    roots_under,
)

# Directories never descended into: tool state, VCS internals, dependency caches (and every dot-dir).
SKIPPED_DIRS = frozenset({".git", ".hg", ".svn", INDEX_DIRNAME, "node_modules", "__pycache__", ".venv", ".tox", ".nox"})

# The names editors, office suites and downloaders give swap, backup, lock and partial files.
_TEMPORARY_PREFIXES = (".#", "~$", ".~lock.")
_TEMPORARY_SUFFIXES = ("~", ".tmp", ".temp", ".swp", ".swo", ".swx", ".part", ".crdownload", ".bak")


# A Sphinx HTML build keeps each page's source again under `_sources/` (`library/os.rst.txt`, what
# "Show Source" links to): every page twice, the second time as raw markup. The build's folder
# holds its search index, `searchindex.js`.
SPHINX_SOURCES = "_sources"
SPHINX_SEARCH_INDEX = "searchindex.js"


def is_skipped_dir(name: str) -> bool:
    return name in SKIPPED_DIRS or name.startswith(".")


def skipped_folder(path: str) -> SkippedFolder | None:
    """Why no walk enters the folder at `path`, or None: its name (is_skipped_dir), or that it is
    a Sphinx build's copy of its pages' sources."""
    name = os.path.basename(path)
    if is_skipped_dir(name):
        return SkippedFolder(name)
    if name == SPHINX_SOURCES and os.path.isfile(os.path.join(os.path.dirname(path), SPHINX_SEARCH_INDEX)):
        return SkippedFolder(name, "a Sphinx build's copy of the sources of its pages, which are indexed")
    return None


def is_temporary(name: str) -> bool:
    """An editor's or downloader's scratch file, never a document (`~$a.docx`, `a.md~`, `#a.md#`)."""
    lowered = name.lower()
    return (lowered.startswith(_TEMPORARY_PREFIXES) or lowered.endswith(_TEMPORARY_SUFFIXES)
            or (len(name) > 1 and name.startswith("#") and name.endswith("#")))


def not_a_document(path: str) -> str:
    """Why a file named on its own is not indexed: a scratch file's name, its type, a manual
    section's number on a file that does not begin as a manual page, a note's name on one that does not begin as text."""
    name = os.path.basename(path)
    named = named_as(name)
    if (named.sniffed or named.note) and is_document_name(name):
        said = _NOT_TEXT if named.note else _NOT_A_PAGE.format(section=named.suffix.split('.')[1])
        return f"{path}: {said}; not read as a document"
    return f"{path}: {name_not_read(name) or 'not read as a document'}"


_NOT_A_PAGE = "named as a manual page (section {section}) but does not begin as one (roff: .TH, .Dd or a comment)"
_NOT_TEXT = "named as a note (README, NEWS, a ChangeLog and such) but does not begin as text"


def file_not_read(path: str) -> str | None:
    """Why the file at `path` is never read as a document (name_not_read), or that, named as a manual
    page, it does not begin as one; None for a document."""
    name = os.path.basename(path)
    named = named_as(name)
    if (never := name_not_read(name)) is not None or not (named.sniffed or named.note):
        return never
    try:
        real = os.path.realpath(path)
    except OSError:
        return None
    if is_read_by_head(real, named):
        return None
    return _NOT_TEXT if named.note else _NOT_A_PAGE.format(section=named.suffix.split(".")[1])


def is_document_name(name: str) -> bool:
    """Whether a file of this name is read as a document: a supported type (a compressed one's inner
    type; a manual section's number, whose head the walk looks at too: `is_manual_page`), not a scratch file."""
    return _read_kind(named_as(name)) and not is_temporary(name)


def has_document_suffix(name: str) -> bool:
    """Whether a file of this name is of a type read as a document (is_document_name, scratch names aside)."""
    return _read_kind(named_as(name))


def _read_kind(named: NamedAs) -> bool:
    # Compressed images are not read: OCR takes image files as they are.
    return named.kind in supported_extensions() and not (named.compression and named.kind in ocr_images())


def name_not_read(name: str) -> str | None:
    """Why a file of this name is never read as a document, or None when it is one by its name."""
    if is_document_name(name):
        return None
    if is_temporary(name):
        return "the name of an editor's, office suite's or downloader's scratch file; never indexed"
    suffix = named_as(name).suffix
    if suffix in NOT_READ_FORMATS:
        return f"unsupported file type {suffix} ({NOT_READ_FORMATS[suffix]})"
    return (f"unsupported file type {suffix or '(none)'} (supported: {', '.join(sorted(supported_extensions()))}, "
            "each also compressed as .gz, .bz2 or .xz; manual pages .1 to .9; README, NEWS, LICENSE and "
            "such with no extension)")


def within(path: str, places: set[str]) -> bool:
    """Whether `path` is one of `places` or lies below one (whole path segments)."""
    while path not in places:
        parent = os.path.dirname(path)
        if parent == path:
            return False
        path = parent
    return True


# What a file's stat says of its bytes: (size, mtime_ns, ctime_ns, inode). The mtime can be set back
# (rsync -t, tar -x, cp -p, a backup restore), and two writes within one tick share it; the ctime
# moves on every write (and chmod, link, utime) and no user program can set it back; a file renamed
# over the name has another inode. A sync trusts a file whose stat is the one recorded with its bytes.
FileStat = tuple[int, int, int, int]


def file_stat(st: os.stat_result) -> FileStat:
    return st.st_size, st.st_mtime_ns, st.st_ctime_ns, stored_inode(st.st_ino)


_INODE_BITS = 64


def stored_inode(ino: int) -> int:
    """`ino` as a signed 64-bit number, which SQLite's INTEGER holds: st_ino is unsigned 64-bit (128 bits
    on Windows' ReFS), and overlayfs (xino) and FUSE file systems that hash paths into it use the top
    bit. A 128-bit one's halves folded together: only told apart from another file's, never read back."""
    folded = (ino ^ (ino >> _INODE_BITS)) & ((1 << _INODE_BITS) - 1)
    return folded - (1 << _INODE_BITS) if folded >> (_INODE_BITS - 1) else folded


@dataclass(frozen=True)
class FoundFile:
    source: str  # the path as found under the root (a symlink keeps its own name)
    real: str  # what it resolves to; always inside a root
    size: int
    mtime_ns: int
    ctime_ns: int
    inode: int
    # When its bytes were read (time.time_ns()), for the racy rule (pipeline.stored_stat); None: not read.
    # No part of its identity: the same file read twice is the same FoundFile.
    read_ns: int | None = field(default=None, compare=False)

    @classmethod
    def of(cls, source: str, real: str, st: os.stat_result) -> FoundFile:
        return cls(source, real, *file_stat(st))

    @property
    def stat(self) -> FileStat:
        return self.size, self.mtime_ns, self.ctime_ns, self.inode


# Errors that mean "nothing there" (or nothing that could ever be read), not "cannot look now".
_ABSENT = frozenset({errno.ENOENT, errno.ENOTDIR, errno.ENAMETOOLONG, errno.ELOOP})


def unseen_reason(path: str, roots: Sequence[Path] = ()) -> str:
    """Why a walk passed over `path` (an entry of its `unreadable` list), for a warning."""
    if not is_utf8(path):
        return "its name is not valid UTF-8, so it is skipped (rename it to index it)"
    if len(os.fsencode(path)) >= MAX_PATH_BYTES:
        return (f"its path is longer than the system takes ({MAX_PATH_BYTES} bytes), so it is skipped "
                "(shorten the names of the folders above it)")
    changed = root_changed(Path(path)) if path in {str(root) for root in roots} else None
    if changed and changed != "the root folder is gone":
        return (f"{changed}; nothing is read through it and what it held stays indexed, until the folder "
                "is back or minirag is restarted with the root you mean")
    return "cannot be read (permissions? a lost mount?); what it holds stays indexed as it was"


def unseen_warnings(places: Sequence[str], roots: Sequence[Path] = ()) -> list[str]:
    """One warning per place a walk passed over (its `unreadable` list), each once."""
    return [f"{printable(place)}: {unseen_reason(place, roots)}" for place in dict.fromkeys(places)]


def _note_unreadable(exc: OSError, path: str, unreadable: list[str]) -> None:
    # No existence check here: inside a folder that can be listed but not entered (mode r--),
    # even lstat fails with EACCES, and what cannot be looked at is not gone.
    # A name too long is nothing there, but a walk lists folders beneath the root one name at a time,
    # so it finds files whose whole path is longer than the system takes: they are, and said so.
    if exc.errno not in _ABSENT or (exc.errno == errno.ENAMETOOLONG and len(os.fsencode(path)) >= MAX_PATH_BYTES):
        unreadable.append(path)


@functools.cache
def ocr_images() -> frozenset[str]:
    from minirag.ingest.ocr import IMAGE_EXTENSIONS

    return IMAGE_EXTENSIONS


def _stat_file(path: str, roots: Sequence[Path], unreadable: list[str], others: Counter | None = None,
               ) -> FoundFile | None:
    """None for anything not a regular file inside the roots (escaping symlinks included), or a
    file named as a manual page that does not begin as one (counted in `others`).

    A path that exists but cannot be examined (EACCES, EIO, a stale network handle)
    goes to `unreadable`: it is not gone, so its indexed rows must stay.
    """
    if not is_document_name(os.path.basename(path)):
        return None
    try:
        real = os.path.realpath(path)
        if containing_root(Path(real), roots) is None:
            return None  # an escaping symlink is simply not part of the corpus
        st = os.stat(real)
    except OSError as exc:
        _note_unreadable(exc, path, unreadable)
        return None
    if not os.path.isfile(real):
        return None
    if not is_read_by_head(real, named_as(os.path.basename(path))):
        if others is not None:  # `syslog.1`, `LGPL-2.1`, `syslog.2.gz`: counted by their last suffix, as before
            others[Path(path).suffix.lower()] += 1
        return None
    return FoundFile.of(path, real, st)


def is_read_by_head(real: str, named: NamedAs) -> bool:
    """Whether the file at `real`, named as `named` says, is read by what its head is too: a manual
    section's number's if it begins as a manual page, a note's (`README.dns`, `changelog.1.gz`) if
    it begins as text; any other is (its name says all)."""
    if named.sniffed and is_manual_page(real, named.compression):
        return True
    return is_text_file(real, named.compression) if named.note else not named.sniffed


def stat_now(path: str) -> FileStat | None:
    """The FileStat a file at `path` has now, following links; None where it is gone or unreadable:
    what a FoundFile was judged by, to tell whether a file moved since."""
    try:
        return file_stat(os.stat(path))
    except OSError:
        return None


def is_text_file(real: str, compression: str) -> bool:
    """Whether the file at `real` (a path inside a root, links resolved) begins as text (is_text_head;
    inflated, for a compressed one). One that cannot be read is not."""
    head = _head(real, compression)
    if head is None:
        return False
    if compression:
        from minirag.ingest.compressed import inflated_head

        head = inflated_head(head, compression, HEAD_BYTES)
    return is_text_head(head)


def is_manual_page(real: str, compression: str) -> bool:
    """Whether the file at `real` (a path inside a root, links resolved) begins as a manual page:
    its head (inflated, for a compressed one) is roff. One that cannot be read is not one."""
    head = _head(real, compression)
    if head is None:
        return False
    if compression:
        from minirag.ingest.compressed import inflated_head

        # Most pages say so in their first line: a short head first, the whole one only when that did not.
        return is_roff_head(inflated_head(head, compression, 512)) or is_roff_head(
            inflated_head(head, compression, HEAD_BYTES))
    return is_roff_head(head)


def _head(real: str, compression: str) -> bytes | None:
    """The head of the regular file at `real`, enough of it to inflate a head from; None where it cannot be read.
    Opened as the document is read (security.open_below): `real` was found inside a root, and a folder on its
    way swapped for a link since then leads nowhere, where a plain open would read the head of what lies
    at the link's end, outside the roots, and judge the file by it."""
    folder, name = os.path.split(real)
    try:
        fd = open_below(Path(folder), name)
    except (OSError, ValueError):
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        # bzip2 inflates nothing before a whole block (at most 900 kB, a manual page's well under that);
        # gzip and xz, a head from a head (what is looked at is the page's first line).
        return os.read(fd, 1 << 20 if compression == ".bz2" else HEAD_BYTES)
    except OSError:
        return None
    finally:
        os.close(fd)


def other_type(name: str) -> str | None:
    """The suffix ("" for none) of a file a walk leaves out for its type; None for one it indexes, or
    never mentions (hidden files, editors' temporaries)."""
    if name.startswith(".") or is_temporary(name):
        return None
    named = named_as(name)
    return None if _read_kind(named) else named.suffix


@dataclass(frozen=True)
class SkippedFolder:
    """A path in a folder no walk enters (`.git`, `node_modules`, a dot-folder): named on its own, it
    is left out as the walk of its root leaves it out."""

    name: str
    what: str = ""  # what such a folder holds, where its name alone does not say

    def __str__(self) -> str:
        return f"the built-in rule: no sync enters {self.name}/" + (f" ({self.what})" if self.what else "")


@dataclass(frozen=True)
class Ignored:
    """A file or folder a walk left out by an ignore rule (ingest/ignore.py) or as in a skipped folder."""

    path: str
    reason: IgnoreReason | SkippedFolder
    is_dir: bool


def left_out(path: str, roots: Sequence[Path], rules: IgnoreRules | None, is_dir: bool) -> IgnoreReason | SkippedFolder | None:
    """Why a path named on its own (absolute, inside a root) is left out, or None: a folder on its
    way from its root no walk enters, or an ignore rule."""
    root = innermost_root(path, roots)
    if root is not None and path != str(root) and (skipped := skipped_on_the_way(path, str(root), is_dir)):
        return skipped
    return None if rules is None else rules.reason(path, is_dir)


def skipped_on_the_way(path: str, root: str, is_dir: bool) -> SkippedFolder | None:
    """The first folder from `root` (not itself) down to `path` (itself too when `is_dir`) that no
    walk enters, or None."""
    folder = root
    for name in os.path.relpath(path, root).split(os.sep)[:None if is_dir else -1]:
        folder = os.path.join(folder, name)
        if (skipped := skipped_folder(folder)) is not None:
            return skipped
    return None


def _is_dir(entry: os.DirEntry) -> bool | OSError | None:
    """Whether an entry is a folder, or why that cannot be told; None for a link to a folder, which a
    walk does not follow: what it holds is read where it really is (under its own root, or nowhere
    when that is outside every root), so a link is never a second name for a file, nor a loop."""
    try:
        if entry.is_dir(follow_symlinks=True):
            return None if entry.is_symlink() else True
        return False
    except OSError as exc:
        return exc


def walk(start: Path, roots: Sequence[Path], unreadable: list[str] | None = None,
         others: Counter | None = None, rules: IgnoreRules | None = None,
         ignored: list[Ignored] | None = None) -> Iterator[FoundFile]:
    """Every supported file at or under `start` (a file or a directory), sorted, each once.

    Folders (and entries) that exist but cannot be listed or examined are appended
    to `unreadable`: what they hold is unknown, not deleted. So are names that are
    not UTF-8, which are never indexed (`unseen_reason` tells the two apart).
    `others` counts the files left out for their type, by suffix. Files and folders `rules`
    leave out are not descended into nor yielded, but appended to `ignored`.
    """
    unreadable = [] if unreadable is None else unreadable
    ignored = [] if ignored is None else ignored
    roots = tuple(roots)  # one tuple for the whole walk: security looks roots up by it
    start_str = os.path.abspath(start)
    if not is_utf8(start_str):
        unreadable.append(start_str)
        return
    root = containing_root(Path(start_str), roots)
    if root is not None and root_changed(root):
        # A root swapped for a link (or gone) holds nothing readable; what it held is not deleted.
        unreadable.append(str(root))
        return
    start_is_dir = os.path.isdir(start_str)
    if (reason := left_out(start_str, roots, rules, start_is_dir)) is not None:
        ignored.append(Ignored(start_str, reason, start_is_dir))
        for inner in _roots_not_walked(start_str, roots, set()):
            yield from walk(inner, roots, unreadable, others, rules, ignored)
        return
    if os.path.isfile(start_str):
        found = _stat_file(start_str, roots, unreadable)
        if found:
            yield found
        return
    if os.path.realpath(start_str) != start_str:  # a folder through a link: walked under its real name
        return
    seen_dirs: set[str] = set()
    stack = [start_str]
    while stack:
        directory = stack.pop()
        try:
            real_dir = os.path.realpath(directory)
        except OSError as exc:  # a name made or unmade a link while it was resolved (readlink's EINVAL)
            _note_unreadable(exc, directory, unreadable)
            continue
        # A folder lies in the root its real path lies in: reached through a link from another root (or
        # from outside that inner root), it is that root's walk that lists it, under its own name.
        holder = innermost_root(real_dir, roots)
        if real_dir in seen_dirs or holder is None or holder != innermost_root(directory, roots):
            continue
        seen_dirs.add(real_dir)
        try:
            with folder_entries(directory, real_dir, holder) as listing:
                entries = [(entry.name, _is_dir(entry)) for entry in listing]
        except OSError as exc:
            _note_unreadable(exc, directory, unreadable)  # gone or replaced by a file: a change, not a failure
            continue
        subdirs = []
        for name, is_dir in entries:
            path = os.path.join(directory, name)
            if not is_utf8(name):
                unreadable.append(path)
                continue
            if isinstance(is_dir, OSError):
                _note_unreadable(is_dir, path, unreadable)
                continue
            if is_dir is None:  # a link to a folder
                continue
            if is_dir and skipped_folder(path) is not None:
                continue
            if rules is not None and (reason := rules.reason(path, is_dir)) is not None:
                if is_dir or (is_document_name(name) and not name.startswith(".")):
                    ignored.append(Ignored(path, reason, is_dir))
                continue
            if is_dir:
                subdirs.append(path)
                continue
            if others is not None and (suffix := other_type(name)) is not None:
                others[suffix] += 1
                continue
            found = _stat_file(path, roots, unreadable, others)
            if found:
                yield found
        stack.extend(reversed(subdirs))
    for inner in _roots_not_walked(start_str, roots, seen_dirs):
        yield from walk(inner, roots, unreadable, others, rules, ignored)


def _roots_not_walked(start: str, roots: Sequence[Path], walked: set[str]) -> list[Path]:
    """The roots under `start` a walk of it did not enter (inside a folder no walk enters, or one an
    ignore rule leaves out), outermost first: each is walked as a sync of every root walks it, so a
    sync of `start` never takes their files for deleted. A root inside another of them is that one's."""
    missed = [root for root in roots_under(start, roots) if str(root) != start and os.path.realpath(root) not in walked]
    return sorted(root for root in missed
                  if not any(other != root and is_under(str(root), str(other), os.sep) for other in missed))


def walk_roots(roots: Sequence[Path], unreadable: list[str] | None = None,
               others: Counter | None = None, rules: IgnoreRules | None = None,
               ignored: list[Ignored] | None = None) -> Iterator[FoundFile]:
    """Every supported file of every root, each once. A root that is gone (an unmounted drive), or
    a symlink now (in its place, or in place of a folder above it), counts as unreadable: its
    documents are not deleted."""
    unreadable = [] if unreadable is None else unreadable
    roots = tuple(roots)
    seen: set[str] = set()
    for root in roots:
        if not os.path.isdir(root) or root_changed(root):
            unreadable.append(str(root))
            continue
        for found in walk(root, roots, unreadable, others, rules, ignored):
            if found.source not in seen:
                seen.add(found.source)
                yield found
