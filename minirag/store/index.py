"""The one owner of the index's tables: every write, every non-search read, the `meta` keys.

Replacing a source is atomic: the caller embeds everything first, then
`replace_sources` deletes the old rows and inserts the new ones in one
transaction, so a reader sees a source wholly old or wholly new.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import logging
import os
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from minirag.chunking import SCHEME_VERSION, ChunkedDocument, Section, SheetRows
from minirag.display import NOTICE, duration, shown
from minirag.errors import IndexUnavailable, InvalidArgument, NotFound
from minirag.keyword_scheme import KEYWORD_SCHEME
from minirag.store import connection as db
from minirag.store import held_files, schema, wal
from minirag.store.checkpoint import Checkpointer

if TYPE_CHECKING:  # numpy and the vector modules are imported where vectors are written or read
    import numpy as np

    from minirag import keywords  # and the stemmers where keyword texts are made (_keyword_texts)
    from minirag.store import codes

log = logging.getLogger(__name__)

T = TypeVar("T")

REPORT_EVERY_S = 10.0  # how often a re-tokenize says how far it is (a million chunks take minutes)

# The `meta` keys, all in one place.
META_SCHEMA = schema.META_SCHEMA  # written by schema.migrate
META_MODEL = "model_id"
META_DIMENSION = "dimension"
META_CHUNK_SCHEME = "chunk_scheme"
META_KEYWORD_SCHEME = "keyword_scheme"
META_KEYWORD_LANGUAGES = "keyword_languages"  # JSON {language: chunks identified as it} (keywords.py)
META_GENERATION = "generation"
META_GIT_STATE = "git_state"
META_MODEL_PATH = "model_path"  # the MODEL_PATH directory the index was last written with, if any
_SET_META = "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value"

_IN_BATCH = 500  # ids per `IN (...)` list, well under SQLite's parameter limit


def _rows_columns(rows: SheetRows | None) -> tuple[str | None, int | None, int | None]:
    """A passage's sheet and rows as the columns sheet, row_start, row_end hold them."""
    return (None, None, None) if rows is None else (rows.sheet, rows.first, rows.last)


def text_hash(text: str) -> str:
    return hashlib.blake2b(text.encode("utf-8"), digest_size=16).hexdigest()


# A file's stat as recorded beside its bytes (scan.FileStat): None where unknown (never equal to a stat).
StoredStat = tuple[int | None, int | None, int | None, int | None]


@dataclass(frozen=True)
class SourceRecord:
    source: str
    kind: str  # file | data | url
    title: str
    content_hash: str
    size: int | None = None
    mtime_ns: int | None = None
    category: str = "generic"
    lifecycle: str = "active"
    chunk_budget: int | None = None  # the token budget it was cut at
    note: str = ""  # what conversion left out ("2 of 9 pages had no text; install the ocr extra ...")
    ctime_ns: int | None = None  # with size, mtime_ns and inode: the file's stat (scan.FileStat) as read
    inode: int | None = None


@dataclass(frozen=True)
class PreparedSource:
    record: SourceRecord
    document: ChunkedDocument
    vectors: np.ndarray  # (len(document.chunks), dimension) float32, L2-normalized
    # The document's keywords.keyword_texts, made ahead (a sync makes them in its conversion threads,
    # off the thread that writes); None: made here while writing.
    keyword_texts: tuple[keywords.KeywordText, ...] | None = None


@dataclass(frozen=True)
class StoredState:
    content_hash: str
    size: int | None
    mtime_ns: int | None
    scheme: int
    chunk_budget: int | None = None
    note: str = ""
    ctime_ns: int | None = None  # None: unknown (too fresh when read, or recorded before migration 10)
    inode: int | None = None

    @property
    def stat(self) -> StoredStat:
        return self.size, self.mtime_ns, self.ctime_ns, self.inode


@dataclass(frozen=True)
class ExcludedState:
    """A file left out of the index, and the bytes that asked for it: on purpose (`rag: false`),
    or (`failure`) because those bytes could not be converted."""

    content_hash: str
    size: int | None
    mtime_ns: int | None
    scheme: int
    reason: str
    failure: bool = False
    ctime_ns: int | None = None
    inode: int | None = None

    @property
    def stat(self) -> StoredStat:
        return self.size, self.mtime_ns, self.ctime_ns, self.inode


@dataclass(frozen=True, slots=True)
class SourceRow:
    """One indexed source as the `sources` table holds it, with its chunk count."""

    id: int
    source: str
    kind: str  # file | data | url
    title: str
    content_hash: str
    size: int | None
    mtime_ns: int | None
    scheme: int
    category: str
    lifecycle: str
    ingested_at: str
    chunk_count: int
    chunk_budget: int | None  # None: cut before the budget was recorded (migration 4)
    note: str


@dataclass(frozen=True, slots=True)
class ChunkRow:
    """One chunk of a source, in a window around a target chunk (`read_chunk_neighbors`)."""

    source: str
    chunk_index: int
    text: str
    parent_id: int
    page_start: int | None
    page_end: int | None
    is_target: bool
    rows: SheetRows | None = None  # a spreadsheet's: its sheet and rows


@dataclass(frozen=True, slots=True)
class IndexStats:
    source_count: int
    chunk_count: int
    section_count: int
    stale_chunk_count: int  # cut by an older chunking scheme
    chunk_scheme: int
    index_model: str | None  # None: nothing indexed yet
    dimension: int | None
    schema_version: int
    sqlite_version: str
    # The keyword scheme the FTS table was written with, when not KEYWORD_SCHEME ("none
    # recorded" for an index from before it was kept): only a read-only open leaves it so.
    stale_keyword_scheme: str | None = None


_UPSERT_EXCLUSION = """
    INSERT INTO exclusions (source, content_hash, size, mtime_ns, scheme, reason, failure, checked_at, ctime_ns,
                            inode)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
    ON CONFLICT(source) DO UPDATE SET content_hash = excluded.content_hash, size = excluded.size,
        mtime_ns = excluded.mtime_ns, scheme = excluded.scheme, reason = excluded.reason,
        failure = excluded.failure, checked_at = excluded.checked_at, ctime_ns = excluded.ctime_ns,
        inode = excluded.inode
"""


