import os
import threading
import time
from pathlib import Path

import pytest
from conftest import FIXTURES, write
from helpers.encoders import CountingEncoder

from minirag.ingest import scan
from minirag.ingest.pipeline import Progress
from minirag.ingest.sync import run_sync
from minirag.results import payload, progress_fields


def sync(app):
    return run_sync(app.pipeline, list(app.config.roots))


def sources(app):
    return {row.source for row in app.index.list_sources()}


def test_sync_adds_new_files_and_skips_unchanged_ones(app, docs):
    write(docs / "a.md", "# Alpha\n\nThe alpha document talks about apples.")
    write(docs / "sub" / "b.txt", "Bananas are yellow.")
    first = sync(app)
    assert (first.done, first.skipped, first.failed) == (2, 0, 0)
    assert sources(app) == {str(docs / "a.md"), str(docs / "sub" / "b.txt")}
    second = sync(app)
    assert (second.done, second.skipped) == (0, 2)


def test_sync_reingests_a_changed_file_and_drops_a_deleted_one(app, docs):
    a = write(docs / "a.md", "# Alpha\n\nApples.")
    b = write(docs / "b.md", "# Beta\n\nBananas.")
    sync(app)
    write(a, "# Alpha\n\nApricots now, not apples.")
    os.utime(a, ns=(time.time_ns() + 10**9, time.time_ns() + 10**9))
    b.unlink()
    result = sync(app)
    assert (result.done, result.deleted) == (1, 1)
    assert sources(app) == {str(a)}
    assert "Apricots" in app.read(str(a)).text


def test_a_touched_but_identical_file_is_not_reembedded(app, docs):
    a = write(docs / "a.md", "# Alpha\n\nApples.")
    sync(app)
    os.utime(a, ns=(time.time_ns() + 5 * 10**9,) * 2)
    result = sync(app)
    assert (result.done, result.skipped) == (0, 1)
    assert sync(app).skipped == 1  # the new stat was remembered: fast path now


def test_a_file_that_fails_to_convert_is_a_warning_and_the_rest_completes(app, docs):
    write(docs / "good.md", "# Good\n\nFine text.")
    (docs / "bad.pdf").write_bytes(b"%PDF-1.4 this is not really a pdf")
    (docs / "binary.md").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" * 10)
    result = sync(app)
    assert result.failed == 2 and result.done == 1
    assert any("bad.pdf" in w for w in result.warnings)
    assert any("binary" in w for w in result.warnings)


def test_an_unexpected_error_on_one_file_is_one_line_and_the_rest_completes(app, docs, monkeypatch, caplog):
    """A bug met on one file (here made to happen) printed its traceback into the sync's output."""
    import logging

    from minirag.ingest.pipeline import Pipeline

    write(docs / "a.md", "# A\n\nalpha bravo")
    write(docs / "b.md", "# B\n\ncharlie delta")
    real = Pipeline.build

    def build(self, converted, *, source, **kwargs):
        if source.endswith("b.md"):
            raise TypeError("a bug\nover two lines")
        return real(self, converted, source=source, **kwargs)

    monkeypatch.setattr(Pipeline, "build", build)
    result = sync(app)
    assert (result.done, result.failed) == (1, 1)
    assert result.warnings == [f"{docs / 'b.md'}: unexpected error: TypeError: a bug over two lines "
                               "(rerun with -v for the details, and please report it)"]
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING and r.exc_info]


def test_files_that_vanish_between_the_walk_and_their_read_are_gone_not_failed(app, docs):
    """A folder deleted while a sync ran: each file the walk had found but could not read any more
    counted as failed ('cannot read (No such file or directory)', 192 warnings for one folder) and
    stayed listed as failing, and an indexed one kept its chunks until the next sync."""
    import shutil

    from minirag.ingest.scan import walk

    write(docs / "keep.md", "# Keep\n\nalpha bravo")
    write(docs / "sub" / "old.md", "# Old\n\ncharlie delta")
    assert sync(app).done == 2
    write(docs / "sub" / "old.md", "# Old\n\ncharlie delta echo")  # changed: to be read again
    for n in range(5):
        write(docs / "sub" / f"new{n}.md", f"# New {n}\n\nfoxtrot {n}")
    found = list(walk(docs, app.config.roots))
    shutil.rmtree(docs / "sub")
    progress = Progress()
    app.pipeline.run_files(found, progress)
    assert (progress.failed, progress.warnings, progress.deleted) == (0, [], 1)
    assert sources(app) == {str(docs / "keep.md")}
    assert not app.index.excluded_states()


def test_files_over_the_size_limit_are_refused_before_parsing(make_app, docs):
    app = make_app({"MAX_FILE_SIZE": "100"})
    write(docs / "big.md", "x " * 200)
    result = run_sync(app.pipeline, list(app.config.roots), progress=Progress())
    assert result.failed == 1 and "MAX_FILE_SIZE" in result.warnings[0]
    again = run_sync(app.pipeline, list(app.config.roots), progress=Progress())  # not read, nor warned about
    assert (again.failed, again.still_failing, again.warnings) == (0, 1, [])
    assert app.list_files().files[0].state == "too_large"


def test_a_file_refused_as_too_large_is_ingested_once_the_limit_is_raised(make_app, docs):
    """The troubleshooting advice is "raise MAX_FILE_SIZE": the next sync must then read the file,
    not count it as still failing because its size and mtime are the ones refused."""
    big = write(docs / "big.md", "# Big\n\n" + "word " * 100)
    os.utime(big, ns=(time.time_ns() - 60 * 10**9,) * 2)  # an old file: its stat is trusted
    small = make_app({"MAX_FILE_SIZE": "100"})
    run_sync(small.pipeline, list(small.config.roots), progress=Progress())
    raised = make_app({"MAX_FILE_SIZE": "100000"})
    assert [(f.state, f.reason) for f in raised.list_files().files] == [("not_indexed", None)]
    result = run_sync(raised.pipeline, list(raised.config.roots), progress=Progress())
    assert (result.done, result.failed, result.still_failing) == (1, 0, 0)
    assert [f.state for f in raised.list_files().files] == ["indexed"]


def test_frontmatter_rag_false_excludes_a_file(app, docs):
    write(docs / "secret.md", "---\nrag: false\n---\n# Secret\n\nDo not index.")
    write(docs / "open.md", "# Open\n\nIndex me.")
    result = sync(app)
    assert sources(app) == {str(docs / "open.md")}
    assert (result.done, result.excluded, result.skipped) == (1, 1, 0)
    assert "1 excluded" in result.counts() and payload(result)["excluded"] == 1


def states(app):
    return {Path(f.source).name: (f.state, f.reason) for f in app.list_files().files}


