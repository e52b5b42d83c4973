"""The index's tables, as numbered migrations applied in order and recorded.

Each migration is one small function, one change, applied inside a
transaction and recorded in `migrations`. Never edit a released migration:
add a new one.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable

from minirag.errors import IndexUnavailable
from minirag.store.connection import (
    Connection,
    upgrade_patience_s,
    upgrade_wait_message,
    with_retry,
)

log = logging.getLogger(__name__)


# True once the vec0 table exists (a model is bound): one SQL expression, so a statement can fold it in.
HAS_VECTOR_TABLE = "EXISTS (SELECT 1 FROM sqlite_master WHERE name = 'chunks_vec')"


# The FTS5 table as every keyword rebuild makes it anew (store/index.py), whatever _m001_core made:
# combining marks (M*) are token characters, so a word keeps its vowel signs and viramas
# (Devanagari, Tamil, Thai) as keywords.py's words do; by default FTS5 splits a word at each.
FTS_TOKENIZER = "unicode61 remove_diacritics 2 categories 'L* N* Co M*'"
# `scripts`, not searched, holds the writing systems the chunk is written in (keywords.KeywordText).
FTS_TABLE_SQL = (f"""CREATE VIRTUAL TABLE chunks_fts USING fts5(body, title, scripts UNINDEXED, """
                 f"""tokenize = "{FTS_TOKENIZER}")""")


def has_vector_table(conn: Connection) -> bool:
    return bool(conn.execute(f"SELECT {HAS_VECTOR_TABLE}").fetchone()[0])


def _script(conn: Connection, sql: str) -> None:
    """Run DDL statements inside the caller's transaction (executescript would COMMIT it)."""
    for statement in sql.split(";\n"):
        if statement.strip():
            conn.execute(statement)


def _m001_core(conn: Connection) -> None:
    _script(conn,
        """
        CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
        CREATE TABLE sources (
            id INTEGER PRIMARY KEY,
            source TEXT NOT NULL UNIQUE,
            kind TEXT NOT NULL CHECK (kind IN ('file', 'data', 'url')),
            title TEXT NOT NULL DEFAULT '',
            content_hash TEXT NOT NULL,
            size INTEGER,
            mtime_ns INTEGER,
            scheme INTEGER NOT NULL,
            category TEXT NOT NULL DEFAULT 'generic',
            lifecycle TEXT NOT NULL DEFAULT 'active',
            ingested_at TEXT NOT NULL
        );
        CREATE TABLE parents (
            id INTEGER PRIMARY KEY,
            source_id INTEGER NOT NULL REFERENCES sources(id) ON DELETE CASCADE,
            ord INTEGER NOT NULL,
            text TEXT NOT NULL,
            page_start INTEGER,
            page_end INTEGER,
            context_lines INTEGER NOT NULL DEFAULT 0,
            UNIQUE (source_id, ord)
        );
        CREATE TABLE chunks (
            id INTEGER PRIMARY KEY,
            source_id INTEGER NOT NULL REFERENCES sources(id) ON DELETE CASCADE,
            ord INTEGER NOT NULL,
            parent_id INTEGER NOT NULL REFERENCES parents(id) ON DELETE CASCADE,
            text TEXT NOT NULL,
            tokens INTEGER NOT NULL,
            text_hash TEXT NOT NULL,
            scheme INTEGER NOT NULL,
            page_start INTEGER,
            page_end INTEGER,
            UNIQUE (source_id, ord)
        );
        CREATE INDEX chunks_by_parent ON chunks(parent_id);
        CREATE INDEX chunks_by_hash ON chunks(text_hash);
        CREATE INDEX chunks_by_scheme ON chunks(scheme);
        CREATE INDEX parents_by_source ON parents(source_id);
        -- BM25 over chunk body and source title; rowid = chunks.id. Stores the
        -- keyword-normalized text (see keywords.py), not the display text.
        CREATE VIRTUAL TABLE chunks_fts USING fts5(
            body, title, tokenize = 'unicode61 remove_diacritics 2'
        );
        """
    )


def _m002_exclusions(conn: Connection) -> None:
    # Files found under the roots but deliberately not indexed (frontmatter `rag: false`),
    # with the bytes that said so: an unchanged excluded file is not converted again.
    _script(conn,
        """
        CREATE TABLE exclusions (
            source TEXT PRIMARY KEY,
            content_hash TEXT NOT NULL,
            size INTEGER,
            mtime_ns INTEGER,
            scheme INTEGER NOT NULL,
            reason TEXT NOT NULL,
            checked_at TEXT NOT NULL
        );
        """
    )


