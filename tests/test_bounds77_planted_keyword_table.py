"""A planted index whose keyword (FTS5) table is not one minirag makes (found by bounds77): FTS5 reads
any declaration, so one with another tokenizer, `detail=none` or no content was searched silently by
other rules, and one of external content failed every query in FTS5's words ('OperationalError: no
such column: T.body'). Like the vector table (test_redteam76_planted_vectors.py), it is a damaged
index: one line that says so and what to do, for every command that opens it, and doctor names it."""

from __future__ import annotations

import pytest
from helpers.planted import refused_as_damage, synced_index

from minirag.store import schema
from minirag.store.connection import sqlite3

_PLANTED = {
    "a trigram tokenizer": "body, title, scripts UNINDEXED, tokenize = 'trigram'",
    "detail=none": f"""body, title, scripts UNINDEXED, tokenize = "{schema.FTS_TOKENIZER}", detail = none""",
    "contentless": f"""body, title, scripts UNINDEXED, tokenize = "{schema.FTS_TOKENIZER}", content = ''""",
    "external content": f"""body, title, scripts UNINDEXED, tokenize = "{schema.FTS_TOKENIZER}", content = T""",
}

# What each earlier minirag wrote: _m001_core, keyword scheme 9 (0d1c75e), keyword scheme 15 (91f9fb2).
_MADE = {
    "the first migration's": "\n            body, title, tokenize = 'unicode61 remove_diacritics 2'\n        ",
    "keyword scheme 9's": f"""body, title, tokenize = "{schema.FTS_TOKENIZER}\"""",
    "today's, on other lines": f"""\n  body,  title, scripts UNINDEXED,\n  tokenize = "{schema.FTS_TOKENIZER}"\n""",
}


def _plant(db, columns: str) -> None:
    conn = sqlite3.connect(db)
    conn.execute("DROP TABLE chunks_fts")
    conn.execute("CREATE TABLE T (x TEXT)")
    conn.execute(f"CREATE VIRTUAL TABLE chunks_fts USING fts5({columns})")
    conn.commit()
    conn.close()


@pytest.fixture
def synced(make_app, docs, tmp_path):
    return synced_index(make_app, docs, tmp_path)


@pytest.mark.parametrize("columns", list(_PLANTED.values()), ids=list(_PLANTED))
def test_a_keyword_table_minirag_never_makes_is_said_to_be_damage(make_app, make_config, synced, columns):
    _plant(synced, columns)
    refused_as_damage(make_app, make_config, "keyword table")


@pytest.mark.parametrize("columns", list(_MADE.values()), ids=list(_MADE))
def test_each_keyword_table_a_minirag_made_is_taken(make_app, synced, columns):
    _plant(synced, columns)
    make_app().query("lighthouse keeper tide")  # no error: its rows went with the old table
    conn = sqlite3.connect(synced)
    try:
        assert schema.keyword_table_problem(conn) is None
    finally:
        conn.close()
