"""A plain BM25 baseline for a BEIR set: whole documents (title and text), the language's
Snowball stemmer, overlapping bigrams inside CJK runs; nDCG@10 / MRR@10 / Recall@10 per
document, as scripts/eval.py scores. The bar our keyword side has to clear on a set that
../shared/eval-data gives no baseline for.

    uv run python scripts/bm25_baseline.py DIR --language french [DIR --language ...]

Okapi BM25 with k1 = 1.5, b = 0.75 and Lucene's IDF, log(1 + (N - df + 0.5) / (df + 0.5));
tokens are runs of two or more word characters or combining marks, lower-cased (a CJK run of
one character is kept). A query whose best score is 0 ranks nothing.
"""

from __future__ import annotations

import argparse
import math
import re
import sys
from collections import Counter
from pathlib import Path

import numpy as np
import snowballstemmer

sys.path.insert(0, str(Path(__file__).resolve().parent))
from eval import read_jsonl, read_qrels  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from minirag.fts_fold import MARKS  # noqa: E402

CJK = "\u1100-\u11ff\u3040-\u30ff\u3130-\u318f\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff"
# A word keeps its combining marks (Devanagari vowel signs, viramas): Python's \\w leaves them out.
_TOKEN = re.compile(f"[{CJK}]+|(?:[^\\W{CJK}]|[{MARKS}]){{2,}}")
_CJK_RUN = re.compile(f"[{CJK}]+")
K1, B = 1.5, 0.75


def tokenizer(language: str | None):
    stem = snowballstemmer.stemmer(language).stemWord if language else (lambda w: w)

    def tokens(text: str) -> list[str]:
        out = []
        for token in _TOKEN.findall(text.lower()):
            if _CJK_RUN.fullmatch(token):
                out.extend([token] if len(token) == 1 else [token[i:i + 2] for i in range(len(token) - 1)])
            else:
                out.append(stem(token))
        return out
    return tokens


def evaluate(directory: Path, language: str | None) -> tuple[float, float, float, int]:
    tokens = tokenizer(language)
    docs = list(read_jsonl(directory / "corpus.jsonl"))
    ids = [d["_id"] for d in docs]
    bags = [Counter(tokens(f"{d.get('title', '')} {d['text']}")) for d in docs]
    lengths = np.array([sum(b.values()) for b in bags], dtype=float)
    df = Counter(t for b in bags for t in b)
    n, average = len(docs), lengths.mean()
    postings: dict[str, list[tuple[int, int]]] = {}
    for i, bag in enumerate(bags):
        for term, count in bag.items():
            postings.setdefault(term, []).append((i, count))
    queries = {q["_id"]: q["text"] for q in read_jsonl(directory / "queries.jsonl")}
    qrels = read_qrels(directory / "qrels" / "test.tsv")
    ndcg = mrr = recall = 0.0
    judged = [q for q in qrels if q in queries]
    for qid in judged:
        scores = np.zeros(n)
        for term in set(tokens(queries[qid])):
            if term not in df:
                continue
            idf = math.log(1 + (n - df[term] + 0.5) / (df[term] + 0.5))
            for i, tf in postings[term]:
                scores[i] += idf * tf * (K1 + 1) / (tf + K1 * (1 - B + B * lengths[i] / average))
        ranked = [ids[i] for i in np.argsort(-scores, kind="stable")[:10] if scores[i] > 0]
        relevant = set(qrels[qid])
        hits = [rank for rank, d in enumerate(ranked) if d in relevant]
        ideal = sum(1 / math.log2(r + 2) for r in range(min(10, len(relevant))))
        ndcg += sum(1 / math.log2(r + 2) for r in hits) / ideal
        mrr += 1 / (hits[0] + 1) if hits else 0.0
        recall += len(hits) / len(relevant)
    return ndcg / len(judged), mrr / len(judged), recall / len(judged), len(judged)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("sets", nargs="+", help="DIR [--language NAME] ..., a Snowball language name or none")
    args, rest = parser.parse_known_args()
    pairs, language = [], None
    items = args.sets + rest
    i = 0
    while i < len(items):
        if items[i] == "--language":
            language = None if items[i + 1] == "none" else items[i + 1]
            pairs[-1] = (pairs[-1][0], language)
            i += 2
        else:
            pairs.append((Path(items[i]), None))
            i += 1
    for directory, language in pairs:
        ndcg, mrr, recall, count = evaluate(directory, language)
        print(f"{directory.name}: nDCG@10 {ndcg:.3f} / MRR@10 {mrr:.3f} / R@10 {recall:.3f} "
              f"({count} queries, stemmer {language or 'none'})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