def _m003_vector_codes(conn: Connection) -> None:
    """The int8 codes a large index searches in memory (store/codes.py), built now if it is large."""
    from minirag.store import codes

    _script(conn, codes.TABLES_SQL)
    has_vectors = has_vector_table(conn)
    chunks = conn.execute("SELECT COUNT(*) FROM chunks").fetchone()[0]
    if has_vectors and chunks >= codes.CODES_FROM_CHUNKS:
        log.warning("building the int8 vector codes of %d chunks: once, for this index from an older minirag "
                    "(about a minute per 100,000 chunks)", chunks)
        codes.build(conn)


def _m004_chunk_budget(conn: Connection) -> None:
    # The token budget each source was cut at: a sync re-cuts a source whose budget is not the
    # one in force (CHUNK_TOKEN_BUDGET, or the model's own). NULL (older rows): re-cut once.
    _script(conn, "ALTER TABLE sources ADD COLUMN chunk_budget INTEGER;")


def _m005_failures(conn: Connection) -> None:
    # A file that could not be converted is remembered like an exclusion, with the bytes that
    # failed: an unchanged one is not converted (and warned about) again on every sync.
    _script(conn, "ALTER TABLE exclusions ADD COLUMN failure INTEGER NOT NULL DEFAULT 0;")


def _m006_source_note(conn: Connection) -> None:
    # What a source's conversion left out (scanned pages with no OCR engine), shown by `list`.
    _script(conn, "ALTER TABLE sources ADD COLUMN conversion_note TEXT NOT NULL DEFAULT '';")


def _m007_complete_codes(conn: Connection) -> None:
    """Codes on every dimension (store/codes.py), rebuilt now for an index coded on 5/6 of them."""
    from minirag.store import codes

    codebook = codes.read_codebook(conn)
    if codebook is not None and not codebook.complete:
        chunks = codes.code_count(conn)
        log.warning("rebuilding the int8 vector codes of %d chunks on every dimension: once, for this index "
                    "from an older minirag (about a minute per 100,000 chunks)", chunks)
        codes.build(conn)


def _m008_link_share(conn: Connection) -> None:
    """Each source's share of text, and of lines, in links to other pages of its site
    (chunking/link_pages.py), which ranks a generated index below the pages it points to; read off
    its stored sections."""
    from minirag.chunking.link_pages import SiteLinks, site_links

    columns = {row[1] for row in conn.execute("PRAGMA table_info(sources)")}
    for column in ("link_share", "link_line_share"):
        if column not in columns:
            _script(conn, f"ALTER TABLE sources ADD COLUMN {column} REAL NOT NULL DEFAULT 0;")
    found: dict[int, SiteLinks] = {}
    for source_id, text in conn.execute("SELECT source_id, text FROM parents"):
        found[source_id] = found.get(source_id, SiteLinks()) + site_links(text)
    conn.executemany("UPDATE sources SET link_share = ?, link_line_share = ? WHERE id = ?",
                     [(links.share, links.line_share, source_id) for source_id, links in found.items()
                      if links.linked_chars])


# The vec0 table's columns since the project's first evening (create_vector_table).
VECTOR_COLUMNS = frozenset({"chunk_id", "embedding", "lifecycle"})


def _m009_first_evening_tables(conn: Connection) -> None:
    """The tables of an index written on the project's first evening (before migration 2) made as
    today's: parents had no context_lines (3ecb374), and the vec0 table kept an extra column no later
    minirag fills (`source` in 3ecb374, `embedding_bits` in a92ec8b), so every insert failed. The
    vectors are copied into today's table, none embedded again."""
    if "context_lines" not in {row[1] for row in conn.execute("PRAGMA table_info(parents)")}:
        _script(conn, "ALTER TABLE parents ADD COLUMN context_lines INTEGER NOT NULL DEFAULT 0;")
    row = conn.execute("SELECT sql FROM sqlite_master WHERE name = 'chunks_vec'").fetchone()
    if row is None or {r[1] for r in conn.execute("PRAGMA table_info(chunks_vec)")} == VECTOR_COLUMNS:
        return
    found = re.search(r"embedding float\[(\d+)\]", row[0])
    if found is None:
        raise IndexUnavailable(f"the index's vector table is not one minirag made: {row[0]}")
    rows = conn.execute("SELECT chunk_id, embedding, lifecycle FROM chunks_vec").fetchall()
    log.warning("rewriting the vector table of %d chunks: once, for this index from an older minirag "
                "(no re-embedding)", len(rows))
    conn.execute("DROP TABLE chunks_vec")
    create_vector_table(conn, int(found.group(1)))
    conn.executemany("INSERT INTO chunks_vec (chunk_id, embedding, lifecycle) VALUES (?, ?, ?)", rows)


