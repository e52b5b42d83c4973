"""How many chunks real documents make per 1,000 characters of their converted text, to set the
bound on one document's chunks (chunking.chunk_limit) well above any of them.

    python scripts/chunk_density.py --model-path P [--budget N] DIR [DIR ...]

A DIR holding corpus.jsonl is a BEIR-format set, each document built as scripts/eval.py builds it;
any other DIR is synced as a root (every file converted as a sync converts it; nothing is embedded or
written). Prints the documents with the most chunks per 1,000 characters, and the most chunks of any.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dirs", nargs="+", type=Path)
    parser.add_argument("--model-path", required=True)
    parser.add_argument("--budget", type=int, default=None, help="CHUNK_TOKEN_BUDGET (default: the model's)")
    parser.add_argument("--top", type=int, default=8)
    parser.add_argument("--min-chunks", type=int, default=20, help="rank only documents of this many chunks")
    args = parser.parse_args()

    from eval import build_document, read_jsonl

    from minirag.app import App
    from minirag.config import load_config
    from minirag.encoder import Encoder
    from minirag.ingest import pipeline
    from minirag.ingest.progress import Progress
    from minirag.models import resolve

    seen: list[tuple[int, int, str]] = []  # (characters, chunks, title)
    chunk_document = pipeline.chunk_document

    def counted(markdown, **kw):
        chunked = chunk_document(markdown, **kw)
        seen.append((len(markdown), len(chunked.chunks), kw["title"][:60]))
        return chunked

    pipeline.chunk_document = counted  # type: ignore[assignment]
    pipeline.Pipeline.write = lambda self, documents, *a, **kw: 0  # type: ignore[method-assign]
    config = load_config(base_dirs=[str(ROOT)], model_path=args.model_path)
    if args.budget is not None:
        config = replace(config, chunk_token_budget=args.budget)
    encoder = Encoder(resolve(config.model_name, config.model_path, config.cache_dir))
    with tempfile.TemporaryDirectory(prefix="minirag-density-") as scratch:
        for directory in args.dirs:
            seen.clear()
            app = App(replace(config, db_path=Path(scratch) / f"{directory.name}.db", roots=(directory.resolve(),)),
                      encoder=encoder)
            if (directory / "corpus.jsonl").is_file():
                for doc in read_jsonl(directory / "corpus.jsonl"):
                    build_document(app, doc)
            else:
                app.sync(progress=Progress())
            app.close()
            docs = [s for s in seen if s[1]]
            chars, chunks = sum(s[0] for s in docs), sum(s[1] for s in docs)
            print(f"{directory}: {len(docs)} documents, {chunks} chunks, {chars} characters, "
                  f"{1000 * chunks / max(chars, 1):.2f} chunks per 1,000 characters; most chunks of one: "
                  f"{max((s[1] for s in docs), default=0)}")
            ranked = sorted((s for s in docs if s[1] >= args.min_chunks), key=lambda s: -s[1] / s[0])
            for n, (c, k, title) in enumerate(ranked):
                if n < args.top:
                    print(f"  {1000 * k / c:7.2f} per 1,000  {k:6d} chunks {c:9d} chars  {title}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