@pytest.mark.slow
def test_a_file_that_failed_is_remembered_listed_with_its_reason_and_retried_once_it_changes(app, docs):
    write(docs / "good.md", "# Good\n\nOtters hold hands.")
    (docs / "broken.docx").write_bytes(b"not a zip at all")
    first = sync(app)
    assert (first.done, first.failed, first.still_failing) == (1, 1, 0) and first.incomplete
    name, reason = states(app)["broken.docx"]
    assert name == "failed" and "not a valid .docx" in reason
    again = sync(app)  # the same bytes: not converted, warned about, nor counted as a new failure again
    assert (again.failed, again.still_failing, again.warnings) == (0, 1, []) and not again.incomplete
    assert "0 failed; 1 still failing (unchanged since it failed)" in again.counts()
    named = app.ingest_paths([str(docs / "broken.docx")])  # a user naming the file hears why, again
    assert named.failed == 1 and "not a valid .docx" in named.warnings[0]
    os.utime(docs / "broken.docx", ns=(1, 1))  # a new mtime, the same bytes: hashed, still the known failure
    touched = sync(app)
    assert (touched.failed, touched.still_failing) == (0, 1)
    (docs / "broken.docx").write_bytes((FIXTURES / "docs" / "docx_plain_paragraphs.docx").read_bytes())
    fixed = sync(app)
    assert (fixed.done, fixed.failed, fixed.still_failing) == (1, 0, 0)
    assert states(app)["broken.docx"][0] == "indexed" and not app.index.excluded_states()


def test_an_indexed_file_that_now_fails_keeps_what_was_indexed_and_is_healthy_once_put_back(app, docs):
    page = write(docs / "page.html", "<h1>Otters</h1><p>Sea otters hold hands while they sleep.</p>")
    good = page.read_bytes()
    os.utime(page, ns=(10**18, 10**18))  # stats far apart, so the 3 s racy rule hides nothing
    sync(app)
    page.write_bytes(b"\x00\x01 binary now")  # caught half-written, or replaced by something unreadable
    os.utime(page, ns=(2 * 10**18, 2 * 10**18))
    assert sync(app).failed == 1
    assert states(app)["page.html"][0] == "failed"
    assert payload(app.query("otters hold hands", top_k=1))["results"][0]["source"] == str(page)
    page.write_bytes(good)  # put back: the indexed bytes, a new mtime
    os.utime(page, ns=(3 * 10**18, 3 * 10**18))
    assert sync(app).skipped == 1 and states(app)["page.html"][0] == "indexed"
    page.write_bytes(b"\x00\x01 binary now")  # the same bad bytes again: a new failure, said again
    os.utime(page, ns=(4 * 10**18, 4 * 10**18))
    again = sync(app)
    assert (again.failed, again.still_failing) == (1, 0) and again.warnings


@pytest.fixture
def conversions(monkeypatch):
    """The files the pipeline converts (the real converter, counted)."""
    from minirag.ingest import pipeline

    seen = []
    real = pipeline.convert_isolated

    def counting(op, args, name, limits, **kw):
        seen.append(Path(name).name)
        return real(op, args, name, limits, **kw)

    monkeypatch.setattr(pipeline, "convert_isolated", counting)
    return seen


def test_an_excluded_file_is_listed_as_excluded_with_its_reason(app, docs):
    assert sync(app).seen == 0  # an empty index
    write(docs / "secret.md", "---\nrag: false\n---\n# Secret\n\nDo not index.")
    assert states(app)["secret.md"] == ("not_indexed", None)
    sync(app)
    assert states(app)["secret.md"] == ("excluded", "frontmatter rag: false")


def test_only_markdown_and_text_as_written_have_frontmatter_a_converted_pages_dashes_are_its_text(app, docs):
    # A page's text opening with a `---` block (dashes, `key: value` lines, dashes) was read as
    # frontmatter: `rag: false` there left the page out, and the lines were dropped from its text.
    write(docs / "notes.md", "---\nlifecycle: current\n---\n# Notes\n\nOtters hold hands.")
    write(docs / "page.html", "<html><body><p>---<br>rag: false<br>---</p><p>Badgers dig setts.</p></body></html>")
    sync(app)
    assert states(app)["notes.md"] == ("indexed", None) and states(app)["page.html"] == ("indexed", None)
    assert "lifecycle" not in app.read(str(docs / "notes.md")).text
    assert "rag: false" in app.read(str(docs / "page.html")).text


def test_an_unchanged_excluded_file_is_not_converted_again_even_when_touched(app, docs, conversions):
    secret = write(docs / "secret.md", "---\nrag: false\n---\n# Secret\n\nDo not index.")
    sync(app)
    assert conversions == ["secret.md"]
    assert sync(app).excluded == 1
    os.utime(secret, ns=(time.time_ns() + 5 * 10**9,) * 2)
    touched = sync(app)
    assert (touched.excluded, touched.done) == (1, 0)
    assert conversions == ["secret.md"]
    assert states(app)["secret.md"] == ("excluded", "frontmatter rag: false")


def test_an_excluded_file_that_drops_rag_false_is_indexed_and_its_exclusion_forgotten(app, docs):
    secret = write(docs / "secret.md", "---\nrag: false\n---\n# Secret\n\nDo not index.")
    sync(app)
    write(secret, "# Secret\n\nIndex me after all.")
    os.utime(secret, ns=(time.time_ns() + 5 * 10**9,) * 2)
    assert sync(app).done == 1
    assert states(app)["secret.md"] == ("indexed", None)
    assert app.index.excluded_states() == {}


def test_an_indexed_file_that_asks_for_rag_false_leaves_the_index(app, docs):
    page = write(docs / "page.md", "# Page\n\nIndexed at first.")
    sync(app)
    write(page, "---\nrag: false\n---\n# Page\n\nNo longer.")
    os.utime(page, ns=(time.time_ns() + 5 * 10**9,) * 2)
    result = sync(app)
    assert (result.excluded, result.deleted) == (1, 1)
    assert sources(app) == set()
    assert states(app)["page.md"] == ("excluded", "frontmatter rag: false")


def test_a_deleted_excluded_file_leaves_no_exclusion_behind(app, docs):
    secret = write(docs / "secret.md", "---\nrag: false\n---\nx")
    sync(app)
    secret.unlink()
    sync(app)
    assert app.index.excluded_states() == {}


def test_a_touched_but_identical_file_is_listed_as_indexed_and_sync_keeps_its_new_mtime(app, docs, conversions):
    a = write(docs / "a.md", "# Alpha\n\nApples.")
    sync(app)
    os.utime(a, ns=(time.time_ns() - 3600 * 10**9,) * 2)  # an hour ago: old enough to trust its stat
    assert states(app)["a.md"] == ("indexed", None)  # listing reads; it never writes
    assert sync(app).skipped == 1 and conversions == ["a.md"]  # hashed, found unchanged, not converted
    assert app.index.stored_states()[str(a)].mtime_ns == a.stat().st_mtime_ns


