"""Red team 86: an index someone else made (mailed, copied to a share, restored from an untrusted
backup) is input like any document: what it holds that minirag never writes is said to be a damaged
index, in one line that says what to do, for every command that meets it."""

from __future__ import annotations

import pytest
from conftest import write

from minirag.errors import DamagedIndex
from minirag.results import payload
from minirag.store.connection import sqlite3

# What was written outside minirag: the read it broke. SQLite keeps whatever bytes a TEXT value is
# given; Python reads TEXT as UTF-8 and refused these with 'the index ... failed: OperationalError:
# Could not decode to UTF-8 column ...', which names neither the damage nor what to do.
_NOT_UTF8 = {
    "a chunk's text": ("UPDATE chunks SET text = CAST(x'4c696768746686ff' AS TEXT)", "query"),
    "a file's title": ("UPDATE sources SET title = CAST(x'50616765ff' AS TEXT)", "list"),
    "a section's text": ("UPDATE parents SET text = CAST(x'5469646573c3' AS TEXT)", "read"),
}


@pytest.fixture
def synced(make_app, docs, tmp_path):
    page = write(docs / "page.md", "# Page\n\n## Tides\n\nThe lighthouse keeper logs the tide.\n")
    app = make_app()
    app.sync()
    app.close()
    return page


def _plant(db, sql: str) -> None:
    conn = sqlite3.connect(db)
    assert conn.execute(sql).rowcount >= 1
    conn.commit()
    conn.close()


@pytest.mark.parametrize("case", list(_NOT_UTF8), ids=list(_NOT_UTF8))
@pytest.mark.parametrize("read_only", [False, True], ids=["writable", "read-only"])
def test_redteam86_text_that_is_not_utf8_is_said_to_be_damage(make_app, synced, tmp_path, case, read_only):
    sql, use = _NOT_UTF8[case]
    _plant(tmp_path / "index.db", sql)
    planted = make_app({"MINIRAG_READ_ONLY": "1"} if read_only else None)
    run = {"query": lambda: planted.query("lighthouse keeper tide"), "read": lambda: planted.read(str(synced)),
           "list": lambda: payload(planted.list_files())}[use]
    with pytest.raises(DamagedIndex, match=r"^the index .* is damaged \(.*not UTF-8.*\); restore it") as raised:
        run()
    assert "OperationalError" not in str(raised.value)


@pytest.mark.parametrize("read_only", [False, True], ids=["writable", "read-only"])
def test_redteam86_a_keyword_table_of_a_format_fts5_never_wrote_is_said_to_be_damage(make_app, synced, tmp_path,
                                                                                    read_only):
    """FTS5 keeps its format version in a row of its config table; one it does not read failed every
    query and sync in FTS5's words: 'failed: OperationalError: invalid fts5 file format (found 99,
    expected 4 or 5) - run 'rebuild'', a command no minirag user can run."""
    _plant(tmp_path / "index.db", "INSERT OR REPLACE INTO chunks_fts_config VALUES ('version', 99)")
    planted = make_app({"MINIRAG_READ_ONLY": "1"} if read_only else None)
    with pytest.raises(DamagedIndex, match=r"^the index .* is damaged \(.*fts5 file format.*\); restore it"):
        planted.query("lighthouse keeper tide")


