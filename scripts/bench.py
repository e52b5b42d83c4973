"""Ingest and query speed of minirag: encoder limit, sync throughput, query latency, memory.

    python scripts/bench.py [--corpus DIR] [--limit-files N] [--sizes 10000,100000] [--watch] [--json]

"Embedding is the one expensive step of ingest; everything else must hide
behind it." So the bench measures the encoder alone on the corpus's own chunk
texts (pre-tokenized, length-sorted batches, a few batch shapes) and sets the
end-to-end cold `sync` against it; then the no-change sync (the fast path) on
the same tree and on 10,000 tiny files; then App.query latency (query
embedding + SQL + result shaping) on indexes of 10k / 100k (/ 1M) chunks grown
from the cold index's real chunks and vectors; the recall@10 of the in-memory
vector matrix against the vec0 exact scan; peak memory of ingest and of
serving; index bytes per chunk. With --watch, also watch mode (scripts/bench_watch.py).

Every phase runs in its own subprocess (this script re-invoked with --phase),
so each phase's peak RSS is its own. Progress goes to stderr, results to
stdout: a table, or one JSON object with --json. All files live in --workdir
(a temp dir, removed unless --keep). Model: --model-path, else MODEL_PATH, else the
default model (multilingual-e5-small) from the model cache; --minilm measures
all-MiniLM-L6-v2 (the test model, scripts/test_model.py) instead. Numbers from a shared or loaded machine are noisy:
the load average at start and end is part of the output.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import random
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

DEFAULT_CORPUS = ROOT / "data" / "corpus" / "python3.11-html"
DEFAULT_QUERIES = ROOT.parent / "shared" / "eval-data" / "gnome-help-desc-C" / "queries.jsonl"
BATCH_TOKEN_SHAPES = (1024, 2048, 4096)
MODES = {"hybrid": None, "keyword": 1.0, "vector": 0.0}  # None = the configured RAG_HYBRID_WEIGHT
VECTOR_NOISE = 0.02  # per-dimension std of the perturbation of replicated vectors (cos ~0.93 to the original)
BUILD_BATCH_CHUNKS = 5000  # chunks per replace_sources transaction when building large indexes


def log(message: str) -> None:
    sys.stderr.write(message + "\n")
    sys.stderr.flush()


def _proc_status_mb(field: str) -> float | None:
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return round(int(line.split()[1]) / 1024, 1)
    except OSError:
        pass
    return None


def rss_mb() -> float | None:
    """Resident set size of this process now (VmRSS), in MiB; None where /proc is missing."""
    return _proc_status_mb("VmRSS")


def peak_rss_mb() -> float:
    """Peak resident set size of this process (VmHWM), in MiB."""
    peak = _proc_status_mb("VmHWM")
    if peak is not None:
        return peak
    import resource

    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return round(rss / (1024 * 1024 if sys.platform == "darwin" else 1024), 1)


def rss_breakdown_mb() -> dict | None:
    """Where this process's resident memory is (/proc/self/smaps), in MiB: anonymous memory (the
    heap: Python, numpy arrays, the ONNX session) and each file with 1 MiB or more resident (the
    model's memory-mapped word table, libraries); None where /proc is missing."""
    try:
        lines = Path("/proc/self/smaps").read_text().splitlines()
    except OSError:
        return None
    anonymous, files, name = 0, {}, ""
    for line in lines:
        field = line.split()
        if not field[0].endswith(":"):  # a mapping's header: address perms offset dev inode [path]
            name = field[5] if len(field) > 5 and field[5].startswith("/") else ""
        elif field[0] == "Anonymous:":
            anonymous += int(field[1])
        elif field[0] == "Rss:" and name:
            files[name] = files.get(name, 0) + int(field[1])
    big = {Path(k).name: round(v / 1024, 1)
           for k, v in sorted(files.items(), key=lambda kv: -kv[1]) if v >= 1024}
    return {"anonymous": round(anonymous / 1024, 1), "file_backed": round(sum(files.values()) / 1024, 1),
            "largest_files": big}


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    pos = (len(ordered) - 1) * q / 100
    low = int(pos)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (pos - low)


def db_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in (path, Path(f"{path}-wal")) if p.exists())


# --- machine --------------------------------------------------------------------


def machine_info() -> dict:
    model = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    versions: dict = {"python": platform.python_version()}
    try:
        import onnxruntime

        versions["onnxruntime"] = onnxruntime.__version__
    except ImportError:
        pass
    from minirag.store import connection as db

    versions["sqlite"] = db.sqlite_version()
    try:
        from importlib.metadata import version

        versions["sqlite_vec"] = version("sqlite-vec")
        versions["tokenizers"] = version("tokenizers")
        versions["numpy"] = version("numpy")
    except Exception:  # noqa: BLE001 - versions are informative only
        pass
    return {
        "cores": os.cpu_count(),
        "cpu_model": model,
        "load_avg_start": list(os.getloadavg()),
        "date": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "platform": platform.platform(),
        **versions,
    }


