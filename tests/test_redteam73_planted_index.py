"""An index written by someone else (planted in a folder others may write, its recorded home forged,
or one DB_PATH names) is read, not trusted: what it stores is only served where it lies in a root."""

from __future__ import annotations

import re

import pytest
from conftest import write

from minirag.errors import NotFound
from minirag.results import payload
from minirag.store.connection import sqlite3


def _store_as(db, old: str, new: str) -> None:
    conn = sqlite3.connect(db)
    conn.execute("UPDATE sources SET source = ? WHERE source = ?", (new, old))
    conn.commit()
    conn.close()


def test_a_stored_source_climbing_out_of_a_root_with_dot_dots_is_never_served(make_app, docs, tmp_path):
    """A source stored as `<root>/../outside/secret.md` starts with the root's path, so it passed the
    string test of lying in a root: `query` named it as a file of the root (with the text the index
    claims is in it) and `read-neighbors` printed that text, though the path names a file outside every
    root. A sync stores real paths, never one with `..` in it."""
    outside = write(tmp_path / "outside" / "secret.md", "# Secret\n\nThe vault code is here.\n")
    page = write(docs / "page.md", "# Page\n\nThe lighthouse keeper logs the tide.\n")
    app = make_app()
    app.sync()
    app.close()
    climbing = f"{docs}/../outside/secret.md"
    _store_as(tmp_path / "index.db", str(page), climbing)

    planted = make_app()
    assert [hit.source for hit in planted.query("lighthouse keeper tide").hits] == []
    with pytest.raises(NotFound, match="not in a configured root"):
        planted.neighbors(climbing, 0)
    listed = {entry["source"]: entry for entry in payload(planted.list_files())["files"]}
    assert (listed[climbing]["state"], listed[climbing].get("reason")) == (
        "missing", "in no configured root; the next sync removes it")
    assert outside.read_text(encoding="utf-8").startswith("# Secret")
    progress = planted.sync()  # the real file is indexed again; the planted row is dropped
    assert progress.outside_roots == 1
    assert [hit.source for hit in planted.query("lighthouse keeper tide").hits] == [str(page)]


_SHAPES = {
    # (dimension, code_dims, block_bits, basis bytes, step bytes) of the codebook; None: the block mis-shaped
    "a basis shorter than its shape": (384, 384, 10, b"\0" * 4, b"\0" * 4 * 384),
    "a step of the wrong length": (384, 384, 10, b"\0" * 4 * 384 * 384, b"\0" * 4),
    "a negative block shift": (384, 384, -1, b"\0" * 4 * 384 * 384, b"\0" * 4 * 384),
    "a dimension not the index's": (8, 8, 10, b"\0" * 4 * 8 * 8, b"\0" * 4 * 8),
    "a block whose codes do not fit its ids": None,
}


@pytest.mark.parametrize("shape", list(_SHAPES), ids=list(_SHAPES))
def test_vector_codes_shaped_to_break_the_query_are_said_to_be_damage(make_app, docs, tmp_path, shape):
    """A large index (its largest chunk id past CODES_FROM_CHUNKS) is searched through the int8 codes
    it keeps in two tables; their blobs were reshaped as the codebook's numbers said, so codes whose
    sizes disagree (written outside minirag) were 'internal error: ValueError: cannot reshape array
    ... please report it'. Like any other table changed by hand, they are a damaged index: one line
    that says so and what to do."""
    from minirag.errors import DamagedIndex

    write(docs / "page.md", "# Page\n\nThe lighthouse keeper logs the tide.\n")
    app = make_app()
    app.sync()
    app.close()
    conn = sqlite3.connect(tmp_path / "index.db")
    conn.execute("UPDATE chunks SET id = 30000 WHERE id = (SELECT MAX(id) FROM chunks)")  # a large index's ids
    book = _SHAPES[shape]
    good = (384, 384, 10, b"\0" * 4 * 384 * 384, b"\0" * 4 * 384)
    conn.execute("INSERT INTO vector_codebook VALUES (1, ?, ?, ?, ?, ?, 1)", book or good)
    if book is None:
        conn.execute("INSERT INTO vector_codes VALUES (29, ?, ?, ?)", ((30000).to_bytes(8, "little"), b"\0" * 3, b"\1"))
    conn.commit()
    conn.close()
    with pytest.raises(DamagedIndex, match=r"^the index .* is damaged"):
        make_app().query("lighthouse keeper tide")


