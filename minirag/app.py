"""App: every operation the CLI and the MCP server offer, over one Config. The one way in.

The faces validate their arguments and shape the output; everything else (the
read-only refusal, the sync lock, sync jobs, git state, the model check,
backups) happens here or below. The index opens on first use and the model
loads on first use, so start-up and `status` stay fast.
"""

from __future__ import annotations

import bisect
import functools
import logging
import os
import re
import threading
import unicodedata
from collections import Counter
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

import minirag
from minirag import interruptible
from minirag.addressing import Addressing, check_path_argument
from minirag.binding import (
    ModelBinding,
    bind,
    checked_budget,
    planned_budget,
    recorded_model,
    remember_model_path,
)
from minirag.collection import (
    collection_of,
    collection_scope,
    list_collections,
    nested_in,
    record_sync,
    synced_roots,
)
from minirag.config import (
    DEFAULT_HYBRID_WEIGHT,
    DEFAULT_TOP_K,
    MAX_NEIGHBORS,
    NAME_HYBRID_WEIGHT,
    QUESTION_HYBRID_WEIGHT,
    SENTENCE_HYBRID_WEIGHT,
    Config,
)
from minirag.display import is_utf8, shown
from minirag.errors import (
    ConfigError,
    DamagedIndex,
    FileAccessError,
    IndexUnavailable,
    InvalidArgument,
    MiniragError,
    ModelUnavailable,
    NotFound,
    SyncLocked,
)
from minirag.index_presence import IndexPresence
from minirag.ingest.ignore import IgnoreRules
from minirag.ingest.jobs import SyncJob, SyncJobs
from minirag.ingest.progress import Progress
from minirag.model_on_demand import ModelOnDemand
from minirag.results import read_page
from minirag.search import Scope, Scopes
from minirag.spellings import other_spelling
from minirag.store import connection
from minirag.store.home import in_own_place, refuse_links, settle_home
from minirag.store.index import META_GIT_STATE, Index, IndexStats, stale_keywords_warning
from minirag.values import (
    ChunkWindow,
    Collections,
    DeleteResult,
    FileListing,
    FilesElsewhere,
    IngestResult,
    ListedPage,
    QueryResult,
    ReadResult,
    Status,
    SyncStatus,
)

if TYPE_CHECKING:
    from minirag.doctor import DoctorReport
    from minirag.ingest.listing import ListingPages
    from minirag.ingest.pipeline import Document, Pipeline
    from minirag.ingest.scan import FoundFile, Ignored
    from minirag.ingest.watch import Watcher, WatchState
    from minirag.search.vector import MatrixCache
    from minirag.store.backup import BackupResult
    from minirag.store.lock import SyncLock

log = logging.getLogger(__name__)

# Far more than a model reads (512 tokens); the bound keeps a hostile query's normalization short.
MAX_QUERY_CHARS = 10_000
_READS_OF_A_CHANGING_FILE = 3  # an ingest_file whose file changed while it was read reads it again, this often


def explained(method):
    """SQLite and file-system errors inside an operation become one line that says what to do.

    Both faces call App only, so this is the one place such errors are put into words.
    """
    @functools.wraps(method)
    def wrapper(self, *args, **kwargs):
        try:
            return self.read_whole(method, *args, **kwargs)
        except connection.DatabaseError as exc:
            error = connection.index_error(exc, self.config.db_path)
            if isinstance(error, DamagedIndex):
                self.damage = str(error)
            raise error from exc
        except OSError as exc:
            where = f" {exc.filename}" if exc.filename else ""
            raise FileAccessError(f"cannot use{where}: {exc.strerror or exc}") from exc

    return wrapper


def visible(text: str) -> bool:
    """Whether `text` holds anything but white space, control and format characters
    (NUL, zero-width spaces, direction marks): what a search could match on."""
    return any(not ch.isspace() and unicodedata.category(ch) not in ("Cc", "Cf") for ch in text)


def check_title_argument(title: str | None) -> None:
    """A title given with ingested data: one a listing and every hit can show."""
    from minirag.chunking.titles import MAX_TITLE_CHARS

    if title is not None and len(title) > MAX_TITLE_CHARS:
        raise InvalidArgument(f"title is {len(title)} characters; titles take at most {MAX_TITLE_CHARS}")
    if title is not None and any(unicodedata.category(ch) == "Cc" for ch in title):
        raise InvalidArgument(f"title {shown(repr(title), 120)} holds control characters (a NUL, a line break, "
                              "an escape); a title is one line of text")
    if title is not None and not is_utf8(title):  # a library caller's; MCP and the CLI never pass one
        raise InvalidArgument(f"title {shown(repr(title), 120)} is not valid UTF-8 (it holds a lone surrogate)")




def refuse_repointed_roots(config: Config) -> None:
    """ConfigError, before a sync, where a root named through a link now leads to another folder:
    this process resolved the link once, at start, and a sync of the old folder would keep the
    index on what the user moved the root away from."""
    from minirag.security import root_repointed

    for collection in config.collections:
        if collection.named is not None and (why := root_repointed(collection.named, collection.root)):
            raise ConfigError(f"{why}; this minirag process keeps the folder it found at start, so nothing was "
                              f"synced: restart it to index where {collection.named} leads now (its sync then drops "
                              f"{collection.root}'s files from the index)")


