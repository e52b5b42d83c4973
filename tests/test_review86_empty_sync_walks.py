"""A first sync asks whether its walk finds any file before it loads the model (app._finds_nothing):
asked once per sync, not again as its pass's pipeline is made, for a root of many files of no type
minirag reads is walked whole by each asking."""

from __future__ import annotations

from test_lazysync85_model_load import fresh_app, loads  # noqa: F401

from minirag.ingest import scan, sync


def test_review86_a_sync_finding_no_document_walks_its_roots_once_before_its_pass(
        make_config, docs, loads, monkeypatch):  # noqa: F811
    for path in docs.iterdir():
        path.unlink()
    (docs / "notes.pages").write_text("Not a type minirag reads.\n")
    walks = []
    real_walk_roots = scan.walk_roots

    def counted(*args, **kwargs):
        walks.append(1)
        return real_walk_roots(*args, **kwargs)

    monkeypatch.setattr(scan, "walk_roots", counted)
    monkeypatch.setattr(sync, "walk_roots", counted)  # the pass's own name for it, bound at its import
    app = fresh_app(make_config)
    try:
        assert app.sync().seen == 0
        assert (len(walks), len(loads)) == (2, 0)  # the question, then the pass
    finally:
        app.close()
