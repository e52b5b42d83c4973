"""Live counts of one ingest or sync run, and the one line that describes them."""

from __future__ import annotations

import os
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from minirag.display import duration

if TYPE_CHECKING:
    from minirag.gitstate import GitState


def plural(count: int, noun: str) -> str:
    """`1 file`, `2 files`."""
    return f"{count} {noun}{'s' * (count != 1)}"


# An ETA from the first file or two spreads the start-up (the first conversions and encoder batches)
# over every byte: none is said until 5% of the bytes are done or half a minute has gone
# (docs/operations.md, "A long sync").
ETA_AFTER_SHARE = 0.05
ETA_AFTER_S = 30.0


def nothing_found(where: str) -> str:
    """What a sync that found no file says of `where` it looked (the CLI on stderr, a sync job's note)."""
    return (f"found no document to index in {where}: no file there is of a type minirag reads (Markdown, text, "
            "PDF, Office, HTML, e-mail, e-books: docs/documents.md), or ignore rules (.minignore, .gitignore) "
            "leave them all out")


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
    vanished: int = 0  # files the walk found that were gone (or their folder) by the time they were read
    deleted: int = 0
    outside_roots: int = 0  # of `deleted`: files of no configured root (a root removed from the configuration)
    other_types: Counter = field(default_factory=Counter)  # files left out for their type, by suffix
    # Files whose stat moved between the read of their bytes and their write: not written (Pipeline.write).
    changed: int = 0
    chunks_written: int = 0
    chunks_embedded: int = 0  # moves per encoder batch, inside a large file too
    # The chunks this run has found to embed so far: those of the files converted and handed to the
    # encoder (files still to convert add theirs when they are).
    chunks_to_embed: int = 0
    chunks_reused: int = 0  # chunks written with a vector the index held already (the same text), not embedded
    # The bytes of the files this run converts (not those skipped by their stat): `bytes_done` of
    # them are finished, `bytes_partial` is the embedded share of the group being embedded now.
    bytes_total: int = 0
    bytes_done: int = 0
    bytes_partial: float = 0.0
    embed_started: float | None = None
    stage: str = "loading the model"  # what the live line says until the walk has found the files
    loading_model: bool = False  # a sync loads the model at its first file to convert, after the walk
    current: str | None = None
    ocr_page: tuple[str, int, int] | None = None  # (file, page, of pages): the page OCR is reading now
    warnings: list[str] = field(default_factory=list)
    # Each git root's commit and dirtiness, read at the end of a full sync (gitstate.root_states); None
    # for any other run, or when no root is a git work tree.
    git_state: tuple[GitState, ...] | None = None
    started: float = field(default_factory=time.monotonic)
    # When the walk had found the files: the ETA's clock, which model loading and the walk never
    # reach (the files' bytes measure what is left of the work, not of the start-up).
    work_started: float | None = None
    ended: float | None = None  # time.monotonic() when the run ended: its time and rate stop there
    timings: dict[str, float] = field(default_factory=dict)
    # Set to stop a run between files or encoder batches (a server shutting down); what was written stays.
    stop: threading.Event = field(default_factory=threading.Event, repr=False)

    def reading_page(self, source: str, page: int, pages: int) -> None:
        """OCR started on page `page` of the `pages` it reads in `source` (ingest/ocr.py)."""
        self.ocr_page = (source, page, pages)

    def pages_read(self, source: str) -> None:
        """`source`'s conversion ended: its pages are no longer being read."""
        if self.ocr_page is not None and self.ocr_page[0] == source:
            self.ocr_page = None

    def found(self, files: int) -> None:
        """The walk found `files` more files to look at: the work on them starts now."""
        self.total = (self.total or 0) + files
        if self.work_started is None:
            self.work_started = time.monotonic()

    def add_time(self, stage: str, seconds: float) -> None:
        self.timings[stage] = self.timings.get(stage, 0.0) + seconds

    def end(self) -> None:
        """The run is over: from now on its elapsed time, rate and ETA are those of its end."""
        if self.ended is None:
            self.ended = time.monotonic()

    def _now(self) -> float:
        return self.ended if self.ended is not None else time.monotonic()

    def elapsed_seconds(self) -> float:
        """Seconds from the run's start to now, or to its end, to the hundredth."""
        return round(self._now() - self.started, 2)

    def counts(self) -> str:
        """The counts in words, as the CLI prints them when a run ends."""
        excluded = f"{self.excluded} excluded, " if self.excluded else ""
        still = ""
        if self.still_failing:  # named apart from this run's failures: "3 failed (3 still failing)" read as the same 3
            others = plural(self.still_failing, "other") if self.failed else str(self.still_failing)
            still = f"; {others} still failing (unchanged since {'it' if self.still_failing == 1 else 'they'} failed)"
        unread = f"; {plural(self.unread, 'path')} not read" if self.unread else ""
        gone = f"; {self.vanished} gone before {'it was' if self.vanished == 1 else 'they were'} read" if self.vanished else ""
        outside = f" ({self.outside_roots} outside the configured roots)" if self.outside_roots else ""
        # Whether the encoder ran: a re-ingest of unchanged text writes its chunks with the vectors it had.
        work = f" ({self.chunks_embedded} embedded, {self.chunks_reused} reused)" if self.chunks_written else ""
        return (f"{plural(self.seen, 'file')}: {self.done} ingested, {self.skipped} unchanged, {excluded}"
                f"{self.deleted} removed{outside}, {self.failed} failed{still}{unread}{gone}; "
                f"{plural(self.chunks_written, 'chunk')}{work}")

    def git_words(self) -> str:
        """What follows a run's counts and time: `; git 1a2b3c4d5e6f` per git root of a full sync, `, uncommitted changes present` when it was
        dirty (local-rag-mcp's stamp: the index is pinned to the corpus state it was built from)."""
        words = []
        for state in self.git_state or ():
            root = f" ({state.root})" if len(self.git_state or ()) > 1 else ""
            words.append(f"; git {state.commit[:12]}{root}{', uncommitted changes present' if state.dirty else ''}")
        return "".join(words)

    def rate(self) -> float | None:
        """Chunks embedded a second since the first was, rounded; None before there is one."""
        if self.embed_started is None or not self.chunks_embedded:
            return None
        elapsed = self._now() - self.embed_started
        return round(self.chunks_embedded / elapsed, 1) if elapsed > 0 else None

    def eta_seconds(self) -> float | None:
        """Seconds left, from the share of the bytes to convert done so far in the time since the work
        started; None until a second of work and some of it is done, and in the first ETA_AFTER_S
        seconds until ETA_AFTER_SHARE of the bytes are (or when nothing is left to convert, or the
        run has ended)."""
        worked = self.bytes_done + self.bytes_partial
        elapsed = time.monotonic() - (self.work_started if self.work_started is not None else self.started)
        if self.ended is not None or self.total is None or worked <= 0 or elapsed < 1 or self.bytes_total <= worked:
            return None
        if worked < ETA_AFTER_SHARE * self.bytes_total and elapsed < ETA_AFTER_S:
            return None
        return round(elapsed * (self.bytes_total - worked) / worked)

    def live_line(self) -> str:
        """The one line a long run shows while it goes: files done of the total, chunks, rate, ETA."""
        elapsed = time.monotonic() - self.started
        if self.total is None:
            return f"{self.stage} ({duration(elapsed)})"
        # Of the chunks found to embed so far (those of the files converted), while some are left.
        left = self.chunks_to_embed > self.chunks_embedded
        parts = [f"{self.chunks_embedded} of {plural(self.chunks_to_embed, 'chunk')} embedded" if left
                 else plural(self.chunks_embedded, "chunk") + " embedded"]
        if (rate := self.rate()) is not None:
            parts.append(f"{rate:g} chunks/s")
        if (eta := self.eta_seconds()) is not None:
            parts.append(f"ETA {duration(eta)}")
        if self.failed:
            parts.append(f"{self.failed} failed")
        if self.loading_model:
            parts = ["loading the model"]
        if (reading := self.ocr_page) is not None:
            parts.append(f"OCR of {os.path.basename(reading[0])}: page {reading[1]} of {reading[2]}")
        return f"[{self.finished}/{plural(self.total, 'file')}] " + ", ".join(parts)

    def other_types_line(self, shown: int = 6, named: int = 3) -> str:
        """"left out, not a supported type: 20 .gz, 12 .rst, 3 without a suffix", or "". A suffix of
        digits is a version (`Apache-2.0`), not a type: such files count as without a suffix here
        (--json keeps each suffix as found). Past the `shown` most common types, a remainder of up
        to `named` types is named too; a longer one is counted ("12 files of 5 other types")."""
        if not self.other_types:
            return ""
        folded: Counter = Counter()
        for suffix, n in self.other_types.items():
            folded["" if suffix[1:].isdigit() else suffix] += n
        top = sorted(folded.items(), key=lambda item: (-item[1], item[0]))
        if len(top) <= shown + named:
            shown = len(top)
        parts = [f"{n} {suffix or 'without a suffix'}" for suffix, n in top[:shown]]
        if len(top) > shown:
            rest = top[shown:]
            parts.append(f"{plural(sum(n for _, n in rest), 'file')} of {len(rest)} other types")
        return "left out, not a supported type: " + ", ".join(parts)

    @property
    def finished(self) -> int:
        """Files this run is done with, whatever became of each."""
        return self.done + self.skipped + self.excluded + self.failed + self.still_failing

    @property
    def found_nothing(self) -> bool:
        """The run found no file at all to look at, removed none and missed no path."""
        return not (self.seen or self.deleted or self.unread or self.vanished)

    @property
    def incomplete(self) -> bool:
        """Something new was not indexed: a file that failed (not one still failing, unchanged, which
        was reported when it failed and is listed as `failed`), or a path not read."""
        return bool(self.failed or self.unread)
