"""App: every operation the CLI and the MCP server offer, over one Config. The one way in.

The faces validate their arguments and shape the output; everything else (the
read-only refusal, the sync lock, sync jobs, git state, the model check,
backups) happens here or below. The index opens on first use and the model
loads on first use, so start-up and `status` stay fast.
"""

from __future__ import annotations

import json
import logging
import os
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from minirag import __version__
from minirag.config import Config
from minirag.errors import IndexUnavailable, InvalidArgument, MiniragError, NotFound
from minirag.ingest.jobs import SyncJob, SyncJobs
from minirag.ingest.pipeline import Document, Pipeline, file_hash
from minirag.ingest.progress import Progress
from minirag.ingest.scan import walk
from minirag.results import ingest_result, query_result
from minirag.search import Scope, SearchOptions, clamp_top_k, search
from minirag.search.vector import MatrixCache
from minirag.security import resolve_inside_roots
from minirag.store import connection
from minirag.store.index import META_GIT_STATE, Index

log = logging.getLogger(__name__)

MAX_NEIGHBORS = 20  # chunks on each side read_chunk_neighbors returns at most


class App:
    """`serving` (the MCP server) keeps a large index's vector codes in memory across queries;
    a one-shot CLI command reads them from the file instead of loading a copy it would drop."""

    def __init__(self, config: Config, *, encoder=None, serving: bool = False):
        self.config = config
        self._encoder = encoder
        self._index: Index | None = None
        self._pipeline: Pipeline | None = None
        self._lock = threading.Lock()
        self.matrices = (MatrixCache(lambda: connection.connect(self.config.db_path, read_only=True))
                         if serving else None)
        self._query_pool: ThreadPoolExecutor | None = None
        self.jobs = SyncJobs(config.db_path)

    # --- lazily opened parts -------------------------------------------------

    @property
    def index(self) -> Index:
        with self._lock:
            if self._index is None:
                self._index = Index(self.config.db_path, read_only=self.config.read_only,
                                    checkpoints=self.config.litestream_config is None)
            return self._index

    @property
    def encoder(self):
        with self._lock:
            if self._encoder is None:
                from minirag.encoder import Encoder
                from minirag.models import resolve

                self._encoder = Encoder(resolve(self.config.model_name, self.config.model_path,
                                                self.config.cache_dir))
            return self._encoder

    @property
    def pipeline(self) -> Pipeline:
        index, encoder = self.index, self.encoder
        with self._lock:
            if self._pipeline is None:
                self._pipeline = Pipeline(index, encoder, self.config)
            return self._pipeline

    @property
    def query_pool(self) -> ThreadPoolExecutor:
        """The thread a query's vector side runs on beside its keyword side (search.plan)."""
        with self._lock:
            if self._query_pool is None:
                self._query_pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="minirag-query")
            return self._query_pool

    def close(self) -> None:
        """Stop sync jobs between files, wait for them, then close the index."""
        self.jobs.stop_all()
        with self._lock:
            if self._index is not None:
                self._index.close()
                self._index = None
                self._pipeline = None
            if self._query_pool is not None:
                self._query_pool.shutdown(wait=True)
                self._query_pool = None

    # --- guards ------------------------------------------------------------------

    def refuse_if_read_only(self, operation: str) -> None:
        """The one read-only refusal: before any lock, fetch, model load or file is touched."""
        if self.config.read_only:
            raise IndexUnavailable(f"{operation} is refused: the index is open read-only "
                                   "(--read-only / MINIRAG_READ_ONLY); run it without read-only mode")

    def file_source(self, path: str | Path, *, must_be_absolute: bool = False) -> tuple[str, Path]:
        """(source id, real path) for a path inside the roots; symlinks keep their own name."""
        if must_be_absolute and not os.path.isabs(path):
            raise InvalidArgument(f"filePath must be an absolute path, got {path!r}")
        absolute = os.path.abspath(path)
        real = resolve_inside_roots(Path(absolute), self.config.roots)
        return absolute, real

    def source_key(self, *, file_path: str | None, source: str | None, must_be_absolute: bool = False) -> str:
        if (file_path is None) == (source is None):
            raise InvalidArgument("provide exactly one of filePath or source")
        if file_path is not None:
            return self.file_source(file_path, must_be_absolute=must_be_absolute)[0]
        return source

    # --- writes ------------------------------------------------------------------

    def ingest_paths(self, paths: list[str], progress: Progress | None = None,
                     on_change: Callable[[Progress], None] | None = None, *, force: bool = False) -> Progress:
        self.refuse_if_read_only("ingest")
        progress = progress or Progress()
        files = []
        for raw in paths:
            absolute, _real = self.file_source(raw)
            if not os.path.exists(absolute):
                raise NotFound(f"no such file or directory: {absolute}")
            files.extend(walk(Path(absolute), self.config.roots))
        self.pipeline.run_files(files, progress, force=force, on_change=on_change)
        return progress

    def ingest_file(self, file_path: str, *, must_be_absolute: bool = False) -> dict:
        self.refuse_if_read_only("ingest_file")
        source, real = self.file_source(file_path, must_be_absolute=must_be_absolute)
        if not real.is_file():
            raise NotFound(f"not a file: {source}")
        progress = Progress()
        found = list(walk(Path(source), self.config.roots))
        if not found:
            raise InvalidArgument(f"unsupported file type: {source}")
        self.pipeline.run_files(found, progress, force=True)
        if progress.failed:
            raise MiniragError("; ".join(progress.warnings))
        try:
            row = self.index.source_row(source)
        except NotFound:
            return ingest_result(source, "", 0, ["excluded by frontmatter rag: false", *progress.warnings])
        return ingest_result(source, row["title"], row["chunkCount"], progress.warnings)

    def _ingest_document(self, document: Document | object, name: str) -> dict:
        if not isinstance(document, Document):
            raise InvalidArgument(f"{name}: excluded by frontmatter rag: false")
        self.pipeline.write([document])
        return ingest_result(document.record.source, document.record.title,
                             len(document.chunked.chunks), document.warnings)

    def ingest_data(self, content: str, source: str, fmt: str = "text", title: str | None = None) -> dict:
        from minirag.ingest.convert import convert_data

        self.refuse_if_read_only("ingest_data")
        if not source or not source.strip():
            raise InvalidArgument("source must be a non-empty id")
        converted = convert_data(content, fmt, source)
        document = self.pipeline.build(
            converted, source=source, kind="data", stem=source, title=title,
            content_hash=file_hash(content.encode("utf-8")),
        )
        return self._ingest_document(document, source)

    def ingest_url(self, url: str, source: str | None = None, title: str | None = None) -> dict:
        """The one network operation: every fetch goes through fetch.fetch_url and its guard."""
        from minirag.ingest.convert import convert_bytes
        from minirag.ingest.fetch import fetch_url

        self.refuse_if_read_only("ingest_url")
        page = fetch_url(url, allow_private=self.config.allow_private_urls)
        converted = convert_bytes(page.body, mimetype=page.content_type, charset=page.charset, url=page.final_url)
        document = self.pipeline.build(
            converted, source=source or url, kind="url", stem=source or url, title=title,
            content_hash=file_hash(page.body),
        )
        return self._ingest_document(document, url)

    def delete(self, key: str) -> dict:
        self.refuse_if_read_only("delete")
        chunks = self.index.source_row(key)["chunkCount"]
        self.index.delete_sources([key])
        return {"source": key, "deletedChunks": chunks}

    def sync(self, path: str | None = None, progress: Progress | None = None,
             on_change: Callable[[Progress], None] | None = None) -> Progress:
        """One sync pass in this thread, holding the sync lock (SyncLocked at once if another holds it)."""
        from minirag.store.lock import SyncLock

        self.refuse_if_read_only("sync")
        target = Path(self.file_source(path)[0]) if path else None
        with SyncLock(self.config.db_path):
            return self._sync_locked(target, progress or Progress(), on_change)

    def start_sync(self, path: str | None = None) -> SyncJob:
        """A sync pass in a background job; the lock is taken before this returns."""
        self.refuse_if_read_only("sync_start")
        target = Path(self.file_source(path, must_be_absolute=True)[0]) if path else None
        return self.jobs.start(lambda progress: self._sync_locked(target, progress, None))

    def sync_job(self, job_id: str) -> SyncJob:
        job = self.jobs.get(job_id)
        if job is None:
            raise NotFound(f"unknown jobId {job_id!r}: sync_start returns one; this server keeps "
                           f"the last {SyncJobs.KEEP} jobs until it restarts")
        return job

    def _sync_locked(self, target: Path | None, progress: Progress,
                     on_change: Callable[[Progress], None] | None) -> Progress:
        from minirag.gitstate import root_states
        from minirag.ingest.sync import run_sync

        run_sync(self.pipeline, list(self.config.roots), path=target, progress=progress, on_change=on_change)
        if target is None and not progress.stop.is_set():
            states = root_states(list(self.config.roots), self.config.db_path)
            self.index.set_meta(META_GIT_STATE, json.dumps(states))
        return progress

    def doctor(self) -> dict:
        from minirag.doctor import run_checks

        return run_checks(self.config)

    def backup(self, dest: str) -> dict:
        from minirag.store.backup import backup

        return backup(self.config.db_path, dest)

    # --- reads -------------------------------------------------------------------

    def query(self, text: str, top_k: int = 10, scope: str | None = None) -> dict:
        if not text or not text.strip():
            raise InvalidArgument("query must not be empty")
        clamp_top_k(top_k)  # refuse a bad topK even when the index is empty
        options = SearchOptions(
            top_k=top_k, hybrid_weight=self.config.hybrid_weight, scope=scope, grouping=self.config.grouping,
            max_distance=self.config.max_distance, max_files=self.config.max_files,
        )
        index = self.index
        bound = index.bound_model()
        if bound is None:
            return query_result([], {}, self.config.roots)  # nothing indexed yet
        encoder = None
        if options.hybrid_weight < 1.0:
            encoder = self.encoder
            if bound != (encoder.model_id, encoder.dimension):
                index.bind_model(encoder.model_id, encoder.dimension)  # raises, naming both models
        hits = search(index.conn, text, options, encoder=encoder, matrices=self.matrices, pool=self.query_pool,
                      pool_conn=lambda: index.conn)
        return query_result(hits, index.parents(h.parent_id for h in hits), self.config.roots)

    def read(self, key: str) -> dict:
        from minirag.chunking import reconstruct
        from minirag.results import page_label

        row = self.index.source_row(key)
        sections = self.index.sections(key)
        out = {
            "source": key, "sourceType": row["kind"], "title": row["title"], "chunkCount": row["chunkCount"],
            "text": reconstruct(sections),
        }
        paged = [s for s in sections if s.page_start is not None]
        if paged:
            out["pages"] = page_label(paged[0].page_start, max(s.page_end or s.page_start for s in paged))
        return out

    def neighbors(self, key: str, chunk_index: int, before: int = 1, after: int = 1) -> dict:
        for name, value in (("before", before), ("after", after)):
            if value < 0:
                raise InvalidArgument(f"{name} must be 0 or more, got {value}")
        chunks = self.index.chunk_window(key, chunk_index, min(before, MAX_NEIGHBORS), min(after, MAX_NEIGHBORS))
        for chunk in chunks:
            chunk["parentId"] = str(chunk["parentId"])
        return {"chunks": chunks}

    def list_files(self, scope: str | None = None) -> dict:
        from minirag.ingest.listing import list_entries

        return {"files": list_entries(self.index, self.config, Scope.of(scope) if scope else None)}

    def status(self) -> dict:
        from minirag.chunking import SCHEME_VERSION
        from minirag.gitstate import parse_states

        config = self.config
        out: dict = {
            "version": __version__,
            "roots": [str(r) for r in config.roots],
            "dbPath": str(config.db_path),
            "model": config.model_path and f"{config.model_path} (MODEL_PATH)" or config.model_name,
            "hybridWeight": config.hybrid_weight,
            "chunkTokenBudget": config.chunk_token_budget,
            "chunkScheme": SCHEME_VERSION,
            "readOnly": config.read_only,
        }
        if config.read_only and not config.db_path.exists():
            out["indexError"] = f"no index at {config.db_path}; run `minirag sync` first"
            return out
        try:
            stats = self.index.stats()
        except MiniragError as exc:
            out["indexError"] = str(exc)
            return out
        out.update(stats)
        out["gitState"] = parse_states(self.index.meta(META_GIT_STATE))
        if stats["staleChunkCount"]:
            out["schemeWarning"] = (
                f"{stats['staleChunkCount']} chunk(s) were cut by an older chunking scheme; "
                "run `minirag sync` (or sync_start) to rebuild them"
            )
        return out
