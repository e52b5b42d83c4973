"""`minirag ingest` beside a sync, each in its own process, on a real index: a folder ingest takes
the sync lock as a sync does; a single file is never blocked, and whichever writer read the older
bytes of a file never overwrites the newer ones another wrote meanwhile."""

from __future__ import annotations

import contextlib
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import write

from minirag.errors import MiniragError
from minirag.ingest import pipeline
from minirag.ingest.pipeline import file_hash
from minirag.store.lock import SyncLock

ROOT = Path(__file__).resolve().parent.parent
OLD = "# Otters\n\nSea otters hold hands while they sleep, old version.\n"
NEW = "# Beavers\n\nBeavers build dams across rivers, new version.\n"


def minirag(config, *argv: str) -> subprocess.CompletedProcess:
    """`minirag ARGV` in a process of its own, on `config`'s roots, index and model."""
    env = {k: v for k, v in os.environ.items() if k not in {"BASE_DIRS", "BASE_DIR", "MINIRAG_READ_ONLY", "DB_PATH"}}
    env.update(BASE_DIR=str(config.roots[0]), DB_PATH=str(config.db_path), MODEL_PATH=str(config.model_path))
    return subprocess.run([sys.executable, "-m", "minirag", *argv], env=env, cwd=ROOT, capture_output=True,
                          text=True, timeout=120)


def indexed(db_path: Path, source: Path) -> tuple[str, list[str]]:
    """The content hash stored for `source` and its chunks' texts, read as any reader reads them."""
    # Closed here (a `with` of a connection only commits): left open, it kept the process's descriptor of the
    # index past App.close, which then kept the -shm's inode as held; a later file given that inode was
    # refused as "the index itself".
    with contextlib.closing(sqlite3.connect(db_path)) as conn:
        (source_id, digest), = conn.execute("SELECT id, content_hash FROM sources WHERE source = ?", (str(source),))
        texts = [row[0] for row in conn.execute("SELECT text FROM chunks WHERE source_id = ?", (source_id,))]
    return digest, texts


def test_a_folder_ingest_takes_the_sync_lock_and_a_single_file_is_never_blocked(app, docs):
    write(docs / "a.md", OLD)
    write(docs / "sub" / "b.md", NEW)
    with SyncLock(app.config.db_path):  # a sync of this process, as `minirag sync` holds it
        refused = minirag(app.config, "ingest", str(docs / "sub"))
        single = minirag(app.config, "ingest", str(docs / "a.md"))
    assert refused.returncode == 1 and refused.stderr.count("\n") == 1, refused.stderr
    assert refused.stderr.startswith("minirag: error: another sync is already running against this index "
                                     f"(pid {os.getpid()}, running for "), refused.stderr
    assert single.returncode == 0, single.stderr
    assert indexed(app.config.db_path, docs / "a.md")[0] == file_hash(OLD.encode())
    assert minirag(app.config, "ingest", str(docs / "sub")).returncode == 0  # the lock let go: it runs
    assert indexed(app.config.db_path, docs / "sub" / "b.md")[0] == file_hash(NEW.encode())


def _while_converting(monkeypatch, source: Path, meanwhile) -> None:
    """`meanwhile()` runs once, in the middle of the conversion of `source`'s bytes already read."""
    convert = pipeline.convert_isolated
    done = []

    def converting(kind, payload, name, *args, **kwargs):
        if name == str(source) and not done:
            done.append(True)
            meanwhile()
        return convert(kind, payload, name, *args, **kwargs)

    monkeypatch.setattr(pipeline, "convert_isolated", converting)


@pytest.mark.parametrize("old", [OLD, "---\nrag: false\n---\n" + OLD], ids=["indexed", "left-out"])
def test_a_sync_that_read_older_bytes_never_overwrites_the_newer_ones_an_ingest_wrote(app, docs, monkeypatch, old):
    """The sync read OLD; the file was saved as NEW and `minirag ingest` of it (another process, not
    blocked) wrote NEW; then the sync's write of OLD replaced it: the index held bytes the disk had
    not held since. Read as `rag: false`, the sync's record of its exclusion dropped the newer rows."""
    note = write(docs / "note.md", old)
    runs = []

    def saved_and_ingested() -> None:
        note.write_text(NEW)
        runs.append(minirag(app.config, "ingest", str(note)))

    _while_converting(monkeypatch, note, saved_and_ingested)
    progress = app.sync()
    assert runs[0].returncode == 0, runs[0].stderr
    digest, texts = indexed(app.config.db_path, note)
    assert digest == file_hash(NEW.encode()) and texts and all("Beavers" in t and "Otters" not in t for t in texts)
    assert any("changed while it was read" in warning for warning in progress.warnings), progress.warnings
    assert app.sync().done == 0  # the index holds what the disk holds: nothing left to do