def _m010_file_change_stat(conn: Connection) -> None:
    # Each file's ctime and inode beside its size and mtime (scan.FileStat): a rewrite that keeps its
    # size and puts its mtime back is seen. NULL (older rows): unknown, so each file is hashed once more
    # (not re-embedded: its bytes are the same unless it did change unseen).
    for table in ("sources", "exclusions"):
        columns = {row[1] for row in conn.execute(f"PRAGMA table_info({table})")}
        for column in ("ctime_ns", "inode"):
            if column not in columns:
                _script(conn, f"ALTER TABLE {table} ADD COLUMN {column} INTEGER;")


def _m011_sheet_rows(conn: Connection) -> None:
    # A spreadsheet's sections and chunks name their sheet and rows (chunking/rows.py). NULL (older
    # rows, and every passage not from a sheet): none named. A sync re-cuts the sources of an older
    # chunking scheme, and keeps each unchanged chunk text's vector.
    for table in ("parents", "chunks"):
        columns = {row[1] for row in conn.execute(f"PRAGMA table_info({table})")}
        for column, kind in (("sheet", "TEXT"), ("row_start", "INTEGER"), ("row_end", "INTEGER")):
            if column not in columns:
                _script(conn, f"ALTER TABLE {table} ADD COLUMN {column} {kind};")


def _m012_pending_vectors(conn: Connection) -> None:
    # Vectors embedded for files a stopped or killed sync did not write (store/pending.py): the next
    # sync reuses them.
    from minirag.store import pending

    _script(conn, pending.TABLE_SQL)


MIGRATIONS: list[tuple[str, Callable[[Connection], None]]] = [
    ("core tables, FTS5", _m001_core),
    ("exclusions", _m002_exclusions),
    ("int8 vector codes", _m003_vector_codes),
    ("chunk budget per source", _m004_chunk_budget),
    ("failed files remembered", _m005_failures),
    ("a note per source", _m006_source_note),
    ("vector codes on every dimension", _m007_complete_codes),
    ("each source's share of links to its site", _m008_link_share),
    ("the first evening's tables made as today's", _m009_first_evening_tables),
    ("each file's ctime and inode", _m010_file_change_stat),
    ("a spreadsheet passage's sheet and rows", _m011_sheet_rows),
    ("vectors of files not yet written", _m012_pending_vectors),
]
SCHEMA_VERSION = len(MIGRATIONS)
# The oldest schema a read-only open reads as it is: the migrations after it add only what writes
# use (12: pending_vectors, which reads look for first), so a --read-only server of the release
# before serves on until a writer upgrades the file. A migration that reads need moves it up.
READ_SCHEMA = 11
META_SCHEMA = "schema_version"  # the `meta` key migrate writes SCHEMA_VERSION under
META_HOME = "home"  # the real path the index was made at (store/home.py)


def schema_version(conn: Connection) -> int:
    exists = conn.execute(
        "SELECT 1 FROM sqlite_master WHERE type='table' AND name='migrations'"
    ).fetchone()
    if not exists:
        return 0
    return conn.execute("SELECT COALESCE(MAX(id), 0) FROM migrations").fetchone()[0]


def holds_no_tables(conn: Connection) -> bool:
    """Whether the file holds no table at all: no index was ever written to it."""
    return conn.execute("SELECT 1 FROM sqlite_master WHERE type='table' LIMIT 1").fetchone() is None


def too_new(version: int) -> str:
    """The refusal of an index written by a newer minirag, read-only or not."""
    return (f"the index has schema version {version}, newer than this minirag understands ({SCHEMA_VERSION}); "
            "upgrade minirag")


