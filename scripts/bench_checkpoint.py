"""What folding the WAL into the .db file after every write costs, and how the checkpoint modes behave.

    python scripts/bench_checkpoint.py [--chunks 20000] [--writes 40] [--json]

On an index of --chunks chunks (random unit vectors, real FTS text), times a
write the size of one `ingest_data` call (one source of 5 chunks through
Index.replace_sources) under each policy: no checkpoint of our own (SQLite's
automatic one every 1000 pages only), PASSIVE (what the index does), FULL and
TRUNCATE. Then the same write while another connection holds a read
transaction open for --reader-s seconds (as a vector-codes load does at 1M
chunks): how long the write call takes, and whether the .db file alone held
the write when it returned and once the reader let go. Then the build rate of
--bulk chunks written in 5,000-chunk transactions with and without the
index's checkpoints. With the litestream binary installed, it also runs
Litestream replicating a copy while writing with and without the index's own
checkpoints, and counts the snapshots Litestream had to take (each a full
copy of the database: what a lost WAL frame costs it).
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from minirag.chunking import Chunk, ChunkedDocument, Section  # noqa: E402
from minirag.store import connection as db  # noqa: E402
from minirag.store.index import Index, PreparedSource, SourceRecord  # noqa: E402

DIMENSION = 384
WORDS = ["tide", "moon", "gravity", "ocean", "bulge", "orbit", "lunar", "water", "shore", "wave", "current"]


def log(message: str) -> None:
    sys.stderr.write(message + "\n")
    sys.stderr.flush()


def source(name: str, chunks: int, rng: np.random.Generator) -> PreparedSource:
    texts = [" ".join(rng.choice(WORDS, 60)) for _ in range(chunks)]
    doc = ChunkedDocument(title=name, category="generic", sections=[Section("\n\n".join(texts), None, None)],
                          chunks=[Chunk(t, 0, 80, None, None) for t in texts])
    vectors = rng.normal(size=(chunks, DIMENSION)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    return PreparedSource(SourceRecord(source=name, kind="data", title=name, content_hash=name), doc, vectors)


def build(path: Path, chunks: int, *, checkpoints: bool, rng: np.random.Generator) -> float:
    """Write `chunks` chunks in 5,000-chunk transactions; returns chunks per second."""
    with Index(path, checkpoints=checkpoints) as index:
        index.bind_model("bench/random", DIMENSION)
        started, written, n = time.perf_counter(), 0, 0
        while written < chunks:
            batch = [source(f"bulk/{n + i}", 50, rng) for i in range(100)]
            n += len(batch)
            written += index.replace_sources(batch)
        return written / (time.perf_counter() - started)


def in_file_alone(path: Path, name: str, scratch: Path) -> bool:
    """Whether a copy of the .db file alone (no -wal) holds source `name`."""
    copy = scratch / f"copy-{time.monotonic_ns()}.db"
    shutil.copyfile(path, copy)
    conn = db.connect(copy)
    try:
        found = conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'sources'").fetchone() and \
            conn.execute("SELECT 1 FROM sources WHERE source = ?", (name,)).fetchone()
        return bool(found)
    finally:
        conn.close()
        for suffix in ("", "-wal", "-shm"):
            Path(f"{copy}{suffix}").unlink(missing_ok=True)


def write_once(index: Index, mode: str, name: str, rng: np.random.Generator) -> float:
    """One ingest_data-sized write under `mode`; returns milliseconds."""
    item = source(name, 5, rng)
    started = time.perf_counter()
    index.replace_sources([item])
    if mode in ("FULL", "TRUNCATE"):
        index.conn.execute(f"PRAGMA wal_checkpoint({mode})").fetchone()
    return (time.perf_counter() - started) * 1000


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    pos = (len(ordered) - 1) * q / 100
    low = int(pos)
    high = min(low + 1, len(ordered) - 1)
    return round(ordered[low] + (ordered[high] - ordered[low]) * (pos - low), 2)


def run_modes(base: Path, work: Path, writes: int, reader_s: float) -> dict:
    out = {}
    for mode in ("none", "PASSIVE", "FULL", "TRUNCATE"):
        path = work / f"{mode}.db"
        shutil.copyfile(base, path)
        rng = np.random.default_rng(1)
        with Index(path, checkpoints=mode == "PASSIVE") as index:
            times = [write_once(index, mode, f"w/{mode}/{i}", rng) for i in range(writes)]
            idle_complete = in_file_alone(path, f"w/{mode}/{writes - 1}", work)
            # A reader pins the snapshot before the next write, as a long read transaction does.
            reader = db.connect(path, read_only=True)
            reader.execute("BEGIN")
            reader.execute("SELECT COUNT(*) FROM chunks").fetchone()
            release = threading.Timer(reader_s, reader.execute, args=("COMMIT",))
            release.start()
            pinned_ms = write_once(index, mode, f"w/{mode}/pinned", rng)
            complete_on_return = in_file_alone(path, f"w/{mode}/pinned", work)
            release.join()
            reader.close()
            deadline = time.monotonic() + 30
            while index.checkpointer is not None and index.checkpointer.pending and time.monotonic() < deadline:
                time.sleep(0.01)
            complete_after = in_file_alone(path, f"w/{mode}/pinned", work)
        out[mode] = {"write_p50_ms": percentile(times, 50), "write_p95_ms": percentile(times, 95),
                     "db_file_complete_when_idle": idle_complete,
                     f"write_ms_while_a_reader_holds_{reader_s:g}s": round(pinned_ms, 1),
                     "db_file_complete_when_that_write_returned": complete_on_return,
                     "db_file_complete_after_the_reader_let_go": complete_after}
        log(f"[modes] {mode}: {out[mode]}")
    return out


def run_litestream(base: Path, work: Path, writes: int) -> dict | None:
    from minirag.store.replica import litestream_binary

    binary = litestream_binary()
    if binary is None:
        return None
    out = {}
    for label, ours in (("index checkpoints off (MINIRAG_LITESTREAM_CONFIG)", False),
                        ("index checkpoints on", True)):
        folder = work / f"ls-{ours}"
        folder.mkdir()
        path = folder / "index.db"
        shutil.copyfile(base, path)
        config = folder / "litestream.yml"
        config.write_text(f"dbs:\n  - path: {path}\n    replicas:\n      - type: file\n"
                          f"        path: {folder / 'replica'}\n")
        logfile = folder / "litestream.log"
        proc = subprocess.Popen([binary, "replicate", "-config", str(config)], stdout=logfile.open("w"),
                                stderr=subprocess.STDOUT)
        try:
            time.sleep(3)
            rng = np.random.default_rng(2)
            with Index(path, checkpoints=ours) as index:
                times = []
                for i in range(writes):
                    times.append(write_once(index, "PASSIVE" if ours else "none", f"ls/{i}", rng))
                    time.sleep(0.05)
            time.sleep(3)
        finally:
            proc.terminate()
            proc.wait(30)
        text = logfile.read_text()
        out[label] = {"write_p50_ms": percentile(times, 50), "snapshots": text.count("snapshot complete"),
                      "warnings_or_errors": text.count("level=WARN") + text.count("level=ERROR"),
                      "wal_bytes_after": Path(f"{path}-wal").stat().st_size if Path(f"{path}-wal").exists() else 0}
        log(f"[litestream] {label}: {out[label]}")
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--chunks", type=int, default=20_000, help="chunks in the index written to")
    parser.add_argument("--writes", type=int, default=40, help="timed writes per mode")
    parser.add_argument("--reader-s", type=float, default=2.0, help="how long the pinning reader holds its snapshot")
    parser.add_argument("--bulk", type=int, default=50_000, help="chunks of the build-rate measurement")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="minirag-ckpt-") as tmp:
        work = Path(tmp)
        rng = np.random.default_rng(0)
        base = work / "base.db"
        log(f"building a {args.chunks}-chunk index ...")
        build(base, args.chunks, checkpoints=True, rng=rng)
        result = {"machine": {"load_avg_start": list(__import__("os").getloadavg())}, "chunks": args.chunks,
                  "modes": run_modes(base, work, args.writes, args.reader_s)}
        rates = {}
        for label, ours in (("checkpoints on", True), ("checkpoints off", False)):
            rates[label] = round(build(work / f"bulk-{ours}.db", args.bulk, checkpoints=ours,
                                       rng=np.random.default_rng(3)))
            log(f"[build] {label}: {rates[label]} chunks/s")
        result["build_chunks_per_s"] = rates
        result["litestream"] = run_litestream(base, work, args.writes)
        result["machine"]["load_avg_end"] = list(__import__("os").getloadavg())
    print(json.dumps(result, indent=2) if args.json else json.dumps(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