def test_a_changed_file_is_listed_as_stale(app, docs):
    a = write(docs / "a.md", "# Alpha\n\nApples.")
    sync(app)
    write(a, "# Alpha\n\nApricots.")
    os.utime(a, ns=(time.time_ns() + 5 * 10**9,) * 2)
    assert states(app)["a.md"] == ("stale", None)


def test_syncing_one_subfolder_leaves_the_rest_alone(app, docs):
    write(docs / "a" / "x.md", "# X\n\nxylophone")
    write(docs / "b" / "y.md", "# Y\n\nyacht")
    sync(app)
    (docs / "b" / "y.md").unlink()
    write(docs / "a" / "z.md", "# Z\n\nzebra")
    run_sync(app.pipeline, list(app.config.roots), path=docs / "a")
    assert sources(app) == {str(docs / "a" / "x.md"), str(docs / "a" / "z.md"), str(docs / "b" / "y.md")}


def test_unchanged_chunk_text_is_never_embedded_twice(make_config, encoder, docs):
    from minirag.app import App

    counting = CountingEncoder(encoder)
    app = App(make_config(), encoder=counting)
    try:
        paragraphs = [f"## Part {i}\n\nParagraph number {i} talks about topic {i * 7}." for i in range(12)]
        path = write(docs / "long.md", "# Long\n\n" + "\n\n".join(paragraphs))
        sync(app)
        first = len(counting.embedded)
        write(path, "# Long\n\n" + "\n\n".join(paragraphs) + "\n\n## Extra\n\nA brand new closing paragraph.")
        sync(app)
        again = counting.embedded[first:]
        assert first >= 12
        assert again and all("Part 3" not in t for t in again)
        assert len(again) < first / 3
    finally:
        app.close()


def test_a_group_is_embedded_in_one_encoder_call(make_config, encoder, docs):
    """So the encoder's length-sorted batches pack across the whole group, which pays one part-filled batch.

    One large file, since its chunks always make one group whatever the converting threads' timing."""
    from minirag.app import App

    counting = CountingEncoder(encoder)
    app = App(make_config(), encoder=counting)
    try:
        write(docs / "harbours.md", "# Harbours\n\n" + "\n\n".join(
            f"## Section {i}\n\nHarbour {i} keeps a lighthouse of {i * 3} stones." for i in range(150)))
        sync(app)
        assert len(counting.calls) == 1 and counting.calls[0] == len(set(counting.embedded)) >= 100
    finally:
        app.close()


def test_a_new_chunk_budget_recuts_unchanged_files_on_the_next_sync(make_config, encoder, docs):
    from minirag.app import App

    sentences = " ".join(f"Sentence {i} tells of harbour number {i} and its lighthouse." for i in range(60))
    write(docs / "long.md", f"# Harbours\n\n{sentences}\n")
    write(docs / "short.md", "# Note\n\nOne short line.\n")

    def chunks_of(app, name):
        return [row[0] for row in app.index.conn.execute(
            "SELECT c.text FROM chunks c JOIN sources s ON s.id = c.source_id WHERE s.source = ? ORDER BY c.ord",
            (str(docs / name),)).fetchall()]

    counting = CountingEncoder(encoder)
    app = App(make_config({"CHUNK_TOKEN_BUDGET": "64"}), encoder=counting)
    try:
        sync(app)
        small = chunks_of(app, "long.md")
    finally:
        app.close()
    app = App(make_config({"CHUNK_TOKEN_BUDGET": "64"}), encoder=counting)
    try:
        assert sync(app).done == 0  # the same budget: nothing to do
    finally:
        app.close()
    embedded = len(counting.embedded)
    app = App(make_config({"CHUNK_TOKEN_BUDGET": "200"}), encoder=counting)
    try:
        assert app.status().chunk_token_budget == 200
        assert {f.state for f in app.list_files().files} == {"stale_scheme"}  # what the sync will re-cut
        result = sync(app)
        large = chunks_of(app, "long.md")
        assert result.done == 2 and len(large) < len(small)
        # the short file's one chunk did not change: its vector was reused, not embedded again
        assert all("One short line" not in t for t in counting.embedded[embedded:])
        assert sync(app).done == 0
        assert {f.state for f in app.list_files().files} == {"indexed"}
    finally:
        app.close()


def test_list_and_status_know_the_models_own_budget_without_loading_it(make_config, encoder, docs, model_dir):
    from minirag.app import App
    from minirag.models import locate

    write(docs / "a.md", "# A\n\nSome words about harbours.\n")
    app = App(make_config({"CHUNK_TOKEN_BUDGET": "64"}), encoder=encoder)
    try:
        sync(app)
    finally:
        app.close()
    own = locate("unused", model_dir, model_dir).spec
    app = App(make_config())  # no budget named, no encoder loaded: the model folder's own default
    try:
        assert app.status().chunk_token_budget == min(own.chunk_budget, own.max_length) != 64
        assert [f.state for f in app.list_files().files] == ["stale_scheme"]
        assert app._encoder is None
    finally:
        app.close()


def test_list_shows_sources_cut_before_budgets_were_recorded_as_stale(make_config, encoder, docs, tmp_path):
    import sqlite3

    from minirag.app import App

    write(docs / "a.md", "# A\n\nSome words about harbours.\n")
    app = App(make_config(), encoder=encoder)
    try:
        sync(app)
    finally:
        app.close()
    with sqlite3.connect(tmp_path / "index.db") as conn:  # as a row from before migration 4 reads
        conn.execute("UPDATE sources SET chunk_budget = NULL")
    conn.close()
    for with_model in (True, False):  # budget known, or not readable (a catalogue model not yet cached)
        config = make_config() if with_model else make_config({"MODEL_NAME": "intfloat/multilingual-e5-small"},
                                                              model_path=None, cache_dir=str(tmp_path / "empty"))
        app = App(config)
        try:
            assert [f.state for f in app.list_files().files] == ["stale_scheme"]  # a sync re-cuts it
        finally:
            app.close()


@pytest.mark.parametrize(("name", "budget"), [
    ("intfloat/multilingual-e5-small", 256),  # the catalogue knows it, cached or not
    ("a/b/c", "the model's default (the model is not on this disk)"),  # a name the hub client rejects
    ("bad name/x", "the model's default (the model is not on this disk)"),
])
def test_status_and_list_answer_for_any_model_name_without_loading_it(make_config, docs, tmp_path, name, budget):
    from minirag.app import App

    write(docs / "a.md", "# A\n\nSome words.\n")
    app = App(make_config({"MODEL_NAME": name}, model_path=None, cache_dir=str(tmp_path / "empty")))
    try:
        assert app.index.stats().source_count == 0  # an empty index, made without the model
        assert app.status().chunk_token_budget == budget
        assert [f.state for f in app.list_files().files] == ["not_indexed"]
    finally:
        app.close()


