"""Which page answers first: questions a coding agent asks, each with the pages that answer it.

    python scripts/page_eval.py QUESTIONS.json --base-dir ROOT --db-path DB [--model-name M | --model-path P]
        [--exclude GLOBS]

QUESTIONS.json is a list of [question, [page, ...]] with pages relative to ROOT
(scripts/question_sets/agent_pages.json: python3.11-doc and postgresql-doc-15 as HTML,
unpacked from their Debian packages under ROOT/py and ROOT/pg). The index at DB is synced
first (an index already in step costs nothing). Prints each question's rank of the first
result from an answering page (None past the tenth), then how many ranked first and in
the first three, and the mean reciprocal rank.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("questions", type=Path)
    parser.add_argument("--base-dir", type=Path, required=True)
    parser.add_argument("--db-path", type=Path, required=True)
    parser.add_argument("--model-name", default="all-MiniLM-L6-v2")
    parser.add_argument("--model-path", help="a local model folder (MODEL_PATH), in place of --model-name")
    parser.add_argument("--exclude", default="_sources/,_static/,_images/,_downloads/,py/whatsnew/,py/c-api/,"
                        "py/distutils/,py/faq/,pg/release-*.html")
    args = parser.parse_args()

    from minirag.app import App
    from minirag.config import load_config

    questions = json.loads(args.questions.read_text())
    model = {"MODEL_PATH": args.model_path} if args.model_path else {"MODEL_NAME": args.model_name}
    config = load_config(env={"BASE_DIR": str(args.base_dir), "DB_PATH": str(args.db_path),
                              "MINIRAG_EXCLUDE": args.exclude, **model})
    app = App(config)
    try:
        app.sync()
        first = top3 = 0
        reciprocal = 0.0
        for question, pages in questions:
            found: list[str] = []
            for hit in app.query(question, top_k=10).hits:
                for source in (hit.source, *hit.also_in):  # a passage several pages hold names the others after it
                    page = os.path.relpath(source, args.base_dir)
                    if page not in found:
                        found.append(page)
            rank = next((n for n, page in enumerate(found, start=1) if page in pages), None)
            first += rank == 1
            top3 += rank is not None and rank <= 3
            reciprocal += 1 / rank if rank else 0.0
            print(f"{rank}\t{question}\t{' '.join(found[:3])}")
        print(f"first {first}/{len(questions)}  first three {top3}/{len(questions)}  "
              f"MRR {reciprocal / len(questions):.4f}")
    finally:
        app.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