_EXCLUSION_COLUMNS = "content_hash, size, mtime_ns, scheme, reason, failure, ctime_ns, inode"


def _excluded_state(row: Sequence) -> ExcludedState:
    """An ExcludedState from a row of _EXCLUSION_COLUMNS."""
    content_hash, size, mtime_ns, scheme, reason, failure, ctime_ns, inode = db.stored_row(row, _EXCLUSION_KINDS,
                                                                                        "exclusions")
    return ExcludedState(content_hash, size, mtime_ns, scheme, reason, failure=bool(failure), ctime_ns=ctime_ns,
                         inode=inode)


def _keyword_texts(texts: Sequence[str], title: str) -> tuple[keywords.KeywordText, ...]:
    from minirag.keywords import keyword_texts

    return keyword_texts(texts, title)


def stale_keywords_warning(stored: str) -> str:
    """What a read-only open of an index with another keyword scheme tells the user."""
    which = "a newer" if stored.isdigit() and int(stored) > KEYWORD_SCHEME else "an older"
    return (f"its keyword index was written by {which} minirag (keyword scheme {stored}; this one writes "
            f"{KEYWORD_SCHEME}), so keyword search may miss words until it is opened once without "
            "--read-only (`minirag sync`), which re-tokenizes it from the stored chunks, with no re-embedding")


def _marks(values: Sequence) -> str:
    return ",".join("?" * len(values))


def _batches(values: Sequence, size: int = _IN_BATCH):
    for start in range(0, len(values), size):
        yield values[start : start + size]


# The Python types of the columns each read takes (connection.stored_row), in its SELECT's order.
_TEXT_OR_NULL = (str, type(None))
_SOURCE_KINDS = (db.INT, db.TEXT, db.TEXT, db.TEXT, db.TEXT, db.INT_OR_NULL, db.INT_OR_NULL, db.INT, db.TEXT,
                 db.TEXT, db.TEXT, db.INT, db.INT_OR_NULL, db.TEXT)
_TEXT_OR_NULL = (str, type(None))
_SHEET_ROWS_KINDS = (_TEXT_OR_NULL, db.INT_OR_NULL, db.INT_OR_NULL)  # sheet, row_start, row_end
_SECTION_KINDS = (db.TEXT, db.INT_OR_NULL, db.INT_OR_NULL, db.INT, *_SHEET_ROWS_KINDS)
_WINDOW_KINDS = (db.INT, db.TEXT, db.INT, db.INT_OR_NULL, db.INT_OR_NULL, *_SHEET_ROWS_KINDS)
_EXCLUSION_KINDS = (db.TEXT, db.INT_OR_NULL, db.INT_OR_NULL, db.INT, db.TEXT, db.INT, db.INT_OR_NULL, db.INT_OR_NULL)
_STATE_KINDS = (db.TEXT, db.TEXT, db.INT_OR_NULL, db.INT_OR_NULL, db.INT, db.INT_OR_NULL, db.TEXT, db.INT_OR_NULL,
                db.INT_OR_NULL)


def _past(stored: str, ours: int) -> bool:
    """Whether a stored scheme number is past `ours`, compared as digits: int() refuses over 4,300
    of them, and str.isdigit() takes digits int() does not read ('²'), each an internal error on an
    index someone else wrote. Anything but ASCII digits is no newer scheme (a write re-cuts it)."""
    if not (stored.isascii() and stored.isdigit()):
        return False
    digits, mine = stored.lstrip("0"), str(ours)
    return (len(digits), digits) > (len(mine), mine)


def model_recorded_in(conn: db.Connection) -> tuple[str, int] | None:
    """The model and vector width an index's meta records, in a schema of any version (doctor reads
    an older one without upgrading it); None before its first ingest."""
    values = dict(conn.execute("SELECT key, value FROM meta WHERE key IN (?, ?)", (META_MODEL, META_DIMENSION)))
    model, dim = db.stored_row((values.get(META_MODEL), values.get(META_DIMENSION)), (_TEXT_OR_NULL,) * 2, "meta")
    return (model, db.stored_value(META_DIMENSION, dim, int)) if model and dim else None


