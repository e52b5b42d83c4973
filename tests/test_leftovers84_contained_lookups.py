"""Leftovers 84: the hints a refusal gives about a path under the roots (the file is on disk, it is a
folder, a name beside it differs only in case or accents) look the path up through the same opening as
a read: down from `/` with no link followed. A folder swapped for a link to a place outside the roots
right after the path was found inside them never lets the answer tell what lies outside."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from conftest import write

from minirag.errors import MiniragError


def _swap_folder_out(folder: Path, outside: Path) -> None:
    link = folder.with_name(folder.name + ".link")
    link.symlink_to(outside, target_is_directory=True)
    folder.rename(folder.with_name(folder.name + ".away"))
    os.replace(link, folder)


def _answer_with_a_swap(make_app, docs: Path, outside: Path, monkeypatch, ask, swap_on: set[str]) -> str:
    """The refusal `ask(app)` gives when docs/sub is swapped for a link to `outside` just after the
    first realpath of a path in `swap_on` (the check that the path lies in the roots)."""
    write(docs / "sub" / "kept.md", "# Kept\n\nA page about cooking.\n")
    app = make_app()
    app.sync()
    real_realpath, swapped = os.path.realpath, []

    def realpath_then_swap(path, *args, **kwargs):
        resolved = real_realpath(path, *args, **kwargs)
        if os.fspath(path) in swap_on and not swapped:
            _swap_folder_out(docs / "sub", outside)
            swapped.append(path)
        return resolved

    monkeypatch.setattr(os.path, "realpath", realpath_then_swap)
    try:
        with pytest.raises(MiniragError) as refused:
            ask(app)
    finally:
        monkeypatch.undo()
        app.close()
    assert swapped
    return str(refused.value).replace(str(outside), "OUTSIDE")


_OUTSIDES = {"holds the file": ["secret.md"], "holds it in other case": ["Secret.md"], "holds nothing": []}


@pytest.mark.parametrize("ask_how", ["read", "ingest"])
def test_leftovers84_a_folder_swapped_out_after_the_check_tells_nothing_about_outside(make_app, tmp_path,
                                                                                       monkeypatch, ask_how):
    answers = {}
    for case, names in _OUTSIDES.items():
        base = tmp_path / case.replace(" ", "-")
        docs, outside = base / "docs", base / "outside"
        outside.mkdir(parents=True)
        for name in names:
            write(outside / name, "private\n")
        key = str(docs / "sub" / "secret.md")

        def ask(app, key=key):
            return app.read(key) if ask_how == "read" else app.ingest_paths([key])

        answer = _answer_with_a_swap(lambda docs=docs, base=base: make_app(base_dirs=[str(docs)],
                                                                           db_path=str(base / "index.db")),
                                     docs, outside, monkeypatch, ask,
                                     {key} if ask_how == "read" else {key, str(docs / "sub")})
        answers[case] = answer.replace(str(base), "BASE")
    assert len(set(answers.values())) == 1, answers
