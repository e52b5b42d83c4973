"""`list`: every supported file under the roots with its ingestion state, plus data/url sources."""

from __future__ import annotations

import os
import secrets
import threading
import weakref
from collections import Counter, OrderedDict
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Generic, TypeVar

from minirag.chunking import SCHEME_VERSION
from minirag.display import shown
from minirag.errors import InvalidArgument, ListingGone
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


# The listings each client keeps for the pages after their first: a few, so that an agent paging through
# listings of other scopes or collections side by side does not walk again for each page. Counted per
# client (an MCP connection): one asking for many listings evicts its own, never another's. The clients
# of a stateless protocol version cannot be told apart: they share one store of KEPT_SHARED.
KEPT_LISTINGS = 4
KEPT_SHARED = 16
# And all clients together keep at most this many (an HTTP server holds up to the SDK's 10,000 sessions,
# each of which could keep KEPT_LISTINGS of a whole corpus): past it, a listing of the client that keeps
# the most goes, its least recently paged, so that a client keeping fewer loses none to clients that
# open many connections until they all keep as few.
KEPT_TOTAL = 64

# A cursor names its listing by this many random bytes: another client cannot guess it (and one it
# learnt still names nothing in its own store).
CURSOR_BYTES = 16


@dataclass(frozen=True, slots=True)
class Cursor:
    """Where the next page of a kept listing starts: the listing's id and the entry's offset in it,
    given as `ID.OFFSET` (results.fit_page writes it)."""

    listing: str
    offset: int

    @classmethod
    def parse(cls, text: str) -> Cursor:
        listing, dot, offset = text.rpartition(".")
        if not (dot and listing and offset.isascii() and offset.isdigit() and len(offset) <= 12
                and len(listing) <= 64 and all(c.isalnum() or c in "-_" for c in listing)):
            raise InvalidArgument(f"cursor {shown(text, 80)!r} is not one list_files gave: pass a page's nextCursor "
                                  "as it came, or omit cursor to list from the start")
        return cls(listing, int(offset))


@dataclass(frozen=True, slots=True)
class Kept(Generic[T]):
    key: Hashable  # what was listed (scopes, collection, ignored)
    version: Hashable  # the index's version when it was walked (App._listed_version)
    listing: T


class ListingPages(Generic[T]):
    """The listings each client paged lately, each with the index's version when it was walked, so that
    the pages of one listing are cut from one walk: a page past the first costs its own entries, not a
    walk of the whole corpus again (paging through a listing of n files walked n files per page), and
    none is repeated or skipped when files change on disk between pages. A listing without a cursor walks
    again. Each client's listings go with it (its store is held weakly by the client object)."""

    def __init__(self) -> None:
        # Each client's listings by id, least recently paged first, each with the call that last paged it.
        self._kept: weakref.WeakKeyDictionary[object, OrderedDict[str, tuple[int, Kept[T]]]] = \
            weakref.WeakKeyDictionary()
        self._calls = 0  # calls so far: what "recently" counts in (not time)
        self._lock = threading.Lock()

    def __len__(self) -> int:
        with self._lock:
            return sum(map(len, self._kept.values()))

    def _keep(self, store: OrderedDict[str, tuple[int, Kept[T]]], name: str, kept: Kept[T]) -> None:
        self._calls += 1
        store[name] = (self._calls, kept)
        store.move_to_end(name)

    def _bound(self) -> None:
        """Past KEPT_TOTAL in all, drop the least recently paged listing of the client keeping the most."""
        stores = [store for store in self._kept.values() if store]
        while sum(map(len, stores)) > KEPT_TOTAL:
            most = max(map(len, stores))
            oldest = min((store for store in stores if len(store) == most), key=lambda store: next(iter(
                store.values()))[0])
            oldest.popitem(last=False)

    def start(self, client: object, key: Hashable, version: Hashable, walk: Callable[[], T]) -> tuple[str, T]:
        """A new walk of `key`, kept for `client` under a new unguessable id; its oldest beyond
        KEPT_LISTINGS go (KEPT_SHARED for the clients of a stateless protocol version), and past
        KEPT_TOTAL in all, the oldest of the client keeping the most."""
        listing = walk()
        name = secrets.token_urlsafe(CURSOR_BYTES)
        with self._lock:
            store = self._kept.setdefault(client, OrderedDict())
            self._keep(store, name, Kept(key, version, listing))
            while len(store) > (KEPT_SHARED if getattr(client, "shared", False) else KEPT_LISTINGS):
                store.popitem(last=False)
            self._bound()
        return name, listing

    def latest(self, client: object, key: Hashable, version: Hashable) -> tuple[str, T] | None:
        """The listing of `key` that `client` paged last, (its id, the listing), where the index is still
        at `version` it was walked at; None where it keeps none. Another client's is never given."""
        with self._lock:
            store = self._kept.get(client)
            if store is None:
                return None
            for name in reversed(store):
                kept = store[name][1]
                if kept.key == key and kept.version == version:
                    self._keep(store, name, kept)
                    return name, kept.listing
        return None

    def resume(self, client: object, name: str, version: Hashable,
               walk: Callable[[Hashable], T]) -> tuple[Hashable, T, bool]:
        """The listing `client` keeps as `name` (its key, the listing, and whether it was walked again
        by `walk(key)` because the index had moved on from it: its pages before and the next may not
        join). ListingGone when it keeps none by that name."""
        with self._lock:
            store = self._kept.get(client)
            held = store.get(name) if store is not None else None
            if store is not None and held is not None:
                self._keep(store, name, held[1])
        if store is None or held is None:
            raise ListingGone("this cursor's listing is no longer kept (the server restarted, or newer listings "
                              f"took its place: a client keeps its {KEPT_LISTINGS} latest): list again without a "
                              "cursor, from the start")
        kept = held[1]
        if kept.version == version:
            return kept.key, kept.listing, False
        listing = walk(kept.key)
        with self._lock:
            if name in store:
                self._keep(store, name, Kept(kept.key, version, listing))
        return kept.key, listing, True
