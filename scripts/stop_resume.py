"""What a Ctrl-C halfway through an ingest costs the next run: chunks embedded twice.

    python scripts/stop_resume.py FOLDER (--half N | --at SHARE) [--model-path DIR] [--code TREE] [--db PATH]
        [--book-from CORPUS.jsonl --book-docs N]

Runs `minirag ingest FOLDER` (the tree at --code, default this checkout) with a plain progress line
every second, sends it SIGINT once the line says N chunks embedded (--half), or SHARE of the chunks
found to embed (--at 0.9: "N of M chunks embedded", inside one large file too), then runs the same
ingest again with --json and prints what the second run embedded. Chunks embedded twice = N +
second - total (N is read off the line as the signal goes, so the count is at least that). Give
--db a fresh path. --book-from first writes FOLDER/book.md, one large document: the first
--book-docs documents of a BEIR corpus, each a section.
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
EMBEDDED = re.compile(r"(\d+) (?:of (\d+) )?chunks? embedded")


def write_book(folder: Path, corpus: Path, docs: int) -> None:
    """FOLDER/book.md: the first `docs` documents of a BEIR corpus, one section each."""
    sections = []
    with corpus.open(encoding="utf-8") as lines:
        for line, _ in zip(lines, range(docs), strict=False):
            doc = json.loads(line)
            sections.append(f"## {doc.get('title') or doc['_id']}\n\n{doc['text']}")
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "book.md").write_text("# Book\n\n" + "\n\n".join(sections) + "\n", encoding="utf-8")


def reached(match: re.Match, half: int | None, share: float | None) -> bool:
    done = int(match.group(1))
    if share is not None:
        return match.group(2) is not None and done >= share * int(match.group(2))
    return half is not None and done >= half


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder")
    when = parser.add_mutually_exclusive_group(required=True)
    when.add_argument("--half", type=int, help="chunks embedded when SIGINT is sent")
    when.add_argument("--at", type=float, help="the share of the chunks to embed embedded when SIGINT is sent")
    parser.add_argument("--book-from", type=Path, help="a BEIR corpus.jsonl to write FOLDER/book.md from")
    parser.add_argument("--book-docs", type=int, default=300)
    parser.add_argument("--model-path", default=os.environ.get("MODEL_PATH"))
    parser.add_argument("--code", default=str(ROOT), help="the minirag tree to run (PYTHONPATH)")
    parser.add_argument("--db", default=None)
    args = parser.parse_args()
    if args.book_from is not None:
        write_book(Path(args.folder), args.book_from, args.book_docs)
    folder = os.path.abspath(args.folder)
    db = os.path.abspath(args.db) if args.db else str(Path(tempfile.mkdtemp(prefix="stop-resume-")) / "index.db")
    code = os.path.abspath(args.code)
    # Run from the tree: `python -m` puts the working folder first on the path, before PYTHONPATH (run
    # from this checkout, --code was never the tree run).
    env = {**os.environ, "PYTHONPATH": code, **({"MODEL_PATH": args.model_path} if args.model_path else {})}
    command = [sys.executable, "-m", "minirag", "ingest", "--db-path", db, "--base-dir", folder, folder]
    started = time.monotonic()
    proc = subprocess.Popen([*command, "--progress-interval", "1"], env=env, cwd=code, stderr=subprocess.PIPE,
                            stdout=subprocess.DEVNULL, text=True)
    pressed, said = None, ""
    assert proc.stderr is not None
    for line in proc.stderr:
        if (match := EMBEDDED.search(line)) and pressed is None and reached(match, args.half, args.at):
            pressed = int(match.group(1))
            proc.send_signal(signal.SIGINT)
        if "interrupted" in line:
            said = line.strip()
    proc.wait()
    print(f"first run: SIGINT at {pressed} chunks embedded, exit {proc.returncode}, "
          f"{time.monotonic() - started:.0f} s; it said: {said}")
    second = json.loads(subprocess.run([*command, "--json"], env=env, cwd=code, capture_output=True, text=True,
                                       check=False).stdout)
    total = json.loads(subprocess.run([sys.executable, "-m", "minirag", "status", "--json", "--db-path", db,
                                       "--base-dir", folder], env=env, cwd=code, capture_output=True, text=True,
                                      check=False).stdout)["chunkCount"]
    print(f"second run: {second['chunksEmbedded']} chunks embedded, {second.get('chunksReused', 0)} reused, "
          f"{second['ingested']} files; "
          f"{total} chunks indexed in all; embedded twice: {(pressed or 0) + second['chunksEmbedded'] - total}")


if __name__ == "__main__":
    main()
