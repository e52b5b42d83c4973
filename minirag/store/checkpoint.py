"""Checkpoints: whenever no write is in progress, the .db file alone holds every committed row.

In WAL mode a commit lands in `index.db-wal`; only a checkpoint copies it into
`index.db`. So after every committed write the index runs a PASSIVE
checkpoint, and a plain copy of the .db file taken while nothing writes is
complete (docs/backups.md).

PASSIVE, not FULL or TRUNCATE (scripts/bench_checkpoint.py): all three cost
about the same on an idle file (a few ms: the fsyncs), but FULL and TRUNCATE
wait, holding up the writer, for every reader of an older snapshot to finish
(a vector-matrix build reads for seconds at 1M chunks), while PASSIVE copies
what it can at once. When a reader still pins older frames, PASSIVE leaves
them, and a retry thread runs it again until the WAL is fully copied.

When Litestream replicates the file it must run the checkpoints itself (it
holds a read transaction and copies every WAL frame before the WAL may
restart); then the index runs none, not even SQLite's automatic ones, and
the replica is the backup.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

from minirag import interruptible
from minirag.store import connection as db

log = logging.getLogger(__name__)

RETRY_FIRST_S = 0.05
RETRY_MAX_S = 1.0
RETRY_JOIN_S = 10.0  # how long a close waits for the retry in hand to end


def fold(conn: db.Connection) -> bool:
    """PASSIVE checkpoint; True when every committed frame is now in the .db file (or there is no WAL),
    False when another connection is checkpointing right now. Any other failure (a disk that fails
    to write or to sync, a full one) is raised: the file alone would lack what was committed."""
    try:
        _busy, frames, copied = conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
    except db.OperationalError as exc:
        if db.is_busy(exc):
            return False
        raise
    return frames == copied


class Checkpointer:
    """Folds the WAL into the .db file after each write; retries in the background while readers pin it."""

    def __init__(self, connect: Callable[[], db.Connection]):
        self._connect = connect  # () -> a new writable connection, for the retry thread
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._requests = 0  # incomplete folds so far; the retry ends only after one that follows them all

    def after_commit(self, conn: db.Connection) -> None:
        if not fold(conn):
            self._retry_later()

    @property
    def pending(self) -> bool:
        """Whether a retry is still waiting for a reader to let go of older frames."""
        with self._lock:
            return self._thread is not None

    def _retry_later(self) -> None:
        with self._lock:
            self._requests += 1
            if self._thread is None and not self._stop.is_set():
                self._thread = threading.Thread(target=self._retry, name="minirag-checkpoint", daemon=True)
                self._thread.start()

    def _retry(self) -> None:
        delay, conn = RETRY_FIRST_S, None
        try:
            conn = self._connect()
            while not self._stop.wait(delay):
                with self._lock:
                    asked = self._requests
                if fold(conn):
                    with self._lock:
                        if self._requests == asked:  # nothing failed to fold since: done
                            self._thread = None
                            return
                    delay = RETRY_FIRST_S  # a write failed to fold meanwhile: go again soon
                else:
                    delay = min(delay * 2, RETRY_MAX_S)
        except Exception as exc:  # noqa: BLE001 - the next write, or the close, checkpoints again
            log.warning("the index's -wal could not be folded into its file (%s); the next write tries again", exc)
        finally:
            with self._lock:
                if self._thread is threading.current_thread():
                    self._thread = None
            if conn is not None:
                conn.close()

    def close(self) -> None:
        self._stop.set()
        with self._lock:
            thread = self._thread
        if thread is not None:
            # Bounded: a retry in a connect or a fold that does not come back (a disk that hangs) holds
            # no close; the next writer's checkpoint copies what it left.
            interruptible.join(thread, RETRY_JOIN_S)