class Index:
    """An open index file. Create one per process and share it; methods are short transactions.

    `checkpoints` False leaves every checkpoint to Litestream, which replicates
    the file (store/checkpoint.py); otherwise each committed write is folded
    into the .db file before the method returns.
    """

    def __init__(self, path: Path, *, read_only: bool = False, checkpoints: bool = True):
        self.path = Path(path)
        self.read_only = read_only
        self.checkpoints = checkpoints and not read_only
        if read_only and not self.path.exists():
            raise IndexUnavailable(f"no index at {self.path}; run `minirag sync` first")
        # A reader opened `immutable` (read_only_uri: no -wal and -shm to read through, and it makes
        # none) caches pages for good, so its file is watched for any change; every thread's
        # connection opens the same way, decided here, before anything is read.
        self.immutable = read_only and db.opens_immutable(self.path)
        self.watch_contents = self.immutable
        opened = db.identity(self.path, contents=self.watch_contents)
        self._local = threading.local()
        self._all: list = []
        self._all_lock = threading.Lock()
        self._marks_lock = threading.Lock()
        self._marks_conn = None  # mark_converting's own connection, shared by the converting threads
        self.wrote = False  # whether this object committed a write (see close)
        self.fold_failed = False  # whether folding a write into the file failed (see _committed)
        self.checkpointer = Checkpointer(lambda: db.connect(self.path)) if self.checkpoints else None
        # Before the first connection: a writable one's close folds the -wal into the file. An
        # immutable reader never reads it, but says whose it is, as every command does.
        wal.refuse_foreign(self.path, thorough=self.checkpoints)
        with db.as_index_errors(self.path):
            if read_only:
                version = schema.schema_version(self.conn)
                if version > schema.SCHEMA_VERSION:
                    raise IndexUnavailable(schema.too_new(version))
                if version == 0 and schema.holds_no_tables(self.conn):
                    # What a first sync that failed before its schema leaves (its disk full, say):
                    # there is nothing to upgrade, only an index to build.
                    raise IndexUnavailable(f"the index file {self.path} holds no index yet (no sync finished building "
                                           "it); a writer must build it first (this one is read-only), or check "
                                           "DB_PATH")
                if version < schema.READ_SCHEMA:
                    raise IndexUnavailable(
                        f"index {self.path} has schema version {version}, expected {schema.SCHEMA_VERSION}; "
                        "open it once without --read-only to upgrade"
                    )
                if db.unread_wal(self.path):
                    log.warning("%s-wal holds writes not yet in the index file, and without its -shm a read-only "
                                "open cannot read them (it would have to make one): searches see the index as of "
                                "its last checkpoint, until a writer opens it", self.path)
                stale = self.stale_keyword_scheme()
                if stale is not None:
                    log.warning("%s: %s", self.path, stale_keywords_warning(stale))
            else:
                if schema.schema_version(self.conn) != schema.SCHEMA_VERSION:
                    self.ensure_same_file()  # the upgrade is a write, as any other
                if schema.migrate(self.conn, home=os.path.realpath(self.path)):
                    self._committed()
                self._refuse_newer_schemes()
                self._refresh_keywords()
        # The file this object writes to: every write checks the path still names it. An immutable
        # reader's, as it was before its first read: a change since then is one it may have missed.
        self.identity = opened if self.immutable else db.identity(self.path)

    @property
    def conn(self) -> db.Connection:
        """This thread's connection. One per thread, so a query never sees another
        thread's open transaction (a sync's half-written source) through a shared handle."""
        conn = getattr(self._local, "conn", None)
        if conn is None:
            try:
                conn = db.connect(self.path, read_only=self.read_only, auto_checkpoint=self.checkpoints,
                                  immutable=self.immutable if self.read_only else None)
            except (db.DatabaseError, OSError) as exc:
                raise db.index_error(exc, self.path) from None
            self._local.conn = conn
            with self._all_lock:
                self._all.append(conn)
        return conn

    def close(self) -> None:
        if self.checkpointer is not None:
            self.checkpointer.close()
        with self._all_lock:
            conns, self._all = self._all, []
        self._marks_conn = None
        for i, conn in enumerate(conns):
            # The last one to close folds the WAL back into the main file and empties it, if this
            # object wrote: a TRUNCATE checkpoint waits for any writer, and a query's close must not.
            db.close(conn, checkpoint=self.checkpoints and self.wrote and not self.fold_failed and i == len(conns) - 1)
        self._local = threading.local()
        held_files.release_unshared()

    def __enter__(self) -> Index:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _transaction(self, *, searchable: bool = True):
        self.ensure_same_file()
        return _Transaction(self.conn, on_commit=self._committed, searchable=searchable)

    def _committed(self) -> None:
        """After every committed write: fold it into the .db file, so a plain copy is complete."""
        self.wrote = True
        if self.checkpointer is not None:
            try:
                self.checkpointer.after_commit(self.conn)
            except db.DatabaseError as exc:  # the write is committed: the disk failed to take it into the file
                self.fold_failed = True  # said once, here: the close tries no fold of its own
                raise db.index_error(exc, self.path) from exc

    def file_state(self) -> str:
        """"same" while the path names the file this object opened; else "gone" or "replaced", or
        "written" where an immutable reader's file was written elsewhere since it was opened."""
        now = db.identity(self.path, contents=self.watch_contents)
        if now is None:
            return "gone"
        opened = getattr(self, "identity", now)
        if opened == now:
            return "same"
        return "written" if self.watch_contents and opened[:2] == now[:2] else "replaced"

    def ensure_same_file(self) -> None:
        """Refuse to go on with a file the path no longer names: a write there would vanish."""
        state = self.file_state()
        if state == "gone":
            raise IndexUnavailable(
                f"the index file {self.path} was deleted while minirag had it open; nothing more is written "
                "to it. Restore a backup there, or run `minirag sync` to rebuild it")
        if state == "replaced":
            raise IndexUnavailable(f"the index file {self.path} was replaced by another file while minirag had "
                                   "it open; retry to use the new file")
        if (linked := db.other_names(self.path)) is not None:  # a link made since the open
            raise IndexUnavailable(linked)

    # --- meta ------------------------------------------------------------------

    def meta(self, key: str) -> str | None:
        row = self.conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return db.stored_row(row, (db.TEXT,), "meta")[0] if row else None

    def holds_sources(self) -> bool:
        return bool(self.conn.execute("SELECT EXISTS (SELECT 1 FROM sources)").fetchone()[0])

    def files_outside(self, roots: Sequence[str]) -> tuple[int, str, str] | None:
        """(how many, the first, the last by name) of the index's files where none is stored under any
        of `roots` (each a folder, `/` included); None where one is, or it holds no file. A range of the
        source column's index per root, then one count: cheap on an index of any size."""
        for root in roots:
            prefix = root.rstrip("/") + "/"
            if self.conn.execute("SELECT EXISTS (SELECT 1 FROM sources WHERE source >= ? AND source < ?)",
                                 (prefix, prefix[:-1] + "0")).fetchone()[0]:
                return None
        count, first, last = self.conn.execute(
            "SELECT count(*), min(source), max(source) FROM sources WHERE kind = 'file'").fetchone()
        return (count, first, last) if count else None

    def files_ending(self, tail: str, limit: int) -> list[str]:
        """Up to `limit` indexed files whose path ends with `/tail` (`install.md`, `guide/a.md`), by name."""
        rows = self.conn.execute(
            "SELECT source FROM sources WHERE kind = 'file' AND substr(source, -?) = ? ORDER BY source LIMIT ?",
            (len(tail) + 1, "/" + tail, limit))
        return [db.stored_row(row, (db.TEXT,), "sources")[0] for row in rows]

    def holds_sources_other_than_files(self) -> bool:
        """Whether any source is data or a URL: text no file of the roots stands for."""
        return bool(self.conn.execute("SELECT EXISTS (SELECT 1 FROM sources WHERE kind != 'file')").fetchone()[0])

    def set_meta(self, key: str, value: str) -> None:
        """Nothing searchable changes, so the generation stays."""
        self.ensure_same_file()
        self._written(lambda: self.conn.execute(_SET_META, (key, value)))
        self._committed()

    def _written(self, write: Callable[[], T]) -> T:
        """`write()`, retried while another connection holds the write lock, which is said once."""
        return db.with_retry(write, waiting=db.lock_wait_message(self.path))

    def set_meta_unless_busy(self, key: str, value: str) -> bool:
        """set_meta without waiting: False, writing nothing, while another connection writes (a sync),
        or where the file has other names, which a write must not go through (other_names)."""
        if db.other_names(self.path) is not None:
            return False
        self.ensure_same_file()
        self.conn.execute("PRAGMA busy_timeout = 0")
        try:
            self.conn.execute(_SET_META, (key, value))
        except db.OperationalError as exc:
            if "locked" in str(exc) or "busy" in str(exc):
                return False
            raise
        finally:
            self.conn.execute(f"PRAGMA busy_timeout = {db.BUSY_TIMEOUT_MS}")
        self._committed()
        return True

    def generation(self) -> int:
        """Moves on every committed write (see _Transaction)."""
        return int(self.meta(META_GENERATION) or 0)

    def _refuse_newer_schemes(self) -> None:
        """IndexUnavailable where a newer minirag wrote the index: at its open, and in each write
        of chunks (a newer one may have re-tokenized it since this one opened it)."""
        if (newer := self.newer_schemes()) is not None:
            raise IndexUnavailable(
                f"the index {self.path} was written by a newer minirag ({newer}); a write by this "
                "one would undo its work: upgrade minirag, or open the index with --read-only")

    def newer_schemes(self) -> str | None:
        """Which of the index's schemes a newer minirag wrote, past this one's, or None. Under the
        same schema version an older minirag would re-cut and re-tokenize the index back to its own
        schemes, and drop the files of types it does not read."""
        newer = []
        for key, ours, what in ((META_CHUNK_SCHEME, SCHEME_VERSION, "chunking"),
                                (META_KEYWORD_SCHEME, KEYWORD_SCHEME, "keyword")):
            stored = self.meta(key)
            if stored is not None and _past(stored, ours):
                newer.append(f"{what} scheme {shown(stored, 20)}, this one's {ours}")
        return "; ".join(newer) or None

    def stale_keyword_scheme(self) -> str | None:
        """The keyword scheme the FTS table was written with, if not this minirag's (IndexStats)."""
        stored = self.meta(META_KEYWORD_SCHEME)
        if stored == str(KEYWORD_SCHEME):
            return None
        if stored is None and not self.conn.execute("SELECT 1 FROM chunks LIMIT 1").fetchone():
            return None  # nothing indexed: nothing to re-tokenize
        return stored or "none recorded"

    def _refresh_keywords(self) -> None:
        """Record the chunk scheme being written now, and rebuild the FTS table when
        keyword normalization changed since it was written."""
        if self.meta(META_CHUNK_SCHEME) not in (None, str(SCHEME_VERSION)):
            self.set_meta(META_CHUNK_SCHEME, str(SCHEME_VERSION))
        current = str(KEYWORD_SCHEME)
        if self.meta(META_KEYWORD_SCHEME) == current:
            return

        def rebuild() -> int | None:
            with self._transaction():
                # Read again under the write lock: another process opening the index at the same time
                # (a server and a sync) may have rebuilt it while this one waited for the lock.
                if self.meta(META_KEYWORD_SCHEME) == current:
                    return None
                # Made anew rather than emptied: the table's tokenizer is the one in force too.
                self.conn.execute("DROP TABLE chunks_fts")
                self.conn.execute(schema.FTS_TABLE_SQL)
                total = self.conn.execute("SELECT COUNT(*) FROM chunks").fetchone()[0]
                if total:
                    log.warning("re-tokenizing the keyword index of %s (%d chunks, no re-embedding)",
                                self.path, total, extra=NOTICE)
                # A source's chunks together: keyword_texts reads a document as a whole.
                rows = self.conn.execute(
                    "SELECT c.source_id, c.id, c.text, s.title FROM chunks c JOIN sources s ON s.id = c.source_id "
                    "ORDER BY c.source_id, c.ord"
                )
                counts: dict[str, int] = {}
                done, started = 0, time.monotonic()
                last = started
                for _, group in itertools.groupby(rows, key=lambda row: row[0]):
                    source = list(group)
                    made = _keyword_texts([text for _, _, text, _ in source], source[0][3])
                    self.conn.executemany("INSERT INTO chunks_fts (rowid, body, title, scripts) VALUES (?, ?, ?, ?)",
                                          [(cid, *self._fts_row(one, counts))
                                           for (_, cid, _, _), one in zip(source, made, strict=True)])
                    done += len(source)
                    if (now := time.monotonic()) - last >= REPORT_EVERY_S and done < total:
                        last = now
                        log.warning("  keyword index: %d/%d chunks, ETA %s", done, total,
                                    duration((now - started) * (total - done) / done), extra=NOTICE)
                # FTS5 keeps the old terms' deletions in its segments until they merge: merged now,
                # or the table holds both spellings for a long while.
                self.conn.execute("INSERT INTO chunks_fts (chunks_fts) VALUES ('optimize')")
                self.conn.executemany(
                    "INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)",
                    [(META_KEYWORD_SCHEME, current), (META_KEYWORD_LANGUAGES, json.dumps(counts, sort_keys=True))],
                )
            return total

        patience = db.upgrade_patience_s(self.conn)
        rebuilt = db.with_retry(rebuild, patience_s=patience, waiting=db.upgrade_wait_message(self.path, patience))
        if rebuilt:
            log.warning("rebuilt the keyword index of %s (%d chunks)", self.path, rebuilt, extra=NOTICE)

    @staticmethod
    def _fts_row(made: keywords.KeywordText, counts: dict[str, int]) -> tuple[str, str, str]:
        """(body, title, scripts) for the FTS table; the chunk's language counted in `counts`."""
        if made.language is not None:
            counts[made.language] = counts.get(made.language, 0) + 1
        return made.body, made.title, made.scripts

    def _count_languages(self, counts: dict[str, int]) -> None:
        if not counts:
            return
        stored = db.stored_value(META_KEYWORD_LANGUAGES, self.meta(META_KEYWORD_LANGUAGES) or "{}", db.json_counts)
        for lang, n in counts.items():
            stored[lang] = stored.get(lang, 0) + n
        self.conn.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)",
                          (META_KEYWORD_LANGUAGES, json.dumps(stored, sort_keys=True)))

    # --- the model binding ---------------------------------------------------

    def bound_model(self) -> tuple[str, int] | None:
        """The model and width the index records, for a query or a write: one whose vector table is
        not the one minirag makes for that width, or whose keyword table is none a minirag made, is a
        damaged index (SQLite's corruption error, which index_error says as such), not a query failing
        in sqlite-vec's or FTS5's words."""
        if (problem := schema.keyword_table_problem(self.conn)) is not None:
            raise db.DatabaseError(f"database corrupt: {problem}")
        bound = model_recorded_in(self.conn)
        if bound is not None and (problem := schema.vector_table_problem(self.conn, bound[1])) is not None:
            raise db.DatabaseError(f"database corrupt: {problem}")
        return bound

    def bind_model(self, model_id: str, dimension: int) -> None:
        """Record the model on first use; refuse a different one afterwards."""
        bound = self.bound_model()
        if bound is not None:
            if bound != (model_id, dimension):
                raise IndexUnavailable(
                    f"index {self.path} was built with model {bound[0]} ({bound[1]}-d), "
                    f"but the configured model is {model_id} ({dimension}-d); "
                    "set MODEL_NAME/MODEL_PATH back, or use a new DB_PATH and re-sync"
                )
            return
        if self.read_only:
            raise IndexUnavailable(f"index {self.path} has no model recorded; run `minirag sync` first")

        def write() -> None:
            with self._transaction():
                self.conn.executemany(
                    "INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)",
                    [(META_MODEL, model_id), (META_DIMENSION, str(dimension)),
                     (META_CHUNK_SCHEME, str(SCHEME_VERSION))],
                )
                schema.create_vector_table(self.conn, dimension)

        self._written(write)

    def has_vectors(self) -> bool:
        return schema.has_vector_table(self.conn)

    # --- writes -------------------------------------------------------------

    def replace_sources(self, prepared: Sequence[PreparedSource],
                        current: Callable[[SourceRecord], bool] | None = None) -> int:
        """Replace each source's rows in one transaction. Returns chunks written. `current` is asked
        of each source inside the transaction, where no other writer can commit: False leaves it as it is."""
        if not prepared:
            return 0

        from minirag.store import codes, pending

        def write() -> int:
            written, new_codes = 0, _NewCodes()
            languages: dict[str, int] = {}
            used: list[str] = []
            with self._transaction():
                self._refuse_newer_schemes()  # its keywords are spelled as this minirag spells them
                codebook = codes.read_codebook(self.conn)
                for item in prepared:
                    if current is not None and not current(item.record):
                        continue
                    self._refuse_kind_change(item.record)
                    self._delete_rows(item.record.source, codebook)
                    self.conn.execute("DELETE FROM exclusions WHERE source = ?", (item.record.source,))
                    written += self._insert(item, new_codes, languages)
                    used.extend(text_hash(chunk.text) for chunk in item.document.chunks)
                pending.forget(self.conn, used)  # their vectors are stored now, with their chunks
                self._add_codes(codebook, new_codes)
                self._count_languages(languages)
            return written

        return self._written(write)

    def _refuse_kind_change(self, record: SourceRecord) -> None:
        """A data or url write never replaces a file's rows. (A file replaces a data row of its name,
        which only an index written before data ids had their own namespace can hold.)"""
        row = self.conn.execute("SELECT kind FROM sources WHERE source = ?", (record.source,)).fetchone()
        if row is not None and row[0] == "file" and record.kind != "file":
            raise InvalidArgument(f"{record.source} is indexed as a {row[0]} source; a {record.kind} source "
                                  "cannot replace it")

    def _add_codes(self, codebook: codes.Codebook | None, new: _NewCodes) -> None:
        """Code the new chunks; or, the first time the index is large enough, fit the codebook and code all."""
        import numpy as np

        from minirag.store import codes

        if codebook is not None:
            if new.ids:
                codes.add(self.conn, codebook, np.asarray(new.ids), np.stack(new.vectors), np.asarray(new.active))
        elif self.conn.execute("SELECT COALESCE(MAX(id), 0) FROM chunks").fetchone()[0] >= codes.CODES_FROM_CHUNKS:
            self.build_codes()

    def build_codes(self) -> None:
        """Fit the codebook on the vectors now stored and code every chunk (inside the caller's
        transaction, or one of its own). Done once, when the index first reaches
        codes.CODES_FROM_CHUNKS chunks; tests call it on small indexes."""
        from minirag.store import codes

        if self.conn.in_transaction:
            codes.build(self.conn)
            return
        with self._transaction(searchable=True):
            codes.build(self.conn)

    def _insert(self, item: PreparedSource, new_codes: _NewCodes, languages: dict[str, int]) -> int:
        import numpy as np

        rec, doc = item.record, item.document
        now = datetime.now(UTC).isoformat(timespec="seconds")
        source_id = self.conn.execute(
            """
            INSERT INTO sources (source, kind, title, content_hash, size, mtime_ns, scheme, category,
                                 lifecycle, ingested_at, chunk_budget, conversion_note, link_share,
                                 link_line_share, ctime_ns, inode)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """,
            (rec.source, rec.kind, rec.title, rec.content_hash, rec.size, rec.mtime_ns, SCHEME_VERSION,
             doc.category, rec.lifecycle, now, rec.chunk_budget, rec.note, doc.site_links.share,
             doc.site_links.line_share, rec.ctime_ns, rec.inode),
        ).lastrowid
        parent_ids = [
            self.conn.execute(
                """
                INSERT INTO parents (source_id, ord, text, page_start, page_end, context_lines,
                                     sheet, row_start, row_end)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
                (source_id, ord_, section.text, section.page_start, section.page_end, section.context_lines,
                 *_rows_columns(section.rows)),
            ).lastrowid
            for ord_, section in enumerate(doc.sections)
        ]
        made = item.keyword_texts or _keyword_texts([chunk.text for chunk in doc.chunks], rec.title)
        for ord_, (chunk, vector) in enumerate(zip(doc.chunks, item.vectors, strict=True)):
            chunk_id = self.conn.execute(
                """
                INSERT INTO chunks (source_id, ord, parent_id, text, tokens, text_hash, scheme,
                                    page_start, page_end, sheet, row_start, row_end)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
                (source_id, ord_, parent_ids[chunk.section], chunk.text, chunk.tokens, text_hash(chunk.text),
                 SCHEME_VERSION, chunk.page_start, chunk.page_end, *_rows_columns(chunk.rows)),
            ).lastrowid
            self.conn.execute(
                "INSERT INTO chunks_fts (rowid, body, title, scripts) VALUES (?, ?, ?, ?)",
                (chunk_id, *self._fts_row(made[ord_], languages)),
            )
            self.conn.execute(
                "INSERT INTO chunks_vec (chunk_id, embedding, lifecycle) VALUES (?, ?, ?)",
                (chunk_id, np.asarray(vector, dtype=np.float32).tobytes(), rec.lifecycle),
            )
            new_codes.ids.append(chunk_id)
            new_codes.vectors.append(np.asarray(vector, dtype=np.float32))
            new_codes.active.append(rec.lifecycle == "active")
        return len(doc.chunks)

    def _delete_rows(self, source: str, codebook: codes.Codebook | None) -> bool:
        row = self.conn.execute("SELECT id FROM sources WHERE source = ?", (source,)).fetchone()
        if row is None:
            return False
        source_id = row[0]
        chunk_ids = [r[0] for r in self.conn.execute("SELECT id FROM chunks WHERE source_id = ?", (source_id,))]
        with_vectors = self.has_vectors()
        for part in _batches(chunk_ids):
            self.conn.execute(f"DELETE FROM chunks_fts WHERE rowid IN ({_marks(part)})", part)
            if with_vectors:
                self.conn.execute(f"DELETE FROM chunks_vec WHERE chunk_id IN ({_marks(part)})", part)
        if codebook is not None:
            from minirag.store import codes

            codes.remove(self.conn, codebook, chunk_ids)
        self.conn.execute("DELETE FROM chunks WHERE source_id = ?", (source_id,))
        self.conn.execute("DELETE FROM parents WHERE source_id = ?", (source_id,))
        self.conn.execute("DELETE FROM sources WHERE id = ?", (source_id,))
        return True

    def delete_sources(self, sources: Iterable[str], current: Callable[[str], bool] | None = None,
                       keep_vectors: bool = False) -> int:
        """Drop sources (and any exclusion recorded for them); returns how many were indexed.
        `current` is asked of each source inside the transaction, where no other writer can
        commit: False leaves it as it is. `keep_vectors`: their vectors are kept for a later sync
        (store/pending.py)."""
        from minirag.store import codes

        sources = list(sources)

        def write() -> int:
            with self._transaction():
                kept = sources if current is None else [source for source in sources if current(source)]
                for part in _batches(kept):
                    self.conn.execute(f"DELETE FROM exclusions WHERE source IN ({_marks(part)})", part)
                if keep_vectors:
                    self._keep_vectors(kept)
                codebook = codes.read_codebook(self.conn)
                return sum(self._delete_rows(s, codebook) for s in kept)

        return self._written(write) if sources else 0

    def _keep_vectors(self, sources: list[str]) -> None:
        from minirag.store import pending

        bound = model_recorded_in(self.conn)
        if bound is None or not self.has_vectors() or not pending.has_table(self.conn):
            return
        ids = [row[0] for part in _batches(sources)
               for row in self.conn.execute(f"SELECT id FROM sources WHERE source IN ({_marks(part)})", part)]
        pending.keep_stored(self.conn, ids, *bound)

    def update_stats(self, stats: Sequence[tuple[str, StoredStat]]) -> None:
        """(source, stat) of files whose content is unchanged but which were touched:
        remembered so the fast path hits next time (an excluded file's too). Written in batches,
        since each commit costs a checkpoint (docs/benchmarks.md#behind-the-constants); nothing searchable changes, so the
        generation stays."""
        if not stats:
            return
        rows = [(*stat, source) for source, stat in stats]

        def write() -> None:
            with self._transaction(searchable=False):
                self.conn.executemany("UPDATE sources SET size = ?, mtime_ns = ?, ctime_ns = ?, inode = ? "
                                      "WHERE source = ?", rows)
                # These files hold their indexed bytes again: a failure recorded since is over.
                self.conn.executemany("DELETE FROM exclusions WHERE source = ? AND failure = 1",
                                      [(source,) for source, _stat in stats])
                self.conn.executemany("UPDATE exclusions SET size = ?, mtime_ns = ?, ctime_ns = ?, inode = ? "
                                      "WHERE source = ?", rows)

        self._written(write)

    def record_exclusion(self, source: str, state: ExcludedState, current: Callable[[], bool] | None = None) -> int:
        """Remember that ``source`` is left out, and why. One left out on purpose loses its indexed
        rows if it had any (returns how many sources that was: 0 or 1); one that failed keeps what
        was indexed from its earlier bytes (a file caught half-written must not vanish from search).
        `current` is asked inside the transaction: False records nothing (returns 0)."""
        now = datetime.now(UTC).isoformat(timespec="seconds")
        values = (source, state.content_hash, state.size, state.mtime_ns, state.scheme, state.reason,
                  int(state.failure), now, state.ctime_ns, state.inode)

        def write() -> int:
            indexed = not state.failure and self.conn.execute(
                "SELECT 1 FROM sources WHERE source = ?", (source,)).fetchone() is not None
            # Only dropping indexed rows changes what a search sees, so only then the generation moves.
            with self._transaction(searchable=indexed):
                if current is not None and not current():
                    return 0
                if indexed:
                    from minirag.store import codes

                    self._delete_rows(source, codes.read_codebook(self.conn))
                self.conn.execute(_UPSERT_EXCLUSION, values)
            return int(indexed)

        return self._written(write)

    def mark_converting(self, source: str, state: ExcludedState) -> None:
        """Record, before its conversion starts, the failure a file's bytes become if minirag dies
        converting them; any thread may call it. Written on a connection of its own and not
        checkpointed (the next write's checkpoint folds it in), so it costs a commit, no fsync."""
        values = (source, state.content_hash, state.size, state.mtime_ns, state.scheme, state.reason, 1,
                  datetime.now(UTC).isoformat(timespec="seconds"), state.ctime_ns, state.inode)
        self._write_mark(_UPSERT_EXCLUSION, values)

    def unmark_converting(self, source: str, reason: str) -> None:
        """The conversion mark_converting recorded has ended well: the mark goes (any thread)."""
        self._write_mark("DELETE FROM exclusions WHERE source = ? AND failure = 1 AND reason = ?", (source, reason))

    def _write_mark(self, sql: str, values: tuple) -> None:
        self.ensure_same_file()
        with self._marks_lock:
            conn = self._marks_conn
            if conn is None:
                conn = self._marks_conn = db.connect(self.path, auto_checkpoint=self.checkpoints)
                with self._all_lock:
                    self._all.append(conn)

            def write() -> None:
                with _Transaction(conn, searchable=False):
                    conn.execute(sql, values)

            if self._writing_elsewhere_here(conn):  # the holder: a sync's batch, its codes' fit; no other writer
                db.with_retry(write)
            else:
                self._written(write)
            self.wrote = True

    def _writing_elsewhere_here(self, conn: db.Connection) -> bool:
        """Whether another of this index's connections than `conn` is inside a transaction now."""
        with self._all_lock:
            return any(other is not conn and other.in_transaction for other in self._all)

    def clear_marks(self, marks: Sequence[tuple[str, str]]) -> None:
        """Forget (source, reason) marks from mark_converting still in place: conversions that did
        not die but were left unfinished (a sync stopped); a failure recorded since stays."""
        if not marks:
            return

        def write() -> None:
            with self._transaction(searchable=False):
                self.conn.executemany("DELETE FROM exclusions WHERE source = ? AND failure = 1 AND reason = ?",
                                      marks)

        self._written(write)

    # --- reads ---------------------------------------------------------------

    def stored_states(self, kind: str | None = None) -> dict[str, StoredState]:
        sql = ("SELECT source, content_hash, size, mtime_ns, scheme, chunk_budget, conversion_note, ctime_ns, inode "
               "FROM sources")
        rows = self.conn.execute(sql + " WHERE kind = ?", (kind,)) if kind else self.conn.execute(sql)
        return {r[0]: StoredState(*r[1:]) for r in (db.stored_row(row, _STATE_KINDS, "sources") for row in rows)}

    def state_of(self, source: str) -> tuple[StoredState | None, ExcludedState | None]:
        """`source`'s row and its exclusion row, as stored_states and excluded_states give them."""
        row = self.conn.execute("SELECT content_hash, size, mtime_ns, scheme, chunk_budget, conversion_note, "
                                "ctime_ns, inode FROM sources WHERE source = ?", (source,)).fetchone()
        left = self.conn.execute(f"SELECT {_EXCLUSION_COLUMNS} FROM exclusions WHERE source = ?", (source,)).fetchone()
        state = StoredState(*db.stored_row(row, _STATE_KINDS[1:], "sources")) if row else None
        return state, _excluded_state(left) if left else None

    def excluded_states(self) -> dict[str, ExcludedState]:
        rows = self.conn.execute(f"SELECT source, {_EXCLUSION_COLUMNS} FROM exclusions")
        return {row[0]: _excluded_state(row[1:]) for row in rows}

    def vectors_for_hashes(self, hashes: Iterable[str]) -> dict[str, np.ndarray]:
        """Vectors already stored for these chunk texts, so unchanged text is never re-embedded."""
        import numpy as np

        hashes = list(dict.fromkeys(hashes))
        found: dict[str, np.ndarray] = {}
        if not hashes or not self.has_vectors():
            return found
        for part in _batches(hashes):
            rows = self.conn.execute(
                f"""
                SELECT c.text_hash, v.embedding
                FROM chunks c JOIN chunks_vec v ON v.chunk_id = c.id
                WHERE c.text_hash IN ({_marks(part)})
                """,
                part,
            )
            for h, blob in rows:
                found.setdefault(h, np.frombuffer(blob, dtype=np.float32))
        return found

    # --- vectors of files not yet written (store/pending.py) ---------------------

    def pending_vectors(self, hashes: Iterable[str], model: str, dimension: int) -> dict[str, np.ndarray]:
        from minirag.store import pending

        return pending.lookup(self.conn, hashes, model, dimension)

    def save_pending(self, vectors: dict[str, np.ndarray], model: str, dimension: int) -> None:
        """Keep `vectors` for the next sync, in a transaction of their own (nothing searchable changes)."""
        from minirag.store import pending

        def write() -> None:
            with self._transaction(searchable=False):
                pending.save(self.conn, vectors, model, dimension)

        self._written(write)

    def holds_pending(self) -> bool:
        from minirag.store import pending

        return pending.count(self.conn) > 0

    def clear_pending(self) -> None:
        """Drop every vector kept for a file not written: a full sync finished, needing none."""
        def write() -> None:
            with self._transaction(searchable=False):
                self.conn.execute("DELETE FROM pending_vectors")

        self._written(write)

    _SOURCE_COLUMNS = """
        s.id, s.source, s.kind, s.title, s.content_hash, s.size, s.mtime_ns, s.scheme, s.category, s.lifecycle,
        s.ingested_at, (SELECT COUNT(*) FROM chunks c WHERE c.source_id = s.id), s.chunk_budget, s.conversion_note
    """

    def source_row(self, source: str) -> SourceRow:
        row = self.conn.execute(f"SELECT {self._SOURCE_COLUMNS} FROM sources s WHERE s.source = ?",
                                (source,)).fetchone()
        if row is None:
            raise NotFound(f"not indexed: {shown(source)}")
        return SourceRow(*db.stored_row(row, _SOURCE_KINDS, "sources"))

    def list_sources(self) -> list[SourceRow]:
        rows = self.conn.execute(f"SELECT {self._SOURCE_COLUMNS} FROM sources s ORDER BY s.source")
        return [SourceRow(*db.stored_row(r, _SOURCE_KINDS, "sources")) for r in rows]

    def sections(self, source: str) -> list[Section]:
        row = self.source_row(source)
        rows = self.conn.execute(
            "SELECT text, page_start, page_end, context_lines, sheet, row_start, row_end FROM parents "
            "WHERE source_id = ? ORDER BY ord",
            (row.id,),
        )
        return [Section(text, ps, pe, context_lines=cl, rows=SheetRows.stored(sheet, rs, re_))
                for text, ps, pe, cl, sheet, rs, re_ in (db.stored_row(r, _SECTION_KINDS, "parents") for r in rows)]

    def parents(self, ids: Iterable[int]) -> dict[int, str]:
        """Section text by parent id."""
        ids = sorted(set(ids))
        out: dict[int, str] = {}
        for part in _batches(ids):
            out.update(self.conn.execute(f"SELECT id, text FROM parents WHERE id IN ({_marks(part)})", part))
        return out

    def chunk_window(self, source: str, chunk_index: int, before: int, after: int) -> list[ChunkRow]:
        row = self.source_row(source)
        if not 0 <= chunk_index < row.chunk_count:
            raise NotFound(f"{shown(source)} has no chunk {chunk_index} (it has {row.chunk_count})")
        rows = self.conn.execute(
            """
            SELECT ord, text, parent_id, page_start, page_end, sheet, row_start, row_end FROM chunks
            WHERE source_id = ? AND ord BETWEEN ? AND ? ORDER BY ord
            """,
            (row.id, chunk_index - before, chunk_index + after),
        )
        return [ChunkRow(source, o, t, p, ps, pe, is_target=o == chunk_index, rows=SheetRows.stored(sheet, rs, re_))
                for o, t, p, ps, pe, sheet, rs, re_ in (db.stored_row(r, _WINDOW_KINDS, "chunks") for r in rows)]

    def counts_under(self, low: str, exact: str, high: str) -> tuple[int, int]:
        """(files, chunks) indexed at `exact` or in [low, high): a root's share of the index (search.Scope)."""
        return self.conn.execute(
            """
            SELECT COUNT(*), COALESCE(SUM((SELECT COUNT(*) FROM chunks c WHERE c.source_id = s.id)), 0)
            FROM sources s WHERE s.kind = 'file' AND (s.source = ? OR (s.source >= ? AND s.source < ?))
            """,
            (exact, low, high),
        ).fetchone()

    def stats(self) -> IndexStats:
        sources, chunks, sections, stale = self.conn.execute(
            """
            SELECT (SELECT COUNT(*) FROM sources), (SELECT COUNT(*) FROM chunks),
                   (SELECT COUNT(*) FROM parents), (SELECT COUNT(*) FROM chunks WHERE scheme < ?)
            """,
            (SCHEME_VERSION,),
        ).fetchone()
        bound = model_recorded_in(self.conn)  # as recorded: status and doctor report a table out of step
        return IndexStats(
            source_count=sources, chunk_count=chunks, section_count=sections, stale_chunk_count=stale,
            chunk_scheme=SCHEME_VERSION, index_model=bound[0] if bound else None,
            dimension=bound[1] if bound else None, schema_version=schema.schema_version(self.conn),
            sqlite_version=db.sqlite_version(), stale_keyword_scheme=self.stale_keyword_scheme(),
        )


@dataclass
class _NewCodes:
    """The chunks one write transaction inserts, coded together at its end."""

    ids: list[int] = field(default_factory=list)
    vectors: list[np.ndarray] = field(default_factory=list)
    active: list[bool] = field(default_factory=list)


class _Transaction:
    """BEGIN IMMEDIATE ... COMMIT, rolling back on any exception (including KeyboardInterrupt).

    `on_commit` runs after a successful COMMIT (the checkpoint); `searchable` False
    (a write no search reads) leaves the generation where it is."""

    def __init__(self, conn, *, on_commit=None, searchable: bool = True):
        self.conn = conn
        self.on_commit = on_commit
        self.searchable = searchable

    def __enter__(self):
        self.conn.execute("BEGIN IMMEDIATE")
        return self.conn

    def __exit__(self, exc_type, exc, tb):
        if exc_type is None and self.searchable:
            # Every committed write moves the generation, so in-memory caches of
            # the index (search/vector.py) know they are stale, in any process.
            self.conn.execute(
                """
                INSERT INTO meta (key, value) VALUES (?, 1)
                ON CONFLICT(key) DO UPDATE SET value = CAST(value AS INTEGER) + 1
                """,
                (META_GENERATION,),
            )
        if exc_type is None:
            self.conn.execute("COMMIT")
        elif self.conn.in_transaction:  # SQLite has already rolled back after an I/O error or a full disk
            self.conn.execute("ROLLBACK")
        if exc_type is None and self.on_commit is not None:
            self.on_commit()
        return False
