"""Encoder variants side by side: passages per second on the same real chunks, and how close
their vectors are to the first variant's.

    python scripts/encoder_speed.py INDEX.db MODEL_DIR [MODEL_DIR ...] [--chunks N] [--rounds R]

INDEX.db is any minirag index (e.g. one scripts/eval.py kept with --index-dir); a random
sample of its chunk texts is embedded as documents by every variant, rounds interleaved so
a noisy machine penalises each alike. Prints one row per variant.
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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("index", type=Path)
    parser.add_argument("models", nargs="+", type=Path)
    parser.add_argument("--chunks", type=int, default=400)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()

    from minirag.encoder import Encoder
    from minirag.models import resolve
    from minirag.store import connection

    conn = connection.connect(args.index, read_only=True)
    texts = [r[0] for r in conn.execute("SELECT text FROM chunks")]
    conn.close()
    texts = random.Random(7).sample(texts, min(args.chunks, len(texts)))
    encoders = [Encoder(resolve("unused", m, Path("/nonexistent"))) for m in args.models]
    tokens = encoders[0].count_tokens_batch(texts)
    print(f"{len(texts)} chunks, tokens p50 {int(np.median(tokens))}, max {max(tokens)}", flush=True)
    seconds = [[] for _ in encoders]
    vectors = [None] * len(encoders)
    for _ in range(args.rounds):
        for i, encoder in enumerate(encoders):
            started = time.perf_counter()
            vectors[i] = encoder.embed_documents(texts)
            seconds[i].append(time.perf_counter() - started)
    for i, model in enumerate(args.models):
        best = min(seconds[i])
        agreement = np.sum(vectors[0] * vectors[i], axis=1)
        print(f"{model.name:<28} {len(texts) / best:7.1f} chunks/s (best of {args.rounds})  "
              f"cosine to {args.models[0].name}: min {agreement.min():.4f} mean {agreement.mean():.4f}",
              flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
