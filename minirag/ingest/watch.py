"""Keep the index in sync with the roots as files change: notifications in, batched sync passes out.

watchfiles (the Rust `notify` crate: inotify, FSEvents, ReadDirectoryChangesW), or
polling (ingest/notify.py), reports changed paths. Paths that are not documents are dropped by name
(the index's own files, editors' temp files, skipped and dot-dirs). A batch runs
once nothing has changed for `debounce` seconds and every file in it has kept its
stat (size, mtime, ctime, inode) across that window, so an atomic save, a checkout of a thousand
files and a file still being written each end in one pass over the final content.
The caller's `run_pass` syncs a batch (or, with None, every root) under the sync
lock; a pass the lock refuses is retried later with nothing dropped. A full
no-change sync runs at start and every `reconcile_every` seconds to catch what
notifications miss. When the OS limit on watches is reached, the watcher says how
to raise it, once, and polls instead. docs/watch.md has the measurements.
"""

from __future__ import annotations

import logging
import os
import stat as stat_mode
import sys
import threading
import time
from collections.abc import Callable, Generator, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from minirag import interruptible
from minirag.display import is_utf8
from minirag.errors import MiniragError, ModelRunStopped, SyncLocked
from minirag.ingest.ignore import IGNORE_FILES
from minirag.ingest.isolation import ConversionStopped
from minirag.ingest.other_names import OtherNames
from minirag.ingest.progress import Progress
from minirag.ingest.scan import (
    FileStat,
    has_document_suffix,
    is_temporary,
    skipped_folder,
    skipped_on_the_way,
    stat_now,
)
from minirag.security import containing_root
from minirag.store.home import index_files

log = logging.getLogger(__name__)
# watchfiles logs every batch of changes at INFO; our own pass lines say what matters.
logging.getLogger("watchfiles").setLevel(logging.WARNING)

DEBOUNCE_S = 0.5  # quiet time before a batch runs; editors' saves and git checkouts finish well within it
MAX_DELAY_S = 10.0  # changes that never go quiet (a long copy) still get a pass this often
RECONCILE_S = 300.0  # a full no-change sync this often (its cost: docs/watch.md#measured)
POLL_INTERVAL_S = 5.0  # polling: one scan this often (ingest/notify.py; its cost: docs/watch.md#measured)
LOCK_RETRY_S = 2.0  # how soon a pass refused by the sync lock is tried again
ERROR_RETRY_S = 30.0  # how soon a pass that failed outright is tried again
TICK_S = 0.25  # the longest wait between looks at the stop event
NOTIFIER_JOIN_S = 5.0  # how long a stopping watcher waits for its notifications' thread to end
# How often the notifier checks that each root is still the folder it watches. Watches live
# on the folder, not its path: a root deleted and made again, or mounted later, gets none
# until they are set up again. A stat per root every 2 s costs nothing measurable.
ROOT_CHECK_S = 2.0

RunPass = Callable[[list[Path] | None, Progress], None]
_ADDED = "added"  # a change as watchfiles names it (Change.added.name)

_INOTIFY_WATCHES = "/proc/sys/fs/inotify/max_user_watches"
_NAMESPACE_WATCHES = "/proc/sys/user/max_inotify_watches"  # the limit of this user namespace (Linux 5.11+)
# watchfiles' error for a changed path whose name is not UTF-8 (its Rust side cannot give it to Python):
# the batch holding it is lost, not the notifications.
_UNDECODABLE_NAME = "Unable to decode path"
# How often at most such a name's changes have every root looked at again for what their batch lost.
UNDECODABLE_PASS_S = 10.0
_LIMIT_HINTS = ("MaxFilesWatch", "watch limit", "os error 28", "No space left on device",
                "os error 24", "Too many open files")


def _read_number(path: str) -> int | None:
    try:
        return int(Path(path).read_text().strip())
    except (OSError, ValueError):
        return None


