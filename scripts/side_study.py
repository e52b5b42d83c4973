"""Side study: would a better-scored side lift the fused ranking? Variants of each side, replayed exactly.

    python scripts/side_study.py DIR INDEX.db --model-path P

DIR is a BEIR set, INDEX.db the index scripts/eval.py built for it (--index-dir).
Every query is scored over the whole index: every chunk's cosine, and BM25 from
FTS5 for every matching chunk (the product's terms). Each variant changes one
side; the fused ranking is the product's rule (convex combination of min-max
cosine and BM25 / best BM25 over the union of each side's best 400 chunks, keyword
weight 0.2 for a question, else 0.4). nDCG@10 at document level, as eval.py.

Variants (each a technique from the literature, none adopted; docs/evaluation.md):
- doc-centroid: cosine + beta * the cosine of the chunk's document centroid
  (the normalized mean of its chunks' vectors): the page as context for a chunk.
- rocchio: the query vector moved toward the fused top 3 chunks (pseudo-relevance
  feedback on the dense side), then searched again.
- phrases: BM25 + lambda * BM25 of adjacent query-word pairs matched as FTS5
  phrases (sequential dependence: words the query keeps together).
- whole-page: BM25 / best + nu * the chunk's document BM25 / best (the page's
  bag of words, BM25 with page-level statistics).
"""

from __future__ import annotations

import argparse
import math
import sys
from collections import Counter
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

DEPTH = 400


def fused_order(cos: np.ndarray, bm: np.ndarray, matched: np.ndarray, weight: float) -> np.ndarray:
    """Chunk positions best first, as search/fusion.py ranks the union of both sides' best DEPTH."""
    keep = np.zeros(len(cos), bool)
    keep[np.argsort(-cos, kind="stable")[:DEPTH]] = True
    keep[np.argsort(-np.where(matched, bm, -np.inf), kind="stable")[:min(DEPTH, int(matched.sum()))]] = True
    idx = np.nonzero(keep)[0]
    v, k = cos[idx], bm[idx]
    v = (v - v.min()) / (v.max() - v.min()) if v.max() > v.min() else np.zeros_like(v)
    k = k / k.max() if k.max() > 0 else np.zeros_like(k)
    return idx[np.argsort(-((1 - weight) * v + weight * k), kind="stable")]


def keyword_order(bm: np.ndarray, matched: np.ndarray) -> np.ndarray:
    return np.argsort(-np.where(matched, bm, -np.inf), kind="stable")[:int(matched.sum())]


def query_pairs(text: str) -> list[tuple[str, str]]:
    """Adjacent query words, stemmed, neither a stop word."""
    from minirag import keywords
    words = keywords.words(text)
    pairs: list[tuple[str, str]] = []
    for a, b in zip(words, words[1:], strict=False):
        if a not in keywords._stopwords(None) and b not in keywords._stopwords(None):
            pair = (keywords.stem(a), keywords.stem(b))
            if pair not in pairs:
                pairs.append(pair)
    return pairs


class Index:
    """The chunks' vectors, documents and keyword text, read once."""

    def __init__(self, db_path: Path):
        from minirag.store import connection
        self.conn = connection.connect(db_path, read_only=True)
        rows = self.conn.execute(
            "SELECT v.chunk_id, v.embedding, s.source FROM chunks_vec v JOIN chunks c ON c.id = v.chunk_id "
            "JOIN sources s ON s.id = c.source_id ORDER BY v.chunk_id").fetchall()
        self.matrix = np.stack([np.frombuffer(r[1], dtype=np.float32) for r in rows])
        self.position = {r[0]: i for i, r in enumerate(rows)}
        self.sources = sorted({r[2] for r in rows})
        code = {s: i for i, s in enumerate(self.sources)}
        self.doc = np.array([code[r[2]] for r in rows])
        centroids = np.zeros((len(self.sources), self.matrix.shape[1]), dtype=np.float32)
        np.add.at(centroids, self.doc, self.matrix)
        self.centroids = centroids / np.linalg.norm(centroids, axis=1, keepdims=True)
        self._pages()

    def _pages(self) -> None:
        """Each document's bag of keyword terms: its chunks' bodies and its title once."""
        self.bags = [Counter() for _ in self.sources]
        titled = set()
        for rowid, body, title in self.conn.execute("SELECT rowid, body, title FROM chunks_fts"):
            if rowid not in self.position:
                continue
            d = self.doc[self.position[rowid]]
            self.bags[d].update(body.split())
            if d not in titled:
                self.bags[d].update(title.split())
                titled.add(d)
        self.lengths = np.array([sum(b.values()) for b in self.bags], dtype=float)
        self.df = Counter(t for b in self.bags for t in b)

    def bm25(self, expression: str | None) -> tuple[np.ndarray, np.ndarray]:
        """FTS5 BM25 (negated: larger is better) of every chunk matching `expression`."""
        scores, matched = np.zeros(len(self.doc)), np.zeros(len(self.doc), bool)
        if expression:
            for rowid, score in self.conn.execute(
                    "SELECT rowid, -bm25(chunks_fts) FROM chunks_fts WHERE chunks_fts MATCH ?", (expression,)):
                if rowid in self.position:
                    scores[self.position[rowid]], matched[self.position[rowid]] = score, True
        return scores, matched

    def page_bm25(self, terms: list[str]) -> np.ndarray:
        """BM25 (k1 1.2, b 0.75) of each document's whole bag, per chunk."""
        n, avg = len(self.sources), self.lengths.mean()
        out = np.zeros(n)
        for term in terms:
            hits = self.df.get(term, 0)
            if not hits:
                continue
            idf = max(math.log((n - hits + 0.5) / (hits + 0.5)), 1e-6)
            freq = np.array([b.get(term, 0) for b in self.bags], dtype=float)
            out += idf * freq * 2.2 / (freq + 1.2 * (1 - 0.75 + 0.75 * self.lengths / avg))
        return out[self.doc]


