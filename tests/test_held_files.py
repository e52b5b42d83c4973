"""While this process has the index open, nothing it does may drop SQLite's locks on it.

Closing any descriptor of a file drops every POSIX lock the process holds on it. An index whose
shared lock is gone looks unused: another process's last connection then folds the -wal into the
file and deletes it under this one's open transaction. A sync beside a process that re-tokenized
the index ended with pages used twice (`2nd reference to page`, `wrong # of entries in index`):
the sync lock had read the index's first bytes through a descriptor it then closed.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from conftest import write

from minirag.ingest.sync import run_sync
from minirag.store import connection
from minirag.store.lock import SyncLock

# Another process opens the index, reads, and closes: its close folds and deletes the -wal when
# it is the last connection to the file, which it can tell only by the locks of the others.
_OTHER_PROCESS = """
import sys
from minirag.store.connection import sqlite3
conn = sqlite3.connect(sys.argv[1])
conn.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()
conn.close()
"""


def _another_process_opens_and_closes(db: Path) -> None:
    subprocess.run([sys.executable, "-c", _OTHER_PROCESS, str(db)], check=True, timeout=60)


def _open_index_with_its_wal(app, docs: Path) -> Path:
    write(docs / "a.md", "# Otters\n\nOtters hold hands while they sleep.")
    run_sync(app.pipeline, list(app.config.roots))
    app.status()  # the index open, its connections holding their locks
    db = app.config.db_path
    assert os.path.exists(f"{db}-wal")
    _another_process_opens_and_closes(db)
    assert os.path.exists(f"{db}-wal")  # the others' locks said the file is in use
    return db


def test_asking_whether_the_index_is_sqlite_keeps_the_locks_of_its_open_connections(app, docs):
    db = _open_index_with_its_wal(app, docs)
    assert not connection.not_sqlite(db)
    SyncLock(db).acquire().release()  # asks it too, as every sync does
    _another_process_opens_and_closes(db)
    assert os.path.exists(f"{db}-wal"), "this process's locks on the index were dropped"


def test_a_document_that_is_the_index_is_not_read_and_the_locks_stay(app, docs):
    """A link to the index in a root, or a hard link: reading it would close a descriptor of it."""
    db = _open_index_with_its_wal(app, docs)
    os.link(db, docs / "second-name.md")
    os.symlink(docs / "second-name.md", docs / "index-link.txt")
    progress = run_sync(app.pipeline, list(app.config.roots))
    assert progress.failed == 2
    assert [w.split(": ", 1)[1] for w in progress.warnings] == [
        "is the index itself (a link to it, or another name for it); not read"] * 2
    _another_process_opens_and_closes(db)
    assert os.path.exists(f"{db}-wal"), "this process's locks on the index were dropped"
