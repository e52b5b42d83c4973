"""Leftovers 84: an index copied to another folder or machine, opened under roots that hold none of its
files (its paths are those of where it was made), answers every query empty: the answer says why, and
status says it too, naming the folder its files lie under."""

from __future__ import annotations

import shutil

from conftest import write

from minirag.results import payload, query_text


def _moved(make_app, tmp_path):
    made = tmp_path / "made-here"
    write(made / "otters.md", "# Otters\n\nSea otters hold hands while they sleep.\n")
    write(made / "guide" / "beavers.md", "# Beavers\n\nBeavers build dams across streams.\n")
    first = make_app(base_dirs=[str(made)], db_path=str(tmp_path / "made.db"))
    assert first.sync().failed == 0
    first.close()
    moved = tmp_path / "moved-there"
    shutil.copytree(made, moved)
    shutil.copyfile(tmp_path / "made.db", tmp_path / "moved.db")
    return make_app(base_dirs=[str(moved)], db_path=str(tmp_path / "moved.db")), made, moved


def test_leftovers84_a_query_on_an_index_made_under_other_roots_says_why_it_finds_nothing(make_app, tmp_path):
    app, made, moved = _moved(make_app, tmp_path)
    answer = payload(app.query("otters"))
    assert answer["results"] == []
    note = answer.get("note", "")
    assert "2 files" in note and str(made) in note and str(moved) in note, note
    assert query_text(answer).startswith("no results: ") and "\n" not in query_text(answer)


def test_leftovers84_status_says_the_index_files_lie_outside_the_roots(make_app, tmp_path):
    app, made, _moved_to = _moved(make_app, tmp_path)
    status = payload(app.status())
    assert str(made) in status.get("filesElsewhere", ""), status


def test_leftovers84_an_index_that_holds_files_under_the_roots_says_nothing_of_the_kind(make_app, tmp_path, docs):
    write(docs / "otters.md", "# Otters\n\nSea otters hold hands while they sleep.\n")
    app = make_app()
    app.sync()
    assert "note" not in payload(app.query("zebra crossing"))
    assert "filesElsewhere" not in payload(app.status())
