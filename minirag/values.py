"""What App's operations return: frozen values, shaped for --json and the tools by results.py alone.

Values of one layer live beside what produces them (store/index.py's rows, ingest/listing.py's
entries, doctor.py's report, ingest/watch.py's state); these are the ones App puts together.
A field that is None is left out of the output unless results.py says otherwise.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from minirag.chunking.rows import SheetRows
    from minirag.gitstate import GitState
    from minirag.ingest.jobs import SyncJob
    from minirag.ingest.listing import ListEntry
    from minirag.ingest.watch import WatchState
    from minirag.search import Hit
    from minirag.store.index import ChunkRow, IndexStats


@dataclass(frozen=True, slots=True)
class FilesElsewhere:
    """The index's files when none lies in the roots it is opened with: an index made under other
    folders (copied from another machine, or moved with its documents), whose stored paths are those
    of where it was made, so no query finds them here."""

    count: int
    folder: str  # the folder every one of them lies under


@dataclass(frozen=True, slots=True)
class QueryResult:
    """A query's hits in rank order and the text of the sections they point to. results.query_result
    fits it to a response budget; the whole ranking is what scripts/eval.py scores."""

    hits: tuple[Hit, ...]
    parents: Mapping[int, str]  # section text by parent id, for every hit's parent
    collections: tuple[str | None, ...]  # each hit's collection; None for data and url sources
    roots: tuple[Path, ...]  # paths are shown relative to these (`displayPath`)
    # (model, writing system) where the model reads no query in that system, so only its words were
    # searched (search/plan.py): said when they found nothing.
    unread: tuple[str, str] | None = None
    elsewhere: FilesElsewhere | None = None  # said when nothing was found


@dataclass(frozen=True, slots=True)
class IngestResult:
    source: str
    title: str  # "" when the document has none
    chunk_count: int
    warnings: tuple[str, ...] = ()
    chunks_embedded: int = 0  # of chunk_count, those the encoder ran on; the rest took vectors the index held
    chunks_reused: int = 0


@dataclass(frozen=True, slots=True)
class DeleteResult:
    source: str
    deleted_chunks: int


@dataclass(frozen=True, slots=True)
class ReadResult:
    """A page of a document rebuilt from its sections: `text` from `offset`; `next_offset` None at the end."""

    source: str
    kind: str
    title: str
    chunk_count: int
    offset: int
    total_chars: int
    next_offset: int | None
    text: str
    pages: str | None = None  # the pages the document spans, when it has any
    fragment: str | None = None  # the `#anchor` of a link's target read (`page.html#anchor`), without its `#`
    fragment_offset: int | None = None  # where the heading it names starts; None if none has that anchor
    sheets: tuple[SheetRows, ...] = ()  # a spreadsheet's sheets and rows the text returned holds, in order


@dataclass(frozen=True, slots=True)
class ChunkWindow:
    """The chunks around one chunk, and the text of the sections they point to (by parent id)."""

    chunks: tuple[ChunkRow, ...]
    parents: Mapping[int, str]


@dataclass(frozen=True, slots=True)
class FileListing:
    files: tuple[ListEntry, ...]
    other_types: tuple[tuple[str, int], ...]  # (suffix, files) left out for their type, most first


@dataclass(frozen=True, slots=True)
class ListedPage:
    """One page of a kept listing (App.list_files_paged): the listing, the entry the page starts at, the
    listing's id (a cursor's first part), and whether it was walked again because the index changed."""

    listing: FileListing
    offset: int
    name: str
    changed: bool


@dataclass(frozen=True, slots=True)
class CollectionInfo:
    name: str
    description: str
    path: str
    file_count: int
    chunk_count: int
    last_sync: str | None  # ISO time of the last complete sync of its root; None: never


@dataclass(frozen=True, slots=True)
class Collections:
    collections: tuple[CollectionInfo, ...]


@dataclass(frozen=True, slots=True)
class SyncStatus:
    """A sync job's progress, and the watcher's state when the App watches; at least one is set."""

    job: SyncJob | None
    watch: WatchState | None


@dataclass(frozen=True, slots=True)
class Status:
    """`status`: the configuration, then what the index holds. The optional parts are set when
    they apply: `index_error` when the index cannot be read (or was found damaged), `stats`,
    `git_state` and the scheme warning when it can; `sync_running` while a sync writes the index
    (another process's, or a job of this server), whose counts are then still growing."""

    version: str
    roots: tuple[str, ...]
    db_path: str
    model: str
    hybrid_weight: float
    hybrid_weight_for_questions: float | None  # set when the weight follows the query's form
    hybrid_weight_for_sentences: float | None  # likewise
    hybrid_weight_for_names: float | None  # likewise
    chunk_token_budget: int | str  # tokens, or words saying why it is not known
    chunk_scheme: int
    read_only: bool
    grouping: str | None = None  # the search settings that cut results, each shown only when set
    max_distance: float | None = None
    max_files: int | None = None
    watch: WatchState | None = None
    index_error: str | None = None
    stats: IndexStats | None = None
    collections: tuple[CollectionInfo, ...] | None = None
    git_state: tuple[GitState, ...] | None = None  # each root's commit at the last full sync
    scheme_warning: str | None = None
    files_elsewhere: FilesElsewhere | None = None
    sync_running: str | None = None  # who, in words: "a sync (pid 812, running for 0m12s)"


@dataclass(frozen=True, slots=True)
class ConfigFailure:
    """`status` when the configuration could not be loaded: the one thing it can say."""

    version: str
    error: str
