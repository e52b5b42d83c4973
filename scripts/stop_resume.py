"""What a Ctrl-C halfway through an ingest costs the next run: chunks embedded twice.

    python scripts/stop_resume.py FOLDER --half N [--model-path DIR] [--code TREE] [--db PATH]

Runs `minirag ingest FOLDER` (the tree at --code, default this checkout) with a plain progress line
every second, sends it SIGINT once the line says N chunks embedded, then runs the same ingest again
with --json and prints what the second run embedded. Chunks embedded twice = N + second - total
(N is read off the line as the signal goes, so the count is at least that). Give --db a fresh path.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EMBEDDED = re.compile(r"(\d+) (?:of \d+ )?chunks? embedded")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder")
    parser.add_argument("--half", type=int, required=True, help="chunks embedded when SIGINT is sent")
    parser.add_argument("--model-path", default=os.environ.get("MODEL_PATH"))
    parser.add_argument("--code", default=str(ROOT), help="the minirag tree to run (PYTHONPATH)")
    parser.add_argument("--db", default=None)
    args = parser.parse_args()
    db = args.db or str(Path(tempfile.mkdtemp(prefix="stop-resume-")) / "index.db")
    env = {**os.environ, "PYTHONPATH": args.code, **({"MODEL_PATH": args.model_path} if args.model_path else {})}
    command = [sys.executable, "-m", "minirag", "ingest", "--db-path", db, "--base-dir", args.folder, args.folder]
    started = time.monotonic()
    proc = subprocess.Popen([*command, "--progress-interval", "1"], env=env, stderr=subprocess.PIPE,
                            stdout=subprocess.DEVNULL, text=True)
    pressed, said = None, ""
    assert proc.stderr is not None
    for line in proc.stderr:
        if (match := EMBEDDED.search(line)) and pressed is None and int(match.group(1)) >= args.half:
            pressed = int(match.group(1))
            proc.send_signal(signal.SIGINT)
        if "interrupted" in line:
            said = line.strip()
    proc.wait()
    print(f"first run: SIGINT at {pressed} chunks embedded, exit {proc.returncode}, "
          f"{time.monotonic() - started:.0f} s; it said: {said}")
    second = json.loads(subprocess.run([*command, "--json"], env=env, capture_output=True, text=True,
                                       check=False).stdout)
    total = json.loads(subprocess.run([sys.executable, "-m", "minirag", "status", "--json", "--db-path", db,
                                       "--base-dir", args.folder], env=env, capture_output=True, text=True,
                                      check=False).stdout)["chunkCount"]
    print(f"second run: {second['chunksEmbedded']} chunks embedded, {second['ingested']} files; "
          f"{total} chunks indexed in all; embedded twice: {(pressed or 0) + second['chunksEmbedded'] - total}")


if __name__ == "__main__":
    main()
