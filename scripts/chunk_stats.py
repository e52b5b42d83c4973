"""Chunking statistics of a folder of documents (convert + chunk, no embedding).

    python scripts/chunk_stats.py DIR [--budget 110] [--model-path P]

Prints the chunk count, chunk token percentiles (and how many are over the
budget and over the model's maximum sequence length), how many chunks open in
lowercase (inside a sentence, mostly), section length
percentiles and the time spent converting and chunking.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def percentiles(values: list[int], points=(50, 90, 99, 100)) -> dict[int, int]:
    ordered = sorted(values)
    return {p: ordered[min(len(ordered) - 1, len(ordered) * p // 100)] for p in points} if ordered else {}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("directory", type=Path)
    parser.add_argument("--budget", type=int, default=110)
    parser.add_argument("--model-path", default=os.environ.get("MODEL_PATH"))
    args = parser.parse_args()

    from minirag.chunking import chunk_document
    from minirag.chunking.frontmatter import parse_frontmatter
    from minirag.chunking.titles import choose_title
    from minirag.encoder import Encoder
    from minirag.errors import ConversionFailed
    from minirag.ingest.convert import SUPPORTED_EXTENSIONS, convert_file
    from minirag.models import resolve

    if not args.model_path:
        sys.path.insert(0, str(ROOT / "scripts"))
        from test_model import assemble

        args.model_path = str(assemble())
    encoder = Encoder(resolve("unused", Path(args.model_path), Path("/nonexistent")))
    files = sorted(p for p in args.directory.rglob("*") if p.suffix.lower() in SUPPORTED_EXTENSIONS)
    tokens, sections, categories, failed, lowercase = [], [], {}, 0, 0
    convert_s = chunk_s = 0.0
    for path in files:
        started = time.perf_counter()
        try:
            converted = convert_file(path)
        except ConversionFailed:
            failed += 1
            continue
        middle = time.perf_counter()
        _, body = parse_frontmatter(converted.markdown)
        title = choose_title(body, metadata_title=converted.metadata_title, stem=path.stem)
        doc = chunk_document(body, title=title, count_tokens=encoder.count_tokens, budget=args.budget,
                             max_tokens=encoder.max_length)
        convert_s += middle - started
        chunk_s += time.perf_counter() - middle
        categories[doc.category] = categories.get(doc.category, 0) + 1
        tokens += [c.tokens for c in doc.chunks]
        # A chunk's text opens with its title or breadcrumb line; a body opening in lowercase
        # mostly opens inside a sentence, cut in two.
        lowercase += sum(1 for c in doc.chunks if c.text.partition("\n")[2][:1].islower())
        sections += [len(s.text) for s in doc.sections]
    over_budget = sum(t > args.budget for t in tokens)
    print(f"documents {len(files)} (failed {failed}), categories {categories}")
    print(f"chunks {len(tokens)}; tokens p50/p90/p99/max {percentiles(tokens)}; over budget {args.budget}: "
          f"{over_budget} ({over_budget / max(1, len(tokens)):.2%}); over the model maximum "
          f"{encoder.max_length}: {sum(t > encoder.max_length for t in tokens)}")
    print(f"chunks opening in lowercase (inside a sentence, mostly): {lowercase} "
          f"({lowercase / max(1, len(tokens)):.2%})")
    print(f"sections {len(sections)}; characters p50/p90/p99/max {percentiles(sections)}; "
          f"over 4000: {sum(s > 4000 for s in sections)}")
    print(f"convert {convert_s:.1f} s, chunk {chunk_s:.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
