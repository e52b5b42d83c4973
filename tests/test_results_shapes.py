"""results.py's shaping of each value App returns: the wire names, their order, and what is left out.

The order is part of the output: `--json` prints keys in it and the text of `status` lists them
in it. Each test builds the value by hand, so a renamed or reordered field shows here first.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from minirag.doctor import Check, DoctorReport
from minirag.ingest.jobs import SyncJob
from minirag.ingest.listing import ListEntry
from minirag.ingest.progress import Progress
from minirag.ingest.watch import PassReport, WatchState
from minirag.results import job_started, payload, query_result, run_summary
from minirag.search import Hit
from minirag.store.backup import BackupResult, Moment
from minirag.store.index import ChunkRow, IndexStats
from minirag.values import (
    ChunkWindow,
    CollectionInfo,
    Collections,
    ConfigFailure,
    DeleteResult,
    FileListing,
    IngestResult,
    QueryResult,
    ReadResult,
    Status,
    SyncStatus,
)

PROGRESS_KEYS = ["seen", "total", "ingested", "skipped", "excluded", "failed", "stillFailing", "unread", "vanished", "deleted",
                 "deletedOutsideRoots", "otherTypes", "chunksWritten", "chunksEmbedded", "chunksToEmbed",
                 "chunksReused",
                 "chunksPerSecond",
                 "etaSeconds", "currentFile", "elapsedSeconds", "warnings"]


def test_an_ingest_result_has_a_null_title_when_it_has_none_and_warnings_only_when_there_are_some():
    assert payload(IngestResult("notes/a", "", 2, chunks_embedded=1, chunks_reused=1)) == {
        "source": "notes/a", "chunkCount": 2, "chunksEmbedded": 1, "chunksReused": 1, "title": None}
    shaped = payload(IngestResult("notes/a", "A", 1, ("one", "two")))
    assert list(shaped) == ["source", "chunkCount", "chunksEmbedded", "chunksReused", "title", "warnings"]
    assert shaped["warnings"] == ["one", "two"]


def test_a_delete_result():
    assert payload(DeleteResult("/d/a.md", 3)) == {"source": "/d/a.md", "deletedChunks": 3}


def test_a_read_page_names_its_pages_only_when_the_document_has_them():
    page = ReadResult("/d/a.pdf", "file", "A", 4, 10, 900, 500, "text")
    assert list(payload(page)) == ["source", "sourceType", "title", "chunkCount", "offset", "totalChars",
                                   "nextOffset", "text"]
    assert payload(page)["nextOffset"] == 500
    paged = payload(ReadResult("/d/a.pdf", "file", "A", 4, 0, 900, None, "text", pages="1-3"))
    assert list(paged)[-1] == "pages" and paged["pages"] == "1-3" and paged["nextOffset"] is None


def test_a_chunk_window_gives_parent_ids_as_strings_and_pages_as_a_hit_does():
    """`pages` as query_documents and read_file name it, and only where the document has pages."""
    window = ChunkWindow((ChunkRow("/d/a.pdf", 0, "one", 7, None, None, False),
                          ChunkRow("/d/a.pdf", 1, "two", 7, 2, 3, True),
                          ChunkRow("/d/a.pdf", 2, "three", 8, 4, 4, False)), {7: "one two", 8: "three"})
    assert payload(window) == {"chunks": [
        {"source": "/d/a.pdf", "chunkIndex": 0, "text": "one", "parentId": "7", "isTarget": False},
        {"source": "/d/a.pdf", "chunkIndex": 1, "text": "two", "parentId": "7", "pages": "2-3", "isTarget": True},
        {"source": "/d/a.pdf", "chunkIndex": 2, "text": "three", "parentId": "8", "pages": "4", "isTarget": False}],
        "parents": {"7": "one two", "8": "three"}}


def test_a_listing_leaves_out_reason_lifecycle_and_note_when_unset():
    listing = FileListing((ListEntry("/d/a.md", "file", "A", "indexed", 10, 2),
                           ListEntry("/d/b.md", "file", None, "excluded", 5, 0, reason="rag: false"),
                           ListEntry("/d/c.pdf", "file", "C", "indexed", 9, 1, lifecycle="archived", note="")),
                          ((".rst", 2), (".gz", 1)))
    shaped = payload(listing)
    assert list(shaped) == ["files", "otherTypes"] and shaped["otherTypes"] == {".rst": 2, ".gz": 1}
    first, second, third = shaped["files"]
    assert list(first) == ["source", "sourceType", "title", "state", "size", "chunkCount"]
    assert list(second)[-1] == "reason" and second["reason"] == "rag: false"
    assert list(third)[-2:] == ["lifecycle", "note"] and third["note"] == ""  # an empty note set is shown


def test_collections():
    shaped = payload(Collections((CollectionInfo("docs", "", "/d", 2, 5, None),)))
    assert shaped == {"collections": [{"name": "docs", "description": "", "path": "/d", "fileCount": 2,
                                       "chunkCount": 5, "lastSync": None}]}


def test_a_run_in_progress_and_its_summary():
    progress = Progress(seen=3, total=4, done=2, other_types=Counter({".gz": 1, ".rst": 2}), current="/d/a.md",
                        warnings=["w"])
    live = payload(progress)
    assert list(live) == PROGRESS_KEYS
    assert live["ingested"] == 2 and live["currentFile"] == "/d/a.md" and live["otherTypes"] == {".rst": 2, ".gz": 1}
    assert list(run_summary(progress)) == [k for k in PROGRESS_KEYS if k != "currentFile"]


def test_a_sync_job_carries_its_error_only_when_it_failed():
    job = SyncJob("sync-1-abc", Progress())
    assert job_started(job) == {"jobId": "sync-1-abc"}
    assert list(payload(job)) == ["jobId", "state", *PROGRESS_KEYS]
    failed = SyncJob("sync-2-def", Progress(), state="failed", error="boom")
    assert list(payload(failed))[-1] == "error" and payload(failed)["error"] == "boom"


def _watch_state(**changes) -> WatchState:
    fields = dict(watching=True, mode="notifications", roots=("/d",), debounce_seconds=2.0,
                  reconcile_every_seconds=600.0, next_reconcile_in_seconds=12.5, passes=1, running=None, queued=0,
                  queued_paths=(), last_pass=None, poll_interval_seconds=None)
    return WatchState(**(fields | changes))


WATCH_KEYS = ["watching", "mode", "roots", "debounceSeconds", "reconcileEverySeconds", "nextReconcileInSeconds",
              "passes", "running", "queued", "queuedPaths", "lastPass"]


def test_a_watcher_state_names_its_poll_interval_and_troubles_only_when_there_are_any():
    assert list(payload(_watch_state())) == WATCH_KEYS
    busy = payload(_watch_state(mode="polling", poll_interval_seconds=5.0, waiting_for_lock="held by pid 9",
                                last_error="E", notification_error="N", warning="W"))
    assert list(busy) == [*WATCH_KEYS, "pollIntervalSeconds", "waitingForLock", "lastError", "notificationError",
                          "warning"]


def test_a_pass_report_leaves_out_the_current_file_and_the_time_so_far():
    report = PassReport("changes", 2, Progress(done=1), 1.234, 0.0)
    shaped = payload(_watch_state(last_pass=report))["lastPass"]
    assert list(shaped) == ["kind", "paths", *[k for k in PROGRESS_KEYS if k not in ("currentFile", "elapsedSeconds")],
                            "seconds", "finishedAt"]
    assert shaped["seconds"] == 1.23 and shaped["finishedAt"] == "1970-01-01T00:00:00+00:00"


def test_sync_status_is_the_job_then_the_watcher():
    job = SyncJob("sync-1-abc", Progress())
    assert list(payload(SyncStatus(job, None))) == ["jobId", "state", *PROGRESS_KEYS]
    assert list(payload(SyncStatus(None, _watch_state()))) == ["watch"]
    assert list(payload(SyncStatus(job, _watch_state())))[-1] == "watch"


STATUS_HEAD = ["version", "roots", "dbPath", "model", "hybridWeight"]
STATUS_CONFIG = ["chunkTokenBudget", "chunkScheme", "readOnly"]
STATS_KEYS = ["sourceCount", "chunkCount", "sectionCount", "staleChunkCount", "indexModel", "dimension",
              "schemaVersion", "sqliteVersion"]  # chunkScheme keeps its place among the configuration's


def _status(**changes) -> Status:
    fields = dict(version="1", roots=("/d",), db_path="/d/i.db", model="m", hybrid_weight=0.5,
                  hybrid_weight_for_questions=None, hybrid_weight_for_sentences=None, hybrid_weight_for_names=None,
                  chunk_token_budget=200, chunk_scheme=5, read_only=False)
    return Status(**(fields | changes))


def test_status_of_a_readable_index():
    stats = IndexStats(2, 6, 3, 1, 5, "m", 384, 9, "3.50")
    shaped = payload(_status(hybrid_weight_for_questions=0.8, hybrid_weight_for_sentences=0.6,
                             hybrid_weight_for_names=0.9, stats=stats, collections=(), git_state=(),
                             scheme_warning="re-sync"))
    assert list(shaped) == [*STATUS_HEAD, "hybridWeightForQuestions", "hybridWeightForSentences",
                            "hybridWeightForNames", *STATUS_CONFIG, *STATS_KEYS, "collections",
                            "gitState", "schemeWarning"]
    assert shaped["chunkScheme"] == 5 and shaped["indexModel"] == "m"


def test_status_without_an_index_and_with_a_damaged_one():
    missing = payload(_status(index_error="no index", collections=()))
    assert list(missing) == [*STATUS_HEAD, *STATUS_CONFIG, "indexError", "collections"]
    unreadable = payload(_status(watch=_watch_state(), index_error="damaged"))
    assert list(unreadable) == [*STATUS_HEAD, *STATUS_CONFIG, "watch", "indexError"]
    building = payload(_status(sync_running="a sync (pid 8, running for 0m01s)", index_error="no index yet"))
    assert list(building) == [*STATUS_HEAD, *STATUS_CONFIG, "syncRunning", "indexError"]
    assert payload(ConfigFailure("1", "bad")) == {"version": "1", "configError": "bad"}


def test_doctor_gives_a_fix_only_for_a_failed_check():
    report = DoctorReport(False, "1", "3.11", (Check("sqlite", True, "fine"), Check("model", False, "gone", "get it")))
    assert payload(report) == {"ok": False, "version": "1", "python": "3.11", "checks": [
        {"name": "sqlite", "ok": True, "detail": "fine"},
        {"name": "model", "ok": False, "detail": "gone", "fix": "get it"}]}


def test_a_backup():
    moment = Moment("2026-12-04T08:00:00+00:00", 12, 3, 40)
    assert payload(BackupResult("/d/i.db", "/b/i.db", 4096, "ok", moment)) == {
        "source": "/d/i.db", "backup": "/b/i.db", "bytes": 4096, "integrity": "ok",
        "takenAt": "2026-12-04T08:00:00+00:00", "generation": 12, "sourceCount": 3, "chunkCount": 40,
        "replaced": False}


def test_a_query_result_names_each_hits_collection_and_fits_a_budget_by_leaving_hits_out():
    hits = tuple(Hit(i, f"/d/{i}.md", "file", "T", 0, "word " * 50, 1.0 - i / 10, 0.5, 7, None, None)
                 for i in range(3))
    value = QueryResult(hits, {7: "the section"}, ("docs", "docs", None), (Path("/d"),))
    whole = payload(value)
    assert list(whole) == ["results", "sources", "parents"] and whole["parents"] == {"7": "the section"}
    assert list(whole["results"][0])[-1] == "collection" and [h["collection"] for h in whole["results"]] == [
        "docs", "docs", None]
    assert whole["sources"][0]["displayPath"] == "0.md"
    assert query_result(value, budget=10_000) == whole
    fitted = query_result(value, budget=120)
    assert list(fitted)[-1] == "truncated" and fitted["truncated"]["hitsLeftOut"] >= 1
