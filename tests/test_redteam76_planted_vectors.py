"""A planted index whose vector table is not the one minirag makes (found by redteam76): every query
failed in sqlite-vec's own words ('the index ... failed: OperationalError: Dimension mismatch for
query vector ...'), with nothing said of what is wrong or what to do, or (another distance) ranked by
a measure the maximum distance was not made for. Like any table changed outside minirag, it is a
damaged index: one line that says so and what to do, for every command that opens it."""

from __future__ import annotations

import pytest
from helpers.planted import refused_as_damage, synced_index

from minirag.store.connection import sqlite3

_TABLES = {
    # the vec0 declaration put in its place: what the query met
    "another width": "embedding float[8] distance_metric=cosine, lifecycle TEXT",
    "int8 elements": "embedding int8[{d}] distance_metric=cosine, lifecycle TEXT",
    "bit elements": "embedding bit[{d}], lifecycle TEXT",
    "no lifecycle column": "embedding float[{d}] distance_metric=cosine",
    "an L2 distance": "embedding float[{d}], lifecycle TEXT",
    "an extra column": "embedding float[{d}] distance_metric=cosine, lifecycle TEXT, +note TEXT",
}


def _plant(db, columns: str) -> None:
    import sqlite_vec

    conn = sqlite3.connect(db)
    conn.enable_load_extension(True)
    sqlite_vec.load(conn)
    dimension = int(conn.execute("SELECT value FROM meta WHERE key = 'dimension'").fetchone()[0])
    conn.execute("DROP TABLE chunks_vec")
    conn.execute(f"CREATE VIRTUAL TABLE chunks_vec USING vec0(chunk_id INTEGER PRIMARY KEY, "
                 f"{columns.format(d=dimension)})")
    conn.commit()
    conn.close()


@pytest.fixture
def synced(make_app, docs, tmp_path):
    return synced_index(make_app, docs, tmp_path)


@pytest.mark.parametrize("columns", list(_TABLES.values()), ids=list(_TABLES))
def test_a_vector_table_minirag_never_makes_is_said_to_be_damage(make_app, make_config, synced, columns):
    _plant(synced, columns)
    assert "tables disagree" in refused_as_damage(make_app, make_config, "vector table")


def test_the_vector_table_minirag_makes_is_taken_however_its_declaration_is_spaced(make_app, synced, docs):
    """Earlier minirags wrote the same declaration on one line (3ecb374 to b8b624a)."""
    _plant(synced, "embedding float[{d}] distance_metric=cosine, lifecycle TEXT")
    hits = make_app().query("lighthouse keeper tide").hits  # by keyword: the vectors went with the old table
    assert [hit.source for hit in hits] == [str(docs / "page.md")]
