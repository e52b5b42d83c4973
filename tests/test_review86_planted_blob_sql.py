"""A schema row's SQL stored as a BLOB (written through writable_schema): SQLite reads its bytes as the
statement's text and builds the object from them all the same, a trigger that runs on minirag's writes
included. store/planted.py read only TEXT, and a BLOB made the open fail with 'TypeError: cannot use a
string pattern on a bytes-like object'."""

from __future__ import annotations

import pytest
from conftest import write

from minirag.errors import IndexUnavailable
from minirag.store.connection import sqlite3

_PLANT = """
    CREATE TRIGGER poison AFTER INSERT ON chunks BEGIN UPDATE chunks SET text = 'planted' WHERE id = new.id; END;
    PRAGMA writable_schema = ON;
    UPDATE sqlite_master SET sql = CAST(sql AS BLOB) WHERE name = 'poison';
"""


@pytest.mark.parametrize("read_only", [False, True], ids=["writable", "read-only"])
def test_review86_a_trigger_whose_sql_is_a_blob_is_refused_as_a_planted_one(make_app, docs, tmp_path, read_only):
    write(docs / "page.md", "# Page\n\nThe lighthouse keeper logs the tide.\n")
    app = make_app()
    app.sync()
    app.close()
    conn = sqlite3.connect(tmp_path / "index.db")
    conn.executescript(_PLANT)
    conn.close()
    conn = sqlite3.connect(tmp_path / "index.db")
    assert conn.execute("SELECT typeof(sql) FROM sqlite_master WHERE name = 'poison'").fetchone() == ("blob",)
    conn.close()
    planted = make_app({"MINIRAG_READ_ONLY": "1"} if read_only else None)
    with pytest.raises(IndexUnavailable, match=r"holds a trigger minirag never makes \(poison\): something other"):
        planted.query("lighthouse")