# --- shared helpers ---------------------------------------------------------------


def make_config(root: Path, db_path: Path, model_path: str, weight: float | None = None):
    from minirag.config import load_config

    config = load_config(env={}, base_dirs=[str(root)], db_path=str(db_path), model_path=model_path)
    return config if weight is None else replace(config, hybrid_weight=weight)


def serving_config(db_path: Path, model_path: str, weight: float | None = None):
    """A read-only server of the index alone (no roots, as a replica runs): it serves every source
    the grown index holds, so each query's hits are read and shaped as a user's are (under the
    workdir as root, the copies' made-up paths were left out before shaping)."""
    from minirag.config import load_config

    config = load_config(env={}, db_path=str(db_path), model_path=model_path, read_only=True)
    return config if weight is None else replace(config, hybrid_weight=weight)


def load_encoder(model_path: str):
    from minirag.encoder import Encoder
    from minirag.models import resolve

    config = make_config(Path(model_path), Path(model_path) / "unused.db", model_path)
    encoder = Encoder(resolve(config.model_name, config.model_path, config.cache_dir), cache_dir=config.cache_dir)
    encoder.embed_documents(["warm up the session"])
    return encoder


class TimedTokenizer:
    """Wraps the encoder's tokenizer, summing seconds spent encoding per caller kind.

    Calls from the pipeline's convert workers are the chunker counting tokens;
    calls from any other thread are the encoder's own tokenization.
    """

    def __init__(self, inner):
        self._inner = inner
        self._lock = threading.Lock()
        self.seconds = {"chunk": 0.0, "embed": 0.0}

    def _timed(self, fn, *args, **kwargs):
        started = time.perf_counter()
        try:
            return fn(*args, **kwargs)
        finally:
            kind = "chunk" if threading.current_thread().name.startswith("minirag-convert") else "embed"
            with self._lock:
                self.seconds[kind] += time.perf_counter() - started

    def encode(self, *args, **kwargs):
        return self._timed(self._inner.encode, *args, **kwargs)

    def encode_batch(self, *args, **kwargs):
        return self._timed(self._inner.encode_batch, *args, **kwargs)

    def __getattr__(self, name):
        return getattr(self._inner, name)


def timed_sync(root: Path, db_path: Path, model_path: str, encoder) -> tuple[dict, float, object]:
    from minirag.app import App
    from minirag.ingest.sync import run_sync

    app = App(make_config(root, db_path, model_path), encoder=encoder)
    pipeline = app.pipeline  # opens the index and binds the model outside the timed part
    started = time.perf_counter()
    progress = run_sync(pipeline, list(app.config.roots))
    seconds = time.perf_counter() - started
    stats = app.index.stats()
    app.close()  # checkpoints the WAL into the .db file
    return stats, seconds, progress


# --- phase: ingest ------------------------------------------------------------------


def phase_ingest(spec: dict) -> dict:
    work = Path(spec["workdir"])
    corpus, db_path = work / "corpus", work / "cold.db"
    encoder = load_encoder(spec["model_path"])
    tokenizer = TimedTokenizer(encoder._tokenizer)
    encoder._tokenizer = tokenizer
    files = sum(1 for _ in corpus.rglob("*") if _.is_file())
    log(f"[ingest] cold sync of {files} files ...")
    stats, seconds, progress = timed_sync(corpus, db_path, spec["model_path"], encoder)
    ingest_peak = peak_rss_mb()
    chunks = stats.chunk_count
    timings = dict(progress.timings)
    size = db_bytes(db_path)
    log(f"[ingest] cold: {progress.done} files, {chunks} chunks in {seconds:.1f} s; no-change sync ...")
    tok = dict(tokenizer.seconds)
    _, again, progress2 = timed_sync(corpus, db_path, spec["model_path"], encoder)
    main_busy = timings.get("embed", 0.0) + timings.get("write", 0.0)
    cold = {
        "files": progress.done,
        "failed": progress.failed,
        "chunks": chunks,
        "seconds": round(seconds, 2),
        "files_per_s": round(progress.done / seconds, 2),
        "chunks_per_s": round(chunks / seconds, 2),
        "stage_seconds": {
            # convert/chunk run in the pipeline's worker threads (summed thread time);
            # embed/write run on the sync thread (wall time on the critical path).
            "convert": round(timings.get("convert", 0.0), 2),
            "chunk": round(timings.get("chunk", 0.0), 2),
            "tokenize": round(tok["chunk"] + tok["embed"], 2),
            "tokenize_in_chunk": round(tok["chunk"], 2),
            "tokenize_in_embed": round(tok["embed"], 2),
            "embed": round(timings.get("embed", 0.0), 2),
            "embed_excluding_tokenize": round(timings.get("embed", 0.0) - tok["embed"], 2),
            "write": round(timings.get("write", 0.0), 2),
            "sync_thread_other": round(seconds - main_busy, 2),
        },
        "index_bytes": size,
        "index_bytes_per_chunk": round(size / chunks) if chunks else None,
    }
    nochange = {
        "files": progress2.seen,
        "skipped": progress2.skipped,
        "seconds": round(again, 3),
        "files_per_s": round(progress2.seen / again, 1) if again else None,
    }
    return {"cold_sync": cold, "nochange_sync": nochange, "peak_rss_mb": ingest_peak}


