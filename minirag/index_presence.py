"""Whether DB_PATH holds an index to read and, where it does not, why: the one answer to it.

Reads never create the index: a DB_PATH with no index (a typo, or nothing synced yet) is an
error saying so, not an empty answer and a stray new file. App asks here before a read, and
status reports the same words where a read would refuse.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from minirag.config import INDEX_DIRNAME, INDEX_FILENAME, Config
from minirag.errors import IndexUnavailable, MiniragError
from minirag.ingest.jobs import SyncJobs
from minirag.store import connection
from minirag.store.home import in_own_place


@dataclass(frozen=True)
class IndexPresence:
    config: Config
    jobs: SyncJobs  # this server's sync jobs: one of them may be building the index

    def holds_data(self) -> bool:
        """Whether DB_PATH names a file with something in it. A zero-length file is no index: a read
        that opened it would write a schema into it (reads never create or migrate an index)."""
        try:
            return os.stat(self.config.db_path).st_size > 0
        except OSError:
            return False

    def being_built(self) -> str | None:
        """The sync running on this index, in words (a job of this server by its jobId, another
        process's by its PID), or None."""
        from minirag.store.lock import live_holder

        job = self.jobs.running()
        if job is not None:
            return f"sync job {job.job_id} of this server (pid {os.getpid()})"
        return live_holder(self.config.db_path)

    def missing(self) -> MiniragError | None:
        """Why DB_PATH holds no index to read, as the error a read raises; None where it holds one."""
        db_path = self.config.db_path
        if self.holds_data():
            return None
        if connection.not_sqlite(db_path):  # an empty document, named by mistake
            return connection.not_sqlite_error(db_path)
        if (who := self.being_built()) is not None:
            return IndexUnavailable(_not_built_yet(f"no index at {db_path} yet", who))
        how = ("a writer must build it first (this one is read-only)" if self.config.read_only else
               "run `minirag sync` (or the sync_start tool) first")
        what = "the index file {} is empty (0 bytes)" if os.path.exists(db_path) else "no index at {}"
        return IndexUnavailable(f"{what.format(db_path)}; {how}, or check DB_PATH{self._index_above()}")

    def still_empty(self) -> MiniragError | None:
        """What a read of an index that holds nothing yet raises while a first sync builds it; None
        where no sync runs (then nothing indexed is an empty answer)."""
        if (who := self.being_built()) is not None:
            return IndexUnavailable(_not_built_yet(f"the index at {self.config.db_path} is empty", who))
        return None

    def _index_above(self) -> str:
        """Where an index of a folder above the first root holds it (a command run in a subfolder of an
        indexed folder, which a sync would index again into a file of its own), said as the way to it; ""."""
        if not self.config.roots or not in_own_place(self.config):
            return ""
        for folder in self.config.roots[0].parents:
            try:
                if (folder / INDEX_DIRNAME / INDEX_FILENAME).stat().st_size > 0:
                    return (f"; the index of {folder}, a folder above, holds this one: --base-dir {folder} "
                            "(and --scope . for this folder alone)")
            except OSError:
                continue
        return ""


def _not_built_yet(what: str, who: str) -> str:
    # "indexed", not "written": where the index file is already there, it is the files it holds that are not.
    return (f"{what}: {who} is building it and has indexed no file yet; ask again once it has (each file it "
            "indexes is searched at once; `minirag status` or sync_status follows it)")
