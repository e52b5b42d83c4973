"""Encoder variants side by side: passages per second on the same real chunks, and how close
their vectors are to the first variant's.

    python scripts/encoder_speed.py INDEX.db MODEL_DIR [MODEL_DIR ...] [--chunks N] [--rounds R]
        [--also INDEX.db ...] [--cache-dir DIR [--graph FILE ...]]

INDEX.db is any minirag index (e.g. one scripts/eval.py kept with --index-dir); a random
sample of N of its chunk texts (and N of each --also index's: several languages in one
sample) is embedded as documents by every variant, rounds interleaved so a noisy machine
penalises each alike. Prints one row per variant, with the CPU seconds
per chunk (all threads), which a loaded machine inflates less than the wall time.

Each model's first row embeds documents with its float graph (the reference); where minirag
embeds with an int8 graph (minirag/int8_graph.py), that is the next row.
With --cache-dir the encoders are built as minirag serves them (the word table split out
and the Python tokenizer, made there on first use); each --graph is then one more variant:
that ONNX graph run in place of the first model's split graph, with the same table and
tokenizer (e.g. the split graph fused by onnxruntime.transformers.optimizer, or quantized).
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
    parser.add_argument("--chunks", type=int, default=400, help="chunks sampled from each index")
    parser.add_argument("--also", type=Path, action="append", default=[], help="one more index to sample")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--cache-dir", type=Path, help="build the encoders as served, their split made here")
    parser.add_argument("--graph", type=Path, action="append", default=[],
                        help="an ONNX graph to run in place of the first model's split graph (needs --cache-dir)")
    args = parser.parse_args()

    from minirag import int8_graph
    from minirag.encoder import Encoder
    from minirag.models import resolve
    from minirag.store import connection

    texts = []
    for index in [args.index, *args.also]:
        conn = connection.connect(index, read_only=True)
        found = [r[0] for r in conn.execute("SELECT text FROM chunks")]
        conn.close()
        texts += random.Random(7).sample(found, min(args.chunks, len(found)))
    if args.graph and args.cache_dir is None:
        parser.error("--graph needs --cache-dir (a graph replaces the split graph)")
    cache = args.cache_dir or Path("/nonexistent")
    encoders, names = [], []
    for m in args.models:
        served = Encoder(resolve("unused", m, cache), cache_dir=args.cache_dir)
        encoders.append(with_graph(served, None))
        names.append(m.name)
        if served._split is not None and int8_graph.cached(served._split.onnx_path) is not None:  # noqa: SLF001
            encoders.append(served)
            names.append(f"{m.name} int8 (served)")
    for graph in args.graph:
        encoders.append(with_graph(encoders[0], graph))
        names.append(graph.name)
    tokens = encoders[0].count_tokens_batch(texts)
    print(f"{len(texts)} chunks, tokens p50 {int(np.median(tokens))}, max {max(tokens)}", flush=True)
    seconds: list[list[float]] = [[] for _ in encoders]
    cpu: list[list[float]] = [[] for _ in encoders]
    vectors = [None] * len(encoders)
    for _ in range(args.rounds):
        for i, encoder in enumerate(encoders):
            started, started_cpu = time.perf_counter(), time.process_time()
            vectors[i] = encoder.embed_documents(texts)
            seconds[i].append(time.perf_counter() - started)
            cpu[i].append(time.process_time() - started_cpu)
    for i, name in enumerate(names):
        best = min(seconds[i])
        agreement = np.sum(vectors[0] * vectors[i], axis=1)
        print(f"{name:<28} {len(texts) / best:7.1f} chunks/s (best of {args.rounds}), "
              f"{1000 * min(cpu[i]) / len(texts):6.1f} ms CPU/chunk  "
              f"cosine to {names[0]}: min {agreement.min():.6f} mean {agreement.mean():.6f}", flush=True)
    return 0


def with_graph(served, graph: Path | None):
    """A copy of the served encoder `served` that runs `graph` instead of its own graph, for
    documents and queries alike; None: the float split graph (what the int8 graph is made of),
    or `served` itself where nothing is split out."""
    import copy

    import onnxruntime as ort

    if served._split is None:  # noqa: SLF001 - a measurement script looks inside
        if graph is None:
            return served
        raise SystemExit(f"{served.files.onnx_path}: no split graph to replace")
    options = ort.SessionOptions()
    options.intra_op_num_threads = served._session.get_session_options().intra_op_num_threads  # noqa: SLF001
    options.inter_op_num_threads = 1
    options.log_severity_level = 3
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    variant = copy.copy(served)
    variant._session = ort.InferenceSession(str(graph or served._split.onnx_path),  # noqa: SLF001
                                            sess_options=options, providers=["CPUExecutionProvider"])
    return variant


if __name__ == "__main__":
    raise SystemExit(main())