_OTHER_TYPES = {
    # what was written outside minirag: the read it broke
    "a title stored as a blob": ("UPDATE sources SET title = x'fffe'", "query"),
    "a chunk's text stored as a blob": ("UPDATE chunks SET text = x'fffe'", "query"),
    "a section's text stored as a blob": ("UPDATE parents SET text = x'fffe'", "read"),
    "a section's context lines stored as text": ("UPDATE parents SET context_lines = 'x'", "read"),
    "a section's context lines stored as a real": ("UPDATE parents SET context_lines = 1.5", "read"),
    "a conversion note stored as a blob": ("UPDATE sources SET conversion_note = x'fffe'", "list"),
    "the model stored as a blob": ("UPDATE meta SET value = x'fffe' WHERE key = 'model_id'", "query"),
    "the model folder stored as a blob": ("UPDATE meta SET value = x'fffe' WHERE key = 'model_path'", "status"),
    "a conversion note stored as a blob, synced": ("UPDATE sources SET conversion_note = x'fffe'", "sync"),
    "an exclusion's reason stored as a blob": ("UPDATE exclusions SET reason = x'fffe'", "sync"),
    "an exclusion's size stored as text": ("UPDATE exclusions SET size = 'x'", "list"),
}


@pytest.mark.parametrize("case", list(_OTHER_TYPES), ids=list(_OTHER_TYPES))
def test_a_value_of_another_type_than_minirag_writes_is_said_to_be_damage(make_app, docs, tmp_path, case):
    """SQLite keeps any value in any column; minirag writes text where a column says TEXT and
    integers where it says INTEGER. A value of another type (an index someone else made) broke the
    read that met it with 'internal error: TypeError ... please report it'. Now it is a damaged
    index, in one line that says what to do."""
    from minirag.errors import DamagedIndex

    page = write(docs / "page.md", "# Page\n\n## Tides\n\nThe lighthouse keeper logs the tide.\n")
    write(docs / "draft.md", "---\nrag: false\n---\n# Draft\n\nNot for the index.\n")  # an exclusions row
    app = make_app()
    app.sync()
    app.close()
    sql, use = _OTHER_TYPES[case]
    conn = sqlite3.connect(tmp_path / "index.db")
    assert conn.execute(sql).rowcount >= 1
    conn.commit()
    conn.close()
    planted = make_app()
    if use == "status":
        assert re.match(r"the index .* is damaged \(database corrupt: its meta table holds a bytes",
                        payload(planted.status())["indexError"])
        return
    run = {"query": lambda: planted.query("lighthouse keeper tide"), "read": lambda: planted.read(str(page)),
           "list": planted.list_files, "sync": planted.sync}[use]
    with pytest.raises(DamagedIndex, match=r"^the index .* is damaged \(database corrupt: its \w+ table holds a"):
        run()


def _planted_meta(make_app, docs, tmp_path, key: str, value: str):
    write(docs / "page.md", "# Page\n\nThe lighthouse keeper logs the tide.\n")
    app = make_app()
    app.sync()
    app.close()
    conn = sqlite3.connect(tmp_path / "index.db")
    assert conn.execute("UPDATE meta SET value = ? WHERE key = ?", (value, key)).rowcount == 1
    conn.commit()
    conn.close()
    return make_app()


@pytest.mark.parametrize("key", ["chunk_scheme", "keyword_scheme"])
def test_a_scheme_number_past_what_int_reads_is_a_newer_scheme_not_an_internal_error(make_app, docs, tmp_path, key):
    """int() refuses a string of over 4,300 digits: every command on an index whose scheme was
    such a number said 'internal error: ValueError: Exceeds the limit (4300 digits) ...'. It is a
    scheme past this minirag's, said as one, shortened."""
    from minirag.errors import IndexUnavailable

    planted = _planted_meta(make_app, docs, tmp_path, key, "9" * 5000)
    with pytest.raises(IndexUnavailable, match=r"written by a newer minirag \(\w+ scheme 9{20}\.\.\. \(5000 "
                                               r"characters\), this one's \d+\)"):
        planted.sync()


@pytest.mark.parametrize("key", ["chunk_scheme", "keyword_scheme"])
def test_a_scheme_of_digits_int_does_not_read_is_an_older_one_a_sync_redoes(make_app, docs, tmp_path, key):
    """'²' is a digit to str.isdigit() and no number to int(): it was an internal error too."""
    planted = _planted_meta(make_app, docs, tmp_path, key, "²")
    planted.sync()
    assert [hit.source for hit in planted.query("lighthouse keeper tide").hits] == [str(docs / "page.md")]


def test_a_record_of_root_devices_nested_too_deeply_is_no_record(make_app, docs, tmp_path):
    """json.loads raises RecursionError, not ValueError, for a value nested a few thousand deep:
    every sync on such an index said 'internal error: RecursionError ... please report it'."""
    planted = _planted_meta(make_app, docs, tmp_path, "root_devices", "[" * 100_000 + "]" * 100_000)
    planted.sync()
    assert [hit.source for hit in planted.query("lighthouse keeper tide").hits] == [str(docs / "page.md")]