def migrate(conn: Connection, home: str | None = None) -> int:
    """Apply every pending migration; returns how many were applied. A new index records `home`,
    where it is made, in the transaction that makes it (so no other process sees it without)."""
    if schema_version(conn) == SCHEMA_VERSION:
        # Current already: no write transaction, so an open that only reads never waits for a
        # writer's lock (a sync, or someone's transaction in the sqlite3 shell).
        return 0

    def run() -> int:
        conn.execute("BEGIN IMMEDIATE")
        try:
            conn.execute("""
                CREATE TABLE IF NOT EXISTS migrations (
                    id INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL
                )
            """)
            current = schema_version(conn)
            if current > SCHEMA_VERSION:
                raise IndexUnavailable(too_new(current))
            for number, (name, step) in enumerate(MIGRATIONS, start=1):
                if number <= current:
                    continue
                step(conn)
                conn.execute(
                    "INSERT INTO migrations (id, name, applied_at) VALUES (?, ?, datetime('now'))",
                    (number, name),
                )
            conn.execute("""
                INSERT INTO meta (key, value) VALUES (?, ?)
                ON CONFLICT(key) DO UPDATE SET value = excluded.value
            """, (META_SCHEMA, str(SCHEMA_VERSION)))
            if current == 0 and home is not None:
                conn.execute("INSERT INTO meta (key, value) VALUES (?, ?)", (META_HOME, home))
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:  # SQLite has already rolled back after an I/O error or a full disk
                conn.execute("ROLLBACK")
            raise
        return SCHEMA_VERSION - current

    patience = upgrade_patience_s(conn)
    return with_retry(run, patience_s=patience, waiting=upgrade_wait_message(home or "", patience))


def _vector_table_sql(dimension: int) -> str:
    return f"""
        CREATE VIRTUAL TABLE IF NOT EXISTS chunks_vec USING vec0(
            chunk_id INTEGER PRIMARY KEY,
            embedding float[{int(dimension)}] distance_metric=cosine,
            lifecycle TEXT
        )
    """


def create_vector_table(conn: Connection, dimension: int) -> None:
    """The vec0 table is created once the model (and so the dimension) is known.

    `lifecycle` is a vec0 metadata column so superseded documents are filtered
    inside the KNN, before ranking.
    """
    conn.execute(_vector_table_sql(dimension))


def _spaceless(sql: str) -> str:
    """A declaration as compared: no white space, no case (earlier minirags wrote it on one line)."""
    return re.sub(r"\s+", "", sql).lower()


# Every declaration of the FTS5 table a minirag has written: _m001_core's (kept by an index at an older
# keyword scheme until its next writable open rebuilds it), keyword scheme 9's (0d1c75e, combining marks
# are token characters), and FTS_TABLE_SQL since keyword scheme 15 (91f9fb2, the `scripts` column).
_KEYWORD_TABLES = (
    "CREATE VIRTUAL TABLE chunks_fts USING fts5(body, title, tokenize = 'unicode61 remove_diacritics 2')",
    f"""CREATE VIRTUAL TABLE chunks_fts USING fts5(body, title, tokenize = "{FTS_TOKENIZER}")""",
    FTS_TABLE_SQL,
)


def keyword_table_problem(conn: Connection) -> str | None:
    """What is wrong with the FTS5 table, or None: it must be one a minirag made. FTS5 reads any
    declaration, so a planted one (another tokenizer, detail=none, contentless, external content)
    was searched silently by other rules, or failed every query in FTS5's words."""
    row = conn.execute("SELECT sql FROM sqlite_master WHERE name = 'chunks_fts'").fetchone()
    if row is None:
        return "it has no keyword table"
    declared = " ".join(str(row[0] or "").split())
    if _spaceless(declared) in {_spaceless(sql) for sql in _KEYWORD_TABLES}:
        return None
    return f"its keyword table is not one minirag makes: {ascii(declared[:200])}"


def vector_table_problem(conn: Connection, dimension: int) -> str | None:
    """What is wrong with the vec0 table, or None: it must be the one create_vector_table makes for
    `dimension`, the width the meta table records. sqlite-vec reads any declaration, so a planted one
    of another width, element type or distance, or without `lifecycle`, failed every query in
    sqlite-vec's words, or ranked by a distance RAG_MAX_DISTANCE is not for."""
    row = conn.execute("SELECT sql FROM sqlite_master WHERE name = 'chunks_vec'").fetchone()
    if row is None:
        return None
    declared = " ".join(str(row[0] or "").split())
    # SQLite keeps the statement's text without its IF NOT EXISTS.
    if _spaceless(declared) == _spaceless(_vector_table_sql(dimension)).replace("ifnotexists", "", 1):
        return None
    return (f"its vector table is not the one minirag makes for the {dimension}-d vectors its meta table "
            f"records: {ascii(declared[:200])}")