def limit_advice() -> str:
    """The OS limit on file watches now, and how to raise it."""
    current, here = _read_number(_INOTIFY_WATCHES), _read_number(_NAMESPACE_WATCHES)
    if here is not None and (current is None or here < current):
        # A user namespace (a container) of its own lower limit: the system-wide setting reads the same
        # from inside, and raising it changes nothing there.
        return (f"user.max_inotify_watches is {here} in this user namespace (a container's own limit); "
                "raise it with `sysctl user.max_inotify_watches=524288` inside the namespace, or where "
                "the container is set up")
    if current is None:
        return "raise the per-user limit on open files (`ulimit -n`) or watch fewer folders"
    return (f"fs.inotify.max_user_watches is {current}; raise it with `sudo sysctl "
            "fs.inotify.max_user_watches=524288 fs.inotify.max_user_instances=512` "
            "(and add both to /etc/sysctl.conf to keep them)")


class EventFilter:
    """Which changed paths can matter to the index, judged by name alone (no stat)."""

    def __init__(self, roots: Sequence[Path], db_path: Path, above: Mapping[str, object] | None = None):
        self.roots = tuple(roots)
        self.above = above or {}  # folders above the roots whose ignore files count (Watcher._above)
        self.index_files = frozenset(str(path) for path in index_files(db_path))  # its own writes: no change
        # Set when a root itself was deleted or moved away: its watches died with it, and a
        # folder made again at once under its name may even get its inode number back.
        self.root_deleted = False

    def __call__(self, change, path: str, *, folder: bool = False) -> bool:
        """`folder`: `path` is a folder, which the scan reads whatever its name (`notes.bak`): only a
        file is scratch by its name."""
        if path in self.index_files:
            return False
        if os.path.basename(path) in IGNORE_FILES and os.path.dirname(path) in self.above:
            return True  # a repository's rules above a root: the roots below it are looked at again
        root = containing_root(Path(path), self.roots)
        deleted = getattr(change, "name", change) == "deleted"
        if root is not None and path == str(root) and deleted:
            self.root_deleted = True
        if root is None or path == str(root):
            return False
        # A path deleted or moved away may have been a folder (`notes.bak` moved out takes its files
        # along), which no stat tells now: its name never drops it. A scratch file's deletion costs a
        # pass only where it held an indexed file (Watcher._scopes).
        return (skipped_on_the_way(path, str(root), is_dir=False) is None
                and (folder or deleted or not is_temporary(os.path.basename(path))))


@dataclass
class _Pending:
    first_seen: float
    last_event: float
    stat: FileStat | None  # when last looked at; None: gone or unreadable
    added: bool  # created or moved in (a directory that appears needs a walk: its files raise no events)


@dataclass
class PassReport:
    kind: str  # initial | changes | reconcile
    paths: int  # changed paths the pass covered; 0 for a pass over every root
    progress: Progress
    seconds: float
    finished_at: float  # time.time() when it ended


@dataclass(frozen=True, slots=True)
class WatchState:
    """What a watcher is doing, as status and sync_status show it."""

    watching: bool
    mode: str  # polling | notifications
    roots: tuple[str, ...]
    debounce_seconds: float
    reconcile_every_seconds: float
    next_reconcile_in_seconds: float
    passes: int
    running: str | None  # the kind of pass running now
    queued: int
    queued_paths: tuple[str, ...]  # the first few of the queued paths
    last_pass: PassReport | None
    poll_interval_seconds: float | None  # set when polling
    waiting_for_lock: str | None = None
    last_error: str | None = None
    notification_error: str | None = None
    warning: str | None = None


