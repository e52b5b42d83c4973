"""Addressing: which indexed source a caller's string names, or the one line that says why none does.

A file is named by its path (spelled as a sync stores it: a folder by its real path, a file by its
real folder and its own name), a data or url source by its id; a scope is a folder, a file or an id
prefix. Every path and id an operation takes is turned into a stored key here, and every refusal of
one (outside the roots, an id written as a path, a path written as a URL, not indexed) is said here.
App holds one Addressing and delegates to it; the index is reached through a callable that refuses
when there is none (App.require_index, minirag/index_presence.py), so a read never creates one.
"""

from __future__ import annotations

import os
import re
import stat
import unicodedata
from collections.abc import Callable, Sequence
from pathlib import Path

from minirag.config import Config
from minirag.display import is_utf8, shown
from minirag.errors import InvalidArgument, MiniragError, NotFound, PathOutsideRoots
from minirag.search.scope import MAX_SCOPES
from minirag.security import (
    MAX_PATH_BYTES,
    containing_root,
    entry_inside_roots,
    innermost_root,
    is_under,
    resolve_inside_roots,
    roots_named,
    served_by_roots,
)
from minirag.spellings import as_listed, other_spelling
from minirag.store.index import Index, SourceRow

_DRIVE_PATH = re.compile(r"^[A-Za-z]:[\\/]|^[\\/]{2}")

MAX_SOURCE_ID = 2048  # characters of a data or url source's id (URLs included)


def check_path_argument(path: str | Path) -> None:
    """A path argument the operating system can take: not empty (which would resolve to the current
    folder), no NUL byte, not longer than PATH_MAX."""
    text = os.fspath(path)
    if not text:
        raise InvalidArgument("the path is empty")
    if "\x00" in text:
        raise InvalidArgument("the path contains a NUL byte")
    size = len(text.encode("utf-8", errors="surrogateescape"))
    if size > MAX_PATH_BYTES:
        raise InvalidArgument(f"the path is {size} bytes long; at most {MAX_PATH_BYTES} are allowed")



def _require_utf8(name: str, value: str) -> None:
    """A library caller's key, path or id holding a lone surrogate (MCP makes one U+FFFD and the CLI
    refuses it) names nothing the index holds: SQLite could not even be asked."""
    if not is_utf8(value):
        raise InvalidArgument(f"{name} {shown(repr(value), 120)} is not valid UTF-8 (it holds a lone surrogate), "
                              "which no path or source id in the index is")


def _require_id(source: str) -> None:
    if not source or not source.strip():
        raise InvalidArgument("source must be a non-empty id")


def looks_like_a_path(source: str) -> bool:
    """An absolute POSIX or Windows path (`\\etc\\passwd` too), or one starting at a home folder:
    what file ids look like."""
    return os.path.isabs(source) or source.startswith(("~", "\\")) or bool(_DRIVE_PATH.match(source))


# Characters drawn as a slash or backslash that NFKC leaves as they are (it maps the fullwidth ones).
_SLASH_LOOKALIKES = str.maketrans({"\u2215": "/", "\u2044": "/", "\u29f8": "/", "\u2571": "/",
                                   "\u2216": "\\", "\u29f5": "\\", "\u29f9": "\\", "\u2572": "\\"})


def poses_as_a_path(source: str) -> bool:
    """Whether an id reads as a file path: as written, in its NFKC form with slash look-alikes taken
    as slashes (`／tmp／x.md`, `∕tmp∕x.md`, `⁄etc⁄passwd`), or as a `file:` URL."""
    seen = unicodedata.normalize("NFKC", source).translate(_SLASH_LOOKALIKES)
    return looks_like_a_path(source) or looks_like_a_path(seen) or seen[:5].lower() == "file:"


