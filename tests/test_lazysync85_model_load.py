"""A sync loads the model at its first file to convert: one that finds nothing changed loads none
(a watcher's and an agent's syncs are mostly such), and every promise that hung on the model loaded
before the walk still holds where it loads later: another model than the index's is refused, the
live line says the model is loading, and an empty folder's sync says what it looked at."""

from __future__ import annotations

import pytest
from conftest import write


@pytest.fixture
def loads(monkeypatch):
    """The encoders made (the real one, counted)."""
    from minirag.encoder import Encoder

    made = []
    real = Encoder.__init__

    def counted(self, *args, **kwargs):
        made.append(self)
        real(self, *args, **kwargs)

    monkeypatch.setattr(Encoder, "__init__", counted)
    return made


@pytest.fixture
def synced(make_app, docs):
    """An index of two documents, written by an App that held the model already."""
    write(docs / "a.md", "# Otters\n\nSea otters hold hands while they sleep.\n")
    write(docs / "b.md", "# Herons\n\nA heron waits in the shallows for fish.\n")
    assert make_app().sync().done == 2


def fresh_app(make_config, **flags):
    """An App as a `minirag sync` process makes one: no model in hand."""
    from minirag.app import App

    return App(make_config(**flags))


def test_lazysync85_a_sync_that_finds_nothing_changed_loads_no_model_and_one_that_finds_a_change_does(
        synced, make_config, docs, loads):
    app = fresh_app(make_config)
    try:
        # The files were written a moment ago: their stat is too fresh to trust, so this sync reads and
        # hashes them (unchanged) and still has nothing to embed.
        progress = app.sync()
        assert (progress.skipped, progress.done, len(loads)) == (2, 0, 0)
        write(docs / "b.md", "# Herons\n\nA grey heron stands still in the reeds.\n")
        progress = app.sync()
        assert (progress.done, len(loads)) == (1, 1)
        assert [hit.source for hit in app.query("grey heron reeds", top_k=1).hits] == [str(docs / "b.md")]
    finally:
        app.close()


def test_lazysync85_a_removal_alone_loads_no_model(synced, make_config, docs, loads):
    (docs / "a.md").unlink()
    app = fresh_app(make_config)
    try:
        progress = app.sync()
        assert (progress.deleted, len(loads)) == (1, 0)
    finally:
        app.close()


def test_lazysync85_the_live_line_says_the_model_is_loading_when_a_sync_loads_it_after_its_walk(
        synced, make_config, docs):
    write(docs / "c.md", "# Crabs\n\nA crab walks sideways along the sand.\n")
    lines = []
    app = fresh_app(make_config)
    try:
        app.sync(on_change=lambda progress: lines.append(progress.live_line()))
    finally:
        app.close()
    assert any(line.startswith("[") and "loading the model" in line for line in lines), lines


def test_lazysync85_a_model_of_the_same_name_and_another_width_is_refused_at_the_first_file_and_writes_nothing(
        synced, make_config, docs, tmp_path, tiny_model_dir):
    from helpers.models import tiny_turned

    from minirag.errors import IndexUnavailable

    other = tmp_path / "narrow-model"  # the index's model by name (its settings), cut to 128-d
    other.mkdir()
    tiny_turned(other, tiny_model_dir, "narrow")
    write(docs / "b.md", "# Herons\n\nA grey heron stands still in the reeds.\n")
    for name in ("c", "d", "e"):  # converting threads that wait for the model the refusal ends
        write(docs / f"{name}.md", f"# Note {name}\n\nA note about the {name} otter.\n")
    app = fresh_app(make_config, model_path=str(other))
    try:
        with pytest.raises(IndexUnavailable, match=r"384-d.*128-d"):
            app.sync()
    finally:
        app.close()
    app = fresh_app(make_config)  # the index's own model: the files refused above are still to ingest
    try:
        assert app.sync().done == 4
    finally:
        app.close()


def test_lazysync85_a_sync_of_an_empty_folder_says_where_it_looked_and_that_it_found_nothing(cli_env, run_cli, docs):
    (docs / "a.md").unlink()
    done = run_cli("sync")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("0 files:")
    assert f"found no document to index in {docs}" in done.stderr


def test_lazysync85_ctrl_c_during_a_load_at_the_first_file_ends_the_sync_and_leaves_every_file_for_the_next(
        synced, make_config, docs, monkeypatch):
    from minirag.encoder import Encoder

    for name in ("c", "d", "e", "f"):  # several converting threads wait for the model being loaded
        write(docs / f"{name}.md", f"# Note {name}\n\nA note about the {name} otter.\n")
    real = Encoder.__init__

    def interrupted(self, *args, **kwargs):
        raise KeyboardInterrupt  # as a Ctrl-C lands in the thread loading the model

    monkeypatch.setattr(Encoder, "__init__", interrupted)
    app = fresh_app(make_config)
    try:
        with pytest.raises(KeyboardInterrupt):
            app.sync()
    finally:
        app.close()
    monkeypatch.setattr(Encoder, "__init__", real)
    app = fresh_app(make_config)
    try:
        progress = app.sync()
        assert (progress.done, progress.skipped, progress.failed) == (4, 2, 0), progress.warnings
    finally:
        app.close()
