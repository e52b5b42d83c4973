"""CPU the converter workers spend on a folder of documents: each converted ROUNDS times through
the isolated worker pool (as a sync converts them), the workers' CPU read when the pool closes.

    uv run python scripts/worker_cpu.py [FOLDER] [--rounds N]

Compare two versions of the code by running this in turn on each (the machine's load moves the
numbers; alternate the runs).
"""

from __future__ import annotations

import argparse
import resource
import time
from pathlib import Path

from minirag.errors import ConversionFailed
from minirag.ingest import isolation
from minirag.ingest.doc_names import named_as


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", nargs="?", default=str(Path(__file__).parent.parent / "tests/fixtures/docs"))
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    documents = sorted(path for path in Path(args.folder).iterdir() if path.is_file())
    limits = isolation.Limits(2048, 120, 300)
    started, failed = time.perf_counter(), 0
    for _ in range(args.rounds):
        for path in documents:
            try:
                isolation.POOL.run("document", (path.read_bytes(), named_as(path.name).read_as, path.name),
                                   path.name, limits)
            except ConversionFailed:
                failed += 1
    isolation.POOL.close()
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    print(f"{len(documents)} documents x {args.rounds}: workers' CPU {usage.ru_utime + usage.ru_stime:.2f} s, "
          f"wall {time.perf_counter() - started:.1f} s, {failed} failed")


if __name__ == "__main__":
    main()