_EDIT_SCHEMA = "PRAGMA writable_schema = ON; UPDATE sqlite_master SET sql = replace(sql, {old!r}, {new!r}) WHERE name = {table!r}"
# What SQLite evaluates on minirag's own writes (and its integrity checks), planted: each ran an
# expression of the file's author on every row a sync wrote (one that builds a string of
# hundreds of megabytes per row takes the machine's memory), and nothing said the schema was not
# minirag's. trusted_schema keeps such an expression to functions without side effects; it still runs.
_EXPRESSIONS = {
    "an index on an expression": ("CREATE INDEX planted ON chunks(length(printf('%.*c', 1000, text)))",
                                  r"an index minirag never makes \(planted\)"),
    "a partial index": ("CREATE INDEX planted ON sources(title) WHERE length(printf('%.*c', 1000, title)) > 0",
                        r"an index minirag never makes \(planted\)"),
    "minirag's index name on an expression": (
        "DROP INDEX chunks_by_hash; CREATE INDEX chunks_by_hash ON chunks(upper(text_hash))",
        r"an index minirag never makes \(chunks_by_hash\)"),
    "a generated column": ("ALTER TABLE chunks ADD COLUMN planted AS (length(printf('%.*c', 1000, text)))",
                           r"a generated column minirag never makes \(chunks\)"),
    "a CHECK constraint": (_EDIT_SCHEMA.format(old="scheme INTEGER NOT NULL,",
                                               new="scheme INTEGER NOT NULL CHECK (length(printf('%.*c', 1000, "
                                                   "'x')) > 0),", table="sources"),
                           r"a CHECK constraint minirag never makes \(sources\)"),
    "a CHECK constraint hidden in a comment's place": (
        _EDIT_SCHEMA.format(old="scheme INTEGER NOT NULL,", new="scheme INTEGER NOT NULL/**/CHECK(abs(1)),",
                            table="sources"),
        r"a CHECK constraint minirag never makes \(sources\)"),
    "a default of an expression": (_EDIT_SCHEMA.format(old="DEFAULT 'generic'", new="DEFAULT (printf('%.*c', 1000, "
                                                       "'x'))", table="sources"),
                                   r"a default expression minirag never makes \(sources\)"),
    # sqlite_dbpage writes whole pages of the file, where SQLite's defensive mode (which Python's
    # driver cannot set before 3.12) is off: a minirag table's name must not reach it.
    "a virtual table of another module": ("DROP TABLE exclusions; CREATE VIRTUAL TABLE exclusions USING sqlite_dbpage",
                                          r"a virtual table minirag never makes \(exclusions\)"),
}


@pytest.mark.parametrize("case", list(_EXPRESSIONS), ids=list(_EXPRESSIONS))
def test_redteam86_an_expression_planted_in_the_schema_is_refused_untouched(make_app, synced, docs, tmp_path, case):
    planted_sql, said = _EXPRESSIONS[case]
    conn = sqlite3.connect(tmp_path / "index.db")
    conn.executescript(planted_sql)
    conn.commit()
    conn.close()
    write(docs / "more.md", "# More\n\nA second page for the sync to write.\n")
    before = (tmp_path / "index.db").read_bytes()
    from minirag.errors import IndexUnavailable

    writable, read_only = make_app(), make_app({"MINIRAG_READ_ONLY": "1"})
    for use in (lambda: writable.query("lighthouse"), writable.list_files, writable.sync,
                lambda: read_only.query("lighthouse"), read_only.list_files):
        with pytest.raises(IndexUnavailable, match=rf"holds {said}: something other than minirag changed it"):
            use()
    assert (tmp_path / "index.db").read_bytes() == before


def test_redteam86_a_chunk_far_longer_than_minirag_writes_costs_its_snippet_no_more_than_one_it_writes():
    """A chunk minirag writes is cut at the model's token budget (a word of 200,000 letters becomes
    pieces of about a thousand); a chunk of 200 MB planted in an index made `minirag query` take 22 GB
    of memory before the kernel killed it, all in the snippet's matching of one giant word (its cost
    grows faster than the text). The snippet reads no further into a chunk than minirag ever writes."""
    import tracemalloc

    from minirag.snippet import snippet

    text = "The lighthouse keeper " + "x" * 1_000_000 + " logs the tide."
    tracemalloc.start()
    try:
        shown = snippet(text, "lighthouse tide")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert shown.startswith("The lighthouse keeper x") and shown.endswith("…")
    assert peak < 16 * 1024 * 1024, peak


_OTHER_SHAPES = {
    # tables minirag makes, given other columns outside it: the command that met them
    "a table of other columns": ("DROP TABLE exclusions; CREATE TABLE exclusions (x)", "sync"),
    "a column dropped": ("ALTER TABLE sources DROP COLUMN inode", "list"),
}


@pytest.mark.parametrize("case", list(_OTHER_SHAPES), ids=list(_OTHER_SHAPES))
def test_redteam86_a_table_of_another_shape_than_minirag_makes_is_said_to_be_damage(make_app, synced, tmp_path, case):
    """minirag's SQL names only the columns its migrations make, so a table without one was changed
    outside it: 'the index ... failed: OperationalError: no such column: source' said neither that
    nor what to do."""
    sql, use = _OTHER_SHAPES[case]
    conn = sqlite3.connect(tmp_path / "index.db")
    conn.executescript(sql)
    conn.commit()
    conn.close()
    planted = make_app()
    with pytest.raises(DamagedIndex, match=r"^the index .* is damaged \(its tables are not the ones minirag makes: "
                                           r"no such column: \w+\); restore it"):
        {"sync": planted.sync, "list": planted.list_files}[use]()
