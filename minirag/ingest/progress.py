"""Live counts of one ingest or sync run, and the one line that describes them."""

from __future__ import annotations

import threading
import time
from collections import Counter
from dataclasses import dataclass, field


@dataclass
class Progress:
    """Live counts of one ingest or sync run; safe to read from another thread."""

    seen: int = 0
    total: int | None = None  # the files this run will look at, once its walk has found them
    done: int = 0
    skipped: int = 0
    excluded: int = 0  # found, and left out on purpose (frontmatter `rag: false`)
    failed: int = 0  # files found that could not be indexed
    still_failing: int = 0  # files that failed before and have not changed since: not tried again
    unread: int = 0  # folders (or a named path) the run could not look into: permissions, a lost mount, a typo
    deleted: int = 0
    outside_roots: int = 0  # of `deleted`: files of no configured root (a root removed from the configuration)
    other_types: Counter = field(default_factory=Counter)  # files left out for their type, by suffix
    chunks_written: int = 0
    current: str | None = None
    warnings: list[str] = field(default_factory=list)
    started: float = field(default_factory=time.monotonic)
    timings: dict[str, float] = field(default_factory=dict)
    # Set to stop a run between files (a server shutting down); what was written stays.
    stop: threading.Event = field(default_factory=threading.Event, repr=False)

    def add_time(self, stage: str, seconds: float) -> None:
        self.timings[stage] = self.timings.get(stage, 0.0) + seconds

    def to_dict(self) -> dict:
        return {
            "seen": self.seen,
            "total": self.total,
            "ingested": self.done,
            "skipped": self.skipped,
            "excluded": self.excluded,
            "failed": self.failed,
            "stillFailing": self.still_failing,
            "unread": self.unread,
            "deleted": self.deleted,
            "deletedOutsideRoots": self.outside_roots,
            "otherTypes": dict(self._other_types_by_count()),
            "chunksWritten": self.chunks_written,
            "currentFile": self.current,
            "elapsedSeconds": round(time.monotonic() - self.started, 2),
            "warnings": list(self.warnings),
        }

    def counts(self) -> str:
        """The counts in words, as the CLI, its live line and MCP progress notifications show them."""
        excluded = f"{self.excluded} excluded, " if self.excluded else ""
        still = f" ({self.still_failing} still failing, unchanged)" if self.still_failing else ""
        unread = f"; {self.unread} path{'s' * (self.unread != 1)} not read" if self.unread else ""
        outside = f" ({self.outside_roots} outside the configured roots)" if self.outside_roots else ""
        return (f"{self.seen} files: {self.done} ingested, {self.skipped} unchanged, {excluded}"
                f"{self.deleted} removed{outside}, {self.failed} failed{still}{unread}; {self.chunks_written} chunks")

    def _other_types_by_count(self) -> list[tuple[str, int]]:
        """(suffix, files), most first; equal counts by suffix, so the output is the same every run."""
        return sorted(self.other_types.items(), key=lambda item: (-item[1], item[0]))

    def other_types_line(self, shown: int = 6) -> str:
        """"left out, not a supported type: 20 .gz, 12 .rst, 3 without a suffix", or ""."""
        if not self.other_types:
            return ""
        top = self._other_types_by_count()
        parts = [f"{n} {suffix or 'without a suffix'}" for suffix, n in top[:shown]]
        if len(top) > shown:
            parts.append(f"{sum(n for _, n in top[shown:])} of {len(top) - shown} other types")
        return "left out, not a supported type: " + ", ".join(parts)

    @property
    def finished(self) -> int:
        """Files this run is done with, whatever became of each."""
        return self.done + self.skipped + self.excluded + self.failed + self.still_failing

    @property
    def incomplete(self) -> bool:
        """Something new was not indexed: a file that failed (not one still failing, unchanged, which
        was reported when it failed and is listed as `failed`), or a path not read."""
        return bool(self.failed or self.unread)
