"""`list`: every supported file under the roots with its ingestion state, plus data/url sources."""

from __future__ import annotations

import os
import threading
from collections import Counter, OrderedDict
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Generic, TypeVar

from minirag.chunking import SCHEME_VERSION
from minirag.ingest.file_state import FileState, file_hash, file_state, refused_unread
from minirag.ingest.ignore import IgnoreReason, IgnoreRules
from minirag.ingest.scan import FoundFile, Ignored, walk_roots, within
from minirag.search.scope import Scopes
from minirag.security import is_plain
from minirag.store.index import ExcludedState, StoredState

T = TypeVar("T")

# indexed: the index matches the disk; stale: changed on disk since indexing;
# stale_scheme: unchanged but cut by an older chunking scheme or at another token
# budget than a sync would cut it at now (so the next sync re-cuts it); not_indexed;
# excluded: left out on purpose (with its reason), unchanged since; failed: these bytes could
# not be converted (with the reason; a sync tries again once they change); too_large: over
# MAX_FILE_SIZE, never indexed; unreadable: no read permission; missing: indexed, gone from disk.


@dataclass(frozen=True, slots=True)
class ListEntry:
    """One row of `list`: a file under the roots (or a folder ignore rules leave out), or a data/url source."""

    source: str
    kind: str  # file | data | url
    title: str | None
    state: str
    size: int | None
    chunk_count: int
    reason: str | None = None  # why it is excluded or failed
    lifecycle: str | None = None  # set when not "active"
    note: str | None = None  # what its conversion left out, when anything


def _same_bytes(found: FoundFile, content_hash: str, roots, max_size: int) -> bool:
    """A touched file (another mtime, ctime or inode) may still hold the bytes that were indexed: hash it to see.

    Read as a sync reads it (read_inside_roots): the name may have been swapped since the
    scan for a FIFO (a plain open would block for ever), or for a link out of the roots."""
    from minirag.errors import PathOutsideRoots
    from minirag.security import read_inside_roots

    try:
        return file_hash(read_inside_roots(found.source, roots, max_size)) == content_hash
    except (OSError, PathOutsideRoots):
        return False


def _disk_state(found: FoundFile, stored: StoredState | None, excluded: ExcludedState | None, roots,
                max_size: int, budget: int | None) -> str:
    if found.size > max_size:
        return "too_large"
    if not os.access(found.real, os.R_OK):
        return "unreadable"

    def holds(record: StoredState | ExcludedState) -> bool:  # a touched file may still hold the same bytes
        if refused_unread(record):  # refused for a size it is no longer over (MAX_FILE_SIZE raised since)
            return False
        # Recorded before migration 10 (no ctime, no inode; every stat stored since has its inode):
        # judged as that release judged it, by size and mtime, until a sync hashes it and stores them.
        # Else each `list` would hash every file until then.
        if record.inode is None and (record.size, record.mtime_ns) == (found.size, found.mtime_ns):
            return True
        return record.stat == found.stat or (record.size == found.size
                                             and _same_bytes(found, record.content_hash, roots, max_size))

    state = file_state(found.source, stored, excluded, holds=holds, budget=budget)
    return FileState.FAILING.value if state is FileState.INTERRUPTED else state.value


def list_entries(index, config, scope: Scopes | None, budget: int | None = None, *,
                 with_ignored: bool = False, others: Counter | None = None) -> list[ListEntry]:
    """`budget`: the token budget a sync would cut files at now (App.chunk_budget), None if unknown.
    `with_ignored`: also what ignore rules leave out, as `excluded` with the rule (a folder once,
    its path ending in a separator). `others` counts the files left out for their type, by suffix."""
    indexed = {
        row.source: row for row in index.list_sources() if scope is None or scope.matches(row.source)
    }
    exclusions = index.excluded_states()
    states = index.stored_states("file")
    out = []
    unreadable: list[str] = []
    ignored: list[Ignored] = []
    rules = IgnoreRules.from_config(config)
    for found in walk_roots(config.roots, unreadable, others, rules=rules, ignored=ignored):
        if scope is not None and not scope.matches(found.source):
            continue
        stored = indexed.pop(found.source, None)
        excluded = exclusions.get(found.source)
        state = _disk_state(found, states.get(found.source), excluded, config.roots, config.max_file_size, budget)
        out.append(ListEntry(
            found.source, "file", stored.title if stored else None, state, found.size,
            stored.chunk_count if stored else 0,
            reason=excluded.reason if state in ("excluded", "failed") else None,
            lifecycle=stored.lifecycle if stored and stored.lifecycle != "active" else None,
            note=stored.note if stored and stored.note else None,
        ))
    for entry in ignored if with_ignored else ():
        if entry.path in indexed:  # indexed before the rule: listed below, with its chunks
            continue
        if scope is None or scope.matches(entry.path):
            out.append(ListEntry(entry.path + (os.sep if entry.is_dir else ""), "file", None, "excluded", None, 0,
                                 reason=str(entry.reason)))
    unlisted = set(unreadable)
    roots = {str(root) for root in config.roots}
    for source, stored in indexed.items():  # data/url items, and files no longer on disk
        state = "indexed" if stored.scheme == SCHEME_VERSION else "stale_scheme"
        reason: IgnoreReason | str | None = None  # the ignore rule, or why it is missing
        if stored.kind == "file" and config.roots:  # no roots: an index served alone, not the disk
            # Under a folder that cannot be listed now: kept by sync, not known to be gone.
            state = "unreadable" if unlisted and within(source, unlisted) else "missing"
            if state == "missing" and not (is_plain(source) and within(source, roots)):
                # A root since removed from the configuration, or an index planted with such sources: a
                # path outside the roots is never looked up (whether it exists is no answer to give).
                reason = "in no configured root"
            elif state == "missing" and os.path.lexists(source) and (reason := rules.reason(source)):
                state = "excluded"  # indexed before an ignore rule named it: the next sync drops it
        out.append(ListEntry(source, stored.kind, stored.title, state, stored.size, stored.chunk_count,
                             reason=f"{reason}; the next sync removes it" if reason else None))
    return out


# The listings kept for the pages after their first: a few, so that agents paging through listings of
# other scopes or collections side by side do not walk again for each page.
KEPT_LISTINGS = 4


class ListingPages(Generic[T]):
    """The listings paged lately, each with the index's version when it was walked, so that the
    pages of one listing are cut from one walk: a page past the first costs its own entries, not a walk
    of the whole corpus again (paging through a listing of n files walked n files per page), and none is
    repeated or skipped when files change on disk between pages. A first page walks again."""

    def __init__(self) -> None:
        self._kept: OrderedDict[Hashable, tuple[Hashable, T]] = OrderedDict()
        self._lock = threading.Lock()

    def listing(self, key: Hashable, version: Hashable, walk: Callable[[], T], *, first: bool) -> tuple[T, bool]:
        """The listing `key` names, walked for a `first` page, else the one kept while the index is still
        at `version` (App._listed_version); and whether the index had moved on from the
        listing kept (its pages before and this one, from a new walk, may not join: an entry moved across
        them)."""
        with self._lock:
            kept = self._kept.get(key)
            if not first and kept is not None and kept[0] == version:
                self._kept.move_to_end(key)
                return kept[1], False
        listing = walk()
        with self._lock:
            self._kept[key] = (version, listing)
            self._kept.move_to_end(key)
            while len(self._kept) > KEPT_LISTINGS:
                self._kept.popitem(last=False)
        return listing, not first and kept is not None
