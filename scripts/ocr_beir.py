"""Two BEIR sets from ocr_bench.py's output: the same pages with their text layer and as OCR read them.

    python scripts/ocr_beir.py BENCH_DIR/ENGINE OUT_DIR

Each page is one document; each page's query is its longest line of the text layer (a
sentence or heading, cut to 12 words), relevant to that page alone. OUT_DIR/layer and
OUT_DIR/ocr then go to scripts/eval.py: the nDCG@10 gap is what OCR costs retrieval.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path


def query_of(layer: str) -> str:
    lines = [line.split() for line in layer.splitlines()]
    words = max(lines, key=lambda w: (len(w) if len(w) <= 30 else 0, -lines.index(w)))
    if len(words) < 4:  # CJK lines have few spaces: the longest line by characters instead
        words = [max(layer.splitlines(), key=len).strip()[:40]]
    return " ".join(words[:12])


def main() -> int:
    bench, out = Path(sys.argv[1]), Path(sys.argv[2])
    pages = sorted(bench.glob("*.layer.txt"))
    for kind in ("layer", "ocr"):
        target = out / kind
        (target / "qrels").mkdir(parents=True, exist_ok=True)
        with (target / "corpus.jsonl").open("w", encoding="utf-8") as corpus:
            for page in pages:
                stem = page.name.removesuffix(".layer.txt")
                text = page.read_text(encoding="utf-8") if kind == "layer" else (
                    bench / f"{stem}.ocr.txt").read_text(encoding="utf-8")
                corpus.write(json.dumps({"_id": stem, "title": "", "text": text}, ensure_ascii=False) + "\n")
        with (target / "queries.jsonl").open("w", encoding="utf-8") as queries, \
                (target / "qrels" / "test.tsv").open("w", encoding="utf-8") as qrels:
            qrels.write("query-id\tcorpus-id\tscore\n")
            for page in pages:
                stem = page.name.removesuffix(".layer.txt")
                queries.write(json.dumps({"_id": f"q-{stem}", "text": query_of(page.read_text(encoding="utf-8"))},
                                         ensure_ascii=False) + "\n")
                qrels.write(f"q-{stem}\t{stem}\t1\n")
    print(f"{len(pages)} pages -> {out}/layer, {out}/ocr")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
