"""Red team 75: scope lists as an attacker writes them. Through MCP a lone surrogate becomes U+FFFD
and the CLI refuses an argument that is not UTF-8; a library caller of App.query / App.list_files
got an internal UnicodeEncodeError from SQLite instead of one line."""

from __future__ import annotations

import os

import pytest
from conftest import write

from minirag.errors import InvalidArgument
from minirag.search.scope import Scopes


@pytest.fixture
def corpus(app, docs, tmp_path):
    write(docs / "proj" / "otters.md", "# Otters\n\nSea otters hold hands while they sleep.")
    write(docs / "project-secret" / "otters.md", "# Secret\n\nSea otters sleep on kelp in the secret bay.")
    write(docs / "zoo" / "deep" / "otters.md", "# Zoo\n\nThe zoo's sea otters sleep in a pool.")
    write(tmp_path / "outside" / "otters.md", "# Outside\n\nSea otters outside every root.")
    app.sync()
    app.ingest_data("Sea otters in a data note.", "notes/otters")
    return docs


@pytest.mark.parametrize("scope", ["\ud800", ["zoo", "notes/\udcff"], "/docs/\udcff"])
def test_a_scope_that_is_not_utf8_is_refused_in_one_line(corpus, app, scope):
    for call in (lambda: app.query("otters", scope=scope), lambda: app.list_files(scope=scope)):
        with pytest.raises(InvalidArgument, match="not valid UTF-8") as refused:
            call()
        assert "\n" not in str(refused.value)


def test_twenty_overlapping_nested_and_prefix_sharing_scopes_find_nothing_outside_them(corpus, app):
    docs = str(corpus)
    scopes = [f"{docs}/proj", f"{docs}/proj/", f"{docs}/proj/.", f"{docs}/zoo/deep", f"{docs}/zoo",
              f"{docs}/zoo/../proj", f"{docs}/proj/otters.md", "notes/", "notes", "note"]
    scopes += [f"{docs}/zoo/deep/{i}/.." for i in range(10)]
    assert len(scopes) == 20
    hits = {hit.source for hit in app.query("sea otters sleep", top_k=50, scope=scopes).hits}
    listed = {entry.source for entry in app.list_files(scope=scopes).files}
    wanted = {f"{docs}/proj/otters.md", f"{docs}/zoo/deep/otters.md", "notes/otters"}
    assert hits <= wanted and listed == wanted
    assert all(Scopes.of(tuple(app.search_scopes(scopes))).matches(source) for source in hits | listed)
    assert not any("secret" in source or not source.startswith((docs, "notes/")) for source in hits | listed)
    assert os.path.isdir(f"{docs}/project-secret")
