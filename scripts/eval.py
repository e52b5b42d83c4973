"""Retrieval quality on BEIR-format sets, through minirag's real ingest and search.

    python scripts/eval.py DIR [DIR ...] [--json] [--model-path P] [--index-dir D]
                           [--top-k K] [--keyword-budget-share F] [--plain | --graph G]

Each DIR holds corpus.jsonl, queries.jsonl and qrels/test.tsv. Every corpus
document is ingested as a Markdown data source (`# title` + text) into a fresh
index; every query runs through App.query in three modes (vector-only,
keyword-only, hybrid at the configured weight). Scoring is per document: a
source's first hit counts (a passage several sources hold names the others after it), later
hits of the same source are dropped.
Text is embedded as minirag serves it (the word table split out and the int8
graph made in CACHE_DIR); `--plain` runs the model file as it is.
Deterministic: same data, model and code give the same numbers.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

if TYPE_CHECKING:
    from minirag.values import QueryResult

MODES = {"vector": 0.0, "keyword": 1.0}  # hybrid uses the configured RAG_HYBRID_WEIGHT


def read_jsonl(path: Path) -> list[dict]:
    with path.open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def read_qrels(path: Path) -> dict[str, dict[str, int]]:
    qrels: dict[str, dict[str, int]] = {}
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            parts = line.rstrip("\n").split("\t")
            if len(parts) != 3 or parts[2] == "score":
                continue
            if int(parts[2]) > 0:
                qrels.setdefault(parts[0], {})[parts[1]] = int(parts[2])
    return qrels


def ranked_sources(result: QueryResult) -> list[str]:
    """Documents in the order a reader of the hits meets them: a passage several documents hold is
    one hit that names the others (`also_in`), right after its own."""
    seen: dict[str, None] = {}
    for hit in result.hits:
        for source in (hit.source, *hit.also_in):
            seen.setdefault(source, None)
    return list(seen)


def score_query(ranking: list[str], relevant: dict[str, int]) -> dict[str, float]:
    dcg = sum((2 ** relevant.get(doc, 0) - 1) / math.log2(i + 2) for i, doc in enumerate(ranking[:10]))
    ideal = sorted(relevant.values(), reverse=True)[:10]
    idcg = sum((2**g - 1) / math.log2(i + 2) for i, g in enumerate(ideal))
    rr = next((1.0 / (i + 1) for i, doc in enumerate(ranking[:10]) if doc in relevant), 0.0)
    return {
        "ndcg@10": dcg / idcg if idcg else 0.0,
        "mrr@10": rr,
        "recall@10": len(set(ranking[:10]) & relevant.keys()) / len(relevant),
        "recall@100": len(set(ranking[:100]) & relevant.keys()) / len(relevant),
    }


def build_document(app, doc: dict):
    """A corpus document as the eval indexes it: a Markdown data source, `# title` + text."""
    from minirag.ingest.convert import Converted
    from minirag.ingest.pipeline import file_hash

    markdown = f"# {doc['title']}\n\n{doc['text']}" if doc.get("title") else doc["text"]
    return app.pipeline.build(Converted(markdown=markdown), source=doc["_id"], kind="data", stem=doc["_id"],
                              title=doc.get("title") or None, content_hash=file_hash(markdown.encode()))


def ingest_corpus(app, corpus: list[dict], log) -> None:
    from minirag.ingest.pipeline import Document
    from minirag.ingest.progress import Progress

    pipeline, progress = app.pipeline, Progress()
    group: list[Document] = []
    started = time.monotonic()
    for n, doc in enumerate(corpus, 1):
        group.append(build_document(app, doc))
        if sum(len(d.chunked.chunks) for d in group) >= 256 or n == len(corpus):
            progress.chunks_written += pipeline.write(group, progress)
            group = []
            log(f"\r  ingested {n}/{len(corpus)} docs, {progress.chunks_written} chunks, "
                f"{time.monotonic() - started:.0f} s")
    log("\n")


def evaluate(directory: Path, config, encoder, index_dir: Path | None, log,
             keyword_budget_share: float | None = None, top_k: int = 100) -> dict:
    from minirag.app import App
    from minirag.search import keyword as keyword_search

    corpus = read_jsonl(directory / "corpus.jsonl")
    queries = {q["_id"]: q["text"] for q in read_jsonl(directory / "queries.jsonl")}
    qrels = read_qrels(directory / "qrels" / "test.tsv")
    judged = [qid for qid in sorted(qrels) if qid in queries]

    db_path = (index_dir or Path(tempfile.mkdtemp(prefix="minirag-eval-"))) / f"{directory.name}.db"
    base = replace(config, db_path=db_path)
    app = App(base, encoder=encoder)
    stats = app.index.stats() if db_path.exists() else None
    if stats is None or stats.source_count != len(corpus) or stats.stale_chunk_count:
        log(f"{directory.name}: ingesting {len(corpus)} documents\n")
        ingest_corpus(app, corpus, log)
    stats = app.index.stats()
    out: dict = {"_meta": {"documents": len(corpus), "queries": len(judged), "chunks": stats.chunk_count}}
    if keyword_budget_share is not None:
        # Term narrowing starts above KEYWORD_ROW_BUDGET chunks; a budget that is the same share
        # of this small corpus as it is of a large one shows what narrowing costs in quality.
        keyword_search.KEYWORD_ROW_BUDGET, keyword_search.KEYWORD_ROW_SHARE = 1, keyword_budget_share
        out["_meta"]["keyword_row_budget"] = max(1, round(keyword_budget_share * stats.chunk_count))
    for mode, weight in [("vector", MODES["vector"]), ("keyword", MODES["keyword"]), ("hybrid", config.hybrid_weight)]:
        mode_app = App(replace(base, hybrid_weight=weight), encoder=encoder)
        totals = dict.fromkeys(("ndcg@10", "mrr@10", "recall@10", "recall@100"), 0.0)
        started = time.perf_counter()
        for qid in judged:
            ranking = ranked_sources(mode_app.query(queries[qid], top_k=top_k))
            for key, value in score_query(ranking, qrels[qid]).items():
                totals[key] += value
        elapsed = time.perf_counter() - started
        out[mode] = {k: round(v / len(judged), 4) for k, v in totals.items()}
        out[mode]["queries_per_s"] = round(len(judged) / elapsed, 1)
        mode_app.close()
    app.close()
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dirs", nargs="+", type=Path)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--model-path", help="local model directory (default: MODEL_PATH, else the test model)")
    parser.add_argument("--index-dir", type=Path, help="keep indexes here and reuse them on the next run")
    parser.add_argument("--top-k", type=int, default=100,
                        help="results asked of each query (default: %(default)s; each side then ranks "
                             "4 x topK candidates, so 10 is what a client's default query sees)")
    parser.add_argument("--keyword-budget-share", type=float, metavar="F",
                        help="keyword side: score at most F x (chunks) matches per query, narrowing to rare "
                             "terms (default: keyword_search's budget, max(25,000, 0.04 x chunks))")
    parser.add_argument("--plain", action="store_true",
                        help="embed with the model file as it is, not as served (the word table split out into "
                        "CACHE_DIR and the int8 graph made of the rest, minirag/int8_graph.py)")
    parser.add_argument("--graph", type=Path, help="embed with the encoder as served (word table split out into "
                        "CACHE_DIR) running this ONNX graph in place of its split graph (scripts/int8_variants.py); the "
                        "indexes record the model's own id, so keep them apart (--index-dir)")
    args = parser.parse_args(argv)
    # A shell glob over the eval-data folder also names its README: skip what is not a set.
    sets = [d for d in args.dirs if (d / "corpus.jsonl").is_file()]
    for skipped in sorted(set(args.dirs) - set(sets)):
        print(f"skipping {skipped}: no corpus.jsonl there", file=sys.stderr)
    if not sets:
        parser.error("no evaluation set among the given paths (each needs corpus.jsonl, queries.jsonl, qrels/)")

    from minirag.binding import checked_budget
    from minirag.config import load_config
    from minirag.encoder import Encoder
    from minirag.models import resolve

    model_path = args.model_path or os.environ.get("MODEL_PATH")
    if not model_path:
        sys.path.insert(0, str(ROOT / "scripts"))
        from test_model import assemble

        model_path = str(assemble())
    if args.index_dir:
        args.index_dir.mkdir(parents=True, exist_ok=True)
    config = load_config(base_dirs=[str(ROOT)], model_path=model_path)
    files = resolve(config.model_name, config.model_path, config.cache_dir)
    if args.graph:
        sys.path.insert(0, str(ROOT / "scripts"))
        from encoder_speed import with_graph

        encoder = with_graph(Encoder(files, cache_dir=config.cache_dir), args.graph)
    elif args.plain:
        encoder = Encoder(files)
    else:
        encoder = Encoder(files, cache_dir=config.cache_dir)

    def log(text: str) -> None:
        sys.stderr.write(text)
        sys.stderr.flush()

    if args.json:
        results = {d.name: evaluate(d, config, encoder, args.index_dir, log, args.keyword_budget_share, args.top_k) for d in sets}
        print(json.dumps({name: {k: v for k, v in r.items() if k != "_meta"} for name, r in results.items()}, indent=2))
        return 0
    weight = config.hybrid_weight if config.hybrid_weight is not None else "by query form and language (0.4; 0.3 sentences, 0.2 questions, 0.7 a language the model was not trained on)"
    print(f"model: {encoder.model_id} ({config.model_path}), hybrid weight {weight}, "
          f"chunk budget {checked_budget(config, encoder.spec)} tokens")
    print(f"{'set':<22} {'mode':<8} {'nDCG@10':>8} {'MRR@10':>8} {'R@10':>8} {'R@100':>8} {'q/s':>7}", flush=True)
    for directory in sets:  # each set's rows as soon as it is done
        r = evaluate(directory, config, encoder, args.index_dir, log, args.keyword_budget_share, args.top_k)
        for mode in ("vector", "keyword", "hybrid"):
            m = r[mode]
            print(f"{directory.name:<22} {mode:<8} {m['ndcg@10']:>8.4f} {m['mrr@10']:>8.4f} {m['recall@10']:>8.4f} "
                  f"{m['recall@100']:>8.4f} {m['queries_per_s']:>7.1f}")
        meta = r["_meta"]
        budget = f", keyword row budget {meta['keyword_row_budget']}" if "keyword_row_budget" in meta else ""
        print(f"{'':<22} ({meta['documents']} docs, {meta['chunks']} chunks, {meta['queries']} queries{budget})",
              flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
