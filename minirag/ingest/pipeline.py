"""The ingest pipeline: scan.py finds files -> convert.py -> chunking -> embed.py -> the store.

Conversion and chunking run in worker threads a few documents ahead while the
encoder (which releases the GIL) embeds; vectors already stored for identical
chunk text are reused; sources are written in batched transactions, each
source replaced atomically.
"""

from __future__ import annotations

import contextlib
import contextvars
import dataclasses
import errno
import functools
import logging
import os
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING

from minirag import interruptible
from minirag.binding import checked_budget
from minirag.chunking import SCHEME_VERSION, ChunkedDocument, chunk_document, too_many_chunks
from minirag.chunking.frontmatter import parse_frontmatter
from minirag.chunking.titles import choose_title, first_h1, fitted_title
from minirag.config import Config
from minirag.display import message_line
from minirag.errors import ConversionFailed, MiniragError, PathOutsideRoots, exhausted
from minirag.ingest import ocr
from minirag.ingest.conversion_gate import ConversionGate
from minirag.ingest.converted import Converted
from minirag.ingest.doc_names import named_as, title_stem
from minirag.ingest.embed import EmbeddingStopped, with_vectors
from minirag.ingest.file_state import (
    CONVERTING,
    CONVERTING_AGAIN,
    FileState,
    by_hash,
    file_hash,
    file_state,
)
from minirag.ingest.isolation import ConversionStopped, convert_isolated, limits_of
from minirag.ingest.model_request import ModelRequest
from minirag.ingest.progress import Progress, plural
from minirag.ingest.scan import FileStat, FoundFile, file_stat, stat_now
from minirag.keywords import KeywordText, keyword_texts
from minirag.model_on_demand import ModelOnDemand
from minirag.security import read_file_inside_roots
from minirag.store.index import ExcludedState, Index, SourceRecord, StoredStat, StoredState

if TYPE_CHECKING:
    from minirag.encoder import Encoder

log = logging.getLogger(__name__)

# Sources are embedded and written in groups of about this many chunks: big
# enough for length-sorted batches to pack well, small enough to bound memory.
GROUP_CHUNKS = 512
NO_TEXT_NOTE = "no text found (empty or only pictures?)"
NO_TEXT_SCAN_NOTE = "no text found (empty, scanned or image-only?)"  # a PDF or an image: a scan
# Files converted ahead of the encoder, at most: this many, and this many bytes of them (at least
# one file). Deep enough to cover the files of the next group while the encoder embeds this one.
LOOKAHEAD_FILES = 64
LOOKAHEAD_BYTES = 32 * 1024 * 1024
TOUCHED_BATCH = 1000  # new stats of touched-but-unchanged files per transaction (each commit checkpoints)
# A file modified this recently when it is read may be written again within the same
# timestamp tick (1 s on ext3, HFS+ and many network mounts, 2 s on FAT; the ctime's tick is
# the kernel's coarse clock) and keep its size and mtime (or ctime): that time is stored as
# unknown, so the next sync reads and hashes it instead of trusting the stat (git's "racy"
# rule). Future times (clock skew) count too.
RACY_NS = 3_000_000_000
# The first nanosecond SQLite's signed 64-bit INTEGER holds (1677-09-21), and the last (2262-04-11).
# tmpfs, btrfs and XFS keep times outside (`touch -d 1600-01-01`, a tar entry so dated): such a time
# is stored as unknown too.
EARLIEST_NS = -(1 << 63)
LATEST_NS = (1 << 63) - 1
# Where a file's ctime is the time of its last change, which every write moves to the kernel's now
# (not Windows, where it is the creation time).
CTIME_IS_CHANGE = os.name != "nt"


def as_read(found: FoundFile, opened: os.stat_result) -> FoundFile:
    """`found` with the stat of the descriptor its bytes were read through, read now."""
    now = time.time_ns()
    if file_stat(opened) == found.stat:
        return dataclasses.replace(found, read_ns=now)
    return dataclasses.replace(FoundFile.of(found.source, found.real, opened), read_ns=now)


def _trusted(time_ns: int, now_ns: int) -> int | None:
    return None if time_ns >= now_ns - RACY_NS or time_ns < EARLIEST_NS else time_ns