def _folder_identity(path: Path) -> tuple[int, int] | None:
    """(device, inode) of the folder at `path`; None when there is none there."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_dev, st.st_ino) if stat_mode.S_ISDIR(st.st_mode) else None


def watched_folders(roots: Iterable[Path], unlisted: list[str] | None = None) -> list[str]:
    """The folders a watch is set on, one each: the roots and every folder below them the scan
    reads. A link is not followed (its target may be `/`), nor is a folder the scan skips
    (`.git`, `node_modules`, a name that is not UTF-8, which watchfiles cannot take either)
    descended into; an unreadable folder cannot be watched either: it goes in `unlisted`."""
    found: dict[str, None] = {}
    stack = [str(root) for root in roots]
    while stack:
        folder = stack.pop()
        if folder in found:
            continue  # a root inside another root
        try:
            with os.scandir(folder) as entries:
                for entry in entries:
                    try:
                        if (entry.is_dir(follow_symlinks=False) and skipped_folder(entry.path) is None
                                and is_utf8(entry.name)):
                            stack.append(entry.path)
                    except OSError:
                        continue
        except PermissionError:
            if unlisted is not None:
                unlisted.append(folder)
            continue
        except OSError:
            continue
        found[folder] = None
    return list(found)


def _listable(folder: str) -> bool:
    try:
        with os.scandir(folder):
            return True
    except OSError:
        return False


def _is_new_folder(change, path: str) -> bool:
    """A folder (not a link to one) created or moved in: it has no watch of its own yet."""
    if getattr(change, "name", change) != _ADDED or skipped_folder(path) is not None:
        return False
    try:
        return stat_mode.S_ISDIR(os.lstat(path).st_mode)
    except OSError:
        return False


def _collapse(scopes: Iterable[str]) -> list[str]:
    """The scopes, less every one that lies inside another."""
    unique = set(scopes)

    def inside_another(scope: str) -> bool:
        parent = os.path.dirname(scope)
        while parent != scope:
            if parent in unique:
                return True
            scope, parent = parent, os.path.dirname(parent)
        return False

    return sorted(s for s in unique if not inside_another(s))


class Watcher:
    """Watches the roots until stopped; `run` does the passes in the caller's thread."""

    def __init__(self, roots: Sequence[Path], db_path: Path, run_pass: RunPass, *,
                 indexed_under: Callable[[list[str]], set[str]] = lambda _paths: set(),
                 indexed_files: Callable[[], Iterable[str]] = lambda: (),
                 folders_above: Mapping[str, Sequence[Path]] | None = None,
                 on_pass: Callable[[PassReport], None] | None = None, polling: bool = False,
                 debounce: float = DEBOUNCE_S, max_delay: float = MAX_DELAY_S,
                 reconcile_every: float = RECONCILE_S, poll_interval: float = POLL_INTERVAL_S,
                 lock_retry: float = LOCK_RETRY_S, error_retry: float = ERROR_RETRY_S):
        self.roots = list(roots)
        # Folders above the roots whose ignore files apply (a repository's, ignore.folders_above), each
        # with the roots below it: watched for those files alone, where each folder has its own watch.
        self._above = {folder: [str(root) for root in below] for folder, below in (folders_above or {}).items()}
        self.filter = EventFilter(roots, db_path, self._above)
        self._run_pass = run_pass
        self._indexed_under = indexed_under
        self._indexed_files = indexed_files
        self._other_names = OtherNames()
        self._on_pass = on_pass
        self.polling = polling
        self.debounce, self.max_delay = debounce, max_delay
        self.reconcile_every, self.poll_interval = reconcile_every, poll_interval
        self.lock_retry, self.error_retry = lock_retry, error_retry

        self._cond = threading.Condition()
        self._pending: dict[str, _Pending] = {}
        self._last_event = 0.0
        self._retry_at = 0.0
        # The first pass, over every root, runs once the watches are set (_first_pass_due): a file
        # it read before then could change unseen.
        self._reconcile_at = float("inf")
        self._lost_at = float("-inf")  # when a lost batch (_lost_batch) last had every root looked at
        self._reconcile_kind = "initial"
        self._stop = threading.Event()
        self._runs = interruptible.RunBound(None)  # no time limit: a big batch on a slow machine may take long
        self._notifier: threading.Thread | None = None

        self.passes = 0
        self.last_pass: PassReport | None = None
        self.running: str | None = None
        self.waiting_for_lock: str | None = None
        self.last_error: str | None = None  # of the last pass, until one succeeds
        self.notify_error: str | None = None  # of the notifications, until they work again
        self.limit_warning: str | None = None

    # --- lifecycle -------------------------------------------------------------------

    def run(self, stop: threading.Event | None = None) -> None:
        """Watch and sync until `stop` is set or stop() is called. A pass in progress
        stops between files or encoder batches; what it wrote stays."""
        if stop is not None:
            self._stop = stop
        # The passes' model runs and conversions, stopped with the watcher whoever stops it (Ctrl-C's
        # handler sets `stop`): a pass inside a run that never ends had held the watcher for ever.
        self._runs.stopped_by(self._stop, "was stopped: the watcher is stopping")
        self._notifier = threading.Thread(target=self._notify_loop, name="minirag-watch-events", daemon=True)
        self._notifier.start()
        try:
            while not self._stop.is_set():
                work = self._next_work()
                if work is not None:
                    self._do_pass(*work)
        finally:
            self._stop.set()
            interruptible.join(self._notifier, NOTIFIER_JOIN_S)

    def stop(self) -> None:
        self._stop.set()
        with self._cond:
            self._cond.notify_all()

    # --- notifications in ---------------------------------------------------------------

    def _watches_each_folder(self) -> bool:
        """Whether a watch is set on each folder (Linux's inotify, and polling) rather than one
        recursive watch a root. A recursive watch there follows every link to a folder, out of the
        roots too (a link to `/` gets the whole disk watched, or polled), and descends into the
        folders the scan skips; `notify` has a switch for neither that watchfiles passes on. On
        macOS and Windows one recursive watch a root follows no link."""
        return self.polling or sys.platform.startswith("linux")

    def _notify_loop(self) -> None:
        try:
            self._watch_for_changes()
        finally:
            self._first_pass_due()  # watching failed outright: the roots are synced all the same

    def _watch_for_changes(self) -> None:
        from minirag.ingest.notify import change_batches

        # watchfiles' ignore_permission_denied ignores every error while adding watches, the
        # OS watch limit included, so it is only turned on after an unreadable folder was met.
        ignore_unreadable = False
        # At the start, and after a root went away, came back or was replaced, a pass over every root
        # runs once the new watches are up (their first yield): earlier changes raised no events.
        resync = True
        missing_said = False  # every root is gone, and a pass has said so
        watched: set[str] = set()  # the folders watched before the watches were set up again
        # The watches being replaced, kept until the new ones are up and then read one last time: a
        # file changed in a folder watched all along, while the tree is walked again and the new
        # watches set, raised its event on the old watch only.
        previous: Generator | None = None
        current: Generator | None = None
        try:
            while not self._stop.is_set():
                if current is not None and current is not previous:
                    current.close()  # its watches go now, not when the next set replaces it
                current = None
                # watchfiles refuses the whole set when one path is missing (an unmounted drive), so
                # only the roots there now are watched; the others are looked for every ROOT_CHECK_S.
                self.filter.root_deleted = False
                identities = [_folder_identity(root) for root in self.roots]
                present = [root for root, identity in zip(self.roots, identities, strict=True) if identity]
                if not present:
                    resync = True
                    if not missing_said:  # a pass over every root says they are missing and keeps their documents
                        missing_said = True
                        self._reconcile_soon()
                    self._stop.wait(ROOT_CHECK_S)
                    continue
                missing_said = False
                # Folders that could not be listed get no watch; made readable again (chmod), they raise
                # no event the watcher acts on, so they are looked at every ROOT_CHECK_S.
                unlisted: list[str] = []
                recheck_at = time.monotonic() + ROOT_CHECK_S
                folders = watched_folders(present, unlisted) if self._watches_each_folder() else None
                up = False
                try:
                    current = change_batches(
                        [*folders, *self._existing_above()] if folders is not None else [str(r) for r in present],
                        recursive=folders is None, stop_event=self._stop,
                        polling=self.polling, poll_delay_ms=int(self.poll_interval * 1000),
                        timeout_ms=int(ROOT_CHECK_S * 1000), ignore_permission_denied=ignore_unreadable)
                    for changes in current:
                        self.notify_error = None
                        if resync:
                            resync = False
                            self._reconcile_soon()
                        # Filtered here, not by watchfiles: it yields nothing for a batch its filter
                        # empties, so a stream of dropped events would starve the root check below.
                        raw = changes
                        changes = {(change, path) for change, path in raw if self.filter(change, path)}
                        if changes:
                            self.add(changes)
                        if self._roots_changed(identities):
                            resync = True  # a pass over every root follows: the old watches have nothing to add
                            if previous is not None:
                                previous.close()
                                previous = None
                            break  # set the watches up again, on the roots as they are now
                        if folders is not None:
                            if not up:
                                up = True
                                if previous is not None:
                                    self.add(self._last_changes(previous))
                                    previous.close()
                                    previous = None
                                appeared = self._folders_unwatched(present, folders, watched)
                                watched = set(folders)
                                if appeared:
                                    previous = current
                                    break
                            if any(self.filter(change, path, folder=True) and _is_new_folder(change, path)
                                   for change, path in raw):
                                previous = current
                                break  # a folder appeared: watch it too
                            if unlisted and time.monotonic() >= recheck_at:
                                recheck_at = time.monotonic() + ROOT_CHECK_S
                                if any(_listable(folder) for folder in unlisted):
                                    log.info("a folder that could not be read can be now: watching it")
                                    previous = current
                                    break  # its watch is set, and a pass reads it (_folders_unwatched)
                    else:
                        return
                except FileNotFoundError:  # a root, or a folder below it, went away while watches were set up
                    if folders is not None and not self._roots_changed(identities):
                        self._stop.wait(TICK_S)  # listed again at once; what it held is found as it was
                        continue
                    resync = True
                    self._stop.wait(ROOT_CHECK_S)
                except PermissionError as exc:
                    log.info("skipping unreadable folders while watching: %s", exc)
                    ignore_unreadable = True
                except (OSError, RuntimeError) as exc:  # RuntimeError: watchfiles' internal error
                    if _UNDECODABLE_NAME in str(exc):
                        self._lost_batch(exc)
                        continue
                    if previous is not None:
                        # The OS limit counts the old watches too: set the new ones up without them
                        # (a tree over half the limit), and sync every root for what changed between.
                        previous.close()
                        previous = None
                        self._reconcile_soon()
                        continue
                    if not self.polling:
                        self._fall_back_to_polling(exc)
                        continue
                    self._notifications_failed(exc)
                except Exception as exc:  # noqa: BLE001 - reconciliation goes on; status says why
                    log.exception("watching failed")
                    self._notifications_failed(exc)
        finally:
            for watches in (previous, current):
                if watches is not None:
                    watches.close()

    def _last_changes(self, previous: Generator) -> set[tuple[object, str]]:
        """What the replaced watches caught since their last batch, now that the new ones are up
        (they catch what comes from here on). Read until a read finds nothing (a wait of
        ROOT_CHECK_S): one read can end before every event of the walk's time is in, on a busy
        machine. Polling, until they have also had time to poll once more: a file written
        during the walk is in none of their polls yet, and the new watches take it for how
        things were."""
        settled_at = time.monotonic() + (self.poll_interval if self.polling else 0.0)
        give_up_at = settled_at + ROOT_CHECK_S  # a folder that never goes quiet: the new watches have it
        caught: set[tuple[object, str]] = set()
        while not self._stop.is_set():
            try:
                changes: set[tuple[object, str]] | None = next(previous, None)
            except Exception:  # noqa: BLE001 - a watch that failed has nothing more to say
                log.info("the replaced watches failed at their last read; looking at every root again",
                         exc_info=True)
                self._reconcile_soon()
                break
            if changes is None:  # stopped
                break
            caught |= {(change, path) for change, path in changes if self.filter(change, path)}
            now = time.monotonic()
            if (not changes and now >= settled_at) or now >= give_up_at:
                break
        return caught

    def _folders_unwatched(self, present: list[Path], folders: list[str], watched: set[str]) -> bool:
        """Once the watches on `folders` are up: queue each folder a pass has not read since it
        got its watch, so what it got before then is found (from then on its changes raise
        events): those not among the folders `watched` before (none the first time: the first
        pass reads every root), and those made while the watches were set up. True when there
        are such, which need watches of their own."""
        listed = set(folders)
        appeared = [folder for folder in watched_folders(present) if folder not in listed]
        unseen = [folder for folder in folders if folder not in watched] if watched else []
        self.add((_ADDED, folder) for folder in unseen + appeared if self.filter(_ADDED, folder, folder=True))
        return bool(appeared)

    def _roots_changed(self, identities: list[tuple[int, int] | None]) -> bool:
        """Whether a root went away, came back or is another folder now than when its watches
        were set up (`identities`)."""
        changed = [str(root) for root, then in zip(self.roots, identities, strict=True)
                   if _folder_identity(root) != then]
        if not changed and not self.filter.root_deleted:
            return False
        log.info("a root went away, came back or was replaced (%s): watching the roots again and "
                 "syncing them", ", ".join(changed) or "deleted, and made again under its name")
        return True

    def _notifications_failed(self, exc: Exception) -> None:
        self.notify_error = f"watching for changes failed: {type(exc).__name__}: {exc}"
        log.error("%s; retrying in %g s", self.notify_error, self.error_retry)
        self._first_pass_due()
        self._stop.wait(self.error_retry)

    def _fall_back_to_polling(self, exc: Exception) -> None:
        message = str(exc)
        if any(hint in message for hint in _LIMIT_HINTS):
            self.limit_warning = (f"the OS limit on file watches is reached, so watching polls every "
                                  f"{self.poll_interval:g} s instead; {limit_advice()}")
        else:
            self.limit_warning = (f"file notifications are unavailable ({message}); "
                                  f"watching by polling every {self.poll_interval:g} s instead")
        log.warning(self.limit_warning)
        self.polling = True
        self._reconcile_soon()  # polling reports no change made before it started: look again now

    def _existing_above(self) -> list[str]:
        return [folder for folder in self._above if os.path.isdir(folder)]

    def _lost_batch(self, exc: Exception) -> None:
        """A file whose name is not UTF-8 changed (the scan skips it): watchfiles gave up the batch of
        changes holding it. The watches are set up again at once, and every root looked at again
        for what that batch held, at most every UNDECODABLE_PASS_S: polling would fail on the name too."""
        log.info("a change the watcher could not read (%s); looking at every root again", exc)
        now = time.monotonic()
        with self._cond:
            due = max(now, self._lost_at + UNDECODABLE_PASS_S)
            if self._reconcile_at > due:  # else a look at every root comes by then anyway, after this loss
                self._reconcile_at = self._lost_at = due
                self._cond.notify_all()

    def _first_pass_due(self) -> None:
        """The first pass over every root runs now, if it waits still for watches that are not coming."""
        with self._cond:
            if self._reconcile_at == float("inf"):
                self._reconcile_at = 0.0
                self._cond.notify_all()

    def _reconcile_soon(self) -> None:
        with self._cond:
            self._reconcile_at = 0.0
            self._cond.notify_all()

    def add(self, changes: Iterable[tuple[object, str]]) -> None:
        """Queue changed paths (watchfiles' (Change, path) pairs)."""
        now = time.monotonic()
        stats = [(change, path, stat_now(path)) for change, path in changes]
        with self._cond:
            for change, path, stat in stats:
                added = getattr(change, "name", change) == _ADDED
                entry = self._pending.get(path)
                if entry is None:
                    self._pending[path] = _Pending(now, now, stat, added)
                else:
                    entry.last_event, entry.stat, entry.added = now, stat, entry.added or added
            self._last_event = now
            self._cond.notify_all()

    # --- batches out ----------------------------------------------------------------------

    def _next_work(self) -> tuple[str, dict[str, _Pending] | None] | None:
        """The next pass, as (kind, changed paths; None for every root), or None after a short wait."""
        with self._cond:
            now = time.monotonic()
            wait = TICK_S
            if now < self._retry_at:
                wait = min(wait, self._retry_at - now)
            elif now >= self._reconcile_at:
                return self._reconcile_kind, None
            else:
                batch = self._take_settled(now)
                if batch:
                    return "changes", batch
                if self._pending:
                    wait = min(wait, max(0.01, self._last_event + self.debounce - now))
            self._cond.wait(timeout=wait)
        return None

    def _take_settled(self, now: float) -> dict[str, _Pending]:
        """Pending paths that are quiet and kept their stat (scan.FileStat), when a batch is due."""
        if not self._pending:
            return {}
        overdue = now - min(e.first_seen for e in self._pending.values()) >= self.max_delay
        if now - self._last_event < self.debounce and not overdue:
            return {}
        quiet = [p for p, e in self._pending.items() if now - e.last_event >= self.debounce]
        settled = []
        for path in quiet:
            entry, stat = self._pending[path], stat_now(path)
            if stat != entry.stat:  # still being written, without an event (yet): wait another window
                entry.stat, entry.last_event = stat, now
                self._last_event = now
            else:
                settled.append(path)
        if len(settled) < len(quiet) and not overdue:
            return {}
        return {path: self._pending.pop(path) for path in settled}

    def _scopes(self, batch: dict[str, _Pending]) -> list[str]:
        """What one sync pass must look at for these changed paths."""
        scopes, gone, documents = [], [], []
        for path, entry in batch.items():
            if os.path.basename(path) in IGNORE_FILES:
                # its rules changed: what they cover is looked at again (above the roots: the roots below)
                scopes.extend(self._above.get(os.path.dirname(path), [os.path.dirname(path)]))
            elif os.path.isdir(path):
                if entry.added and skipped_folder(path) is None:
                    scopes.append(path)  # appeared: its files raised no events of their own
            elif os.path.exists(path):
                if has_document_suffix(os.path.basename(path)):
                    self._other_names.learn(path)
                    documents.append(path)
            elif has_document_suffix(os.path.basename(path)):
                documents.append(path)  # a document gone, and (below) the links to it
            else:
                gone.append(path)
        # Each changed document and its other names, each file's names taken once for the batch.
        scopes += documents
        scopes.extend(self._other_names.of_all(documents) if documents else ())
        # Folders (or other files) gone: only those that held indexed documents. Asked once for
        # the batch: 20,000 deleted build files must not each scan the list of indexed sources.
        scopes.extend(self._indexed_under(gone) if gone else ())
        return _collapse(scopes)

    def _requeue(self, batch: dict[str, _Pending]) -> None:
        with self._cond:
            for path, entry in batch.items():
                self._pending.setdefault(path, entry)

    def _do_pass(self, kind: str, batch: dict[str, _Pending] | None) -> None:
        scopes = None if batch is None else self._scopes(batch)
        if scopes == []:
            return
        progress = Progress(stop=self._stop)
        started = time.monotonic()
        self.running = kind
        try:
            with interruptible.bounded(self._runs):
                self._run_pass(None if scopes is None else [Path(s) for s in scopes], progress)
        except SyncLocked as exc:
            self._retry_later(batch, self.lock_retry)
            if self.waiting_for_lock is None:
                log.warning("%s; the watcher retries every %g s and loses nothing", exc, self.lock_retry)
            self.waiting_for_lock = str(exc)
            return
        except Exception as exc:  # noqa: BLE001 - a watcher outlives a failed pass and says why
            if self._stop.is_set() and isinstance(exc, (ModelRunStopped, ConversionStopped)):
                return  # the watcher stopping stopped the run in hand: its group of files was left unwritten
            if not isinstance(exc, MiniragError):
                log.exception("watch pass failed")
            self.last_error = f"{type(exc).__name__}: {exc}"
            log.error("watch pass failed: %s; retrying in %g s", self.last_error, self.error_retry)
            self._retry_later(batch, self.error_retry)
            return
        finally:
            progress.end()
            self.running = None
        if self._stop.is_set():  # a pass the stop cut short is none to report: the caller says what stopping left
            return
        self.waiting_for_lock = self.last_error = None
        report = PassReport(kind, len(scopes or ()), progress, time.monotonic() - started, time.time())
        with self._cond:
            self.passes += 1
            self.last_pass = report
            if scopes is None:
                self._reconcile_kind = "reconcile"
                self._reconcile_at = time.monotonic() + self.reconcile_every
        if scopes is None:
            try:
                self._other_names.learn_all(self._indexed_files())
            except Exception:  # noqa: BLE001 - the next pass over every root learns them again
                log.info("the other names of linked files were not learnt", exc_info=True)
        if self._on_pass is not None:
            self._on_pass(report)

    def _retry_later(self, batch: dict[str, _Pending] | None, delay: float) -> None:
        if batch:
            self._requeue(batch)
        with self._cond:
            self._retry_at = time.monotonic() + delay

    # --- what status shows ------------------------------------------------------------------

    def state(self) -> WatchState:
        with self._cond:
            now = time.monotonic()
            queued = sorted(self._pending)
            return WatchState(
                watching=not self._stop.is_set(),
                mode="polling" if self.polling else "notifications",
                roots=tuple(str(r) for r in self.roots),
                debounce_seconds=self.debounce,
                reconcile_every_seconds=self.reconcile_every,
                next_reconcile_in_seconds=(round(max(0.0, self._reconcile_at - now), 1)
                                           if self._reconcile_at != float("inf") else 0.0),
                passes=self.passes,
                running=self.running,
                queued=len(queued),
                queued_paths=tuple(queued[:10]),
                last_pass=self.last_pass,
                poll_interval_seconds=self.poll_interval if self.polling else None,
                waiting_for_lock=self.waiting_for_lock or None,
                last_error=self.last_error or None,
                notification_error=self.notify_error or None,
                warning=self.limit_warning or None,
            )
