"""What a full sync's look for drives mounted inside a root costs (ingest/mounts.py, drive_folders).

    python scripts/bench_drive_folders.py [--folders 20000] [--files-per-folder 50]

Makes --folders empty folders (100 at the top, the rest below them) in a temp dir and times
drive_folders over that many folders times --files-per-folder document paths (the files need not
exist: it stats folders only). Prints one line. Numbers from a shared machine are noisy: run it twice.
"""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile
import time
from pathlib import Path

from minirag.ingest.mounts import drive_folders


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--folders", type=int, default=20_000)
    parser.add_argument("--files-per-folder", type=int, default=50)
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="minirag-drives-"))
    try:
        per_top = max(1, args.folders // 100)
        leaves = [root / f"a{a}" / f"b{b}" for a in range(100) for b in range(per_top)]
        for leaf in leaves:
            os.makedirs(leaf)
        sources = [str(leaf / f"f{i}.md") for leaf in leaves for i in range(args.files_per_folder)]
        started = time.perf_counter()
        drives = drive_folders(sources, [root])
        spent = time.perf_counter() - started
        print(f"{len(sources):,} documents in {len(leaves) + 100:,} folders: drive_folders {spent * 1000:.0f} ms "
              f"({len(drives)} drive folders)")
    finally:
        shutil.rmtree(root)


if __name__ == "__main__":
    main()