def _deny_listing(monkeypatch, folder: Path) -> None:
    """Make `folder` unlistable, as the kernel does for a user without permission to it.

    chmod 000 is the real thing; root (which these tests may run as) reads through it,
    so for root os.scandir of that one folder raises what a user's would.
    """
    folder.chmod(0)
    if os.geteuid() == 0:
        real_scandir = os.scandir

        def scandir(path="."):
            if os.path.abspath(path) == str(folder):
                raise PermissionError(13, "Permission denied", str(path))
            return real_scandir(path)

        monkeypatch.setattr(os, "scandir", scandir)


def test_a_folder_that_cannot_be_listed_keeps_its_documents_and_says_so(app, docs, monkeypatch):
    write(docs / "one.md", "# One\n\nalpha bravo charlie")
    two = write(docs / "sub" / "two.md", "# Two\n\nzebra yankee important contract")
    assert sync(app).done == 2
    _deny_listing(monkeypatch, docs / "sub")
    try:
        result = sync(app)
        assert (result.deleted, result.failed, result.unread) == (0, 0, 1)
        assert "1 path not read" in result.counts()
        assert any(str(docs / "sub") in w and "cannot be read" in w for w in result.warnings)
        assert sources(app) == {str(docs / "one.md"), str(two)}
        states = {f.source: f.state for f in app.list_files().files}
        assert states == {str(docs / "one.md"): "indexed", str(two): "unreadable"}
    finally:
        (docs / "sub").chmod(0o755)
        monkeypatch.undo()
    again = sync(app)
    assert (again.done, again.skipped, again.deleted, again.failed) == (0, 2, 0, 0)


def test_a_root_gone_while_serving_is_not_taken_for_deleted_documents(app, docs, tmp_path):
    doc = write(docs / "a.md", "# Alpha\n\nApples.")
    sync(app)
    docs.rename(tmp_path / "unmounted")  # the drive holding the root went away
    result = sync(app)
    assert (result.deleted, result.failed, result.unread) == (0, 0, 1)
    assert sources(app) == {str(doc)}
    (tmp_path / "unmounted").rename(docs)
    assert sync(app).skipped == 1