# --- phase: many tiny files ---------------------------------------------------------------


def phase_manyfiles(spec: dict) -> dict:
    work = Path(spec["workdir"])
    root, db_path, count = work / "many", work / "many.db", spec["count"]
    distinct = 50  # repeated bodies: the pipeline embeds each distinct chunk text once
    for i in range(count):
        folder = root / f"d{i // 500:03d}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"note{i:05d}.md").write_text(
            f"# Note {i % distinct}\n\nA tiny note about topic {i % distinct} for the no-change benchmark.\n"
        )
    encoder = load_encoder(spec["model_path"])
    log(f"[manyfiles] first sync of {count} tiny files ...")
    stats, first, _ = timed_sync(root, db_path, spec["model_path"], encoder)
    log(f"[manyfiles] first sync {first:.1f} s; no-change sync ...")
    _, second, progress = timed_sync(root, db_path, spec["model_path"], encoder)
    return {
        "files": count,
        "first_sync_seconds": round(first, 2),
        "first_sync_files_per_s": round(count / first, 1),
        "seconds": round(second, 3),
        "files_per_s": round(progress.seen / second, 1) if second else None,
        "skipped": progress.skipped,
        "peak_rss_mb": peak_rss_mb(),
    }


# --- phase: encoder limit -----------------------------------------------------------------


