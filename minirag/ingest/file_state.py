"""A file's state against the index: the one answer a sync, the pipeline and `list` each ask.

What each caller knows of the file differs, so each says how a record is compared with
it (`holds`): a sync's fast path by the file's stat (scan.FileStat), the pipeline by the hash of
the bytes it read, `list` by the stat, else the hash. The decision itself is `file_state`.
"""

from __future__ import annotations

import enum
import hashlib
from collections.abc import Callable

from minirag.chunking import SCHEME_VERSION
from minirag.ingest.ocr import would_read_now
from minirag.ingest.scan import FoundFile
from minirag.store.index import ExcludedState, StoredState

# What a file's bytes are remembered as from the moment their conversion starts until it ends. If
# minirag itself dies meanwhile, the next sync tries them once more, marked CONVERTING_AGAIN; die
# again and they count as still failing.
CONVERTING = "conversion never finished (minirag stopped or crashed while converting it)"
CONVERTING_AGAIN = ("conversion never finished, twice (minirag stopped or crashed while converting it); "
                    "not tried again until it changes")


def file_hash(data: bytes) -> str:
    """A file's bytes as the index records them (its content_hash)."""
    return hashlib.blake2b(data, digest_size=20).hexdigest()


class FileState(enum.Enum):
    """The value is the state `list` shows (INTERRUPTED is shown as `failed`)."""

    NEW = "not_indexed"  # neither indexed nor left out
    UNCHANGED = "indexed"  # indexed, and cut as a sync cuts it now
    CHANGED = "stale"  # its bytes differ from what was indexed or left out
    RECUT = "stale_scheme"  # same bytes, cut (or left out) by an older chunking scheme or at another budget
    EXCLUDED = "excluded"  # left out on purpose (`rag: false`), same bytes since
    FAILING = "failed"  # these bytes could not be converted; tried again once they change
    INTERRUPTED = "interrupted"  # these bytes' first conversion never finished: tried once more


Record = StoredState | ExcludedState


def unfinished_once(source: str, state: ExcludedState) -> bool:
    """Whether `state` is a first conversion that never finished. Those bytes are tried once more:
    minirag may have been killed for a reason of its own (kill -9, a power cut) while that file was
    merely converting; a second such death is the file's, and it then counts as still failing."""
    return state.failure and state.reason == f"{source}: {CONVERTING}"


def cut_as_now(stored: StoredState, budget: int | None) -> bool:
    """Whether a stored source was cut the way a sync cuts now: the same chunking scheme and token
    budget (a changed CHUNK_TOKEN_BUDGET, or a model whose own budget differs, re-cuts it; unchanged
    chunk texts keep their vectors), and no pages the installed OCR would read now. A source with no
    recorded budget (cut before migration 4) is always re-cut; `budget` None (unknown: the model
    cannot be read) accepts any recorded one."""
    return (stored.scheme == SCHEME_VERSION and stored.chunk_budget is not None
            and budget in (None, stored.chunk_budget) and not would_read_now(stored.note))


def refused_unread(record: Record) -> bool:
    """Whether `record` is a failure of a file never read: over MAX_FILE_SIZE then, so no hash."""
    return isinstance(record, ExcludedState) and record.failure and not record.content_hash


def by_stat(found: FoundFile, max_size: int) -> Callable[[Record], bool]:
    """A record holds the file when its stat (size, mtime, ctime, inode) is the file's (a time stored as
    unknown never does). A refusal for size holds only while the file is still over `max_size`: once
    the limit is raised, the file is read."""
    return lambda record: (record.stat == found.stat and (found.size > max_size or not refused_unread(record)))


def by_hash(content_hash: str) -> Callable[[Record], bool]:
    """A record holds the file when it was made from these bytes."""
    return lambda record: record.content_hash == content_hash


def file_state(source: str, stored: StoredState | None, excluded: ExcludedState | None, *,
               holds: Callable[[Record], bool], budget: int | None) -> FileState:
    """The state of the file at `source`, from what the index records of it (`stored`: indexed;
    `excluded`: left out, or failed) and whether each record `holds` the file's bytes now.
    `budget`: the token budget a sync cuts at now (None: unknown, any recorded one is accepted)."""
    indexed_bytes = stored is not None and holds(stored)
    if stored is not None and indexed_bytes and cut_as_now(stored, budget):
        return FileState.UNCHANGED
    if excluded is not None and holds(excluded):
        if excluded.scheme == SCHEME_VERSION:
            if not excluded.failure:
                return FileState.EXCLUDED
            return FileState.INTERRUPTED if unfinished_once(source, excluded) else FileState.FAILING
        if not excluded.failure:
            return FileState.RECUT  # left out by an older scheme: converted again (a failure is simply retried)
    if stored is None:
        return FileState.CHANGED if excluded is not None and not excluded.failure else FileState.NEW
    return FileState.RECUT if indexed_bytes else FileState.CHANGED
