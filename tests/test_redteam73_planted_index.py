"""An index written by someone else (planted in a folder others may write, its recorded home forged,
or one DB_PATH names) is read, not trusted: what it stores is only served where it lies in a root."""

from __future__ import annotations

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

