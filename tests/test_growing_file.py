"""A file written to while a sync reads it, on a real index: one that only grew (a live log) is
indexed as far as it was read, said in one warning; one rewritten in place is still not written; and
a writer that read fewer bytes never overwrites the more another writer stored meanwhile."""

from __future__ import annotations

import pytest
from conftest import write
from test_ingest_lock import _while_converting, indexed, minirag

from minirag.ingest.pipeline import file_hash

LOG = "# Service log\n\n" + "".join(f"12:00:{n:02d} request {n} served from the otter cache\n" for n in range(40))
MORE = "".join(f"12:01:{n:02d} request {100 + n} served from the beaver cache\n" for n in range(40))


def _appended(path, text: str):
    def append() -> None:
        with open(path, "a", encoding="utf-8") as handle:
            handle.write(text)
    return append


def test_a_log_appended_to_during_each_read_is_indexed_as_far_as_it_was_read(app, docs, monkeypatch):
    """Each sync read the log, found its size and mtime moved by the time it wrote, said "changed
    while it was read; not written", and so never indexed a file that is always being written."""
    log = write(docs / "service.md", LOG)
    _while_converting(monkeypatch, log, _appended(log, MORE))
    progress = app.sync()
    digest, texts = indexed(app.config.db_path, log)
    assert digest == file_hash(LOG.encode()) and any("otter cache" in t for t in texts)
    assert not any("beaver" in t for t in texts)  # what was read, not what came after
    assert [w for w in progress.warnings if str(log) in w] == [
        f"{log}: grew while it was read (a file being written): indexed the {len(LOG.encode()):,} bytes read; "
        "the next sync reads what was added"], progress.warnings
    assert not progress.changed
    again = app.sync()  # the rest, once it stands still
    assert again.done == 1 and indexed(app.config.db_path, log)[0] == file_hash((LOG + MORE).encode())


def test_an_ingest_of_a_log_appended_to_during_every_read_indexes_the_last_read(app, docs, monkeypatch):
    """ingest_file reads a file that changed under its read again; one still growing at the last read
    was refused ("changed while it was read, each of the 3 times"): its last read is indexed now."""
    from minirag.ingest import pipeline

    log = write(docs / "service.md", LOG)
    convert, reads = pipeline.convert_isolated, []

    def converting(kind, payload, name, *args, **kwargs):
        if name == str(log):
            reads.append(log.stat().st_size)
            _appended(log, MORE)()
        return convert(kind, payload, name, *args, **kwargs)

    monkeypatch.setattr(pipeline, "convert_isolated", converting)
    result = app.ingest_file(str(log))
    assert len(reads) == 3, reads  # read again while it grows, as before
    assert result.chunk_count > 0 and [w for w in result.warnings if "grew while it was read" in w], result
    assert indexed(app.config.db_path, log)[0] == file_hash((LOG + MORE + MORE).encode())


@pytest.mark.parametrize("rewrite", ["same length", "longer"])
def test_a_file_rewritten_in_place_while_read_is_still_not_written(app, docs, monkeypatch, rewrite):
    """Only a pure append keeps the bytes read as the file's start: a rewrite (a save) does not."""
    log = write(docs / "service.md", LOG)
    changed = LOG.replace("otter", "OTTER") + ("" if rewrite == "same length" else MORE)

    def rewritten() -> None:
        log.write_text(changed, encoding="utf-8")
        log.touch()  # the same length written within the same tick still moves the mtime

    _while_converting(monkeypatch, log, rewritten)
    progress = app.sync()
    assert progress.changed == 1 and any("changed while it was read; not written" in w for w in progress.warnings)
    assert app.index.conn.execute("SELECT COUNT(*) FROM sources").fetchone()[0] == 0


def test_a_sync_that_read_a_shorter_log_never_overwrites_the_longer_one_an_ingest_stored(app, docs, monkeypatch):
    """The two-writer race the stat check closed, for an append: the sync read LOG; the log grew and
    `minirag ingest` (another process) stored LOG + MORE; the sync's bytes are a prefix of the file,
    but older than what is stored, and are not written."""
    log = write(docs / "service.md", LOG)
    runs = []

    def appended_and_ingested() -> None:
        _appended(log, MORE)()
        runs.append(minirag(app.config, "ingest", str(log)))

    _while_converting(monkeypatch, log, appended_and_ingested)
    progress = app.sync()
    assert runs[0].returncode == 0, runs[0].stderr
    assert indexed(app.config.db_path, log)[0] == file_hash((LOG + MORE).encode())
    assert any("changed while it was read; not written" in w for w in progress.warnings), progress.warnings


def test_the_bytes_a_grown_log_still_begins_with_are_read_again_outside_the_write_transaction(app, docs, monkeypatch):
    """The check that a log only grew reads its first bytes again (up to MAX_FILE_SIZE of them) and
    hashed them inside the write transaction, holding SQLite's write lock through the read (every
    other writer waits, and past the busy timeout fails), and read them again at each retry of it.
    Only the look at the index's row needs the transaction: the read is made before it."""
    from minirag.ingest import pipeline

    log = write(docs / "service.md", LOG)
    _while_converting(monkeypatch, log, _appended(log, MORE))
    read, in_transaction = pipeline.read_file_inside_roots, []

    def reading(path, roots, max_bytes):
        if str(path) == str(log):
            in_transaction.append(app.index.conn.in_transaction)
        return read(path, roots, max_bytes)

    monkeypatch.setattr(pipeline, "read_file_inside_roots", reading)
    progress = app.sync()
    assert [w for w in progress.warnings if "grew while it was read" in w], progress.warnings
    assert in_transaction[-1] is False, in_transaction  # the last read: the check that it only grew
    assert indexed(app.config.db_path, log)[0] == file_hash(LOG.encode())
