"""Collections, the named roots: the one a source is under, the scope a collection gives a search or a
listing, each one's indexed files and chunks, and when each root was last brought in sync (a meta
value of the index)."""

from __future__ import annotations

import difflib
import json
import os
from pathlib import Path
from typing import TYPE_CHECKING

from minirag.display import shown
from minirag.errors import InvalidArgument
from minirag.search import Scope
from minirag.security import innermost_root, is_under, outer_roots_of
from minirag.store import connection
from minirag.values import CollectionInfo, Collections

if TYPE_CHECKING:
    from minirag.config import Collection, Config
    from minirag.store.index import Index

META_LAST_SYNC = "collections_last_sync"  # {root: ISO time} of each root's last complete sync


def collection(config: Config, name: str) -> Collection:
    for named in config.collections:
        if named.name == name:
            return named
    raise InvalidArgument(f"no collection {shown(name, 80)!r}; {collections_named(config, name)}")


NAMED_COLLECTIONS = 5  # the most collections one refusal names


def collections_named(config: Config, wanted: str) -> str:
    """The collections, for a refusal of `wanted`: each of a few; of many (1,000 made the refusal of a
    mistyped name one 66 KB line), those nearest `wanted` first, then how many there are and where
    they are all listed."""
    names = [c.name for c in config.collections]
    if len(names) <= NAMED_COLLECTIONS:
        return f"the collections are: {', '.join(names)}"
    # difflib's cost grows with the product of the lengths; a name 3 times the longest one's length or
    # more is never within its cutoff of 0.6 (at most 2 x shorter / both <= 0.5), so it is not compared.
    near = (difflib.get_close_matches(wanted, names, n=NAMED_COLLECTIONS, cutoff=0.6)
            if len(wanted) < 3 * max(map(len, names)) else [])
    shown_names = list(dict.fromkeys([*near, *names[:NAMED_COLLECTIONS]]))[:NAMED_COLLECTIONS]
    return (f"of the {len(names)} collections: {', '.join(shown_names)} and {len(names) - len(shown_names)} more "
            "(list_collections, or `minirag collections`, lists them all)")


def collection_of(config: Config, source: str) -> str | None:
    """The name of the collection whose root holds `source` (the innermost); None for data and url sources."""
    root = innermost_root(source, [c.root for c in config.collections])
    return next((c.name for c in config.collections if c.root == root), None) if root else None


def collection_scope(config: Config, name: str | None, scopes: tuple[str, ...]) -> tuple[str, ...]:
    """The scopes a search or listing runs in (a source under any of them; none: everything):
    `scopes` (search scopes already, App.search_scopes), or the collection's root, or `scopes` each
    inside that root (one outside it is refused: it would silently find nothing)."""
    if name is None:
        return scopes
    root = str(collection(config, name).root)
    if not scopes:
        return (root,)
    for scope in scopes:
        if not is_under(scope, root, os.sep):
            raise InvalidArgument(f"scope {shown(scope, 120)!r} is not inside collection {name!r} ({root})")
    _refuse_scopes_in_nested(config, name, scopes)
    return scopes


def nested_in(config: Config, name: str | None) -> tuple[str, ...]:
    """The roots of the collections inside collection `name`'s root (none for no collection): their files
    are theirs (a hit's `collection` is the innermost root's), so `name`'s listing, search and counts
    leave them out."""
    if name is None:
        return ()
    root = collection(config, name).root
    return tuple(str(inner) for inner in config.roots if root in outer_roots_of(str(inner), config.roots))


def _parents(config: Config) -> dict[str, str]:
    """Each nested root's innermost outer root (the roots' table is looked up, not compared pairwise: a
    thousand roots are a thousand lookups)."""
    parents = {}
    for root in config.roots:
        if outer := outer_roots_of(str(root), config.roots):
            parents[str(root)] = str(max(outer, key=lambda r: len(str(r))))
    return parents


def _refuse_scopes_in_nested(config: Config, name: str, scopes: tuple[str, ...]) -> None:
    for scope in scopes:
        inner = collection_of(config, scope)
        if inner is not None and inner != name:
            raise InvalidArgument(f"scope {shown(scope, 120)!r} is inside collection {inner!r}, which is inside "
                                  f"{name!r}: its files are {inner!r}'s; pass collection {inner!r}")


def list_collections(config: Config, index: Index | None) -> Collections:
    """Each collection: name, description, root, indexed files and chunks, last complete sync; with no
    `index` (none made yet), nothing counted. A file is counted once, in the innermost collection
    holding it (as a hit names it): a collection's counts less those under the collections in it."""
    counts, synced = {}, {}
    if index is not None:
        under = {}
        for c in config.collections:
            scope = Scope.of(str(c.root))
            under[str(c.root)] = index.counts_under(scope.low, scope.exact, scope.high)
        own = dict(under)
        for inner, outer in _parents(config).items():
            own[outer] = (own[outer][0] - under[inner][0], own[outer][1] - under[inner][1])
        counts = {c.name: own[str(c.root)] for c in config.collections}
        synced = last_syncs(index)
    return Collections(tuple(
        CollectionInfo(c.name, c.description, str(c.root), *counts.get(c.name, (0, 0)), synced.get(str(c.root)))
        for c in config.collections))


def synced_roots(roots: tuple[Path, ...], target: Path | None, paths: list[Path] | None) -> list[str]:
    """The roots a sync pass brought in sync: every root after a full pass, a root named whole (or a
    folder above it) after a pass of that path, a root a watch pass reconciled."""
    names = [str(root) for root in roots]
    if target is not None:
        return [root for root in names if is_under(root, str(target), os.sep)]
    if paths is not None:
        return [root for root in names if any(is_under(str(p), root, os.sep) for p in paths)]
    return names


def record_sync(index: Index, roots: list[str], *, whole: bool = False) -> None:
    """Now, as the time each of `roots` was last brought in sync. `whole`: a sync of every root, which
    dropped the files of any other root (one no longer configured), so that root's time goes too: put
    back, it would say it was in sync while nothing of it is indexed."""
    from datetime import UTC, datetime

    now = datetime.now(UTC).isoformat(timespec="seconds")
    before = {} if whole else last_syncs(index)
    index.set_meta(META_LAST_SYNC, json.dumps(before | dict.fromkeys(roots, now)))


def last_syncs(index: Index) -> dict:
    """When each root was last brought in sync; {} for a value that is no JSON object (it only informs)."""
    try:
        return connection.json_object(index.meta(META_LAST_SYNC) or "{}")
    except ValueError:
        return {}
