"""listing82: a collection configured inside another's folder owns its files, in every count and filter.

A hit's `collection` is the innermost root holding it; yet list_collections counted a nested collection's
files in the outer one too (their fileCounts summed past the files indexed), and `list --collection outer`
and `query --collection outer` gave the inner collection's files, labelled `inner` in a query's hits."""

from __future__ import annotations

import json

import pytest
from conftest import write

from minirag.app import App
from minirag.config import load_config
from minirag.errors import InvalidArgument


@pytest.fixture
def app(tmp_path, model_path, encoder):
    outer = tmp_path / "docs"
    write(outer / "guide.md", "# Guide\n\nApples grow on trees in the orchard.\n")
    write(outer / "inner-notes.md", "# Beside\n\nApples beside the nested folder, outside it.\n")
    write(outer / "api" / "fruit.md", "# Fruit API\n\nApples are returned by the fruit endpoint.\n")
    write(outer / "api" / "v2" / "pears.md", "# Pears\n\nApples and pears in version two.\n")
    roots = {"docs": str(outer), "api": str(outer / "api"), "v2": str(outer / "api" / "v2")}
    config = load_config(env={"BASE_DIRS": json.dumps(roots)}, db_path=str(tmp_path / "i.db"),
                         model_path=model_path)
    app = App(config, encoder=encoder)
    app.sync()
    yield app
    app.close()


def test_listing82_each_file_is_counted_once_in_the_innermost_collection(app):
    counts = {c.name: (c.file_count, c.chunk_count) for c in app.list_collections().collections}
    assert counts == {"docs": (2, 2), "api": (1, 1), "v2": (1, 1)}
    assert sum(files for files, _chunks in counts.values()) == len(app.list_files().files) == 4


def test_listing82_a_collections_listing_and_search_leave_out_the_collections_inside_it(app, tmp_path):
    docs = tmp_path / "docs"
    listed = {name: [entry.source for entry in app.list_files(collection=name).files] for name in ("docs", "api")}
    assert listed == {"docs": [str(docs / "guide.md"), str(docs / "inner-notes.md")],
                      "api": [str(docs / "api" / "fruit.md")]}
    for name in ("docs", "api", "v2"):
        found = app.query("apples", top_k=10, collection=name)
        assert found.hits and set(found.collections) == {name}, (name, found.collections)
    assert {entry.source for entry in app.list_files().files} == {  # listed once, whatever holds it
        str(docs / "guide.md"), str(docs / "inner-notes.md"), str(docs / "api" / "fruit.md"),
        str(docs / "api" / "v2" / "pears.md")}


def test_listing82_a_scope_inside_a_nested_collection_names_that_collection(app, tmp_path):
    with pytest.raises(InvalidArgument, match="inside collection 'api', which is inside 'docs'"):
        app.list_files(str(tmp_path / "docs" / "api" / "fruit.md"), "docs")