def stored_stat(found: FoundFile) -> StoredStat:
    """The stat to store beside the bytes read for the stat fast path: its mtime and ctime each None
    while too fresh to trust (the next sync hashes the file, and stores them then) or before EARLIEST_NS. Fresh as of the
    read: a write in the same tick just after it keeps the stat, however long the conversion took.

    An mtime in the future (a tar entry, `touch -d`, a camera's clock) is kept beside a ctime old enough
    to trust: a write after the read moves the ctime to its own time, which the stored one is seconds
    before, so the stat still tells (else such a file was read and hashed at every sync until its date
    came). A future ctime (a file server's clock ahead of this one's) still leaves both unknown."""
    now = found.read_ns if found.read_ns is not None else time.time_ns()
    mtime, ctime = _trusted(found.mtime_ns, now), _trusted(found.ctime_ns, now)
    if mtime is None and ctime is not None and CTIME_IS_CHANGE and now < found.mtime_ns <= LATEST_NS:
        mtime = found.mtime_ns
    return found.size, mtime, ctime, found.inode


def excluded_state(found: FoundFile, content_hash: str, reason: str, *, failure: bool = False) -> ExcludedState:
    """What the index remembers of a file left out (or failed) as `found`, and why."""
    size, mtime_ns, ctime_ns, inode = stored_stat(found)
    return ExcludedState(content_hash, size, mtime_ns, SCHEME_VERSION, reason, failure=failure, ctime_ns=ctime_ns,
                         inode=inode)


@dataclass(frozen=True)
class Unchanged:
    """A file whose bytes (and scheme) match the index: nothing to do but remember its stat."""

    found: FoundFile


@dataclass(frozen=True)
class Excluded:
    """Left out on purpose (frontmatter `rag: false`); ``content_hash`` is of the bytes that said so,
    ``found`` their stat."""

    reason: str
    content_hash: str = ""
    found: FoundFile | None = None


@dataclass(frozen=True)
class Vanished:
    """A file the walk found that was gone (or its folder) by the time it was read: deleted, not failed."""

    found: FoundFile


@dataclass(frozen=True)
class Failed:
    """Bytes that could not be converted (``reason`` says why); ``known``: the same bytes failed before;
    ``found``: the stat of the bytes read, None when none were."""

    reason: str
    content_hash: str
    known: bool = False
    found: FoundFile | None = None


@dataclass(frozen=True)
class Document:
    record: SourceRecord
    chunked: ChunkedDocument
    warnings: tuple[str, ...] = ()
    keyword_texts: tuple[KeywordText, ...] | None = None  # one per chunk, made in the conversion thread
    # A file's stat as its bytes were read: written only if the file still has that stat,
    # or (Pipeline.write) only grew since: it still begins with the `read_bytes` bytes read.
    read_as: FileStat | None = None
    read_bytes: int | None = None


class _GroupLeft(Exception):
    """A stop came while a group was embedding: the documents complete by then were written
    (`written` of their chunks, `sources`), the rest of the group is left for the next run.
    `interrupt`: the Ctrl-C that stopped it, raised again once the group is counted."""

    def __init__(self, written: int, sources: frozenset[str], interrupt: KeyboardInterrupt | None):
        super().__init__("group left")
        self.written, self.sources, self.interrupt = written, sources, interrupt