def test_an_ingest_that_read_older_bytes_never_overwrites_the_newer_ones_a_sync_wrote(app, docs, monkeypatch):
    """The single-file ingest read OLD; the file was saved as NEW and a sync (another process) wrote
    NEW; the ingest then reads the file again and writes NEW, never OLD."""
    note = write(docs / "note.md", OLD)
    runs = []

    def saved_and_synced() -> None:
        note.write_text(NEW)
        runs.append(minirag(app.config, "sync"))

    _while_converting(monkeypatch, note, saved_and_synced)
    result = app.ingest_file(str(note))
    assert runs[0].returncode == 0, runs[0].stderr
    digest, texts = indexed(app.config.db_path, note)
    assert digest == file_hash(NEW.encode()) and texts and all("Beavers" in t and "Otters" not in t for t in texts)
    assert result.title == "Beavers"


def _converted_while_saved(monkeypatch, source: Path) -> list[int]:
    """Each conversion of `source` sees it saved again (a log being written, an editor's autosave)."""
    convert = pipeline.convert_isolated
    saves: list[int] = []

    def converting(kind, payload, name, *args, **kwargs):
        if name == str(source):
            saves.append(len(saves))
            source.write_text(f"# Draft {len(saves)}\n\nSaved again while it was read, {'x' * len(saves)}.\n")
        return convert(kind, payload, name, *args, **kwargs)

    monkeypatch.setattr(pipeline, "convert_isolated", converting)
    return saves


def test_an_ingest_of_a_file_that_changes_under_every_read_says_so_not_that_frontmatter_left_it_out(
        app, docs, monkeypatch):
    """A file saved again during each of the ingest's reads was never written, and ingest_file said it
    was "excluded by frontmatter rag: false" (for a file never indexed), or answered with the older
    bytes' row as if the ingest had written it. It is one clear error now, and the index unchanged."""
    note = write(docs / "note.md", OLD)
    saves = _converted_while_saved(monkeypatch, note)
    try:
        app.ingest_file(str(note))
    except MiniragError as exc:
        message = str(exc)
    else:
        raise AssertionError("an ingest that wrote nothing answered as if it had")
    assert len(saves) == 3, saves
    assert "changed while it was read" in message and "frontmatter" not in message, message
    assert "\n" not in message, message
    assert app.index.conn.execute("SELECT COUNT(*) FROM sources").fetchone()[0] == 0


def test_an_ingest_of_an_indexed_file_that_changes_under_every_read_does_not_answer_with_the_older_row(
        app, docs, monkeypatch):
    note = write(docs / "note.md", OLD)
    app.ingest_file(str(note))
    _converted_while_saved(monkeypatch, note)
    try:
        result = app.ingest_file(str(note))
    except MiniragError as exc:
        assert "changed while it was read" in str(exc), exc
    else:
        raise AssertionError(f"answered with the row of the bytes indexed before: {result}")
    digest, _texts = indexed(app.config.db_path, note)
    assert digest == file_hash(OLD.encode())  # what was indexed stays until a read is not overtaken


def test_a_sync_that_found_a_file_gone_never_drops_the_newer_bytes_an_ingest_wrote(app, docs, monkeypatch):
    """The sync's read found the file gone (an editor's save: unlink, then write); the file was
    written again and `minirag ingest` of it (another process) indexed it; the sync then deleted
    the file's rows as vanished: the index lacked a file the disk held."""
    note = write(docs / "note.md", OLD)
    app.sync()
    note.write_text(OLD + "\nEdited.\n")  # changed: the next sync reads it
    read = pipeline.read_file_inside_roots
    runs = []

    def saved_meanwhile(path, *args, **kwargs):
        if str(path) != str(note) or runs:
            return read(path, *args, **kwargs)
        aside = note.with_name("note.md.saving")
        note.rename(aside)  # the editor's save: the old file gone ...
        try:
            return read(path, *args, **kwargs)
        finally:
            aside.unlink()
            note.write_text(NEW)  # ... the new one written, and ingested by another process
            runs.append(minirag(app.config, "ingest", str(note)))

    monkeypatch.setattr(pipeline, "read_file_inside_roots", saved_meanwhile)
    app.sync()
    assert runs and runs[0].returncode == 0, runs and runs[0].stderr
    digest, texts = indexed(app.config.db_path, note)
    assert digest == file_hash(NEW.encode()) and texts and all("Beavers" in t for t in texts)
    assert app.sync().done == 0


def test_a_sync_that_found_a_file_missing_never_drops_it_once_an_ingest_indexed_it_again(app, docs, monkeypatch):
    """The sync's walk found an indexed file missing (deleted, about to be restored: a branch
    switch); the file came back and `minirag ingest` of it (another process) indexed it; the sync
    then deleted it with the files gone since the walk: the index lacked a file the disk held."""
    note = write(docs / "note.md", OLD)
    other = write(docs / "other.md", "# Other\n\nA second note.\n")
    app.sync()
    note.unlink()
    other.write_text("# Other\n\nA second note, edited: the sync converts it.\n")
    runs = []

    def restored_and_ingested() -> None:
        note.write_text(NEW)
        runs.append(minirag(app.config, "ingest", str(note)))

    _while_converting(monkeypatch, other, restored_and_ingested)
    app.sync()
    assert runs and runs[0].returncode == 0, runs and runs[0].stderr
    digest, texts = indexed(app.config.db_path, note)
    assert digest == file_hash(NEW.encode()) and texts and all("Beavers" in t for t in texts)
    assert app.sync().done == 0