class App:
    """`serving` (the MCP server) keeps a large index's vector codes in memory across queries;
    a one-shot CLI command reads them from the file instead of loading a copy it would drop.
    `one_shot` (a CLI query): the encoder's session is made for one embedding (minirag/encoder.py)."""

    def __init__(self, config: Config, *, encoder=None, serving: bool = False, one_shot: bool = False):
        self.config = config
        self._encoder = encoder
        self._one_shot = one_shot
        self._index: Index | None = None
        self._pipeline: Pipeline | None = None
        self._lock = threading.Lock()
        # A serving App's in-memory codes and term counts, made at its first query (serving_matrices): the
        # search steps (numpy, the stemmers) load only where something searches, not in every session.
        self._serving = serving
        self.matrices: MatrixCache | None = None
        self._query_pool: ThreadPoolExecutor | None = None
        self.jobs = SyncJobs(config.db_path)
        self.damage: str | None = None  # the last "index is damaged" error any operation met; status shows it
        self._watcher: Watcher | None = None  # a background Watcher (the server's --watch), with its thread
        self._watch_thread: threading.Thread | None = None
        self._early_load: threading.Thread | None = None  # load_model_early's thread
        self.addressing = Addressing(config, self._indexed)
        self.presence = IndexPresence(config, self.jobs)  # whether there is an index to read, and why not
        self._local_reads = threading.local()  # read_whole's: an operation inside another is not run twice
        self._listings: ListingPages[FileListing] | None = None  # the listings list_files pages (list_files_paged)

    def read_whole(self, method, *args, **kwargs):
        """`method` run, and run once more where it read an `immutable` index that a writer elsewhere
        changed meanwhile: SQLite read that file as if it never changed, so a checkpoint landing
        mid-read may have mixed pages of two versions (an error, or an answer from both). The second
        run reopens the index (`_open_index`) and reads it through the writer's -wal and -shm.
        Only a read-only App opens immutable, and its operations only read, so a second run is safe."""
        if not self.config.read_only or getattr(self._local_reads, "depth", 0):
            return method(self, *args, **kwargs)
        self._local_reads.depth = 1
        try:
            try:
                result = method(self, *args, **kwargs)
            except connection.DatabaseError:
                if not self._overtaken():
                    raise
            else:
                if not self._overtaken():
                    return result
            log.info("a writer changed the index %s while it was read; reading it again", self.config.db_path)
            return method(self, *args, **kwargs)
        finally:
            self._local_reads.depth = 0

    def _overtaken(self) -> bool:
        index = self._index
        return index is not None and index.watch_contents and index.file_state() != "same"

    # --- lazily opened parts -------------------------------------------------

    @property
    def index(self) -> Index:
        return self._open_index(rebuild=False)

    def _open_index(self, *, rebuild: bool) -> Index:
        """The open index, checked against the file DB_PATH names now (device + inode).

        A replaced file is reopened (and the in-memory vectors of the old one
        dropped). A deleted one is refused, so nothing is written into a file no
        one will see again; only a sync (`rebuild`) starts a new file there.
        The old file's connections are closed first: their checkpoint folds the
        old WAL into the old file, so the -wal beside the name is empty before
        anything opens the new file (a stale WAL would be read into it).
        """
        with self._lock:
            if self._index is not None:
                state = self._index.file_state()
                if state == "gone" and not rebuild:
                    self._index.ensure_same_file()  # raises, saying what happened and what to do
                if state != "same":
                    # A writer elsewhere writing the index an immutable reader reads is no news (read_only_uri).
                    log.log(logging.INFO if state == "written" else logging.WARNING,
                            "the index file %s was %s; opening what is there now", self.config.db_path,
                            {"gone": "deleted", "written": "written elsewhere"}.get(state, "replaced"))
                    self._index.close()
                    self._index, self._pipeline = None, None
                    self.damage = None  # what was damaged was the old file
                    if self.matrices is not None:
                        self.matrices.clear()
            if self._index is None:
                refuse_links(self.config)
                index = Index(self.config.db_path, read_only=self.config.read_only,
                              checkpoints=self.config.litestream_config is None)
                try:
                    settle_home(index, self.config)
                except BaseException:
                    index.close()
                    raise
                self._index = index
            return self._index

    @property
    def encoder(self):
        if self._encoder is None and self._early_load is not None:
            interruptible.join(self._early_load)  # one copy of the model: the one loading already
        if self._encoder is None:
            from minirag.models import resolve

            self._load_encoder(resolve)
        return self._encoder

    def _load_encoder(self, find_files) -> None:
        """Load the model whose files `find_files` (models.resolve, or models.locate: no download) gives."""
        from minirag.encoder import Encoder

        binding = self.binding()
        binding.refuse_mismatch(self.config)  # before any download
        binding.refuse_unlisted(self.config)
        encoder = Encoder(find_files(binding.name, binding.path, self.config.cache_dir),
                          cache_dir=self.config.cache_dir, one_shot=self._one_shot)
        with self._lock:
            if self._encoder is None:
                self._encoder = encoder

    def load_model_early(self) -> None:
        """Start loading the model on a thread of its own (a server's start), so the first query
        does not wait for it. A model that must be downloaded first, or that fails to load, is
        left to its first use, which downloads it or reports the failure."""
        from minirag.models import locate

        def load() -> None:
            try:
                self._load_encoder(locate)
            except Exception as exc:  # noqa: BLE001 - the first use meets it again and says it
                log.debug("the model was not loaded early: %s", exc)

        with self._lock:
            if self._encoder is None and self._early_load is None:
                self._early_load = threading.Thread(target=load, name="minirag-model", daemon=True)
                self._early_load.start()

    def binding(self) -> ModelBinding:
        """The model (and so the budget) this index is used with: minirag.binding's one answer, from the
        configuration and what the index records. Never creates the index."""
        return bind(self.config, recorded_model(self.index, self.config.roots) if self._holds_index() else None)

    @property
    def pipeline(self) -> Pipeline:
        return self._writing_pipeline(rebuild=False)

    def _writing_pipeline(self, *, rebuild: bool, finds_nothing: Callable[[], bool] | None = None) -> Pipeline:
        """The pipeline a write goes through. Its index is opened (made, when new) only once the model
        is known to serve it and the chunk budget fits the model: a model that cannot load, or a
        CHUNK_TOKEN_BUDGET past what it reads, must not leave an empty index behind, which reads would
        take for no matches. `finds_nothing`: _model_for_writing's."""
        from minirag.ingest.pipeline import Pipeline  # the converters: not loaded for a query

        model = self._model_for_writing(finds_nothing)
        checked_budget(self.config, model.spec)
        index = self._open_index(rebuild=rebuild)
        with self._lock:
            if self._pipeline is None or self._pipeline.index is not index:
                self._pipeline = Pipeline(index, model, self.config)
                remember_model_path(index, self.config)
            return self._pipeline

    def _model_for_writing(self, finds_nothing: Callable[[], bool] | None = None) -> ModelOnDemand:
        """The model loaded already; else, for an index that records the model named (or names none),
        that model as its files state it, loaded at the first file a write converts (a sync that finds
        nothing changed loads none); else (a new index, which records the model's width) loaded now,
        unless `finds_nothing()` (a sync's walk finds no file at all) and its settings are on disk: the
        first file to convert loads it then. Another model than the index's is refused here, before
        anything loads, as a load refuses it."""
        if self._encoder is None:
            binding = self.binding()
            if binding.recorded is not None or (finds_nothing is not None and finds_nothing()):
                binding.refuse_mismatch(self.config)
                binding.refuse_unlisted(self.config)
                try:
                    return ModelOnDemand(binding.spec_on_disk(self.config.cache_dir), lambda: self.encoder)
                except ModelUnavailable:
                    if binding.recorded is not None:
                        raise  # a new index's model whose files are not here yet: loaded (fetched) below
        return ModelOnDemand.of(self.encoder)

    def _finds_nothing(self, target: Path | None) -> Callable[[], bool]:
        """Whether a sync of `target` (None: every root) finds no file at all: its walk's first step,
        taken at the first asking only (a root of files of no type minirag reads is walked whole)."""
        from minirag.ingest.scan import walk, walk_roots

        @functools.cache
        def nothing() -> bool:
            rules = IgnoreRules.from_config(self.config)
            found = walk(target, self.config.roots, rules=rules) if target is not None else \
                walk_roots(self.config.roots, rules=rules)
            return next(iter(found), None) is None

        return nothing

    @property
    def query_pool(self) -> ThreadPoolExecutor:
        """The thread a query's vector side runs on beside its keyword side (search.plan)."""
        with self._lock:
            if self._query_pool is None:
                self._query_pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="minirag-query")
            return self._query_pool

    def serving_matrices(self) -> MatrixCache | None:
        """A serving App's MatrixCache (made at the first call); None in a process that answers one command."""
        with self._lock:
            if self._serving and self.matrices is None:
                from minirag.search.vector import MatrixCache

                self.matrices = MatrixCache(lambda: connection.connect(self.config.db_path, read_only=True))
            return self.matrices

    def close(self) -> None:
        """Stop the watcher and sync jobs between files or encoder batches, wait for them, then close the index."""
        self.stop_watching()
        self.jobs.stop_all()
        if self._early_load is not None:  # not torn down mid-load by the interpreter's exit
            interruptible.join(self._early_load)
        with self._lock:
            if self._index is not None:
                self._index.close()
            self._index, self._pipeline = None, None
            if self._query_pool is not None:
                # Waited for where a signal's handler still runs, and not at all for a run a second
                # Ctrl-C left (interruptible.aside): the process ends without it (cli.main).
                idle = self._query_pool.submit(lambda: None)  # its one thread reaches this once free
                self._query_pool.shutdown(wait=False)
                self._query_pool = None
                if not interruptible.left_running():
                    interruptible.done(idle)

    # --- guards ------------------------------------------------------------------

    def refuse_if_read_only(self, operation: str) -> None:
        """The one read-only refusal: before any lock, fetch, model load or file is touched."""
        if self.config.read_only:
            raise IndexUnavailable(f"{operation} is refused: the index is open read-only "
                                   "(--read-only / MINIRAG_READ_ONLY); run it without read-only mode")

    def require_index(self) -> None:
        """Reads never create the index: a DB_PATH with no index is an error saying why (index_presence)."""
        if self._index is None and (error := self.presence.missing()) is not None:
            raise error

    def _holds_index(self) -> bool:
        """Whether there is an index to read, without creating one."""
        return self._index is not None or self.presence.holds_data()

    # --- addressing (minirag/addressing.py) -------------------------------------

    def _indexed(self) -> Index:
        self.require_index()
        return self.index

    def file_source(self, path: str | Path, *, must_be_absolute: bool = False,
                    argument: str = "filePath") -> tuple[str, Path]:
        return self.addressing.file_source(path, must_be_absolute=must_be_absolute, argument=argument)

    def search_scope(self, scope: str | None) -> str | None:
        return self.addressing.search_scope(scope)

    def search_scopes(self, scope: str | Sequence[str] | None) -> tuple[str, ...]:
        return self.addressing.search_scopes(scope)

    def data_source_id(self, source: str) -> str:
        return self.addressing.data_source_id(source)

    def source_key(self, *, file_path: str | None, source: str | None, must_be_absolute: bool = False) -> str:
        return self.addressing.source_key(file_path=file_path, source=source, must_be_absolute=must_be_absolute)

    def delete_key(self, *, file_path: str | None, source: str | None, must_be_absolute: bool = False) -> str:
        return self.addressing.delete_key(file_path=file_path, source=source, must_be_absolute=must_be_absolute)

    def in_roots(self, source: str) -> bool:
        return self.addressing.in_roots(source)


    # --- writes ------------------------------------------------------------------

    @explained
    def ingest_paths(self, paths: list[str], progress: Progress | None = None,
                     on_change: Callable[[Progress], None] | None = None, *, force: bool = False) -> Progress:
        self.refuse_if_read_only("ingest")
        progress = progress or Progress()
        if not any(os.path.isdir(raw) for raw in paths):  # files named one by one: never blocked by a sync
            return self._ingest_paths(paths, progress, on_change, force=force)
        from minirag.store.lock import SyncLock

        # A folder is a sync's bulk: one at a time with syncs, refused at once as a second sync is.
        with SyncLock(self.config.db_path) as lock:
            self._load_model_holding(lock, lazily=True)
            try:
                return self._ingest_paths(paths, progress, lock.guarded(on_change), force=force, guard=lock.ensure_held)
            except BaseException:
                # A path refused (outside the roots, mistyped) before any file was written: the lock file
                # and the `.minirag` folder this lock made go too. A folder an index was written into stays.
                lock.abandon()
                raise

    def _ingest_paths(self, paths: list[str], progress: Progress, on_change: Callable[[Progress], None] | None,
                      *, force: bool, guard: Callable[[], None] = lambda: None) -> Progress:
        from minirag.ingest.scan import unseen_warnings, walk

        files: list[FoundFile] = []
        unseen: list[str] = []
        ignored: list[Ignored] = []
        rules = IgnoreRules.from_config(self.config)
        progress.stage = "looking for files"
        for raw in paths:
            if not os.path.lexists(os.path.abspath(raw)):  # said first: a typo is not "outside the roots"
                check_path_argument(raw)
                url = " (to fetch a URL: minirag ingest-url URL)" if re.match(r"(?i)https?://", raw) else ""
                hint = other_spelling(os.path.abspath(raw), self.config.roots)
                raise NotFound(f"no such file or directory: {shown(os.path.abspath(raw))}{url}" + (f"; {hint}" if hint else ""))
            absolute, _real = self.file_source(raw)
            if not os.path.exists(absolute):
                raise NotFound(f"no such file or directory: {shown(absolute)}")
            named, found = len(ignored), len(files)
            files.extend(walk(Path(absolute), self.config.roots, unseen, progress.other_types, rules, ignored))
            if len(files) == found and len(ignored) == named and (unread := _unreadable_target(Path(absolute))):
                progress.warnings.append(f"{absolute}: {unread}")
                progress.unread += 1
            progress.warnings.extend(f"{entry.path}: left out by {entry.reason}" for entry in ignored[named:named + 1]
                                     if entry.path == absolute)
        files = list({found.source: found for found in files}.values())  # a path named twice, or inside another
        warnings = unseen_warnings(unseen, self.config.roots)
        progress.found(len(files))
        progress.unread += len(warnings)
        progress.warnings.extend(warnings)
        # Files named here are tried even if the same bytes failed before: the user asks why.
        self.pipeline.run_files(files, progress, force=force, on_change=on_change, retry_failed=True, guard=guard)
        return progress

    @explained
    def ingest_file(self, file_path: str, *, must_be_absolute: bool = False) -> IngestResult:
        from minirag.ingest.scan import not_a_document, walk

        self.refuse_if_read_only("ingest_file")
        source, real = self.file_source(file_path, must_be_absolute=must_be_absolute)
        if not real.is_file():
            if real.is_dir():
                raise NotFound(f"{shown(source)} is a folder: sync_start with path={shown(source)} ingests what it holds")
            raise NotFound(f"not a file: {shown(source)}" + (f"; {hint}" if (hint := other_spelling(source, self.config.roots)) else ""))
        ignored: list[Ignored] = []
        found = list(walk(Path(source), self.config.roots, rules=IgnoreRules.from_config(self.config), ignored=ignored))
        if ignored:  # as `minirag ingest` says it: an agent names no file the user left out
            raise InvalidArgument(f"{shown(source)}: left out by {ignored[0].reason}; nothing indexed")
        if not found:
            raise InvalidArgument(not_a_document(source))
        for attempt in range(1, _READS_OF_A_CHANGING_FILE + 1):  # read again while the file changes under the read
            progress = Progress()
            # A file still growing at the last read (a log being written) is indexed as far as it was read.
            self.pipeline.run_files(found, progress, force=True, prefix=attempt == _READS_OF_A_CHANGING_FILE)
            if not progress.changed:
                break
            found = list(walk(Path(source), self.config.roots, rules=IgnoreRules.from_config(self.config)))
            if not found:
                break
        if progress.failed:
            raise MiniragError("; ".join(progress.warnings))
        if progress.changed:  # the last read was overtaken too: nothing of this ingest was written
            raise MiniragError(f"{shown(source)}: changed while it was read, each of the "
                               f"{_READS_OF_A_CHANGING_FILE} times it was read; nothing written (ingest it again once it is "
                               "no longer being written)")
        try:
            row = self.index.source_row(source)
        except NotFound:
            return IngestResult(source, "", 0, ("excluded by frontmatter rag: false", *progress.warnings))
        return IngestResult(source, row.title, row.chunk_count, tuple(progress.warnings), progress.chunks_embedded,
                            progress.chunks_reused)

    def _ingest_document(self, document: Document | object, name: str) -> IngestResult:
        from minirag.ingest.pipeline import Document

        if not isinstance(document, Document):
            raise InvalidArgument(f"{shown(name)}: excluded by frontmatter rag: false")
        if not document.chunked.chunks:  # (`<p></p>`, a page a script fills): no source is emptied by it
            raise InvalidArgument(f"{shown(name)}: no text found in what was given: nothing indexed, a source of that id "
                                  "kept as it was")
        progress = Progress()
        self.pipeline.write([document], progress)
        return IngestResult(document.record.source, document.record.title, len(document.chunked.chunks),
                            tuple(document.warnings), progress.chunks_embedded, progress.chunks_reused)

    @explained
    def ingest_data(self, content: str, source: str, fmt: str = "text", title: str | None = None) -> IngestResult:
        from minirag.ingest.file_state import file_hash
        from minirag.ingest.isolation import convert_isolated, limits_of

        self.refuse_if_read_only("ingest_data")
        source = self.data_source_id(source)
        check_title_argument(title)
        if not content.strip():  # a source is never emptied by a call that lost its content on the way
            raise InvalidArgument("content is empty or only white space: nothing to index; delete_file with a "
                                  "source id removes a source")
        size = len(content.encode("utf-8", errors="surrogatepass"))
        if size > self.config.max_file_size:
            raise InvalidArgument(f"data is {size} bytes, over MAX_FILE_SIZE ({self.config.max_file_size})")
        converted = convert_isolated("data", (content, fmt, source), source, limits_of(self.config))
        document = self.pipeline.build(
            converted, source=source, kind="data", stem=source, title=title,
            content_hash=file_hash(content.encode("utf-8", errors="surrogatepass")),
        )
        return self._ingest_document(document, source)

    @explained
    def ingest_url(self, url: str, source: str | None = None, title: str | None = None) -> IngestResult:
        """The one network operation: every fetch goes through fetch.fetch_url and its guard."""
        from minirag.ingest.fetch import UrlRefused, fetch_url, named_url
        from minirag.ingest.file_state import file_hash
        from minirag.ingest.isolation import convert_isolated, limits_of

        self.refuse_if_read_only("ingest_url")
        url = url.strip()
        if not url:  # else taken for the id, and refused as an empty one
            raise InvalidArgument("url is empty; give an http or https URL")
        if source is None and url[:5].lower() == "file:":  # said as fetch_url says it, before the id rule would
            raise UrlRefused(f"refused {named_url(url)}: scheme 'file' is not http or https")
        source = self.data_source_id(source if source is not None else url)  # the URL is the id when none is given
        check_title_argument(title)
        page = fetch_url(url, allow_private=self.config.allow_private_urls)
        # Fetched bodies meet the same isolated converters as files: a bomb served by a URL costs that call.
        converted = convert_isolated("fetched", (page.body, page.content_type, page.charset, page.final_url,
                                                  self.config.max_file_size),
                                     page.final_url, limits_of(self.config))
        document = self.pipeline.build(
            converted, source=source, kind="url", stem=source, title=title,
            content_hash=file_hash(page.body),
        )
        return self._ingest_document(document, url)

    @explained
    def delete(self, key: str) -> DeleteResult:
        self.refuse_if_read_only("delete")
        row = self.addressing.source_row(key, served=False)
        self.index.delete_sources([row.source])
        return DeleteResult(row.source, row.chunk_count)

    @explained
    def sync(self, path: str | None = None, progress: Progress | None = None,
             on_change: Callable[[Progress], None] | None = None) -> Progress:
        """One sync pass in this thread, holding the sync lock (SyncLocked at once if another holds it)."""
        from minirag.store.lock import SyncLock

        self.refuse_if_read_only("sync")
        target = Path(self.file_source(path)[0]) if path is not None else None
        refuse_links(self.config)
        with SyncLock(self.config.db_path) as lock:
            finds_nothing = self._finds_nothing(target)
            self._load_model_holding(lock, lazily=True, finds_nothing=finds_nothing)
            return self._sync_locked(lock, target, progress or Progress(), on_change, finds_nothing=finds_nothing)

    def _load_model_holding(self, lock: SyncLock, *, lazily: bool = False,
                            finds_nothing: Callable[[], bool] | None = None) -> None:
        """The model, loaded with the sync lock held: reads in its seconds say a sync is building the
        index (IndexPresence.being_built), not that none was run. One that fails to load takes away the
        lock file and folder this lock made, so a first sync that fails leaves nothing behind.
        `lazily`: loaded only for an index that records no model yet; else checked against the index's
        without loading (_model_for_writing, with `finds_nothing`), for the run to load at its first file
        to convert."""
        try:
            if lazily:
                self._model_for_writing(finds_nothing)
            else:
                self.encoder  # noqa: B018 - loaded here, under the lock, not at a write
        except BaseException:
            lock.abandon()
            raise

    @explained
    def start_sync(self, path: str | None = None) -> SyncJob:
        """A sync pass in a background job; the lock is taken before this returns."""
        self.refuse_if_read_only("sync_start")
        target = Path(self.file_source(path, must_be_absolute=True, argument="path")[0]) if path is not None else None
        refuse_links(self.config)
        return self.jobs.start(lambda lock, progress: self._sync_locked(lock, target, progress, None),
                               what=f"syncing {target}" if target is not None else "syncing every root",
                               looked_in=str(target) if target is not None else ", ".join(map(str, self.config.roots)))

    def sync_job(self, job_id: str) -> SyncJob:
        job = self.jobs.get(job_id)
        if job is None:
            if (other := self.presence.being_built()) is not None and self.jobs.running() is None:
                # Each stdio client starts a server of its own: a second client polling the first's jobId.
                raise NotFound(f"unknown jobId {shown(job_id)!r} to this server (pid {os.getpid()}): {other} of "
                               "another process runs on this index, and a jobId is known only to the server that "
                               "started it; status here shows the index as it fills, and sync_start runs once "
                               "that sync ends")
            raise NotFound(f"unknown jobId {shown(job_id)!r}: sync_start returns one; this server keeps "
                           f"the last {SyncJobs.KEEP} jobs until it restarts")
        return job

    def cancel_sync(self, job_id: str) -> SyncJob:
        """Ask a sync job to stop (the model run in hand included); a job already ended is left as it is."""
        job = self.sync_job(job_id)
        job.cancel("cancelled by sync_cancel")
        return job

    def sync_status(self, job_id: str | None) -> SyncStatus:
        """A sync job's progress, with the watcher's state when this App watches."""
        watch = self.watch_state()
        if job_id is None and watch is None:
            raise InvalidArgument("jobId is required (sync_start returns one); without it sync_status "
                                  "reports the watcher, and this server is not watching (--watch)")
        return SyncStatus(None if job_id is None else self.sync_job(job_id), watch)

    @explained
    def _sync_locked(self, lock: SyncLock, target: Path | None, progress: Progress,
                     on_change: Callable[[Progress], None] | None, paths: list[Path] | None = None,
                     finds_nothing: Callable[[], bool] | None = None) -> Progress:
        """One pass, `lock` held by the caller: the roots, `target`, or each of `paths`. The pass
        stops where it finds that lock's file gone (SyncLock.guarded), and records nothing then.
        `finds_nothing`: the caller's _finds_nothing(target), where it asked it already."""
        from minirag.gitstate import root_states, stored_states
        from minirag.ingest.sync import run_sync

        refuse_repointed_roots(self.config)
        before = self._index
        finds_nothing = (finds_nothing or self._finds_nothing(target)) if paths is None else None
        pipeline = self._writing_pipeline(rebuild=True, finds_nothing=finds_nothing)
        if paths is not None and before is not None and pipeline.index is not before:
            # The index file was deleted or replaced under this App (a watcher's): a pass over the
            # changed paths alone would leave the new file holding only those. Every root instead.
            log.warning("the index file %s is new: syncing every root, not only the changed paths",
                        self.config.db_path)
            paths = None
        run_sync(pipeline, list(self.config.roots), path=target, paths=paths, progress=progress,
                 on_change=lock.guarded(on_change), guard=lock.ensure_held)
        lock.ensure_held()
        if target is not None and not progress.seen:
            from minirag.ingest.scan import left_out

            if (reason := left_out(str(target), self.config.roots, IgnoreRules.from_config(self.config),
                                   os.path.isdir(target))) is not None:
                progress.warnings.append(f"{target}: left out by {reason}")
            elif not progress.deleted and (unread := _unreadable_target(target)):
                progress.warnings.append(f"{target}: {unread}")
                progress.unread += 1
        if target is None and paths is None and not progress.stop.is_set():
            states = root_states(list(self.config.roots), self.config.db_path)  # `git status`: seconds, at times
            lock.ensure_held()
            if not progress.stop.is_set():  # a stop kills the git run in hand: what it left is not a state
                self.index.set_meta(META_GIT_STATE, stored_states(states))
                progress.git_state = tuple(states) or None
        if not progress.stop.is_set():
            lock.ensure_held()
            if roots := synced_roots(self.config.roots, target, paths):
                record_sync(self.index, roots, whole=target is None and paths is None)
        return progress

    # --- watching -----------------------------------------------------------------

    @explained
    def watch(self, stop: threading.Event, *, on_start: Callable[[], None] | None = None,
              on_pass: Callable | None = None, on_change: Callable[[Progress], None] | None = None,
              polling: bool | None = None, **tuning) -> None:
        """Keep the index in sync as files change, in this thread, until `stop` is set: a full
        sync first, then one pass per settled batch of changes (ingest/watch.py). A pass in
        progress stops between files or encoder batches. `on_start` runs once the model and the index are ready."""
        self.refuse_if_read_only("watch")
        self._ready_to_watch()
        if on_start is not None:
            on_start()
        self._make_watcher(on_pass, on_change, polling, tuning).run(stop)

    def _ready_to_watch(self) -> None:
        """The model and the index, loaded now: a missing model or a broken index is an error here,
        not a failed pass later. Loaded holding the sync lock where it is free, so reads in those
        seconds say a sync is building the index, as they do beside `minirag sync`; where a sync
        holds it, the watcher's first pass waits for that sync."""
        from minirag.store.lock import SyncLock

        lock = SyncLock(self.config.db_path)
        try:
            lock.acquire()
        except SyncLocked:
            _ = self.encoder  # a pipeline alone would load the model at the first file to convert
            _ = self.pipeline
            return
        try:
            self._load_model_holding(lock)
            _ = self.pipeline
        finally:
            lock.release()

    def start_watching(self, *, on_pass: Callable | None = None, on_change: Callable | None = None,
                       polling: bool | None = None, **tuning) -> None:
        """Watch in a background thread (the server's --watch); status and sync_status report it."""
        self.refuse_if_read_only("watch")
        if self._watcher is not None:
            return
        self._watcher = watcher = self._make_watcher(on_pass, on_change, polling, tuning)
        self._watch_thread = threading.Thread(target=watcher.run, name="minirag-watch", daemon=True)
        self._watch_thread.start()

    def stop_watching(self, timeout: float = 60.0) -> None:
        watcher, thread = self._watcher, self._watch_thread
        if watcher is not None:
            watcher.stop()
            if thread is not None:
                interruptible.join(thread, timeout)
            self._watcher = self._watch_thread = None

    def watch_state(self) -> WatchState | None:
        """What the background watcher is doing, or None when this App is not watching."""
        return self._watcher.state() if self._watcher is not None else None

    def _make_watcher(self, on_pass, on_change, polling: bool | None, tuning: dict):
        from minirag.ingest.ignore import folders_above
        from minirag.ingest.watch import Watcher
        from minirag.store.lock import SyncLock

        def run_pass(paths: list[Path] | None, progress: Progress) -> None:
            refuse_links(self.config)
            with SyncLock(self.config.db_path) as lock:  # SyncLocked at once if held: the watcher retries
                self._sync_locked(lock, None, progress, on_change, paths=paths)

        def indexed_under(paths: list[str]) -> set[str]:
            """Those of `paths` that are, or hold, indexed files: one read of the sources, then bisection."""
            sources = sorted(self.index.stored_states("file"))

            def holds(path: str) -> bool:
                at = bisect.bisect_left(sources, path)
                if at < len(sources) and sources[at] == path:
                    return True
                below = bisect.bisect_left(sources, path + os.sep)
                return below < len(sources) and sources[below].startswith(path + os.sep)

            return {path for path in paths if holds(path)}

        return Watcher(self.config.roots, self.config.db_path, run_pass, indexed_under=indexed_under,
                       indexed_files=lambda: self.index.stored_states("file"),
                       folders_above=folders_above(self.config.roots, self.config.gitignore),
                       on_pass=on_pass, polling=self.config.watch_polling if polling is None else polling,
                       **tuning)

    def doctor(self) -> DoctorReport:
        from minirag.doctor import run_checks

        try:
            if self._index is not None or not self.config.db_path.exists():
                binding = self.binding()
            else:  # never a writable open: even one that fails lets SQLite fold a stray -wal into the file
                with Index(self.config.db_path, read_only=True) as index:
                    binding = bind(self.config, recorded_model(index, self.config.roots))
            name, path = binding.name, binding.path
        except Exception:  # noqa: BLE001 - an unreadable index: doctor's own checks say why
            name, path = self.config.model_name, self.config.model_path
        return run_checks(replace(self.config, model_name=name, model_path=path))

    @explained
    def backup(self, dest: str) -> BackupResult:
        from minirag.store.backup import backup

        check_path_argument(dest)
        self.require_index()  # nothing to copy: said as a read says it
        if in_own_place(self.config) and self.config.db_path.exists():
            self._open_index(rebuild=False)  # refuses an index that came with its folder, as every command does
        return backup(self.config.db_path, dest)

    # --- collections (minirag/collection.py) ----------------------------------------

    @explained
    def list_collections(self) -> Collections:
        """Each collection's files, chunks and last sync (collection.list_collections); never creates the index."""
        return list_collections(self.config, self.index if self._holds_index() else None)

    # --- reads -------------------------------------------------------------------

    @explained
    def query(self, text: str, top_k: int = DEFAULT_TOP_K, scope: str | Sequence[str] | None = None,
              collection: str | None = None) -> QueryResult:
        """The whole ranking; the faces fit it to the response budget (results.query_result). `scope`:
        one, or several (a source under any of them)."""
        from minirag.search.plan import SearchOptions, clamp_top_k, search

        if not visible(text):
            raise InvalidArgument("query must not be empty (it has no visible characters)")
        if len(text) > MAX_QUERY_CHARS:
            raise InvalidArgument(f"query is {len(text):,} characters; queries take at most {MAX_QUERY_CHARS:,}")
        if not is_utf8(text):  # a library caller's; MCP and the CLI never pass one
            raise InvalidArgument("query is not valid UTF-8 (it holds a lone surrogate), which no model can read")
        clamp_top_k(top_k)  # refuse a bad topK even when the index is empty
        scopes = collection_scope(self.config, collection, self.search_scopes(scope))
        self.require_index()
        options = SearchOptions(
            top_k=top_k, hybrid_weight=self.config.hybrid_weight, scope=scopes,
            outside=nested_in(self.config, collection),
            grouping=self.config.grouping,
            max_distance=self.config.max_distance, max_files=self.config.max_files,
        )
        index = self.index
        bound = index.bound_model()
        if bound is None:
            if (error := self.presence.still_empty()) is not None:  # a first sync, before its first write
                raise error
            return QueryResult((), {}, (), tuple(self.config.roots))  # nothing indexed yet
        encoder = None
        if options.hybrid_weight is None or options.hybrid_weight < 1.0 or options.max_distance is not None:
            encoder = self.encoder
            index.bind_model(encoder.model_id, encoder.dimension)  # the index's model, or refused naming both
        # Files of a root since removed from the configuration stay in the file until a sync; never served.
        hits = search(index.conn, text, options, encoder=encoder, matrices=self.serving_matrices(), pool=self.query_pool,
                      pool_conn=lambda: index.conn, served=self.in_roots)
        self._refuse_scopes_meant_as_paths(scopes, [hit.source for hit in hits])
        if not hits and not index.holds_sources() and (error := self.presence.still_empty()) is not None:
            raise error
        return QueryResult(tuple(hits), index.parents(h.parent_id for h in hits),
                           tuple(collection_of(self.config, h.source) for h in hits), tuple(self.config.roots),
                           unread=_unread(encoder, text, options.hybrid_weight) if not hits else None,
                           elsewhere=self._files_elsewhere() if not hits else None)

    def _files_elsewhere(self) -> FilesElsewhere | None:
        """Where the index's files lie when none is served under the roots (a read-only server on an
        index alone, with no roots, serves them all): an index made under other folders."""
        if not self.config.roots:
            return None
        found = self.index.files_outside([str(root) for root in self.config.roots])
        if found is None:
            return None
        count, first, last = found
        if self.in_roots(first) or self.in_roots(last):  # stored through a link that now leads into a root
            return None
        return FilesElsewhere(count, os.path.commonpath([os.path.dirname(first), os.path.dirname(last)]))

    @explained
    def term_weights(self, text: str) -> dict[str, float]:
        """The IDF of each keyword term of a query in the index (search/keyword.py), for the CLI's
        snippets: a word few chunks hold weighs more there than a table's every heading."""
        from minirag.search.keyword import term_weights

        self.require_index()
        return term_weights(self.index.conn, text)

    @explained
    def read(self, key: str, offset: int = 0, max_chars: int | None = None, *, budgeted: bool = True) -> ReadResult:
        """A page of the document rebuilt from its sections: from `offset` (characters), at most
        `max_chars`, and (`budgeted`) within the response budget; `nextOffset` is where the next
        page starts (None at the end). Pages put back together are the whole text, exactly."""
        from minirag.anchors import heading_offset, page_offset
        from minirag.chunking import placed_sections

        if offset < 0:
            raise InvalidArgument(f"offset must be 0 or more, got {offset}")
        if max_chars is not None and max_chars < 1:
            raise InvalidArgument(f"maxChars must be 1 or more, got {max_chars}")
        row, fragment = self.addressing.source_row_at(key)
        key = row.source
        text, placed = placed_sections(self.index.sections(key))
        at = None
        if fragment is not None:
            at = page_offset(fragment, ((start, section.page_start, section.page_end) for start, _, section in placed))
            at = heading_offset(text, fragment) if at is None else at
        if at is not None and offset == 0:  # a later page of it is asked for by its own offset
            offset = at
        if offset > len(text):
            raise InvalidArgument(f"offset {offset} is past the end of {shown(key)} ({len(text)} characters)")

        head = ReadResult(key, row.kind, row.title, row.chunk_count, offset, len(text), None, "", None, fragment, at)
        return read_page(head, text, placed, max_chars, self.config.max_response_tokens if budgeted else None)

    @explained
    def neighbors(self, key: str, chunk_index: int, before: int = 1, after: int = 1) -> ChunkWindow:
        for name, value in (("before", before), ("after", after)):
            if value < 0:
                raise InvalidArgument(f"{name} must be 0 or more, got {value}")
        key = self.addressing.source_row(key).source
        chunks = tuple(self.index.chunk_window(key, chunk_index, min(before, MAX_NEIGHBORS), min(after, MAX_NEIGHBORS)))
        return ChunkWindow(chunks, self.index.parents(row.parent_id for row in chunks))

    @explained
    def list_files(self, scope: str | Sequence[str] | None = None, collection: str | None = None, *,
                   ignored: bool = False) -> FileListing:
        """`ignored`: also the files and folders ignore rules leave out (state `excluded`, with the rule).
        `scope`: one, or several (a source under any of them)."""
        from minirag.ingest.listing import list_entries

        scopes = collection_scope(self.config, collection, self.search_scopes(scope))
        self.require_index()
        others: Counter = Counter()  # files left out for their type, by suffix (not counted under a scope)
        within = Scopes.of(scopes, without=nested_in(self.config, collection)) if scopes else None
        files = list_entries(self.index, self.config, within, self.chunk_budget(),
                             with_ignored=ignored, others=None if scopes else others)
        self._refuse_scopes_meant_as_paths(scopes, [entry.source for entry in files])
        return FileListing(tuple(files), tuple(sorted(others.items(), key=lambda item: (-item[1], item[0]))))

    @explained
    def list_files_paged(self, client: object, offset: int = 0, scope: str | Sequence[str] | None = None,
                         collection: str | None = None, *, ignored: bool = False,
                         cursor: str | None = None) -> ListedPage:
        """list_files for one page, for `client` (an MCP session): without a `cursor`, a new walk, kept
        for `client`, from entry `offset` on (past 0, the latest listing `client` keeps of the same
        arguments while the index has not changed since, where it keeps one); with one, the listing it names, from its offset, while
        the index has not changed since (no file listed twice or skipped, and a page costs its own
        entries, not a walk of the corpus), else walked again and said to be (`changed`). A cursor
        names a listing only in the store of the client it was given to."""
        from minirag.ingest.listing import Cursor, ListingPages

        if offset < 0:
            raise InvalidArgument(f"offset must be 0 or more, got {offset}")
        if self._listings is None:
            self._listings = ListingPages()
        key = (scope if isinstance(scope, str) or scope is None else tuple(scope), collection, ignored)
        version = self._listed_version() if self._holds_index() else None  # none: list_files refuses

        def walk(key) -> FileListing:
            return self.list_files(key[0], key[1], ignored=key[2])

        if cursor is None:
            # A page past the first (a nextOffset passed back) is cut from this client's latest listing of
            # the same arguments, as a cursor's is: a walk per page made paging by offsets cost n x n/page.
            kept = self._listings.latest(client, key, version) if offset else None
            name, listing = kept or self._listings.start(client, key, version, lambda: walk(key))
            return ListedPage(listing, offset, name, False)
        at = Cursor.parse(cursor)
        if offset:
            raise InvalidArgument("give cursor or offset, not both: a cursor holds its page's offset")
        kept_key, listing, changed = self._listings.resume(client, at.listing, version, walk)
        if key != (None, None, False) and key != kept_key:
            raise InvalidArgument("this cursor pages a listing of another scope, collection or ignored: give the "
                                  "cursor alone (it holds them), or omit it for a new listing")
        return ListedPage(listing, at.offset, at.listing, changed)

    def _listed_version(self) -> tuple[int, int]:
        """What a listing's states hang on in the index: chunks written or dropped move its generation,
        which a file left out (failed, or `rag: false`) does not; those are few, and read whole."""
        index = self.index
        return index.generation(), hash(frozenset(index.excluded_states().items()))

    def _refuse_scopes_meant_as_paths(self, scopes: tuple[str, ...], found: list[str]) -> None:
        """Each scope that `found` (what a query or a listing returned) has nothing under, checked as
        one given alone is: in a list, one outside the roots or mistyped is refused even when another
        found something."""
        for scope in scopes:
            part = Scope.of(scope)
            self.addressing.refuse_a_path_meant_as_scope(scope, found_nothing=not any(map(part.matches, found)))

    def chunk_budget(self) -> int | None:
        """The token budget a sync cuts files at now, found without loading the model: its
        catalogue entry, else its files' settings (minirag-model.json, the hub cache's config);
        None when neither can be read. Never raises: status and list must answer regardless."""
        if self._encoder is not None:
            return planned_budget(self.config, self._encoder.spec)
        if self.config.chunk_token_budget:
            return self.config.chunk_token_budget
        try:
            return planned_budget(self.config, self.binding().spec_on_disk(self.config.cache_dir))
        except (MiniragError, connection.DatabaseError, OSError, ValueError, TypeError, AttributeError):
            # A hub id the hub client rejects (ValueError), a malformed minirag-model.json, an unreadable folder.
            return None

    def status(self) -> Status:
        from minirag.chunking import SCHEME_VERSION
        from minirag.gitstate import parse_states

        config = self.config
        status = Status(
            version=minirag.__version__,
            roots=tuple(str(r) for r in config.roots),
            db_path=str(config.db_path),
            model=config.model_path and f"{config.model_path} (MODEL_PATH)" or config.model_name,
            # Unset, the weight follows the query's form (search/query_form.py): both defaults shown.
            hybrid_weight=config.hybrid_weight if config.hybrid_weight is not None else DEFAULT_HYBRID_WEIGHT,
            hybrid_weight_for_questions=None if config.hybrid_weight is not None else QUESTION_HYBRID_WEIGHT,
            hybrid_weight_for_sentences=None if config.hybrid_weight is not None else SENTENCE_HYBRID_WEIGHT,
            hybrid_weight_for_names=None if config.hybrid_weight is not None else NAME_HYBRID_WEIGHT,
            chunk_token_budget=config.chunk_token_budget or "the model's default",
            chunk_scheme=SCHEME_VERSION,
            read_only=config.read_only,
            grouping=config.grouping,
            max_distance=config.max_distance,
            max_files=config.max_files,
            watch=self.watch_state(),
            sync_running=self.presence.being_built(),
        )
        if self._index is None and (missing := self.presence.missing()) is not None:
            return replace(
                status,
                index_error=str(missing),  # what a read refuses with: status reports it, creating nothing
                chunk_token_budget=self.chunk_budget() or status.chunk_token_budget,  # what a first sync cuts at
                collections=self.list_collections().collections,  # no index: nothing counted yet
            )
        try:
            stats = self.index.stats()
        except MiniragError as exc:
            return replace(status, index_error=str(exc))
        except connection.DatabaseError as exc:
            return replace(status, index_error=connection.explain(exc, config.db_path))
        try:
            collections = self.list_collections().collections
            binding = self.binding()
            git_state = parse_states(self.index.meta(META_GIT_STATE))
        except connection.DatabaseError as exc:  # a meta value of another type (stored_row): damage, said
            return replace(status, index_error=connection.explain(exc, config.db_path), stats=stats)
        return replace(
            status,
            index_error=self.damage,
            stats=stats,
            collections=collections,
            model=f"{binding.path} (MODEL_PATH)" if binding.path is not None else binding.name,
            chunk_token_budget=self.chunk_budget() or "the model's default (the model is not on this disk)",
            git_state=git_state,
            scheme_warning=_scheme_warning(stats),
            files_elsewhere=self._files_elsewhere(),
        )


