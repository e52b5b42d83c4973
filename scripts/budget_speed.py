"""What a chunk budget costs at ingest: the same documents, chunked at each budget, embedded by one model.

    python scripts/budget_speed.py MODEL_DIR INDEX.db [INDEX.db ...] [--docs N] [--rounds R]

Each INDEX.db is an index of the same corpus built at a different CHUNK_TOKEN_BUDGET (e.g. the
ones scripts/eval.py keeps with --index-dir). A random sample of documents present in all of
them is taken; for each index, that sample's stored chunk texts (exactly what ingest embedded)
are embedded again, rounds interleaved so a noisy machine penalises each budget alike. Prints
one row per index: chunks, tokens per chunk, best time, chunks/s and documents/s. Documents/s
is the figure that compares budgets: fewer, longer chunks cost more each.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def chunk_texts(index: Path, sources: list[str]) -> list[str]:
    from minirag.store import connection

    conn = connection.connect(index, read_only=True)
    try:
        marks = ",".join("?" * len(sources))
        rows = conn.execute(f"SELECT c.text FROM chunks c JOIN sources s ON s.id = c.source_id "
                            f"WHERE s.source IN ({marks}) ORDER BY s.source, c.ord", sources)
        return [r[0] for r in rows]
    finally:
        conn.close()


def source_names(index: Path) -> set[str]:
    from minirag.store import connection

    conn = connection.connect(index, read_only=True)
    try:
        return {r[0] for r in conn.execute("SELECT source FROM sources")}
    finally:
        conn.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("model", type=Path)
    parser.add_argument("indexes", nargs="+", type=Path)
    parser.add_argument("--docs", type=int, default=150)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()

    from minirag.encoder import Encoder
    from minirag.models import resolve

    common = set.intersection(*(source_names(i) for i in args.indexes))
    sample = random.Random(7).sample(sorted(common), min(args.docs, len(common)))
    encoder = Encoder(resolve("unused", args.model, Path("/nonexistent")))
    texts = [chunk_texts(i, sample) for i in args.indexes]
    seconds: list[list[float]] = [[] for _ in args.indexes]
    for _ in range(args.rounds):
        for i, batch in enumerate(texts):
            started = time.perf_counter()
            encoder.embed_documents(batch)
            seconds[i].append(time.perf_counter() - started)
    print(f"{len(sample)} documents, model {args.model}")
    print(f"{'index':<40} {'chunks':>7} {'tok p50':>8} {'tok max':>8} {'best s':>8} {'chunks/s':>9} {'docs/s':>7}")
    for i, index in enumerate(args.indexes):
        tokens = encoder.count_tokens_batch(texts[i])
        best = min(seconds[i])
        print(f"{str(index)[-40:]:<40} {len(texts[i]):>7} {int(np.median(tokens)):>8} {max(tokens):>8} "
              f"{best:>8.1f} {len(texts[i]) / best:>9.1f} {len(sample) / best:>7.2f}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
