"""Where a cold `minirag query` spends its time: each round a new process runs the query as the CLI does.

    python scripts/cold_query.py [--rounds R] "a question"

Uses the configuration in the environment (MODEL_PATH, DB_PATH, BASE_DIR, CACHE_DIR ...) on an
existing index. Each round prints, for the imports (minirag.cli and minirag.app), the tokenizer
(its cached tables, or `tokenizers` imported and its file read: the encoder's set-up less its
other parts), the split word table, the ONNX session, the language model that picks the query's
stemmer, the query's embedding and the rest of the query (SQL, fusion, shaping, printing), the
wall and CPU seconds, then the process's total and its peak RSS. The parts are timed by wrapping
the functions that do them; nothing in minirag is changed.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import resource
import subprocess
import sys
import time

PARTS = ("imports", "tokenizer", "word table", "ONNX session", "language model", "embedding", "rest of the query")


class Clock:
    def __init__(self) -> None:
        self.spent: dict[str, list[float]] = {}

    @contextlib.contextmanager
    def part(self, name: str):
        wall, cpu = time.perf_counter(), time.process_time()
        try:
            yield
        finally:
            total = self.spent.setdefault(name, [0.0, 0.0])
            total[0] += time.perf_counter() - wall
            total[1] += time.process_time() - cpu

    def wrap(self, owner, attribute: str, name: str) -> None:
        original = getattr(owner, attribute)

        def timed(*args, **kwargs):
            with self.part(name):
                return original(*args, **kwargs)

        setattr(owner, attribute, timed)


def one(question: str) -> None:
    """The query in this process, as `minirag query QUESTION` runs it; one line of timings on stderr."""
    started, started_cpu = time.perf_counter(), time.process_time()
    clock = Clock()
    with clock.part("imports"):
        import minirag.app
        import minirag.cli
    import onnxruntime

    from minirag import encoder, language, word_table

    # The tokenizer is loaded inside Encoder.__init__ (`tokenizers` imported there only when no
    # cached tables serve): it is the set-up's time less the parts timed inside it.
    clock.wrap(encoder.Encoder, "__init__", "encoder set-up")
    clock.wrap(word_table, "cached", "word table")
    clock.wrap(onnxruntime, "InferenceSession", "ONNX session")
    clock.wrap(language, "_load", "language model")
    clock.wrap(encoder.Encoder, "embed_queries", "embedding")
    with clock.part("query"), contextlib.redirect_stdout(io.StringIO()):
        code = minirag.cli.main(["query", question])
    if code != 0:
        raise SystemExit(f"minirag query exited {code}")
    setup = clock.spent.pop("encoder set-up", [0.0, 0.0])
    clock.spent["tokenizer"] = [setup[i] - sum(clock.spent.get(name, [0.0, 0.0])[i]
                                               for name in ("word table", "ONNX session")) for i in (0, 1)]
    inside = sum(clock.spent.get(name, [0.0, 0.0])[0] for name in PARTS[1:6])
    inside_cpu = sum(clock.spent.get(name, [0.0, 0.0])[1] for name in PARTS[1:6])
    query = clock.spent.pop("query")
    clock.spent["rest of the query"] = [query[0] - inside, query[1] - inside_cpu]
    # Not imports: onnxruntime is in the imports part only when minirag.app imported it; otherwise it
    # fell before the query and is counted in the process's total only.
    shown = ", ".join(f"{name} {clock.spent[name][0]:.3f}/{clock.spent[name][1]:.3f}"
                      for name in PARTS if name in clock.spent)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    sys.stderr.write(f"wall/CPU s: {shown}; in the process {time.perf_counter() - started:.3f}/"
                     f"{time.process_time() - started_cpu:.3f}; peak RSS {peak:.0f} MB\n")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("question")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--one", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        one(args.question)
        return 0
    print(f"load average {os.getloadavg()[0]:.1f}", flush=True)
    for _ in range(args.rounds):
        started = time.perf_counter()
        done = subprocess.run([sys.executable, __file__, "--one", args.question], capture_output=True, text=True,
                              check=False)
        if done.returncode != 0:
            sys.stderr.write(done.stderr)
            return 1
        print(f"{done.stderr.strip().splitlines()[-1]}; spawn to exit {time.perf_counter() - started:.3f} s",
              flush=True)
    print(f"load average {os.getloadavg()[0]:.1f}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
