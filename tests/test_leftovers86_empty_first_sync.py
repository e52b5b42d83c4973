"""The first sync of a folder holding no document loaded the model all the same (seconds of ONNX
Runtime, and a download where the model is not on disk yet): a new index recorded the model's width
before the walk. Where the walk finds nothing to convert, nothing is loaded; the first document
found later loads it and binds the index to it."""

from __future__ import annotations

from conftest import write
from test_lazysync85_model_load import fresh_app, loads  # noqa: F401


def _emptied(docs):
    for path in docs.iterdir():
        path.unlink()
    (docs / "notes.pages").write_text("Not a type minirag reads.\n")


def test_leftovers86_a_first_sync_that_finds_no_document_loads_no_model(make_config, docs, loads):  # noqa: F811
    _emptied(docs)
    app = fresh_app(make_config)
    try:
        progress = app.sync()
        assert (progress.seen, len(loads)) == (0, 0)
        assert app.query("otters", top_k=3).hits == ()  # the index made answers, empty
        write(docs / "a.md", "# Otters\n\nSea otters hold hands while they sleep.\n")
        progress = app.sync()
        assert (progress.done, len(loads)) == (1, 1)
        assert [hit.source for hit in app.query("otters hold hands", top_k=1).hits] == [str(docs / "a.md")]
        assert app.index.bound_model() is not None
    finally:
        app.close()


def test_leftovers86_a_first_sync_job_that_finds_no_document_loads_no_model(make_config, docs, loads):  # noqa: F811
    _emptied(docs)
    app = fresh_app(make_config)
    try:
        job = app.start_sync()
        assert job.wait(60) and job.state == "succeeded", job.error
        assert (job.progress.seen, len(loads)) == (0, 0)
    finally:
        app.close()


def test_leftovers86_a_first_sync_that_finds_a_document_still_loads_the_model_before_making_the_index(
        make_config, docs, loads):  # noqa: F811
    write(docs / "a.md", "# Otters\n\nSea otters hold hands while they sleep.\n")
    app = fresh_app(make_config)
    try:
        assert app.sync().done >= 1 and len(loads) == 1
    finally:
        app.close()