class Pipeline:
    def __init__(self, index: Index, model: Encoder | ModelOnDemand, config: Config):
        """`model`: a loaded encoder, or one loaded at the first file to convert (`encoder`)."""
        self.index = index
        self.model = model if isinstance(model, ModelOnDemand) else ModelOnDemand.of(model)
        self.config = config
        self.budget = checked_budget(config, self.model.spec)
        self.limits = limits_of(config)
        self.gate = ConversionGate()
        self._encoder: Encoder | None = None
        self._loading = threading.Lock()
        bound = index.bound_model()
        # A new index with the model not loaded (a sync that found no file): the first file loads and binds it.
        if self.model.loaded is not None or (bound is not None and bound[0] != self.model.model_id):
            _ = self.encoder  # a new index records the model's width; another model's index refuses it
        elif bound is not None and self.model.spec.dimension:
            index.bind_model(self.model.model_id, self.model.spec.dimension)  # refused where it differs

    @property
    def encoder(self) -> Encoder:
        """The model, loaded at the first call; the index refuses it there where its width is not the index's."""
        if self._encoder is None:
            with self._loading:
                if self._encoder is None:
                    encoder = self.model.loaded or self.model.load()
                    self.index.bind_model(encoder.model_id, encoder.dimension)
                    self._encoder = encoder
        return self._encoder

    def _load_for(self, progress: Progress, notify: Callable[[Progress], None]) -> None:
        """The model loaded for a run whose walk is done: said on its live line, and its seconds kept
        out of the ETA's clock, as a load before the walk is."""
        if self._encoder is not None:
            return
        t0 = time.monotonic()
        progress.loading_model = True
        notify(progress)
        try:
            _ = self.encoder
        finally:
            progress.loading_model = False
        if progress.work_started is not None:
            progress.work_started += time.monotonic() - t0

    # --- preparing documents (runs in worker threads) ----------------------

    def build(self, converted: Converted, *, source: str, kind: str, stem: str, content_hash: str,
              title: str | None = None, stat: StoredStat = (None, None, None, None),
              progress: Progress | None = None) -> Document | Excluded:
        """`stat`: the file's as read (stored_stat), for a file. ConversionFailed when it is cut into more
        chunks than chunking.chunk_limit allows."""
        t0 = time.perf_counter()
        meta, body = parse_frontmatter(converted.markdown) if converted.frontmatter else ({}, converted.markdown)
        if meta.get("rag") is False:
            return Excluded("frontmatter rag: false", content_hash)
        lifecycle = "superseded" if str(meta.get("lifecycle", "")).lower() == "superseded" else "active"
        if title is None:
            # The author's own `title:` in frontmatter names the document before anything read off it.
            stated = meta.get("title")
            metadata_title = converted.metadata_title or (stated.strip() if isinstance(stated, str) else None) or None
            title = choose_title(body, metadata_title=metadata_title, stem=stem) if kind == "file" else (
                metadata_title or first_h1(body) or ""
            )
        title = fitted_title(title)
        warnings = list(converted.warnings)
        if converted.note:
            warnings.append(f"{source}: {converted.note}")
        split = meta.get("rag_chunk")
        if split is not None and split != "headings":
            warnings.append(f"{source}: frontmatter rag_chunk: {split!r} is not understood (only 'headings'); "
                            "chunked by its structure")
        chunked = chunk_document(body, title=title, count_tokens=self.encoder.count_tokens, budget=self.budget,
                                 max_tokens=self.encoder.max_length, by_headings=split == "headings",
                                 rows=converted.rows)
        if progress is not None:
            progress.add_time("chunk", time.perf_counter() - t0)
        # Before the keyword texts and the embedding, which cost per chunk.
        if (refused := too_many_chunks(len(chunked.chunks), len(body), self.budget)) is not None:
            raise ConversionFailed(f"{source}: {refused}")
        note = converted.note
        if not chunked.chunks and not note:
            # Kept as the source's note too: `list` shows why it holds no chunks long after the sync.
            scan = named_as(os.path.basename(source)).kind in (".pdf", *ocr.IMAGE_EXTENSIONS)
            note = NO_TEXT_SCAN_NOTE if scan else NO_TEXT_NOTE
            warnings.append(f"{source}: {note}")
        size, mtime_ns, ctime_ns, inode = stat
        record = SourceRecord(source=source, kind=kind, title=title, content_hash=content_hash, size=size,
                              mtime_ns=mtime_ns, category=chunked.category, lifecycle=lifecycle,
                              chunk_budget=self.budget, note=note, ctime_ns=ctime_ns, inode=inode)
        # The keyword texts (language identified, words stemmed) here, in a conversion thread, so the
        # thread that embeds and writes does not make them.
        made = keyword_texts([chunk.text for chunk in chunked.chunks], title)
        return Document(record, chunked, tuple(warnings), made)

    def prepare_file(self, found: FoundFile, stored: StoredState | None, *, force: bool,
                     progress: Progress | None = None, excluded: ExcludedState | None = None,
                     retry_failed: bool = False, marks: dict[str, str | None] | None = None,
                     guard: Callable[[], None] = lambda: None, model: ModelRequest | None = None,
                     ) -> Document | Unchanged | Excluded | Failed | Vanished:
        """`retry_failed`: convert a file whose same bytes failed before (a user naming it wants
        to hear why), where a sync counts it as still failing. `marks`: the conversion is marked
        in the index while it runs (source -> the mark's reason, None once it ended well), for the
        caller to resolve; None: not marked. `guard` runs before each mark is written (run_files).
        `model`: the run's thread loads the model, asked for here (run_files); None: loaded in this thread."""
        if excluded is not None and excluded.failure and retry_failed:
            excluded = None
        if found.size > self.config.max_file_size:  # never read: remembered by its size (and mtime)
            known = (not force and excluded is not None and excluded.failure and not excluded.content_hash
                     and excluded.size == found.size)
            return Failed(f"{found.source}: file too large ({found.size} bytes > MAX_FILE_SIZE "
                          f"{self.config.max_file_size})", content_hash="", known=known)
        t0 = time.perf_counter()
        try:
            data, opened = read_file_inside_roots(found.source, self.config.roots, self.config.max_file_size)
        except OSError as exc:
            if exc.errno in (errno.ENOENT, errno.ENOTDIR):  # deleted since the walk, or its folder
                return Vanished(found)
            said = exhausted(exc) or f"cannot read ({exc.strerror or exc})"
            raise ConversionFailed(f"{found.source}: {said}") from None
        except PathOutsideRoots as exc:
            raise ConversionFailed(str(exc)) from None
        # What is stored beside these bytes is their own stat: a file renamed over the name since the
        # walk's stat has another, and the walk's, stored, would pass the other file off as these bytes.
        found = as_read(found, opened)
        if len(data) > self.config.max_file_size:
            return Failed(f"{found.source}: file too large (> MAX_FILE_SIZE {self.config.max_file_size})", "",
                          found=found)
        digest = file_hash(data)
        state = file_state(found.source, stored, excluded, holds=by_hash(digest), budget=self.budget)
        if not force and state is FileState.UNCHANGED:
            return Unchanged(found)
        if not force and excluded is not None and state in (FileState.EXCLUDED, FileState.FAILING):
            # The same bytes were left out last time, or failed: not converted again.
            return (Failed(excluded.reason, digest, known=True, found=found) if state is FileState.FAILING
                    else Excluded(excluded.reason, digest, found))
        reason = f"{found.source}: {CONVERTING_AGAIN if state is FileState.INTERRUPTED else CONVERTING}"
        if model is not None:
            model.want()

        def mark(marks: dict[str, str | None]) -> None:
            guard()
            self.index.mark_converting(found.source, excluded_state(found, digest, reason, failure=True))
            marks[found.source] = reason

        # From the mark to its removal: a file whose first conversion never finished converts alone.
        with self.gate.alone() if state is FileState.INTERRUPTED else self.gate.shared():
            try:
                converted = convert_isolated("document", (data, named_as(os.path.basename(found.source)).read_as,
                                                          found.source, self.config.max_file_size),
                                             found.source, self.limits,
                                             started=None if marks is None else functools.partial(mark, marks),
                                             on_page=None if progress is None else functools.partial(
                                                 progress.reading_page, found.source),
                                             stop=None if progress is None else progress.stop)
            except ConversionFailed as exc:
                return Failed(str(exc), digest, found=found)  # the mark stays until run_files records this failure
            except ConversionStopped:
                if (marks is not None and marks.get(found.source) and excluded is not None
                        and state is FileState.INTERRUPTED):
                    # Left as it was: the earlier death's mark, which "converting again" replaced, goes back.
                    guard()
                    self.index.mark_converting(found.source, excluded)
                    marks[found.source] = None
                raise
            finally:
                if progress is not None:
                    progress.pages_read(found.source)
            if marks is not None:  # only the conversion itself is marked, not the wait for the encoder
                guard()
                self.index.unmark_converting(found.source, reason)
                marks[found.source] = None
        if progress is not None:
            progress.add_time("convert", time.perf_counter() - t0)
            if progress.stop.is_set():  # chunking a large document takes as long as converting it
                raise ConversionStopped(found.source)
        if model is not None:
            model.wait()
        try:
            built = self.build(converted, source=found.source, kind="file", stem=title_stem(found.source),
                               content_hash=digest, stat=stored_stat(found), progress=progress)
        except ConversionFailed as exc:  # remembered with its bytes: not cut again until they change
            return Failed(str(exc), digest, found=found)
        return dataclasses.replace(built, found=found) if isinstance(built, Excluded) else \
            dataclasses.replace(built, read_as=found.stat, read_bytes=len(data))

    # --- embedding and writing -------------------------------------------

    def write(self, documents: list[Document], progress: Progress | None = None,
              on_batch: Callable[[int, int], None] | None = None, guard: Callable[[], None] = lambda: None,
              changed: list[str] | None = None, judged: dict[str, StoredState] | None = None,
              grown: list[str] | None = None) -> int:
        """Embed and write `documents`; a file whose stat moved since its bytes were read is not
        written (another writer may have written newer bytes): its source goes to `changed`. Given
        `judged` (the index's rows the reads were judged against), a file that only grew since its
        read (a log being written) is written as read, its source put in `grown`, where its row is
        still the one judged: no other writer stored it meanwhile, from more of its bytes."""
        def save(vectors: dict) -> None:  # vectors of files not written yet, kept for a next run
            guard()
            self.index.save_pending(vectors, self.encoder.model_id, self.encoder.dimension)

        try:
            prepared, stopped = with_vectors(documents, self.index, self.encoder, progress, on_batch, save), None
        except EmbeddingStopped as stop:  # what is embedded whole is written before the run ends
            if stop.interrupt is not None and not stop.complete:
                raise stop.interrupt from None
            prepared, stopped = stop.complete, stop
        guard()  # after the embedding, which takes long; a group whose vectors were all stored has no batch
        read_as = {d.record.source: d for d in documents if d.read_as is not None}
        # Whether each file that moved since its read only grew is read before the transaction: the
        # read holds no write lock, and a retried transaction does not read it again. The rows the
        # reads were judged against are looked at inside it, where no other writer commits between.
        prefixes = set() if judged is None else {
            source for source, document in read_as.items()
            if stat_now(source) != document.read_as and self._begins_as_read(document)}

        def current(record: SourceRecord) -> bool:
            # Asked inside the write transaction: no other writer commits between this look and the write.
            if record.source not in read_as:
                return True
            if stat_now(record.source) == read_as[record.source].read_as:
                return True
            if judged is not None and record.source in prefixes and \
                    self.index.state_of(record.source)[0] == judged.get(record.source):
                if grown is not None and record.source not in grown:
                    grown.append(record.source)
                return True
            if changed is not None and record.source not in changed:  # a transaction retried asks again
                changed.append(record.source)
            return False

        t0 = time.perf_counter()
        written = self.index.replace_sources(prepared, current=current) if prepared else 0
        if progress is not None:
            progress.add_time("write", time.perf_counter() - t0)
        if stopped is not None:
            raise _GroupLeft(written, frozenset(p.record.source for p in prepared), stopped.interrupt)
        return written

    def _begins_as_read(self, document: Document) -> bool:
        """Whether `document`'s file still begins with the very bytes read (read again, and hashed):
        it only grew since, or is as it was."""
        source, length = document.record.source, document.read_bytes
        if length is None:
            return False
        try:
            # At most max_bytes + 1 bytes are read: the first `length`, where the file still holds them.
            head, _opened = read_file_inside_roots(source, self.config.roots, length - 1)
        except (OSError, MiniragError):
            return False
        return len(head) == length and file_hash(head) == document.record.content_hash

    def run_files(self, files: Iterable[FoundFile], progress: Progress, *, force: bool = False,
                  on_change: Callable[[Progress], None] | None = None, retry_failed: bool = False,
                  guard: Callable[[], None] = lambda: None, prefix: bool = True) -> None:
        """Ingest many files: convert ahead in threads, embed and write in groups. `guard` runs
        before every write to the index, in this thread and the converting ones: a sync's checks
        that it still holds its lock (SyncLock.ensure_held), and stops the run by raising.
        `prefix`: a file that grew while it was read is written as far as it was read (Pipeline.write);
        else it is counted `changed` as one rewritten is, for a caller that reads it again."""
        stored = self.index.stored_states("file")
        exclusions = self.index.excluded_states()
        notify = on_change or (lambda _p: None)
        group: list[Document] = []
        touched: list[tuple[str, StoredStat]] = []  # unchanged content, new stat: written with the next group
        # Sources whose exclusion row a conversion mark replaced this run -> the mark, while it is in place.
        marks: dict[str, str | None] = {}

        def changed_while_read(sources: list[str]) -> None:
            progress.changed += len(sources)
            progress.warnings.extend(f"{source}: changed while it was read; not written (another writer may "
                                     "have written its newer bytes; the next sync reads it again)"
                                     for source in sources)

        def still(found: FoundFile) -> Callable[[], bool]:
            """Whether the file still has the stat its bytes were read with; said when not."""
            def current() -> bool:
                if stat_now(found.source) == found.stat:
                    return True
                if found.source not in moved:  # a transaction retried asks again
                    moved.append(found.source)
                    changed_while_read([found.source])
                return False

            return current

        moved: list[str] = []

        def flush_touched() -> None:
            if touched:
                guard()
            self.index.update_stats(touched)
            touched.clear()

        def flush() -> None:
            flush_touched()
            if group:
                group_bytes = sum(d.record.size or 0 for d in group)

                def on_batch(embedded: int, of: int) -> None:
                    progress.bytes_partial = group_bytes * embedded / of
                    notify(progress)
                    if progress.stop.is_set():
                        raise EmbeddingStopped

                changed: list[str] = []
                grown: list[str] = []
                try:
                    progress.chunks_written += self.write(group, progress, on_batch, guard, changed,
                                                          judged=stored if prefix else None, grown=grown)
                    written, left = list(group), None
                except _GroupLeft as stopped:
                    left = stopped
                    # A stop waits for one encoder batch, not the group's: the files embedded whole by
                    # then are written, the others stay as they were, for the next run.
                    progress.chunks_written += left.written
                    written = [document for document in group if document.record.source in left.sources]
                changed_while_read(changed)
                progress.warnings.extend(
                    f"{document.record.source}: grew while it was read (a file being written): indexed the "
                    f"{document.read_bytes:,} bytes read; the next sync reads what was added"
                    for document in written if document.record.source in grown)
                for document in written:  # -v shows these
                    log.info("ingested %s (%s)", document.record.source, plural(len(document.chunked.chunks), "chunk"))
                progress.done += len(written)
                progress.bytes_done += sum(document.record.size or 0 for document in written)
                progress.bytes_partial = 0.0
                group.clear()
                notify(progress)
                if left is not None and left.interrupt is not None:
                    raise left.interrupt

        files = list(files)
        # The model: loaded in this thread once a converting one finds a file to convert; a run that
        # converts nothing never loads it.
        model = ModelRequest(lambda: self._encoder is not None, lambda: self._load_for(progress, notify))
        progress.bytes_total += sum(f.size for f in files)
        workers = max(1, min(4, (os.cpu_count() or 2)))
        try:
            with interruptible.pool(workers, "minirag-convert") as pool, contextlib.closing(model), \
                    _stopped_if_left(pool, progress):
                for found, future in _ahead(pool, files, lambda f: self.prepare_file(
                        f, stored.get(f.source), force=force, progress=progress, excluded=exclusions.get(f.source),
                        retry_failed=retry_failed, marks=marks, guard=guard, model=model)):
                    if progress.stop.is_set():
                        break
                    progress.seen += 1
                    progress.current = found.source
                    if group and not future.done():
                        flush()  # the encoder embeds what is ready rather than wait on this file's conversion
                    model.done(future)
                    try:
                        result = interruptible.result_of(future)
                    except ConversionStopped:
                        if not progress.stop.is_set():  # the bound on its runs stopped: the call that ran it ends
                            raise
                        break  # the stop ended its conversion: the file is left as it was, for the next run
                    except ConversionFailed as exc:
                        progress.bytes_done += found.size
                        progress.failed += 1
                        progress.warnings.append(str(exc))
                        notify(progress)
                        continue
                    except Exception as exc:  # noqa: BLE001 - one bad file never stops a sync
                        guard()  # unless it was the guard's refusal, in a converting thread: that stops it
                        # A bug, said in one line as the CLI says one; -v (INFO) shows its traceback.
                        log.info("unexpected error preparing %s", found.source, exc_info=True)
                        progress.bytes_done += found.size
                        progress.failed += 1
                        said = exhausted(exc) or (f"unexpected error: {type(exc).__name__}: {message_line(exc)} "
                                                  "(rerun with -v for the details, and please report it)")
                        progress.warnings.append(f"{found.source}: {said}")
                        notify(progress)
                        continue
                    if not isinstance(result, Document):
                        progress.bytes_done += found.size
                    if isinstance(result, (Unchanged, Failed, Excluded)) and result.found is not None:
                        found = result.found  # the stat of the bytes read
                    if isinstance(result, Unchanged):
                        progress.skipped += 1
                        known = stored.get(found.source)
                        stat = stored_stat(found)
                        if known and known.stat != stat:
                            touched.append((found.source, stat))
                            if len(touched) >= TOUCHED_BATCH:
                                flush_touched()
                    elif isinstance(result, Failed):
                        if result.known:
                            progress.still_failing += 1
                        else:
                            progress.failed += 1
                            progress.warnings.append(result.reason)
                        state = excluded_state(found, result.content_hash, result.reason, failure=True)
                        if _was_marked(marks, found.source) or exclusions.get(found.source) != state:
                            guard()
                            self.index.record_exclusion(found.source, state, current=still(found))
                    elif isinstance(result, Vanished):
                        log.info("gone before it was read: %s", found.source)
                        progress.vanished += 1
                        if found.source in stored or found.source in exclusions:
                            guard()
                            # Only while it is still gone: another writer may have indexed the file written again.
                            progress.deleted += self.index.delete_sources(
                                [found.source], current=lambda source: not os.path.lexists(source))
                    elif isinstance(result, Excluded):
                        log.info("excluded %s (%s)", found.source, result.reason)
                        progress.excluded += 1
                        previous = exclusions.get(found.source)
                        state = excluded_state(found, result.content_hash, result.reason)
                        if _was_marked(marks, found.source) or previous != state:
                            guard()
                            progress.deleted += self.index.record_exclusion(found.source, state, current=still(found))
                    else:
                        progress.warnings.extend(result.warnings)
                        group.append(result)
                        # The first group is small so the encoder starts while conversion runs ahead.
                        if sum(len(d.chunked.chunks) for d in group) >= (GROUP_CHUNKS if progress.done else 32):
                            flush()
                    notify(progress)
                if progress.stop.is_set():
                    # Stopping (a server shutting down): files converted but not embedded yet are left
                    # for the next sync rather than held up for an encoder batch; what was written stays.
                    pool.shutdown(wait=False, cancel_futures=True)
                    flush_touched()
                else:
                    flush()
        finally:  # every converting thread has ended: what is still marked was left unfinished, not killed
            _clear_marks_if_guarded(self.index, [(source, reason) for source, reason in marks.items() if reason],
                                    guard)
        progress.current = None