def study(directory: Path, db_path: Path, model_path: str) -> None:
    from eval import read_jsonl, read_qrels
    from fusion_study import ndcg_at_10

    from minirag import keywords
    from minirag.encoder import Encoder
    from minirag.models import resolve
    from minirag.search.query_form import is_question

    index = Index(db_path)
    code = {s: i for i, s in enumerate(index.sources)}
    queries = {q["_id"]: q["text"] for q in read_jsonl(directory / "queries.jsonl")}
    qrels = read_qrels(directory / "qrels" / "test.tsv")
    judged = [q for q in sorted(qrels) if q in queries]
    encoder = Encoder(resolve("unused", Path(model_path), Path("/nonexistent")))
    vectors = encoder.embed_queries([queries[q] for q in judged])
    totals: dict[str, list[float]] = {}

    def record(name: str, side: np.ndarray, fused: np.ndarray, relevant: set[int]) -> None:
        cell = totals.setdefault(name, [0.0, 0.0])
        cell[0] += ndcg_at_10([int(index.doc[i]) for i in side[:200]], relevant)
        cell[1] += ndcg_at_10([int(index.doc[i]) for i in fused[:200]], relevant)

    for qid, qvec in zip(judged, vectors, strict=True):
        text, relevant = queries[qid], {code[d] for d in qrels[qid] if d in code}
        weight = 0.2 if is_question(text) else 0.4
        terms = keywords.query_terms(text)
        cos = index.matrix @ qvec
        bm, matched = index.bm25(keywords.match_expression(terms))
        base = fused_order(cos, bm, matched, weight)
        record("product: vector", np.argsort(-cos, kind="stable"), base, relevant)
        record("product: keyword", keyword_order(bm, matched), base, relevant)
        for beta in (0.2, 0.5):
            moved = cos + beta * (index.centroids @ qvec)[index.doc]
            record(f"vector doc-centroid {beta}", np.argsort(-moved, kind="stable"),
                   fused_order(moved, bm, matched, weight), relevant)
        for alpha in (0.3, 1.0):
            q2 = qvec + alpha * index.matrix[base[:3]].mean(axis=0)
            moved = index.matrix @ (q2 / np.linalg.norm(q2))
            record(f"vector rocchio {alpha}", np.argsort(-moved, kind="stable"),
                   fused_order(moved, bm, matched, weight), relevant)
        pairs = query_pairs(text)
        phrase, _ = index.bm25(" OR ".join(f'"{a} {b}"' for a, b in pairs) if pairs else None)
        for lam in (0.1, 0.25, 0.5):
            kw = bm + lam * phrase
            record(f"keyword phrases {lam}", keyword_order(kw, matched), fused_order(cos, kw, matched, weight), relevant)
        page = index.page_bm25(terms)
        for nu in (0.5, 1.0):
            kw = (bm / bm.max() if bm.max() > 0 else bm) + nu * (page / page.max() if page.max() > 0 else page)
            record(f"keyword whole-page {nu}", keyword_order(kw, matched), fused_order(cos, kw, matched, weight),
                   relevant)
    print(f"{directory.name} ({len(judged)} queries)   side nDCG@10   hybrid nDCG@10")
    for name, (side, fused) in totals.items():
        print(f"  {name:<26} {side / len(judged):>12.4f} {fused / len(judged):>16.4f}")


def study_cli(doc: str, run) -> int:
    """The command line of a study over one set and its index: `DIR INDEX.db --model-path P`."""
    parser = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    parser.add_argument("dir", type=Path)
    parser.add_argument("db", type=Path)
    parser.add_argument("--model-path", required=True)
    args = parser.parse_args()
    run(args.dir, args.db, args.model_path)
    return 0


def main() -> int:
    return study_cli(__doc__, study)


if __name__ == "__main__":
    raise SystemExit(main())