def _unread(encoder, text: str, hybrid_weight: float | None) -> tuple[str, str] | None:
    """(model, writing system) where `text` went to the keyword side alone because `encoder` reads
    none of its writing system (search.plan.search's gate); None otherwise."""
    from minirag.writing import main_script

    if encoder is None or hybrid_weight == 0.0 or encoder.reads(text) or (script := main_script(text)) is None:
        return None
    return encoder.model_id, script


def _scheme_warning(stats: IndexStats) -> str | None:
    """What an index written by an older minirag lacks until a sync (or a write open) rebuilds it."""
    parts = []
    if stats.stale_chunk_count:
        parts.append(f"{stats.stale_chunk_count} chunk(s) were cut by an older chunking scheme; "
                     "run `minirag sync` (or sync_start) to rebuild them")
    if stats.stale_keyword_scheme is not None:
        parts.append(stale_keywords_warning(stats.stale_keyword_scheme))
    return "; ".join(parts) or None


def _unreadable_target(target: Path) -> str | None:
    """Why a path a sync or an ingest was asked for, which it found nothing at, holds nothing to read; None
    when it is a file or folder (empty, ignored or unchanged: nothing to say)."""
    if not os.path.lexists(target):  # most likely a typo, not a deletion
        return "no such file or folder, and nothing indexed under it"
    if os.path.islink(target) and not os.path.exists(target):
        return "a link to nothing, so nothing was read"
    if not (os.path.isfile(target) or os.path.isdir(target)):  # a FIFO, a socket, a device
        return "not a regular file or folder, so nothing was read"
    if os.path.isfile(target):  # named on its own: its type is said, as a folder's walk counts it
        from minirag.ingest.scan import file_not_read

        return file_not_read(str(target))
    return None
