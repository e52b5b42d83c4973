import os
import time

from conftest import write

from minirag.ingest.pipeline import Progress
from minirag.ingest.sync import run_sync


def sync(app):
    return run_sync(app.pipeline, list(app.config.roots))


def sources(app):
    return {row["source"] for row in app.index.list_sources()}


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
    assert "Apricots" in app.read(str(a))["text"]


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


def test_files_over_the_size_limit_are_refused_before_parsing(make_app, docs):
    app = make_app({"MAX_FILE_SIZE": "100"})
    write(docs / "big.md", "x " * 200)
    result = run_sync(app.pipeline, list(app.config.roots), progress=Progress())
    assert result.failed == 1 and "MAX_FILE_SIZE" in result.warnings[0]


def test_frontmatter_rag_false_excludes_a_file(app, docs):
    write(docs / "secret.md", "---\nrag: false\n---\n# Secret\n\nDo not index.")
    write(docs / "open.md", "# Open\n\nIndex me.")
    sync(app)
    assert sources(app) == {str(docs / "open.md")}


def test_syncing_one_subfolder_leaves_the_rest_alone(app, docs):
    write(docs / "a" / "x.md", "# X\n\nxylophone")
    write(docs / "b" / "y.md", "# Y\n\nyacht")
    sync(app)
    (docs / "b" / "y.md").unlink()
    write(docs / "a" / "z.md", "# Z\n\nzebra")
    run_sync(app.pipeline, list(app.config.roots), path=docs / "a")
    assert sources(app) == {str(docs / "a" / "x.md"), str(docs / "a" / "z.md"), str(docs / "b" / "y.md")}


class CountingEncoder:
    """The real encoder, counting the passages it is asked to embed."""

    def __init__(self, real):
        self.real, self.embedded = real, []

    def __getattr__(self, name):
        return getattr(self.real, name)

    def embed_documents(self, texts):
        self.embedded.extend(texts)
        return self.real.embed_documents(texts)


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