def test_a_second_write_within_the_same_timestamp_tick_is_not_missed(app, docs):
    """On a filesystem with 1 s (or FAT's 2 s) timestamps two saves within one tick share the
    mtime; with the same size, only the bytes tell them apart."""
    a = write(docs / "a.md", "# Alpha\n\nThe secret word is pineapple.")
    tick = (time.time_ns() // 10**9) * 10**9
    os.utime(a, ns=(tick, tick))
    assert sync(app).done == 1
    write(a, "# Alpha\n\nThe secret word is watermelo.")  # same size, saved within the same second
    os.utime(a, ns=(tick, tick))
    result = sync(app)
    assert (result.done, result.skipped) == (1, 0)
    assert "watermelo" in app.read(str(a)).text


def test_a_file_old_enough_is_trusted_by_its_stat_again(app, docs):
    a = write(docs / "a.md", "# Alpha\n\nApples.")
    sync(app)
    assert app.index.stored_states("file")[str(a)].mtime_ns is None  # too fresh to trust yet
    hour_ago = time.time_ns() - 3600 * 10**9
    os.utime(a, ns=(hour_ago, hour_ago))
    assert sync(app).skipped == 1  # read and hashed: the same bytes
    assert app.index.stored_states("file")[str(a)].mtime_ns == hour_ago  # fast path from now on


def test_a_file_whose_name_is_not_utf8_is_a_warning_and_the_rest_is_indexed(app, docs):
    good = write(docs / "good.md", "# Good\n\nA good ferret.")
    bad = os.fsencode(docs) + b"/bad\xffname.md"
    with open(bad, "wb") as handle:
        handle.write(b"# Bad name\n\nAnother ferret.")
    os.makedirs(os.fsencode(docs) + b"/dir\xfe", exist_ok=True)
    with open(os.fsencode(docs) + b"/dir\xfe/inside.md", "wb") as handle:
        handle.write(b"# Inside\n\nA third ferret.")
    result = sync(app)
    assert (result.done, result.failed, result.unread) == (1, 0, 2)
    assert sources(app) == {str(good)}
    assert sum("bad\\xffname.md: its name is not valid UTF-8" in w for w in result.warnings) == 1
    assert any("dir\\xfe: its name is not valid UTF-8" in w for w in result.warnings)
    assert {f.source for f in app.list_files().files} == {str(good)}


def test_syncing_a_path_that_is_not_there_warns_unless_it_held_indexed_files(app, docs):
    a = write(docs / "sub" / "a.md", "# Alpha\n\nApples.")
    app.sync()
    typo = app.sync(str(docs / "sbu"))
    assert typo.warnings == [f"{docs / 'sbu'}: no such file or folder, and nothing indexed under it"]
    a.unlink()
    (docs / "sub").rmdir()
    gone = app.sync(str(docs / "sub"))
    assert (gone.deleted, gone.warnings) == (1, [])


def test_syncing_a_path_that_is_neither_a_file_nor_a_folder_warns(app, docs):
    # A FIFO or a dangling link is there (os.path.lexists) but holds nothing to read: a sync of it
    # reported success with 0 files, as if it had been read.
    os.mkfifo(docs / "pipe.md")
    (docs / "dangling.md").symlink_to(docs / "nowhere.md")
    for name, kind in [("pipe.md", "not a regular file or folder"), ("dangling.md", "a link to nothing")]:
        result = app.sync(str(docs / name))
        assert (result.done, result.unread) == (0, 1), name
        assert result.warnings == [f"{docs / name}: {kind}, so nothing was read"], result.warnings


def test_ingesting_a_path_that_is_neither_a_file_nor_a_folder_warns(app, docs):
    # `minirag ingest PIPE` reported "0 files" and exit 0, as if it had been read.
    os.mkfifo(docs / "pipe.md")
    result = app.ingest_paths([str(docs / "pipe.md")])
    assert (result.done, result.unread) == (0, 1)
    assert result.warnings == [f"{docs / 'pipe.md'}: not a regular file or folder, so nothing was read"]



def test_a_file_named_on_its_own_that_is_no_document_is_not_read_and_says_why(app, docs):
    # `minirag ingest style.css` said "0 files: ... 0 failed" and exit 0, as if it had been read; a
    # folder's walk says "left out, not a supported type: 1 .css", and MCP's ingest_file refused it.
    write(docs / "style.css", "body { color: red }")
    write(docs / "notes.md.swp", "scratch")
    write(docs / "ignored.css", "p {}")
    write(docs / ".minignore", "ignored.css\n")
    for name, why in [("style.css", "unsupported file type .css (supported: .adoc,"),
                      ("notes.md.swp", "the name of an editor's, office suite's or downloader's scratch file")]:
        for result in (app.ingest_paths([str(docs / name)]), app.sync(str(docs / name))):
            assert (result.done, result.unread) == (0, 1), name
            assert len(result.warnings) == 1 and result.warnings[0].startswith(f"{docs / name}: {why}"), result.warnings
    # One the user's own rule leaves out is said once, by that rule.
    for result in (app.ingest_paths([str(docs / "ignored.css")]), app.sync(str(docs / "ignored.css"))):
        assert (result.unread, len(result.warnings)) == (0, 1), result.warnings
        assert "left out by" in result.warnings[0]

def test_a_folder_that_can_be_listed_but_not_entered_keeps_its_documents(app, docs, monkeypatch):
    """Mode r-- (a `chmod -R 644` slip): names can be listed, but nothing under it can be stat'ed."""
    write(docs / "one.md", "# One\n\nalpha bravo")
    two = write(docs / "sub" / "two.md", "# Two\n\nzebra yankee")
    assert sync(app).done == 2
    (docs / "sub").chmod(0o644)
    if os.geteuid() == 0:  # root stats through it: fail as the kernel does for a user
        def denied(real):
            def stat(path, *args, **kwargs):
                if os.fspath(path).startswith(str(docs / "sub") + os.sep):
                    raise PermissionError(13, "Permission denied", os.fspath(path))
                return real(path, *args, **kwargs)
            return stat

        monkeypatch.setattr(os, "stat", denied(os.stat))
        monkeypatch.setattr(os, "lstat", denied(os.lstat))
    try:
        result = sync(app)
        assert (result.deleted, result.failed, result.unread) == (0, 0, 1), result.warnings
        assert sources(app) == {str(docs / "one.md"), str(two)}
    finally:
        monkeypatch.undo()
        (docs / "sub").chmod(0o755)


def test_a_stop_leaves_converted_but_unembedded_files_for_the_next_sync(app, docs):
    """A server shutting down must not wait for one more encoder batch; nothing is lost either."""
    for n in range(12):
        write(docs / f"n{n}.md", f"# Note {n}\n\nRiver otters and herons, note {n}.")
    progress = Progress()

    def stop_early(p):
        if p.seen >= 3:
            p.stop.set()

    run_sync(app.pipeline, list(app.config.roots), progress=progress, on_change=stop_early)
    # Files converted while the next one's conversion was not done may have been embedded before the
    # stop (the encoder does not idle); the third file seen and the rest were left, and none is lost.
    assert progress.stop.is_set() and progress.done < 3
    assert len(sources(app)) == progress.done
    assert sync(app).done == 12 - progress.done and len(sources(app)) == 12


def test_a_stop_waits_for_one_encoder_batch_and_leaves_the_group_in_hand_for_the_next_sync(app, docs):
    """A group holds up to GROUP_CHUNKS chunks, many encoder batches: shutting down must not wait for
    all of them. The group is left whole (none of it written) and the next sync writes it."""
    from minirag.encoder import Encoder

    write(docs / "harbours.md", "# Harbours\n\n" + "\n\n".join(
        f"## Section {i}\n\nHarbour {i} keeps a lighthouse of {i * 3} stones." for i in range(200)))
    progress = Progress()

    def stop_after_the_first_batch(p):
        if p.chunks_embedded:
            p.stop.set()

    run_sync(app.pipeline, list(app.config.roots), progress=progress, on_change=stop_after_the_first_batch)
    assert progress.stop.is_set() and 0 < progress.chunks_embedded <= Encoder.MAX_BATCH_SIZE
    assert progress.done == 0 and not sources(app) and progress.chunks_written == 0
    again = sync(app)
    assert again.done == 1 and again.chunks_written > 2 * Encoder.MAX_BATCH_SIZE


def test_files_left_out_for_their_type_are_counted_by_suffix_not_silently_dropped(app, docs):
    write(docs / "a.md", "# A\n\nIndexed.")
    for name in ("b.pages", "sub/c.pages", "d.gz", "Makefile", ".hidden", "notes.txt~"):
        write(docs / name, "text")
    result = sync(app)
    assert dict(result.other_types) == {".pages": 2, ".gz": 1, "": 1}  # hidden files and temporaries unmentioned
    assert result.other_types_line() == "left out, not a supported type: 2 .pages, 1 without a suffix, 1 .gz"
    assert payload(result)["otherTypes"] == {".pages": 2, ".gz": 1, "": 1}


def test_an_index_kept_inside_a_root_is_no_file_left_out_and_a_document_named_like_it_is_read(make_app, docs):
    """DB_PATH inside a root: every sync said 'left out, not a supported type: 1 .db, 1 .db-shm,
    1 .db-wal, 1 .lock'; and a document whose name only begins with the index's is a document."""
    app = make_app(db_path=str(docs / "notes"))
    write(docs / "notes.md", "# Notes\n\nKept beside an index file called notes.")
    first = sync(app)
    write(docs / "a.md", "# A\n\nWritten while the index's side files exist.")
    again = sync(app)
    assert (docs / "notes").is_file() and first.done == 1 and again.done == 1
    assert not first.other_types and not again.other_types, again.other_types
    assert sources(app) == {str(docs / "notes.md"), str(docs / "a.md")}


def test_a_root_removed_from_the_configuration_is_not_served_and_a_sync_removes_it_saying_so(make_app, docs,
                                                                                               tmp_path):
    from minirag.errors import NotFound

    other = tmp_path / "other"
    kept = write(docs / "kept.md", "# Kept\n\nThe lighthouse keeper logs the tide.\n")
    dropped = write(other / "dropped.md", "# Dropped\n\nThe lighthouse keeper logs the storm.\n")
    both = make_app(base_dirs=[str(docs), str(other)])
    both.sync()
    assert {h["source"] for h in payload(both.query("lighthouse keeper"))["results"]} == {str(kept), str(dropped)}
    both.close()

    one = make_app()  # the same index, the second root no longer configured
    assert {h["source"] for h in payload(one.query("lighthouse keeper"))["results"]} == {str(kept)}
    with pytest.raises(NotFound, match="not in a configured root"):
        one.read(str(dropped))
    with pytest.raises(NotFound, match="not in a configured root"):
        one.neighbors(str(dropped), 0)
    assert "tide" in one.read(str(kept)).text
    listed = {entry["source"]: entry for entry in payload(one.list_files())["files"]}
    assert (listed[str(dropped)]["state"], listed[str(dropped)].get("reason")) == (
        "missing", "in no configured root; the next sync removes it")
    progress = one.sync()
    assert (progress.deleted, progress.outside_roots) == (1, 1)
    assert "1 removed (1 outside the configured roots)" in progress.counts()
    assert sources(one) == {str(kept)}


@pytest.mark.parametrize("swap", ["root", "folder above the root"])
def test_a_root_swapped_for_a_link_outside_is_unreadable_and_its_sources_are_kept(make_app, tmp_path, swap):
    base = tmp_path / "base"
    root = base / "docs"
    note = write(root / "note.md", "# Note\n\nA note about gardening.\n")
    app = make_app(base_dirs=[str(root)])
    app.sync()
    outside = tmp_path / "outside"
    write(outside / "docs" / "note.md", "# Secret\n\nThe payroll of every employee.\n")
    write(outside / "docs" / "extra.md", "# Extra\n\nMore outside text.\n")
    if swap == "root":
        root.rename(tmp_path / "moved-away")
        root.symlink_to(outside / "docs", target_is_directory=True)
    else:
        base.rename(tmp_path / "moved-away")
        base.symlink_to(outside, target_is_directory=True)
    progress = app.sync()
    assert sources(app) == {str(note)} and progress.deleted == 0 and progress.unread == 1
    assert "replaced by a symlink" in progress.warnings[0] and "stays indexed" in progress.warnings[0]
    assert "gardening" in app.read(str(note)).text
    with pytest.raises(Exception, match="outside|changed"):
        app.ingest_file(str(note))
    assert "payroll" not in app.read(str(note)).text


def test_the_encoder_embeds_the_files_converted_while_a_slow_one_converts(app, docs, monkeypatch):
    """A file still converting never holds back the files converted before it: they are embedded and
    written meanwhile, so the encoder does not idle while there is work for it."""
    first = write(docs / "a.md", "# Alpha\n\nApples grow in the orchard.")
    write(docs / "b.md", "# Beta\n\nBananas grow in the tropics.")
    pipeline = app.pipeline
    written = threading.Event()
    seen_before_b_converted = []
    prepare, write_group = pipeline.prepare_file, pipeline.write

    def slow_prepare(found, *args, **kwargs):
        if found.source.endswith("b.md"):
            seen_before_b_converted.append(written.wait(timeout=5))
        return prepare(found, *args, **kwargs)

    def noting_write(documents, *args, **kwargs):
        count = write_group(documents, *args, **kwargs)
        if any(d.record.source == str(first) for d in documents):
            written.set()
        return count

    monkeypatch.setattr(pipeline, "prepare_file", slow_prepare)
    monkeypatch.setattr(pipeline, "write", noting_write)
    result = sync(app)
    assert (result.done, result.failed) == (2, 0)
    assert seen_before_b_converted == [True]  # a.md was written while b.md was still converting


def test_files_are_converted_ahead_within_a_byte_and_a_file_bound():
    from concurrent.futures import ThreadPoolExecutor

    from minirag.ingest import pipeline as pipeline_module
    from minirag.ingest.scan import FoundFile

    def ahead_at_each_yield(sizes):
        submitted, seen = [], []
        with ThreadPoolExecutor(max_workers=2) as pool:
            def submit(fn, item):
                submitted.append(item)
                return pool.submit(fn, item)
            files = [FoundFile(f"f{i}", f"f{i}", size, 0, 0, i) for i, size in enumerate(sizes)]
            for position, (found, future) in enumerate(pipeline_module._ahead(
                    type("Pool", (), {"submit": staticmethod(submit)}), files, lambda f: f.source)):
                assert future.result() == found.source
                seen.append(len(submitted) - position)  # converting or converted, this one included
        return seen

    megabyte = 1024 * 1024
    bound = pipeline_module.LOOKAHEAD_BYTES // (10 * megabyte)
    assert max(ahead_at_each_yield([10 * megabyte] * 20)) == bound
    assert max(ahead_at_each_yield([100] * 200)) == pipeline_module.LOOKAHEAD_FILES
    assert ahead_at_each_yield([100 * megabyte] * 3) == [1, 1, 1]  # one larger than the bound goes alone


def test_a_full_sync_drops_a_file_stored_under_another_name_of_its_root(app, docs, tmp_path):
    """Before paths were spelled under their root, an ingest through a link to a root stored a second
    copy under the link's name: found by every query, listed `missing`; a full sync removes it."""
    from minirag.ingest.scan import walk

    note = write(docs / "note.md", "# Note\n\nA note about gardening.\n")
    (tmp_path / "alias").symlink_to(docs, target_is_directory=True)
    sync(app)
    app.pipeline.run_files(list(walk(tmp_path / "alias" / "note.md", app.config.roots)), Progress(), force=True)
    assert sources(app) == {str(note), str(tmp_path / "alias" / "note.md")}
    progress = sync(app)
    assert sources(app) == {str(note)}
    assert (progress.deleted, progress.outside_roots) == (1, 0)


def test_a_file_whose_path_is_longer_than_the_system_takes_is_a_warning_not_silence(app, docs):
    # Folders nested past PATH_MAX (4096 bytes) can be made (one openat at a time) but no path names
    # what lies in them: such a file was passed over without a word, as if it did not exist.
    write(docs / "short.md", "# Short\n\nA file at the top.\n")
    folder = os.open(docs, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for _ in range(20):  # 20 names of 250 bytes
            os.mkdir("d" * 250, dir_fd=folder)
            inner = os.open("d" * 250, os.O_RDONLY | os.O_DIRECTORY, dir_fd=folder)
            os.close(folder)
            folder = inner
        deep = os.open("deep.md", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=folder)
        os.write(deep, b"# Deep\n\nA file too deep to name.\n")
        os.close(deep)
    finally:
        os.close(folder)
    progress = app.sync()
    assert {row.source for row in app.index.list_sources()} == {str(docs / "short.md")}
    assert progress.unread == 1
    assert [w for w in progress.warnings if w.endswith("deep.md: its path is longer than the system takes "
                                                          "(4096 bytes), so it is skipped (shorten the names "
                                                          "of the folders above it)")]


def test_a_folder_link_from_one_root_into_another_indexes_each_file_once(make_app, tmp_path):
    # Inside one root, two names of one folder are walked once; a link from root `a` into root `b`
    # walked it again under the link's name, so every file of `b` was indexed, and found, twice.
    a, b = tmp_path / "a", tmp_path / "b"
    write(a / "own.md", "# Own\n\nA page of the first root.\n")
    write(b / "page.md", "# Page\n\nA page about otters.\n")
    write(b / "sub" / "deep.md", "# Deep\n\nA deeper page about otters.\n")
    (a / "to-b").symlink_to(b, target_is_directory=True)
    (a / "to-b-sub").symlink_to(b / "sub", target_is_directory=True)
    app = make_app(base_dirs=[str(a), str(b)])
    app.sync()
    assert {row.source for row in app.index.list_sources()} == {
        str(a / "own.md"), str(b / "page.md"), str(b / "sub" / "deep.md")}
    assert {f.source for f in app.list_files().files} == {
        str(a / "own.md"), str(b / "page.md"), str(b / "sub" / "deep.md")}


def test_a_folder_link_inside_a_root_is_no_second_name_for_its_files_by_sync_or_ingest(app, docs):
    """A link to a folder of the same root (an alias named before the folder, a loop back up) was
    followed: a sync spelled the folder's files by whichever name its walk met first, and an ingest
    through the link stored each file again under it, found by every query and listed `missing`."""
    page = write(docs / "sub" / "page.md", "# Page\n\nA page about otters.\n")
    (docs / "a-alias").symlink_to(docs / "sub", target_is_directory=True)
    (docs / "sub" / "loop").symlink_to(docs, target_is_directory=True)
    (docs / "note.md").symlink_to(page)  # a link to a file keeps its own name, as before
    sync(app)
    assert sources(app) == {str(page), str(docs / "note.md")}
    assert app.ingest_paths([str(docs / "a-alias"), str(docs / "sub"), str(page)]).total == 1  # one file, named thrice
    app.ingest_paths([str(docs / "sub" / "loop" / "a-alias" / "page.md")])
    app.ingest_file(str(docs / "sub" / "loop" / "sub" / "page.md"))
    assert sources(app) == {str(page), str(docs / "note.md")}
    assert app.read(str(docs / "a-alias" / "page.md")).text.startswith("# Page")  # found by its stored name
    hits = payload(app.query("otters", top_k=5, scope=str(docs / "a-alias")))["results"]
    assert [hit["source"] for hit in hits] == [str(page)]
    assert sync(app).deleted == 0
    # `watch` hands a new link's own path to a sync: nothing is walked under it.
    assert list(scan.walk(docs / "sub" / "loop", app.config.roots)) == []


def test_list_says_nothing_of_whether_a_path_outside_the_roots_exists(make_app, docs, tmp_path):
    """An index that names sources outside the roots (one whose root left the configuration, or one
    planted in a cloned folder with its recorded home forged) made `list` look each up on disk and say
    '(still on disk)' of those that exist: an answer about any path, outside the roots, to whoever
    reads the list (an agent over MCP)."""
    other = tmp_path / "other"
    write(docs / "kept.md", "# Kept\n\nThe lighthouse keeper logs the tide.\n")
    there = write(other / "there.md", "# There\n\nThe lighthouse keeper logs the storm.\n")
    gone = write(other / "gone.md", "# Gone\n\nThe lighthouse keeper logs the fog.\n")
    both = make_app(base_dirs=[str(docs), str(other)])
    both.sync()
    both.close()
    gone.unlink()
    listed = {entry["source"]: entry for entry in payload(make_app().list_files())["files"]}
    said = {path: (listed[str(path)]["state"], listed[str(path)].get("reason")) for path in (there, gone)}
    assert said == {path: ("missing", "in no configured root; the next sync removes it") for path in (there, gone)}



@pytest.fixture
def trusted_at_once(monkeypatch):
    """Every stat trusted as soon as it is read (no racy window): only the stat itself can tell a change."""
    from minirag.ingest import pipeline

    monkeypatch.setattr(pipeline, "RACY_NS", 0)


@pytest.fixture
def reads(monkeypatch):
    """The files a sync reads (to hash, or to convert)."""
    from minirag.ingest import pipeline

    seen = []
    real = pipeline.read_file_inside_roots

    def counting(path, *args, **kw):
        seen.append(Path(path).name)
        return real(path, *args, **kw)

    monkeypatch.setattr(pipeline, "read_file_inside_roots", counting)
    return seen


def test_a_rewrite_that_keeps_its_size_and_puts_its_mtime_back_is_seen(app, docs, trusted_at_once):
    """rsync -t, tar -x, cp -p and backup restores set a file's mtime back: with the same size, only
    its ctime (which utime sets to now, and no user program can set back) says it changed."""
    a = write(docs / "a.md", "# Alpha\n\nThe secret word is pineapple.")
    hour_ago = time.time_ns() - 3600 * 10**9
    os.utime(a, ns=(hour_ago, hour_ago))
    sync(app)
    write(a, "# Alpha\n\nThe secret word is watermelo.")  # same size
    os.utime(a, ns=(hour_ago, hour_ago))
    result = sync(app)
    assert (result.done, result.skipped) == (1, 0)
    assert "watermelo" in app.read(str(a)).text


def test_a_file_replaced_by_a_rename_with_its_size_and_mtime_is_seen(app, docs, trusted_at_once):
    a = write(docs / "a.md", "# Alpha\n\nThe secret word is pineapple.")
    hour_ago = time.time_ns() - 3600 * 10**9
    os.utime(a, ns=(hour_ago, hour_ago))
    sync(app)
    new = write(docs / "a.md.new", "# Alpha\n\nThe secret word is watermelo.")
    os.utime(new, ns=(hour_ago, hour_ago))
    os.replace(new, a)
    assert sync(app).done == 1
    assert "watermelo" in app.read(str(a)).text


def test_a_chmod_or_a_hard_link_is_hashed_not_converted_and_then_trusted_again(app, docs, conversions, reads,
                                                                                trusted_at_once):
    a = write(docs / "a.md", "# Alpha\n\nApples.")
    hour_ago = time.time_ns() - 3600 * 10**9
    os.utime(a, ns=(hour_ago, hour_ago))
    sync(app)
    assert sync(app).skipped == 1 and reads == ["a.md"]  # trusted by its stat: not read again
    os.chmod(a, 0o600)
    os.link(a, docs / "elsewhere.txt~")  # a second name (never indexed): the ctime moves again
    assert sync(app).skipped == 1 and reads == ["a.md", "a.md"]  # read and hashed: the same bytes
    assert conversions == ["a.md"]  # and not converted again
    assert app.index.stored_states("file")[str(a)].ctime_ns == a.stat().st_ctime_ns
    assert sync(app).skipped == 1 and len(reads) == 2  # its new stat is trusted


def test_a_fresh_ctime_is_not_trusted_yet(app, docs):
    """Two writes within one ctime tick (coarse on many file systems) share it: a ctime too fresh
    when read is stored as unknown, as a fresh mtime is (git's racy rule)."""
    a = write(docs / "a.md", "# Alpha\n\nApples.")
    hour_ago = time.time_ns() - 3600 * 10**9
    os.utime(a, ns=(hour_ago, hour_ago))
    sync(app)
    stored = app.index.stored_states("file")[str(a)]
    assert (stored.mtime_ns, stored.ctime_ns) == (hour_ago, None)


def _synced_as_before_migration_10(make_app, db, *paths) -> None:
    """`paths`, last changed an hour ago (their stats trusted), synced into the index at `db`, which is
    then as a minirag before migration 10 left it: no ctime or inode recorded."""
    import sqlite3

    hour_ago = time.time_ns() - 3600 * 10**9
    for path in paths:
        os.utime(path, ns=(hour_ago, hour_ago))
    app = make_app()
    sync(app)
    app.close()
    with sqlite3.connect(db) as conn:
        for table in ("sources", "exclusions"):
            conn.execute(f"ALTER TABLE {table} DROP COLUMN ctime_ns")
            conn.execute(f"ALTER TABLE {table} DROP COLUMN inode")
        conn.execute("DELETE FROM migrations WHERE id >= 10")
    conn.close()


def test_an_index_from_before_ctimes_were_recorded_hashes_each_file_once_and_embeds_nothing(
        make_app, make_config, encoder, docs, tmp_path, reads, trusted_at_once):

    from minirag.app import App

    a = write(docs / "a.md", "# Alpha\n\nApples.")
    b = write(docs / "b.md", "---\nrag: false\n---\n# Draft\n\nNot for the index.\n")
    _synced_as_before_migration_10(make_app, tmp_path / "index.db", a, b)
    reads.clear()
    counting = CountingEncoder(encoder)
    app = App(make_config(), encoder=counting)
    result = sync(app)
    assert (result.skipped, result.excluded, result.done) == (1, 1, 0) and sorted(reads) == ["a.md", "b.md"]
    assert counting.embedded == []
    assert app.index.stored_states("file")[str(a)].stat == tuple(scan.file_stat(a.stat()))
    assert app.index.excluded_states()[str(b)].stat == tuple(scan.file_stat(b.stat()))
    reads.clear()
    sync(app)
    app.close()
    assert reads == []  # the fast path from now on


def test_a_stat_is_judged_fresh_against_when_its_bytes_were_read_not_when_their_conversion_ended(
        app, docs, monkeypatch):
    """A file written just before its read may be written again within the same tick, after the read
    (git's racy rule): its times are stored as unknown however long the conversion took after."""
    from minirag.ingest import pipeline

    monkeypatch.setattr(pipeline, "RACY_NS", 1_000_000_000)
    real = pipeline.convert_isolated

    def slow(*args, **kw):
        time.sleep(1.5)  # a long PDF, OCR: the conversion ends well after the racy window
        return real(*args, **kw)

    monkeypatch.setattr(pipeline, "convert_isolated", slow)
    a = write(docs / "a.md", "# Alpha\n\nApples.")
    sync(app)
    stored = app.index.stored_states("file")[str(a)]
    assert (stored.mtime_ns, stored.ctime_ns) == (None, None)


def test_list_on_an_index_from_before_ctimes_were_recorded_reads_no_file_its_size_and_mtime_vouch_for(
        make_app, make_config, encoder, docs, tmp_path, monkeypatch, trusted_at_once):
    """Until the first sync fills them in, a listing judges rows with no ctime and inode as the release
    that wrote them did (size and mtime), instead of hashing every file on every `list`."""
    from minirag import security
    from minirag.app import App

    a = write(docs / "a.md", "# Alpha\n\nApples.")
    b = write(docs / "b.md", "# Beta\n\nBananas.")
    _synced_as_before_migration_10(make_app, tmp_path / "index.db", a, b)
    write(b, "# Beta\n\nBlueberries.")  # changed since: its mtime tells
    hashed = []
    real = security.read_inside_roots
    monkeypatch.setattr(security, "read_inside_roots", lambda path, *a, **kw: hashed.append(path) or real(path, *a, **kw))
    app = App(make_config(), encoder=encoder)
    assert states(app)["a.md"] == ("indexed", None) and states(app)["b.md"] == ("stale", None)
    assert hashed == []
    app.close()


def _with_inode(st, ino):
    return os.stat_result([st.st_mode, ino, st.st_dev, st.st_nlink, st.st_uid, st.st_gid, st.st_size, int(st.st_atime),
                           int(st.st_mtime), int(st.st_ctime), st.st_atime, st.st_mtime, st.st_ctime, st.st_atime_ns,
                           st.st_mtime_ns, st.st_ctime_ns, st.st_blksize, st.st_blocks, st.st_rdev])


@pytest.mark.skipif(os.name != "posix", reason="a POSIX stat_result's fields")
def test_a_file_system_whose_inode_numbers_use_all_64_bits_is_synced_and_trusted_by_its_stat(
        app, docs, monkeypatch, reads, trusted_at_once):
    """st_ino is an unsigned 64-bit number (128 bits on Windows' ReFS): overlayfs (xino) and FUSE file
    systems that hash paths into it (mergerfs) hand out numbers past SQLite's signed INTEGER."""
    for name in ("stat", "lstat", "fstat"):  # every look at a file, as such a file system answers it
        real = getattr(os, name)
        monkeypatch.setattr(os, name, lambda *args, _real=real, **kw: _with_inode(_real(*args, **kw),
                                                                                  _real(*args, **kw).st_ino | 1 << 63))
    a = write(docs / "a.md", "# Alpha\n\nApples.")
    hour_ago = time.time_ns() - 3600 * 10**9
    os.utime(a, ns=(hour_ago, hour_ago))
    assert sync(app).done == 1
    assert sync(app).skipped == 1 and reads == ["a.md"]  # trusted by its stat: not read again
    assert "Apples" in app.read(str(a)).text


def test_files_gone_between_the_walk_and_their_read_are_counted_as_such(app, docs, monkeypatch):
    """A folder renamed or emptied while a sync runs: the files the walk found and could no longer
    read were counted nowhere, so the summary's counts fell short of the files it said it saw."""
    import minirag.ingest.pipeline as pipeline

    kept = write(docs / "kept.md", "# Kept\n\nStill here.")
    for name in ("a.md", "b.md"):
        write(docs / "going" / name, f"# {name}\n\nAbout to go.")
    reading = pipeline.read_file_inside_roots

    def gone_first(source, *args):
        if "/going/" in source:
            Path(source).unlink()
        return reading(source, *args)

    monkeypatch.setattr(pipeline, "read_file_inside_roots", gone_first)
    result = sync(app)
    assert (result.seen, result.done, result.vanished, result.failed) == (3, 1, 2, 0)
    assert "2 gone before they were read" in result.counts()
    assert progress_fields(result, current=False)["vanished"] == 2
    assert sources(app) == {str(kept)}
