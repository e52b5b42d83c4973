"""Reconcile the index with the roots: one sync pass.

New and changed files are ingested (content hash, with an mtime+size fast
path), unchanged ones skipped, files gone from disk dropped. A pass covers the
roots, or some paths inside them (one folder for `sync PATH`; a watcher's batch).
A source cut by an older chunking scheme is re-ingested even when its bytes are
unchanged. A file excluded on purpose (`rag: false`) is remembered with its
content hash, so while its bytes stay the same it is counted as excluded and
never converted.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Sequence
from pathlib import Path

from minirag.ingest.file_state import FileState, by_stat, file_state
from minirag.ingest.ignore import IgnoreRules
from minirag.ingest.mounts import (
    drive_folders,
    left_by_a_drive,
    record_devices,
    recorded_devices,
    unmounted_warning,
)
from minirag.ingest.pipeline import Pipeline
from minirag.ingest.progress import Progress
from minirag.ingest.scan import unseen_warnings, walk, walk_roots, within
from minirag.security import served_by_roots

log = logging.getLogger(__name__)


def _vanished(stored, on_disk: set[str], scopes: set[str] | None, unreadable: set[str]):
    """Indexed files this scan did not find: under a scanned scope, or (a full scan) any.

    Never one at or under a path the scan could not read (`unreadable`): a folder that lost
    its permissions or its network mount for a moment has not deleted its documents.
    """
    for source in stored:
        if source in on_disk or (unreadable and within(source, unreadable)):
            continue
        if scopes is not None:
            if within(source, scopes):
                yield source
        else:
            # A full walk finds every file of the roots as written under them, so what it did not find is
            # gone from a root, outside every root (a root removed from the configuration), or a copy stored
            # under another name of a root (a link to it), which would answer every query twice.
            yield source


def run_sync(pipeline: Pipeline, roots: list[Path], *, path: Path | None = None,
             paths: Sequence[Path] | None = None, progress: Progress | None = None,
             on_change: Callable[[Progress], None] | None = None,
             guard: Callable[[], None] = lambda: None) -> Progress:
    """One sync pass over all roots, or over `path` or each of `paths` (files or directories
    inside them, existing or gone): the watcher syncs a whole batch of changed paths in one pass.
    `guard` runs before every write (a locked sync's check of its lock, SyncLock.ensure_held)."""
    progress = progress or Progress()
    index = pipeline.index
    stored = index.stored_states("file")
    exclusions = index.excluded_states()
    scopes = [path] if path is not None else list(paths) if paths is not None else None
    unreadable: list[str] = []
    rules = IgnoreRules.from_config(pipeline.config)
    progress.stage = "looking for files"
    devices = recorded_devices(index)
    unmounted = left_by_a_drive(roots, devices)
    if scopes is None:
        found_files = list(walk_roots([r for r in roots if str(r) not in unmounted], unreadable,
                                      progress.other_types, rules))
    else:
        # Paths under a root left by an unmounted drive (polling sees its files go) are not read either.
        places = {os.path.abspath(scope) for scope in scopes}
        # (a place above a drive folder inside a root is walked: what the drive held is kept below)
        unmounted = [left for left in unmounted if any(within(place, {left}) or within(left, {place})
                                                       for place in places)]
        scopes = [scope for scope in scopes if not within(os.path.abspath(scope), set(unmounted))]
        found_files = list({f.source: f for scope in scopes
                            for f in walk(scope, roots, unreadable, progress.other_types, rules)}.values())
    on_disk = {f.source for f in found_files}
    progress.found(len(found_files))
    unseen = unseen_warnings(unreadable, roots)
    progress.unread += len(unseen) + len(unmounted)
    progress.warnings.extend([*unseen, *(unmounted_warning(left, roots) for left in unmounted)])
    unreadable += unmounted

    to_check = []
    for found in found_files:
        state = file_state(found.source, stored.get(found.source), exclusions.get(found.source),
                           holds=by_stat(found, pipeline.config.max_file_size), budget=pipeline.budget)
        if state is FileState.UNCHANGED:
            progress.seen += 1
            progress.skipped += 1
        elif state in (FileState.EXCLUDED, FileState.FAILING):
            progress.seen += 1
            if state is FileState.FAILING:
                progress.still_failing += 1
            else:
                progress.excluded += 1
        else:
            to_check.append(found)

    pipeline.run_files(to_check, progress, on_change=on_change, guard=guard)
    if scopes is None:
        guard()
        read = [r for r in roots if str(r) not in unreadable]
        record_devices(index, read, devices, drive_folders(on_disk, read), kept=unreadable)
    # Dropped after the ingest, so a renamed or moved file reuses the vectors of its old path.
    scope_set = None if scopes is None else {os.path.abspath(s) for s in scopes}
    gone = list(_vanished([*stored, *exclusions], on_disk, scope_set, set(unreadable)))
    if gone:
        guard()  # one that lost its lock deletes nothing: another sync may have indexed them again

        def as_found(source: str) -> bool:
            # Asked inside the delete's transaction: a row another writer wrote since the walk (a file
            # back on disk, ingested) is its newer word, and stays.
            return index.state_of(source) == (stored.get(source), exclusions.get(source))

        # A pass over some paths keeps their vectors: the files may be moved somewhere it did not look.
        progress.deleted += index.delete_sources(gone, current=as_found, keep_vectors=scopes is not None)
        progress.outside_roots += sum(1 for source in gone if source in stored and not served_by_roots(source, roots))
    if scopes is None and not progress.stop.is_set() and index.holds_pending():
        # Every file of the roots is written (or failed, or changed since it was read): the vectors kept
        # for files a stopped run did not write are of none (store/pending.py).
        guard()
        index.clear_pending()
    return progress