def phase_encoder(spec: dict) -> dict:
    from minirag.store import connection as db

    conn = db.connect(Path(spec["workdir"]) / "cold.db", read_only=True)
    texts = [r[0] for r in conn.execute("SELECT text FROM chunks ORDER BY id")]
    conn.close()
    if len(texts) > spec["sample"]:
        texts = random.Random(0).sample(texts, spec["sample"])
    encoder = load_encoder(spec["model_path"])
    prefix, limit = encoder.spec.document_prefix, encoder.max_length
    started = time.perf_counter()
    encodings = encoder._tokenizer.encode_batch([prefix + t for t in texts])
    tokenize_s = time.perf_counter() - started
    ids = [e.ids[: limit - 1] + e.ids[-1:] if len(e.ids) > limit else e.ids for e in encodings]
    order = sorted(range(len(ids)), key=lambda i: len(ids[i]))
    real_tokens = sum(len(s) for s in ids)
    shapes = {}
    for budget in spec["shapes"]:
        encoder.MAX_BATCH_TOKENS = budget
        batches = [[ids[i] for i in b] for b in encoder._batches(order, ids)]
        encoder._run(batches[len(batches) // 2])  # warm this shape's kernels
        log(f"[encoder] {len(texts)} chunks, MAX_BATCH_TOKENS={budget}: {len(batches)} batches ...")
        started = time.perf_counter()
        for batch in batches:
            encoder._run(batch)
        seconds = time.perf_counter() - started
        padded = sum(len(b) * max(len(s) for s in b) for b in batches)
        shapes[str(budget)] = {
            "chunks_per_s": round(len(texts) / seconds, 2),
            "seconds": round(seconds, 2),
            "batches": len(batches),
            "mean_batch": round(len(texts) / len(batches), 1),
            "padding_overhead": round(padded / real_tokens - 1, 3),
        }
    best = max(shapes, key=lambda k: shapes[k]["chunks_per_s"])
    return {
        "chunks": len(texts),
        "mean_tokens": round(real_tokens / len(texts), 1),
        "chunks_per_s": shapes[best]["chunks_per_s"],
        "best_max_batch_tokens": int(best),
        "by_max_batch_tokens": shapes,
        "tokenize_chunks_per_s": round(len(texts) / tokenize_s, 1),
        "threads": os.cpu_count(),
        "model": encoder.model_id,
    }


# --- phase: build a large index ----------------------------------------------------------------


def read_seed(db_path: Path):
    """The cold index's sources as (record, ChunkedDocument, vectors) triples, plus the bound model."""
    import numpy as np

    from minirag.chunking import Chunk, ChunkedDocument, Section
    from minirag.store import connection as db
    from minirag.store.index import SourceRecord

    conn = db.connect(db_path, read_only=True)
    meta = dict(conn.execute("SELECT key, value FROM meta"))
    seeds = []
    for sid, source, kind, title, content_hash, category, lifecycle in conn.execute(
        "SELECT id, source, kind, title, content_hash, category, lifecycle FROM sources ORDER BY id"
    ).fetchall():
        parents = conn.execute(
            "SELECT id, text, page_start, page_end, context_lines FROM parents WHERE source_id = ? ORDER BY ord",
            (sid,),
        ).fetchall()
        position = {pid: n for n, (pid, *_rest) in enumerate(parents)}
        rows = conn.execute(
            "SELECT c.text, c.parent_id, c.tokens, c.page_start, c.page_end, v.embedding FROM chunks c "
            "JOIN chunks_vec v ON v.chunk_id = c.id WHERE c.source_id = ? ORDER BY c.ord",
            (sid,),
        ).fetchall()
        if not rows:
            continue
        doc = ChunkedDocument(
            title=title, category=category,
            sections=[Section(t, ps, pe, context_lines=cl) for _pid, t, ps, pe, cl in parents],
            chunks=[Chunk(t, position[p], n, ps, pe) for t, p, n, ps, pe, _v in rows],
        )
        vectors = np.stack([np.frombuffer(r[5], dtype=np.float32) for r in rows])
        record = SourceRecord(source=source, kind=kind, title=title, content_hash=content_hash,
                              category=category, lifecycle=lifecycle)
        seeds.append((record, doc, vectors))
    conn.close()
    return seeds, meta["model_id"], int(meta["dimension"])


def perturb_text(text: str, rng: random.Random) -> str:
    """The same passage with a few adjacent words swapped and one random token appended."""
    words = text.split(" ")
    for _ in range(3):
        if len(words) > 2:
            i = rng.randrange(len(words) - 1)
            words[i], words[i + 1] = words[i + 1], words[i]
    token = "".join(rng.choice("bcdfghjklmnpqrstvwxz") for _ in range(7))
    return " ".join(words) + " " + token


def phase_build(spec: dict) -> dict:
    import numpy as np

    from minirag.store.index import Index, PreparedSource

    work, size = Path(spec["workdir"]), spec["size"]
    path = work / f"large-{size}.db"
    for stale in (path, Path(f"{path}-wal"), Path(f"{path}-shm")):
        stale.unlink(missing_ok=True)
    seeds, model_id, dimension = read_seed(work / "cold.db")
    seed_chunks = sum(len(d.chunks) for _r, d, _v in seeds)
    rng, nprng = random.Random(size), np.random.default_rng(size)
    index = Index(path)
    index.bind_model(model_id, dimension)
    started = time.perf_counter()
    written, batch, batch_chunks, copy = 0, [], 0, 0
    last_log = started
    while written + batch_chunks < size:
        for record, doc, vectors in seeds:
            room = size - written - batch_chunks
            if room <= 0:
                break
            chunks, vecs = doc.chunks[:room], vectors[:room]
            if copy:
                chunks = [replace(c, text=perturb_text(c.text, rng)) for c in chunks]
                noisy = vecs + nprng.normal(0.0, VECTOR_NOISE, vecs.shape).astype(np.float32)
                vecs = noisy / np.linalg.norm(noisy, axis=1, keepdims=True)
            source = record.source if not copy else f"/bench/copy{copy:05d}{record.source}"
            batch.append(PreparedSource(replace(record, source=source), replace(doc, chunks=chunks),
                                        np.ascontiguousarray(vecs, dtype=np.float32)))
            batch_chunks += len(chunks)
            if batch_chunks >= BUILD_BATCH_CHUNKS:
                written += index.replace_sources(batch)
                batch, batch_chunks = [], 0
                if time.perf_counter() - last_log > 15:
                    last_log = time.perf_counter()
                    rate = written / (last_log - started)
                    log(f"[build {size}] {written} chunks, {rate:.0f} chunks/s")
        copy += 1
    written += index.replace_sources(batch)
    seconds = time.perf_counter() - started
    index.close()
    nbytes = db_bytes(path)
    return {
        "chunks": written,
        "seed_chunks": seed_chunks,
        "passes_over_seed": copy,  # pass 0 = the real chunks, later passes perturbed copies
        "seconds": round(seconds, 1),
        "chunks_per_s": round(written / seconds),
        "index_bytes": nbytes,
        "index_bytes_per_chunk": round(nbytes / written),
    }


# --- phase: serve queries -------------------------------------------------------------------


def read_queries(path: Path, count: int) -> list[str]:
    with path.open(encoding="utf-8") as handle:
        texts = [json.loads(line)["text"] for line in handle if line.strip()]
    return texts[:count]


def phase_serve(spec: dict) -> dict:
    from minirag.app import App
    from minirag.results import payload
    from minirag.search import vector as vectors

    work, size = Path(spec["workdir"]), spec["size"]
    path = work / f"large-{size}.db"
    queries = read_queries(Path(spec["queries_file"]), spec["queries"])
    encoder = load_encoder(spec["model_path"])
    out: dict = {"chunks": size, "queries": len(queries), "repeat": spec["repeat"]}

    samples = []
    for _ in range(spec["repeat"]):
        for q in queries:
            started = time.perf_counter()
            encoder.embed_queries([q])
            samples.append((time.perf_counter() - started) * 1000)
    out["query_embedding_ms"] = {"p50": round(percentile(samples, 50), 2), "p95": round(percentile(samples, 95), 2)}

    started = time.perf_counter()
    opener = App(make_config(work, path, spec["model_path"]), encoder=encoder)
    _ = opener.index  # opening writable upgrades an index from an older minirag (codes built once)
    opener.close()
    out["open_seconds"] = round(time.perf_counter() - started, 2)
    # One serving process: the three modes share one matrix cache, as one server's queries do.
    shared_matrices = None
    for mode, weight in MODES.items():
        app = App(serving_config(path, spec["model_path"], weight), encoder=encoder, serving=True)
        if shared_matrices is None:
            shared_matrices = app.serving_matrices()
            shared_matrices.build_now()  # what a serving process has after its first queries
        app.matrices = shared_matrices
        for q in queries[:3]:
            app.query(q)  # warm the page cache and the statement cache
        samples, hits = [], 0
        for _ in range(spec["repeat"]):
            for q in queries:
                started = time.perf_counter()
                result = payload(app.query(q, top_k=10))  # shaped too, as both faces do
                samples.append((time.perf_counter() - started) * 1000)
                hits += len(result["results"])
        out[mode] = {
            "weight": app.config.hybrid_weight if app.config.hybrid_weight is not None else "by query form",
            "p50_ms": round(percentile(samples, 50), 2),
            "p95_ms": round(percentile(samples, 95), 2),
            "p99_ms": round(percentile(samples, 99), 2),
            "mean_results": round(hits / len(samples), 1),
        }
        log(f"[serve {size}] {mode}: p50 {out[mode]['p50_ms']} ms, p95 {out[mode]['p95_ms']} ms")
        app.close()
    out["serving_rss_mb"] = rss_mb()
    out["peak_rss_mb"] = peak_rss_mb()
    out["serving_rss_breakdown_mb"] = rss_breakdown_mb()

    if size >= vectors.MIN_CHUNKS:
        app = App(make_config(work, path, spec["model_path"], 0.0), encoder=encoder)
        matrix = shared_matrices.build_now()
        recall = fast_path_recall(app.index.conn, encoder, queries, matrix)
        recall["chunks"] = size
        recall["in_domain"] = fast_path_recall(app.index.conn, encoder, in_domain_queries(work, len(queries)), matrix)
        out["fast_path_recall"] = recall
        log(f"[serve {size}] fast-path recall@10 {recall['recall_at_10']} "
            f"(in-domain queries: {recall['in_domain']['recall_at_10']})")
        app.close()
    return out


def in_domain_queries(work: Path, count: int) -> list[str]:
    """Queries the corpus can answer: ten words from the middle of randomly chosen seed chunks."""
    from minirag.store import connection as db

    conn = db.connect(work / "cold.db", read_only=True)
    texts = [r[0] for r in conn.execute("SELECT text FROM chunks ORDER BY id")]
    conn.close()
    rng = random.Random(7)
    out = []
    for text in rng.sample(texts, min(count, len(texts))):
        words = text.split()
        start = max(0, len(words) // 2 - 5)
        out.append(" ".join(words[start : start + 10]))
    return out


def fast_path_recall(conn, encoder, queries: list[str], matrix) -> dict:
    """Recall@10 of the vector side's fast path (in-memory int8 codes, the best re-scored from the float16
    copies it holds, or from the file past ROWS_BYTES)
    against the vec0 exact scan."""
    from minirag.search.plan import SearchOptions, hybrid_search

    options = SearchOptions(top_k=10, hybrid_weight=0.0)
    vectors_ = encoder.embed_queries(queries)

    def run(use_matrix: bool) -> tuple[list[list[int]], list[float]]:
        ids, ms = [], []
        for q, v in zip(queries, vectors_, strict=True):
            started = time.perf_counter()
            hits = hybrid_search(conn, q, options, embed=lambda v=v: v, matrix=matrix if use_matrix else None,
                                 exact=not use_matrix)
            ids.append([h.chunk_id for h in hits])
            ms.append((time.perf_counter() - started) * 1000)
        return ids, ms

    fast, fast_ms = run(True)
    exact, exact_ms = run(False)
    per_query = [len(set(f) & set(e)) / len(e) for f, e in zip(fast, exact, strict=True) if e]
    return {
        "queries": len(per_query),
        "recall_at_10": round(sum(per_query) / len(per_query), 4),
        "min_recall_at_10": round(min(per_query), 2),
        "perfect_queries": sum(1 for r in per_query if r == 1.0),
        "matrix_sql_p50_ms": round(percentile(fast_ms, 50), 2),
        "vec0_sql_p50_ms": round(percentile(exact_ms, 50), 2),
    }


PHASES = {
    "ingest": phase_ingest,
    "manyfiles": phase_manyfiles,
    "encoder": phase_encoder,
    "build": phase_build,
    "serve": phase_serve,
}


# --- orchestration -------------------------------------------------------------------------------


def run_phase(name: str, spec: dict) -> dict:
    from bench_common import run_phase as run

    return run(Path(__file__).resolve(), "bench", name, spec, log)


def cli_query_seconds(db_path: Path, work: Path, model_path: str, queries: list[str]) -> dict:
    """Wall time of `minirag query` as a user runs it: a new process, no vector codes in memory."""
    env = {k: v for k, v in os.environ.items() if k not in ("BASE_DIR", "BASE_DIRS", "DB_PATH", "MODEL_NAME")}
    env |= {"MODEL_PATH": model_path, "DB_PATH": str(db_path), "BASE_DIR": str(work)}
    seconds = []
    for text in queries:
        started = time.perf_counter()
        proc = subprocess.run([sys.executable, "-m", "minirag", "query", text, "--json"], env=env,
                              capture_output=True, text=True, check=False)
        seconds.append(time.perf_counter() - started)
        if proc.returncode != 0:
            raise SystemExit(f"minirag query failed: {proc.stderr.strip()}")
    log(f"[cli {db_path.name}] minirag query wall time p50 {percentile(seconds, 50):.2f} s")
    return {"runs": len(seconds), "p50_s": round(percentile(seconds, 50), 2), "max_s": round(max(seconds), 2)}


def copy_corpus(corpus: Path, dest: Path, limit: int | None) -> int:
    files = sorted(p for p in corpus.rglob("*.html") if p.is_file())
    if limit:
        files = files[:limit]
    if dest.exists():
        shutil.rmtree(dest)
    for src in files:
        target = dest / src.relative_to(corpus)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, target)
    return len(files)


def bench_model_path(args: argparse.Namespace) -> str:
    """The model directory measured: --model-path, MODEL_PATH, --minilm's test model, else the default model."""
    if args.model_path or os.environ.get("MODEL_PATH"):
        return args.model_path or os.environ["MODEL_PATH"]
    if args.minilm:
        from test_model import assemble

        return str(assemble())
    from minirag.config import DEFAULT_MODEL, default_cache_dir
    from minirag.errors import ModelUnavailable
    from minirag.models import locate

    try:
        files = locate(DEFAULT_MODEL, None, default_cache_dir())
    except ModelUnavailable as exc:
        raise SystemExit(f"bench: {exc}; or pass --minilm") from None
    return str(files.tokenizer_path.parent)


def run_all(args: argparse.Namespace, work: Path) -> dict:
    model_path = bench_model_path(args)
    machine = machine_info()
    log(f"bench: workdir {work}, model {model_path}, load average {machine['load_avg_start']}")
    base = {"workdir": str(work), "model_path": model_path}
    results: dict = {"machine": machine}

    skip = args.skip_ingest and (work / "cold.db").exists()
    if args.skip_ingest and not skip:
        log("--skip-ingest: no cold.db in the workdir, so the seed index is still built (not reported)")
    if not skip:
        files = copy_corpus(args.corpus, work / "corpus", args.limit_files)
        if not files:
            raise SystemExit(f"no .html files under {args.corpus}")
        ingest = run_phase("ingest", base)
    if not args.skip_ingest:
        encoder = run_phase("encoder", {**base, "sample": args.encoder_chunks, "shapes": list(BATCH_TOKEN_SHAPES)})
        cold = ingest["cold_sync"]
        cold["corpus"] = f"{args.corpus} ({files} .html files)"
        cold["ratio_to_encoder_limit"] = round(cold["chunks_per_s"] / encoder["chunks_per_s"], 3)
        many = run_phase("manyfiles", {**base, "count": args.many_files}) if args.many_files else None
        results["encoder_limit"] = encoder
        results["cold_sync"] = cold
        results["nochange_sync"] = {**ingest["nochange_sync"], "synthetic": many}

    sizes = list(args.sizes) + ([1_000_000] if args.million and 1_000_000 not in args.sizes else [])
    builds, latency, recall, serve_rss = {}, {}, None, {}
    for size in sizes:
        existing = work / f"large-{size}.db"
        if args.reuse_indexes and existing.exists():
            log(f"[build {size}] reusing {existing}")
            nbytes = db_bytes(existing)
            builds[str(size)] = {"chunks": size, "reused": str(existing), "seconds": 0.0, "chunks_per_s": None,
                                 "index_bytes": nbytes, "index_bytes_per_chunk": round(nbytes / size)}
        else:
            builds[str(size)] = run_phase("build", {**base, "size": size})
        served = run_phase("serve", {**base, "size": size, "queries": args.queries, "repeat": args.repeat,
                                     "queries_file": str(args.queries_file)})
        served["cli_query"] = cli_query_seconds(existing, work, model_path,
                                                read_queries(args.queries_file, args.cli_queries))
        serve_rss[str(size)] = {"after_queries": served.pop("serving_rss_mb"), "peak": served.pop("peak_rss_mb"),
                                "breakdown": served.pop("serving_rss_breakdown_mb")}
        recall = served.pop("fast_path_recall", recall)
        latency[str(size)] = served
    results["query_latency"] = {
        "how_built": (
            f"grown from the cold index's real chunks, sections and vectors: copy 0 is the real sources; each "
            f"further copy re-inserts every source under a new path with 3 adjacent-word swaps and one random "
            f"7-letter token appended to each chunk text, and each vector plus N(0, {VECTOR_NOISE}) noise per "
            f"dimension, renormalized; written through Index.replace_sources in batches of "
            f"~{BUILD_BATCH_CHUNKS} chunks"
        ),
        "queries_from": str(args.queries_file),
        "builds": builds,
        "by_size": latency,
    }
    results["fast_path_recall"] = recall
    results["memory"] = {
        "ingest_peak_rss_mb": ingest["peak_rss_mb"] if not args.skip_ingest else None,
        "manyfiles_peak_rss_mb": (results["nochange_sync"]["synthetic"] or {}).get("peak_rss_mb")
        if not args.skip_ingest else None,
        "serving_rss_mb": serve_rss,
        "index_bytes_per_chunk": {
            **({"cold": results["cold_sync"]["index_bytes_per_chunk"]} if not args.skip_ingest else {}),
            **{size: b["index_bytes_per_chunk"] for size, b in builds.items()},
        },
    }
    if args.watch:
        import bench_watch

        watch_dir = work / "watch"
        watch_dir.mkdir(exist_ok=True)
        results["watch"] = bench_watch.run_all(watch_dir, model_path=model_path, edits=20, burst=1000,
                                               idle_files=10_000, idle_seconds=60.0)
    machine["load_avg_end"] = list(os.getloadavg())
    return results


def print_table(r: dict) -> None:
    m = r["machine"]
    print(f"machine: {m['cores']} cores, {m['cpu_model']}; load avg start {m['load_avg_start'][0]:.2f} "
          f"end {m['load_avg_end'][0]:.2f}; Python {m['python']}, onnxruntime {m.get('onnxruntime')}, "
          f"SQLite {m['sqlite']}, sqlite-vec {m.get('sqlite_vec')}; {m['date']}")
    if "encoder_limit" in r:
        e, c, n = r["encoder_limit"], r["cold_sync"], r["nochange_sync"]
        print(f"\nencoder limit ({e['model']}, {e['chunks']} chunks, mean {e['mean_tokens']} tokens, pre-tokenized):")
        for budget, s in e["by_max_batch_tokens"].items():
            mark = " <- best" if int(budget) == e["best_max_batch_tokens"] else ""
            print(f"  MAX_BATCH_TOKENS {budget:>5}: {s['chunks_per_s']:>7.1f} chunks/s  "
                  f"({s['batches']} batches, mean {s['mean_batch']}, padding +{s['padding_overhead']:.0%}){mark}")
        print(f"  tokenizer alone: {e['tokenize_chunks_per_s']:.0f} chunks/s")
        print(f"\ncold sync: {c['corpus']}")
        print(f"  {c['files']} files, {c['chunks']} chunks in {c['seconds']:.1f} s = {c['files_per_s']:.2f} files/s, "
              f"{c['chunks_per_s']:.1f} chunks/s = {c['ratio_to_encoder_limit']:.0%} of the encoder limit")
        st = c["stage_seconds"]
        print("  stages (s): " + ", ".join(f"{k} {v:.1f}" for k, v in st.items()))
        print("  (convert/chunk/tokenize_in_chunk: summed worker-thread time; embed/write/sync_thread_other: "
              "sync-thread wall time; tokenize is timed inside chunk and embed, not added to them)")
        print(f"no-change sync: {n['files']} files in {n['seconds']:.3f} s = {n['files_per_s']:.0f} files/s")
        s = n.get("synthetic")
        if s:
            print(f"  {s['files']} tiny .md files: first sync {s['first_sync_seconds']:.1f} s "
                  f"({s['first_sync_files_per_s']:.0f} files/s), no-change {s['seconds']:.3f} s "
                  f"= {s['files_per_s']:.0f} files/s")
    q = r["query_latency"]
    print(f"\nquery latency, App.query top_k=10 (ms); large indexes: {q['how_built']}")
    print(f"  {'chunks':>9} {'mode':<8} {'p50':>8} {'p95':>8} {'p99':>8}   build")
    for size, res in q["by_size"].items():
        b = q["builds"][size]
        for i, mode in enumerate(MODES):
            x = res[mode]
            built = "reused" if b.get("reused") else f"{b['seconds']:.0f} s, {b['chunks_per_s']} chunks/s"
            extra = f"{built}, {b['index_bytes_per_chunk']} B/chunk" if i == 0 else ""
            print(f"  {int(size):>9} {mode:<8} {x['p50_ms']:>8.1f} {x['p95_ms']:>8.1f} {x['p99_ms']:>8.1f}   {extra}")
        print(f"  {'':>9} (query embedding alone p50 {res['query_embedding_ms']['p50']:.1f} ms; "
              f"{res['queries']} queries x {res['repeat']})")
        cli = res.get("cli_query")
        if cli:
            print(f"  {'':>9} `minirag query`, a new process, wall time: p50 {cli['p50_s']:.2f} s, "
                  f"max {cli['max_s']:.2f} s over {cli['runs']} runs")
    f = r["fast_path_recall"]
    if f:
        print(f"\nfast-path recall@10 at {f['chunks']} chunks: {f['recall_at_10']:.3f} over {f['queries']} queries "
              f"(min {f['min_recall_at_10']}, {f['perfect_queries']} perfect); vector SQL p50 matrix "
              f"{f['matrix_sql_p50_ms']:.1f} ms vs vec0 {f['vec0_sql_p50_ms']:.1f} ms")
        d = f["in_domain"]
        print(f"  in-domain queries (10 words from random corpus chunks): {d['recall_at_10']:.3f} over "
              f"{d['queries']} (min {d['min_recall_at_10']}, {d['perfect_queries']} perfect); vector SQL p50 "
              f"matrix {d['matrix_sql_p50_ms']:.1f} ms vs vec0 {d['vec0_sql_p50_ms']:.1f} ms")
    mem = r["memory"]
    serving = ", ".join(f"{size}: {v['after_queries']} after queries / {v['peak']} peak"
                        for size, v in mem["serving_rss_mb"].items())
    print(f"\nmemory: ingest peak {mem['ingest_peak_rss_mb']} MiB, tiny-file sync peak {mem['manyfiles_peak_rss_mb']} "
          f"MiB; serving RSS (one process: model, matrix, three query modes) MiB by size: {serving}; "
          f"index bytes/chunk {mem['index_bytes_per_chunk']}")
    for size, v in mem["serving_rss_mb"].items():
        b = v.get("breakdown")
        if b:
            files = ", ".join(f"{name} {mib}" for name, mib in list(b["largest_files"].items())[:4])
            print(f"  serving at {size}: anonymous {b['anonymous']} MiB (heap, arrays, ONNX session); "
                  f"file-backed {b['file_backed']} MiB, largest: {files}")
    if "watch" in r:
        import bench_watch

        print()
        bench_watch.print_table(r["watch"])


def parse_sizes(raw: str) -> list[int]:
    return [int(s.replace("_", "")) for s in raw.split(",") if s.strip()]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        epilog="Each phase runs in a subprocess of this script so peak memory is per phase.",
    )
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS,
                        help="folder of .html files for the cold/no-change sync (default: %(default)s)")
    parser.add_argument("--limit-files", type=int, default=None, metavar="N",
                        help="use the first N .html files (sorted by path) of the corpus (default: all)")
    parser.add_argument("--sizes", type=parse_sizes, default=[10_000, 100_000],
                        help="comma-separated chunk counts of the query-latency indexes (default: 10000,100000)")
    parser.add_argument("--million", action="store_true", help="also measure a 1,000,000-chunk index (slow)")
    parser.add_argument("--queries", type=int, default=50, help="queries per mode (default: %(default)s)")
    parser.add_argument("--queries-file", type=Path, default=DEFAULT_QUERIES,
                        help="BEIR queries.jsonl the queries are read from (default: %(default)s)")
    parser.add_argument("--repeat", type=int, default=2, help="times each query is timed (default: %(default)s)")
    parser.add_argument("--encoder-chunks", type=int, default=1000,
                        help="chunks (random sample of the cold index) the encoder limit is measured on "
                             "(default: %(default)s)")
    parser.add_argument("--many-files", type=int, default=10_000,
                        help="tiny files of the synthetic no-change sync; 0 skips it (default: %(default)s)")
    parser.add_argument("--skip-ingest", action="store_true",
                        help="skip the encoder, sync and tiny-file measurements; reuse <workdir>/cold.db "
                             "from a --keep run as the seed of the large indexes if there is one")
    parser.add_argument("--watch", action="store_true",
                        help="also measure watch mode (scripts/bench_watch.py: save -> searchable, a 1,000-file "
                             "checkout, idle CPU and RSS with 10,000 files watched)")
    parser.add_argument("--model-path", help="local model directory (default: MODEL_PATH, else the default model, "
                                              "multilingual-e5-small, from the model cache)")
    parser.add_argument("--minilm", action="store_true",
                        help="measure all-MiniLM-L6-v2 (the test model, scripts/test_model.py) instead of the default")
    parser.add_argument("--workdir", type=Path, help="where corpora and indexes go (default: a new temp dir)")
    parser.add_argument("--keep", action="store_true", help="keep the workdir")
    parser.add_argument("--reuse-indexes", action="store_true",
                        help="serve <workdir>/large-N.db from an earlier --keep run instead of building it again "
                             "(an index from an older minirag is upgraded when first opened)")
    parser.add_argument("--cli-queries", type=int, default=5,
                        help="`minirag query` processes timed per size, cold (default: %(default)s)")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of the table")
    parser.add_argument("--phase", choices=sorted(PHASES), help=argparse.SUPPRESS)
    parser.add_argument("--phase-spec", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)

    if args.phase:
        result = PHASES[args.phase](json.loads(args.phase_spec))
        print(json.dumps(result))
        return 0

    work = args.workdir or Path(tempfile.mkdtemp(prefix="minirag-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    try:
        results = run_all(args, work.resolve())
    finally:
        if not args.keep and args.workdir is None:
            shutil.rmtree(work, ignore_errors=True)
    if args.json:
        print(json.dumps(results, indent=2))
    else:
        print_table(results)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
