"""What a sync that finds nothing changed costs: --files small Markdown files, indexed once, then
synced again --runs times (the stat fast path: a walk, a stat and a lookup per file, nothing read).

    python scripts/bench_noop_sync.py [--files 2000] [--runs 5] [--model .test-model/all-MiniLM-L6-v2]

The files' mtimes and ctimes are made older than the racy window first (a sync trusts no stat
younger than pipeline.RACY_NS), so every no-op sync is the fast path's; it reports the files each
no-op sync read, which must be 0.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from minirag import app as app_module  # noqa: E402
from minirag.config import load_config  # noqa: E402
from minirag.ingest import pipeline  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=2000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--model", default=str(ROOT / ".test-model" / "all-MiniLM-L6-v2"))
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        docs = Path(tmp) / "docs"
        for i in range(args.files):
            folder = docs / f"d{i % 40:02d}"
            folder.mkdir(parents=True, exist_ok=True)
            (folder / f"f{i:05d}.md").write_text(f"# Note {i}\n\nThe note numbered {i} says little.\n")
        config = load_config(env={}, cwd=Path(tmp), base_dirs=[str(docs)], db_path=str(Path(tmp) / "index.db"),
                             model_path=args.model)
        app = app_module.App(config)
        try:
            app.sync()
            time.sleep(pipeline.RACY_NS / 1e9 + 0.5)  # every stat old enough to trust
            app.sync()  # stores the stats now trusted
            read: list[str] = []
            real = pipeline.read_file_inside_roots

            def counting(path, *rest, **kw):
                read.append(path)
                return real(path, *rest, **kw)

            pipeline.read_file_inside_roots = counting
            times = []
            for _ in range(args.runs):
                started = time.perf_counter()
                progress = app.sync()
                times.append(time.perf_counter() - started)
                assert progress.skipped == args.files, progress
        finally:
            app.close()
    print(f"no-op sync of {args.files} files: median {statistics.median(times) * 1000:.0f} ms, "
          f"min {min(times) * 1000:.0f} ms, max {max(times) * 1000:.0f} ms over {args.runs} runs; "
          f"files read {len(read)}")


if __name__ == "__main__":
    main()