@contextlib.contextmanager
def _stopped_if_left(pool: ThreadPoolExecutor, progress: Progress) -> Iterator[None]:
    """Ctrl-C or a stop signal lands in this thread, and the pool's exit then waits for every
    conversion in hand: each is told to stop (its worker ended within a tenth of a second), and
    none not yet started starts, where they had run on to their time limits. Only then: a run's
    stop may be its owner's (the watcher's), which a failed pass must not end."""
    try:
        yield
    except KeyboardInterrupt:  # SIGTERM and SIGHUP too (cli._Terminated)
        progress.stop.set()
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    except BaseException:  # the run ends (its lock lost, the index unwritable): no file not yet begun begins
        pool.shutdown(wait=False, cancel_futures=True)
        raise


def _clear_marks_if_guarded(index: Index, marks: list[tuple[str, str]], guard: Callable[[], None]) -> None:
    """The marks left in place cleared, unless `guard` refuses: a run that lost its lock leaves them,
    to read as conversions begun and not finished (the next sync converts those files again, alone),
    and its caller's own check of the lock says it was lost."""
    if not marks:
        return
    try:
        guard()
    except MiniragError:
        return
    index.clear_marks(marks)


def _was_marked(marks: dict[str, str | None], source: str) -> bool:
    """Whether this run marked `source` (so its exclusion row must be written again), forgetting it."""
    if source not in marks:
        return False
    del marks[source]
    return True


def _ahead(pool: ThreadPoolExecutor, items: Iterable[FoundFile], fn) -> Iterator[tuple[FoundFile, Future]]:
    """Submit items ahead of the consumer within LOOKAHEAD_FILES and LOOKAHEAD_BYTES, yielding in order."""
    pending: deque[tuple[FoundFile, Future]] = deque()
    pending_bytes = 0
    for item in items:
        while pending and (len(pending) >= LOOKAHEAD_FILES or pending_bytes + item.size > LOOKAHEAD_BYTES):
            pending_bytes -= pending[0][0].size  # the oldest file, handed on now
            yield pending.popleft()
        # In the consumer's context: the bound on its runs (interruptible.RunBound, a call's cancellation)
        # stops the conversion in hand too.
        pending.append((item, pool.submit(functools.partial(contextvars.copy_context().run, fn), item)))
        pending_bytes += item.size
    while pending:
        yield pending.popleft()
