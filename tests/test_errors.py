"""Errors are types: every error a user can see is a class in minirag/errors.py, a damaged index
is a DamagedIndex wherever it is found, and one function is called `explained`."""

from __future__ import annotations

import ast
import functools
import json
from pathlib import Path

import pytest

from minirag import errors
from minirag.store import connection

PACKAGE = Path(errors.__file__).parent


@functools.cache  # both tests read the same parse of the package
def _classes_and_functions() -> tuple[dict[str, list[tuple[str, list[str]]]], list[str]]:
    """Every class of the package (name -> [(module, base names)]) and where each function named
    `explained` is defined."""
    classes: dict[str, list[tuple[str, list[str]]]] = {}
    explained = []
    for source in sorted(PACKAGE.rglob("*.py")):
        module = source.relative_to(PACKAGE.parent).as_posix()
        for node in ast.walk(ast.parse(source.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef):
                bases = [b.id if isinstance(b, ast.Name) else ast.unparse(b).rsplit(".", 1)[-1] for b in node.bases]
                classes.setdefault(node.name, []).append((module, bases))
            elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name == "explained":
                explained.append(module)
    return classes, explained


def test_every_error_a_user_can_see_is_a_class_in_errors_py():
    classes, _ = _classes_and_functions()
    user_errors = {"MiniragError"}
    grown = True
    while grown:  # the subclasses of MiniragError, however deep
        found = {name for name, places in classes.items()
                 if any(set(bases) & user_errors for _, bases in places)}
        grown, user_errors = bool(found - user_errors), user_errors | found
    outside = sorted(f"{name} ({module})" for name in user_errors for module, _ in classes[name]
                     if module != "minirag/errors.py")
    assert outside == [], "define these in minirag/errors.py"
    assert {"ConfigError", "UrlRefused", "FetchError", "DamagedIndex"} <= user_errors


def test_one_function_is_called_explained():
    _, explained = _classes_and_functions()
    assert explained == ["minirag/app.py"]


def test_the_error_classes_keep_the_names_they_are_imported_by():
    from minirag.config import ConfigError
    from minirag.ingest.fetch import FetchError, UrlRefused

    assert (ConfigError, FetchError, UrlRefused) == (errors.ConfigError, errors.FetchError, errors.UrlRefused)
    assert issubclass(errors.ConfigError, ValueError)  # callers that catch ValueError keep catching it
    assert issubclass(errors.DamagedIndex, errors.IndexUnavailable)


def test_sqlite_errors_on_a_file_that_is_no_database_are_a_damaged_index(tmp_path):
    path = tmp_path / "index.db"
    path.write_bytes(b"SQLite format 3\x00" + b"\xa5" * 8176)  # SQLite's, and unreadable past its start
    with pytest.raises(connection.DatabaseError) as caught:
        connection.connect(path).execute("SELECT count(*) FROM sqlite_master").fetchone()
    error = connection.index_error(caught.value, path)
    assert type(error) is errors.DamagedIndex
    assert str(error) == connection.explain(caught.value, path)
    assert str(error).startswith(f"the index {path} is damaged (")
    # Not even SQLite's start: another file (a document DB_PATH names by mistake), not one to delete.
    path.write_bytes(b"\xa5" * 8192)
    with pytest.raises(connection.DatabaseError) as caught:
        connection.connect(path).execute("SELECT count(*) FROM sqlite_master").fetchone()
    other = connection.index_error(caught.value, path)
    assert type(other) is errors.IndexUnavailable and "not a SQLite database" in str(other)
    assert "delete" not in str(other)
    busy = connection.index_error(connection.OperationalError("database is locked"), path)
    assert type(busy) is errors.IndexUnavailable
    # sqlite-vec's words for a vector page it cannot read: its SQLite code says only SQLITE_ERROR
    vectors = connection.index_error(connection.OperationalError("vectors blob read error for 1"), path)
    assert type(vectors) is errors.DamagedIndex and "restore it from a backup" in str(vectors)


def _damage(path: Path) -> None:
    with open(path, "r+b") as handle:
        handle.seek(8192)
        handle.write(b"\xa5" * 200 * 1024)


def test_a_damaged_index_found_on_opening_is_a_damaged_index_and_status_says_so(indexed, make_app):
    path = indexed.config.db_path
    indexed.close()
    _damage(path)
    app = make_app()
    with pytest.raises(errors.DamagedIndex) as caught:
        app.sync()
    message = str(caught.value)
    assert message.startswith(f"the index {path} is damaged (") and "\n" not in message
    assert message.endswith("restore it from a backup (`minirag backup` makes them), or delete it and run "
                            "`minirag sync` to rebuild it")
    assert app.status().index_error == message


def test_a_damaged_index_met_by_an_operation_is_recorded_by_its_type_for_status(indexed):
    indexed.query("otters")  # open, then damaged under it
    _damage(indexed.config.db_path)
    raised = []
    for operation in (lambda: indexed.query("otters hands"), indexed.list_files, indexed.sync):
        try:
            operation()
        except errors.MiniragError as exc:
            raised.append(exc)
    damaged = [exc for exc in raised if isinstance(exc, errors.DamagedIndex)]
    assert damaged, raised
    assert indexed.damage == str(damaged[-1])
    assert indexed.status().index_error == indexed.damage


def test_a_parser_outrun_by_nesting_is_described_in_words():
    """400 nested DOCX tables failed as 'cannot convert (RecursionError: maximum recursion depth exceeded)'."""
    try:
        json.loads("[" * 100_000)
    except RecursionError as exc:
        assert errors.described(exc) == "its structure is nested too deeply to read"
    assert errors.described(ValueError("bad byte\nat 3")) == "ValueError: bad byte"