def _another_spelling(path: str) -> str:
    """What to give instead of `path`, a relative one written as a file: URL or as a shell would expand it
    (an agent passing back a link it followed, or a path as a user typed it); "" otherwise. Nothing is
    expanded or decoded into a path that is read: the caller is told the spelling that is taken."""
    if path[:5].lower() == "file:":
        from urllib.parse import unquote, urlsplit

        parts = urlsplit(path)
        if parts.netloc not in ("", "localhost"):
            return "a path is taken, not a file: URL (this one names another host)"
        return f"a path is taken, not a file: URL: give {shown(unquote(parts.path))}"
    if path.startswith(("~", "$")) or "${" in path:
        return "a path is taken as written, nothing expands ~ or $VARIABLES: give the path written out from /"
    return ""


def really_in_roots(path: str, roots) -> bool:
    """Whether `path`, links followed, lies in a root (one this process cannot follow does not)."""
    try:
        return containing_root(Path(os.path.realpath(path)), roots) is not None
    except OSError:
        return False



_PATTERN = re.compile(r"[*?]|\[[^\]]*\]")  # a shell's or gitignore's name pattern: `*.pdf`, `notes/2026-0?`, `[ab].md`
_NAMED = 3  # indexed files named where a relative path may mean any of them


class Addressing:
    """The keys of one configuration's sources. `indexed`: the open index, or a refusal saying
    there is none (never a new file)."""

    def __init__(self, config: Config, indexed: Callable[[], Index]):
        self.config = config
        self._indexed = indexed

    def file_source(self, path: str | Path, *, must_be_absolute: bool = False,
                    argument: str = "filePath") -> tuple[str, Path]:
        """(source id, real path) for a path inside the roots; symlinks keep their own name.
        `argument`: the caller's name for `path`, for the message refusing a relative one."""
        check_path_argument(path)
        advice = "" if os.path.isabs(path) else _another_spelling(str(path))
        if must_be_absolute and not os.path.isabs(path):
            advice = advice or self._under_a_root(str(path))
            raise InvalidArgument(f"{argument} must be an absolute path, got {str(path)[:200]!r}"
                                  + (f": {advice}" if advice else ""))
        if advice and not os.path.lexists(path):
            raise NotFound(f"no such file: {shown(str(path))!r} (relative to {shown(os.getcwd())}): {advice}")
        absolute = os.path.abspath(path)
        real = resolve_inside_roots(Path(absolute), self.config.roots)
        return self._spelled_under_a_root(absolute), real

    def _under_a_root(self, relative: str) -> str:
        """`under the root R it is 'R/relative'` for the first root holding `relative` as written (a
        result's displayPath), or "". A link copied from a passage (`install.md#from-source`) is
        relative to the file it is in, which may lie in a folder of a root: where no root holds it, the
        indexed files of that name are named, its #fragment kept. A path that climbs (`..`) is never
        looked up: the words must tell nothing of the disk outside the roots."""
        if ".." in Path(relative).parts:
            return ""
        for root in self.config.roots:
            candidate = os.path.join(root, relative)
            if os.path.lexists(candidate) and really_in_roots(candidate, self.config.roots):
                return f"under the root {shown(str(root))} it is {shown(candidate)!r}"
        base, hash_mark, fragment = relative.rpartition("#")
        if not hash_mark or not base:
            base, fragment = relative, ""
        tail = os.path.normpath(base)  # `./install.md` is `install.md`
        if tail.startswith("/") or tail in (".", "") or "\x00" in tail:
            return ""
        for root in self.config.roots if hash_mark else ():
            candidate = os.path.join(root, tail)
            if os.path.isfile(candidate) and really_in_roots(candidate, self.config.roots):
                return f"under the root {shown(str(root))} it is {shown(candidate + hash_mark + fragment)!r}"
        try:
            named = [s for s in self._indexed().files_ending(tail, _NAMED + 1) if self.in_roots(s)]
        except MiniragError:
            return ""
        if not named:
            return ""
        spelled = ", ".join(repr(shown(s + hash_mark + fragment)) for s in named[:_NAMED])
        more = " and more (list_files with scope lists them)" if len(named) > _NAMED else ""
        which = "the indexed file of that name is" if len(named) == 1 else "the indexed files of that name are"
        return f"{which} {spelled}{more}"

    def _spelled_under_a_root(self, absolute: str) -> str:
        """A contained path as a sync stores it: a folder by its real path, a file by its folder's real
        path and its own name (a link to a file keeps its own name). A link to a folder is never another
        name for what it holds (scan.walk does not follow one), whether it sits inside a root (an alias,
        a loop) or leads to one (a root configured by a link's name); a file whose real folder lies
        outside every root is spelled by its own real path."""
        if os.path.isdir(absolute):
            spelled = os.path.realpath(absolute)
        else:
            folder, name = os.path.split(absolute)
            spelled = os.path.join(os.path.realpath(folder), name)
        root = innermost_root(spelled, self.config.roots)
        # As the walk lists it: `/d/NOTES.md` opens `/d/Notes.md` on a file system that folds case.
        return as_listed(spelled, str(root)) if root is not None else os.path.realpath(absolute)

    def search_scope(self, scope: str | None) -> str | None:
        """A scope as sources are stored: an absolute path normalized (`..`, `.`, a trailing
        `/.`), and one reached through a link to a folder spelled by its real folder."""
        if scope is not None and not scope.strip():
            raise InvalidArgument("scope is empty: give a folder, a file or a source-id prefix, or leave scope out")
        if scope is not None and "\x00" in scope:
            raise InvalidArgument("scope contains a NUL byte, which no path or source id holds")
        if scope is not None and not is_utf8(scope):  # a library caller's; MCP and the CLI never pass one
            raise InvalidArgument("scope is not valid UTF-8 (it holds a lone surrogate), which no path or source id "
                                  "in the index is")
        if scope and len(scope) > MAX_PATH_BYTES:  # no source is longer; resolving it costs time in its square
            raise InvalidArgument(f"scope is {len(scope)} characters long; no path or source id is longer than "
                                  f"{MAX_PATH_BYTES}")
        if not scope or not os.path.isabs(scope) or "\x00" in scope:
            return scope
        normal = os.path.normpath(scope)
        spelled = self._spelled_under_a_root(normal)
        return spelled if any(is_under(spelled, str(root), os.sep) for root in self.config.roots) else normal

    def search_scopes(self, scope: str | Sequence[str] | None) -> tuple[str, ...]:
        """The scopes a call names, each as search_scope gives it, duplicates dropped: one, a list (a
        source under any of them: minirag-mcp's scope list, a repeated --scope), or none (())."""
        if scope is None:
            return ()
        if isinstance(scope, str):
            scope = [scope]
        elif not scope:
            raise InvalidArgument("scope is an empty list: give one or more folders, files or source-id prefixes, "
                                  "or leave scope out")
        elif len(scope) > MAX_SCOPES:
            raise InvalidArgument(f"scope takes at most {MAX_SCOPES} entries, got {len(scope)}")
        for i, each in enumerate(scope):
            if not isinstance(each, str):
                raise InvalidArgument(f"scope[{i}] must be a string, got {shown(repr(each), 60)}")
        return tuple(dict.fromkeys(found for each in scope if (found := self.search_scope(each)) is not None))

    def refuse_a_path_meant_as_scope(self, scope: str | None, *, found_nothing: bool) -> None:
        """A relative scope is a data/url source id prefix. One that finds nothing but names a path
        in a root, or in a collection by its name, was meant as that path (file scopes are absolute,
        as results give them): refused naming it, never answered as an empty result that reads as
        "nothing on the subject". An absolute scope that finds nothing outside every root (no file
        there is ever served), or naming nothing on disk, is refused saying which, and so is one
        written as a path no source id can be (`~/docs`, a `file:` URL: ingest_data refuses them)."""
        if not found_nothing or not scope or "\x00" in scope:
            return
        if _PATTERN.search(scope):
            raise InvalidArgument(f"scope {shown(scope, 120)!r} matches no source: a scope is a folder, file or id "
                                  "prefix, not a pattern (* ? [ are taken as written); list_files without a scope "
                                  "lists every file by its path, to pick those of a type")
        if not os.path.isabs(scope) and poses_as_a_path(scope):
            raise InvalidArgument(f"scope {shown(scope, 120)!r} matches no source; a file or folder scope is an "
                                  "absolute path, written out (no ~, no file: URL)")
        if "://" in scope:
            return
        if os.path.isabs(scope):
            roots = [str(root) for root in self.config.roots]
            if not roots:  # a read-only server on an index alone: its paths, never the disk's
                return
            written_in = any(is_under(scope, root, os.sep) for root in roots)
            through_a_link = written_in and not really_in_roots(scope, self.config.roots)
            if through_a_link or not written_in:
                # Not looked up on disk: through a link out (`up -> /`) that would tell whether any
                # path on the machine exists. Nor is where the link leads said.
                raise InvalidArgument(f"scope {shown(scope, 120)!r} lies outside the document roots "
                                      f"({roots_named(roots)})"
                                      f"{' (a link to a place outside them)' if through_a_link else ''}: "
                                      "nothing there is indexed")
            if entry_inside_roots(scope, self.config.roots, follow=False) is None:
                raise InvalidArgument(f"scope {shown(scope, 120)!r} matches no source and no file or folder on disk")
            return
        # Under a root, or under a collection named first (`docs/valgrind` for the collection `docs`).
        first, _, rest = scope.replace(os.sep, "/").partition("/")
        candidates = [(root, os.path.join(root, scope)) for root in self.config.roots]
        candidates += [(collection.root, os.path.join(collection.root, rest) if rest else str(collection.root))
                       for collection in self.config.collections if collection.name == first]
        named = list(dict.fromkeys(path for root, joined in candidates
                                   if is_under(path := os.path.normpath(joined), str(root), os.sep)
                                   and entry_inside_roots(path, self.config.roots) is not None))
        if named:
            raise InvalidArgument(f"scope {shown(scope, 120)!r} matches no source; a file or folder scope is an "
                                  f"absolute path: {', '.join(shown(path) for path in named)}")

    def data_source_id(self, source: str) -> str:
        """A data or url source's id: its own namespace, so it can never replace, shadow or pose as a file."""
        _require_id(source)
        if source != source.strip():
            raise InvalidArgument(f"source {source[:200]!r} starts or ends with white space; ids are shown in "
                                  "listings beside paths, where ' /etc/passwd' would pass for one")
        if any(unicodedata.category(ch) in ("Cc", "Cf", "Cs") for ch in source):
            raise InvalidArgument(f"source {source[:200]!r} holds control or invisible characters")
        if len(source) > MAX_SOURCE_ID:
            raise InvalidArgument(f"source is {len(source)} characters; ids take at most {MAX_SOURCE_ID}")
        if poses_as_a_path(source):
            raise InvalidArgument(
                f"source {source[:200]!r} looks like a file path; data and url sources take ids of their own "
                "(e.g. 'notes/meeting-1' or a URL) so they can never replace or pose as an indexed file")
        return unicodedata.normalize("NFC", source)  # one source however its accents were composed

    def source_key(self, *, file_path: str | None, source: str | None, must_be_absolute: bool = False) -> str:
        if (file_path is None) == (source is None):
            raise InvalidArgument("provide exactly one of filePath or source")
        _require_utf8("filePath" if file_path is not None else "source", file_path or source or "")
        if file_path is not None:
            self._refuse_an_id_as_a_path(file_path)
            if not self.config.roots:  # a read-only server on an index alone: its paths, never the disk's
                check_path_argument(file_path)
                if must_be_absolute and not os.path.isabs(file_path):
                    raise InvalidArgument(f"filePath must be an absolute path, got {str(file_path)[:200]!r}")
                return os.path.abspath(file_path)
            return self.file_source(file_path, must_be_absolute=must_be_absolute)[0]
        assert source is not None  # exactly one of the two, checked above
        _require_id(source)
        return source

    def delete_key(self, *, file_path: str | None, source: str | None, must_be_absolute: bool = False) -> str:
        """source_key for delete, which also takes the path of a file the index holds outside the
        roots (a root since removed from the configuration): nothing is read, only its rows go."""
        try:
            return self.source_key(file_path=file_path, source=source, must_be_absolute=must_be_absolute)
        except PathOutsideRoots as outside:
            held = self._held_outside(file_path) if file_path is not None else None
            if held is None:
                raise outside  # not the index's (or no index to ask): the containment refusal stands
            return held

    def _held_outside(self, file_path: str) -> str | None:
        """The source the index holds for `file_path`, a path outside the roots; None if none (or no
        readable index, whose own error would hide why the path was refused)."""
        for key in dict.fromkeys((os.path.abspath(file_path), os.path.realpath(file_path))):
            try:
                return self._indexed().source_row(key).source
            except MiniragError:
                continue
        return None

    def _refuse_an_id_as_a_path(self, file_path: str) -> None:
        """A data or url source's id given as a path (a hit shows `notes/m1` where a file's path would
        be) is refused saying how to name it; a relative path that is a file on disk stays a path."""
        if os.path.isabs(file_path) or "\x00" in file_path or not file_path or os.path.lexists(file_path):
            return
        try:
            row = self._indexed().source_row(unicodedata.normalize("NFC", file_path))
        except MiniragError:
            return  # no such source (or no index to ask): the path's own refusal says why
        if row.kind != "file":
            raise InvalidArgument(f"{shown(file_path)!r} is the id of a {row.kind} source, not a file: give it as "
                                  f"source (`--source {shown(file_path)}` on the command line)")

    def _not_indexed(self, key: str) -> str:
        """Why `key` cannot be read, and for a path under the roots whether its file is there to ingest."""
        message = f"not indexed: {shown(key)}"
        if not self.config.roots or not looks_like_a_path(key) or not self.in_roots(key):
            return message
        if not really_in_roots(key, self.config.roots):  # through a link out: whether a file is there is not said
            return message
        roots = self.config.roots
        # Looked up beneath the roots' own descriptors, never by name: a folder swapped for a link out
        # after the check above would tell whether a file exists outside.
        there = entry_inside_roots(key, roots)
        if there is not None and stat.S_ISREG(there.st_mode):
            from minirag.ingest.scan import file_not_read

            never = file_not_read(key)  # an Obsidian `.canvas`, a scratch file, a log named `x.1`: ingesting fails
            if never is not None:
                return f"{message}; the file is on disk but never indexed: {never}"
            if (left_out := self._left_out(key, there)) is not None:
                return f"{message}; {left_out}"
            return f"{message}; the file is on disk: ingest it (the ingest_file tool, `minirag ingest`) or sync"
        if there is not None and stat.S_ISDIR(there.st_mode):
            return (f"{message}; it is a folder: read a file in it (list_files with scope, or `minirag list "
                    "--scope`, lists them)")
        if there is not None or entry_inside_roots(key, roots, follow=False) is not None:
            return message
        linked, hash_mark, _ = key.partition("#")  # a link followed from a page's text: `page.html#anchor`
        if hash_mark and (page := entry_inside_roots(linked, roots)) is not None and stat.S_ISREG(page.st_mode):
            return f"{message}; no such file: a link's #fragment is no part of a file's path: the file is {shown(linked)}"
        hint = other_spelling(key, roots)
        return f"{message}; no such file" + (f", but {hint}" if hint else "")

    def _left_out(self, key: str, there: os.stat_result) -> str | None:
        """Why the last ingest of the file at `key` (`there`, its stat) left it out, where the file holds
        the bytes it held then: ingesting them again fails again. None where nothing was recorded or
        the file has changed since (then ingesting it is the advice)."""
        try:
            _, excluded = self._indexed().state_of(key)
        except MiniragError:
            return None
        if excluded is None or excluded.size != there.st_size or not self._holds(key, excluded.content_hash):
            return None
        reason = excluded.reason.removeprefix(f"{key}: ")
        if excluded.failure:
            return (f"it failed when last ingested: {reason}; the same file fails again: repair or replace it "
                    "(list_files, `minirag list`, gives each file's state)")
        return f"it is left out on purpose: {reason}"

    def _holds(self, key: str, content_hash: str) -> bool:
        """Whether the file at `key` holds the bytes hashed as `content_hash`, read as a sync reads it
        (a stat is not enough: one recorded in the same second as a write is not kept)."""
        from minirag.ingest.file_state import file_hash
        from minirag.security import read_inside_roots

        try:
            return file_hash(read_inside_roots(key, self.config.roots, self.config.max_file_size)) == content_hash
        except (OSError, MiniragError):
            return False

    def source_row(self, key: str, *, served: bool = True) -> SourceRow:
        """The indexed row of `key`; a path-shaped key names a file and nothing else, and a file
        outside the configured roots (a root since removed from the configuration) is not `served`
        (it may still be deleted). A path through a link to a folder, and a data id not in NFC, are
        found as they are stored (_stored_as)."""
        _require_utf8("source", key)
        index = self._indexed()
        try:
            found: SourceRow | None = index.source_row(key)
        except NotFound:
            found = self._stored_as(key)
        if found is None:
            raise NotFound(self._not_indexed(key) if served else f"not indexed: {shown(key)}")
        row = found
        if row.kind != "file" and looks_like_a_path(key):
            raise NotFound(f"not indexed: {shown(key)}")
        if served and row.kind == "file" and not self.in_roots(row.source):
            raise NotFound(f"not in a configured root: {shown(key)}; roots: {roots_named(self.config.roots)}")
        return row

    def source_row_at(self, key: str) -> tuple[SourceRow, str | None]:
        """The indexed row of `key`, or where no source is `key`, of the one a link's target names:
        `page.html#anchor` (a link followed from a passage) is `page.html` at `anchor` (a fragment
        holds no `#`; a file whose name holds one is found by its name first)."""
        try:
            return self.source_row(key), None
        except NotFound:
            base, hash_mark, fragment = key.rpartition("#")
            if not hash_mark or not base or entry_inside_roots(key, self.config.roots, follow=False) is not None:
                raise
            try:
                return self.source_row(base), fragment
            except NotFound:
                if looks_like_a_path(base) and entry_inside_roots(base, self.config.roots) is not None:
                    raise  # the file, on disk but not indexed: its own message says what to do (never
                    # through a link out of the roots, where it would say whether any file exists)
                raise NotFound(self._not_indexed(key)) from None

    def _stored_as(self, key: str) -> SourceRow | None:
        """The row of `key` written as sources are stored, where that differs: a path through a link
        to a folder by its real folder (_spelled_under_a_root), a data id in NFC (ids are stored NFC)."""
        if looks_like_a_path(key):
            stored = self._spelled_under_a_root(os.path.normpath(key)) if os.path.isabs(key) and "\x00" not in key \
                else key
        else:
            stored = unicodedata.normalize("NFC", key)
        if stored == key:
            return None
        try:
            return self._indexed().source_row(stored)
        except NotFound:
            return None

    def in_roots(self, source: str) -> bool:
        """Whether a stored file is served. A read-only server on an index DB_PATH names has no
        roots: it serves what that index holds, reading no folder (a replica's recipe)."""
        return not self.config.roots or served_by_roots(source, self.config.roots)
