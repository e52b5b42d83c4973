"""Hubness study: would taking hubs down on the vector side lift the fused ranking? Replayed, not adopted.

    python scripts/hubness_study.py DIR INDEX.db --model-path P

DIR is a BEIR set, INDEX.db the index scripts/eval.py built for it (--index-dir).
A hub is a chunk near many queries whatever they ask (a title alone, a row of
symbols). Each variant subtracts a penalty from every chunk's cosine before the
product's fusion rule (search/fusion.py: min-max cosine and BM25 over
max(best BM25, half the whole query's score), each query at its form's weight,
over the union of each side's best 400):
- centered a: a times the chunk's cosine to the mean of every chunk vector, i.e. the
  query moved away from the corpus' centre (Suzuki et al., "Centering similarity
  measures to reduce hubs", EMNLP 2013);
- knn b: b times the chunk's mean cosine to its 10 nearest chunks (the
  neighbourhood term of CSLS, Conneau et al., "Word translation without parallel
  data", ICLR 2018, with chunks standing in for queries).
Prints vector-only and hybrid nDCG@10 (document level, as eval.py) per variant.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

DEPTH = 400
NEIGHBOURS = 10


def neighbourhood(matrix: np.ndarray, block: int = 2048) -> np.ndarray:
    """Each row's mean cosine to its NEIGHBOURS nearest other rows."""
    out = np.empty(len(matrix), dtype=np.float32)
    for start in range(0, len(matrix), block):
        sims = matrix[start:start + block] @ matrix.T
        sims[np.arange(len(sims)), np.arange(start, start + len(sims))] = -1.0
        out[start:start + block] = np.partition(sims, -NEIGHBOURS, axis=1)[:, -NEIGHBOURS:].mean(axis=1)
    return out


def study(directory: Path, db_path: Path, model_path: str) -> None:
    from eval import read_jsonl, read_qrels
    from fusion_study import idf_sum, minmax, ndcg_at_10

    from minirag import keywords
    from minirag.encoder import Encoder
    from minirag.models import resolve
    from minirag.search.plan import query_terms
    from minirag.search.query_form import default_hybrid_weight
    from minirag.store import connection

    encoder = Encoder(resolve("unused", Path(model_path), Path("/nonexistent")))
    conn = connection.connect(db_path, read_only=True)
    rows = conn.execute("SELECT v.chunk_id, v.embedding, s.source FROM chunks_vec v JOIN chunks c ON c.id = v.chunk_id "
                        "JOIN sources s ON s.id = c.source_id ORDER BY v.chunk_id").fetchall()
    ids = np.array([r[0] for r in rows])
    matrix = np.stack([np.frombuffer(r[1], dtype=np.float32) for r in rows])
    matrix = matrix / np.linalg.norm(matrix, axis=1, keepdims=True)
    sources = [r[2] for r in rows]
    position = {int(c): i for i, c in enumerate(ids)}
    centre, near = matrix @ matrix.mean(axis=0), neighbourhood(matrix)
    penalties = {"product": np.zeros(len(ids)),
                 **{f"centered {a}": a * centre for a in (0.25, 0.5, 0.75)},
                 **{f"knn {b}": b * near for b in (0.25, 0.5)}}
    queries = {q["_id"]: q["text"] for q in read_jsonl(directory / "queries.jsonl")}
    qrels = read_qrels(directory / "qrels" / "test.tsv")
    judged = [q for q in sorted(qrels) if q in queries]
    totals = {name: [0.0, 0.0] for name in penalties}
    for qid, qvec in zip(judged, encoder.embed_queries([queries[q] for q in judged]), strict=True):
        cos = matrix @ qvec
        terms = query_terms(conn, queries[qid], 0)
        bm = dict(conn.execute("SELECT rowid, -bm25(chunks_fts, 1.0, 1.0) FROM chunks_fts WHERE chunks_fts MATCH ? "
                               "ORDER BY 2 DESC LIMIT ?", (keywords.match_expression(terms), DEPTH))) if terms else {}
        unit = 0.5 * idf_sum(conn, terms)
        weight = default_hybrid_weight(queries[qid], encoder.spec.languages)
        relevant = set(qrels[qid])
        matched = {position[c] for c in bm if c in position}
        for name, penalty in penalties.items():
            scored = cos - penalty
            candidates = np.array(sorted(set(np.argsort(-scored)[:DEPTH].tolist()) | matched))
            side = scored[candidates]
            bm25 = np.array([bm.get(int(ids[i]), 0.0) for i in candidates])
            unit_here = max(bm25.max(), unit)
            fused = (1 - weight) * minmax(side) + weight * (bm25 / unit_here if unit_here > 0 else bm25 * 0)
            for column, order in enumerate((np.argsort(-side, kind="stable"), np.argsort(-fused, kind="stable"))):
                totals[name][column] += ndcg_at_10([sources[candidates[i]] for i in order[:200]], relevant)
    print(f"{directory.name} ({len(judged)} queries)   vector nDCG@10   hybrid nDCG@10")
    for name, (vector, hybrid) in totals.items():
        print(f"  {name:<16} {vector / len(judged):>14.4f} {hybrid / len(judged):>16.4f}")


def main() -> int:
    from side_study import study_cli

    return study_cli(__doc__, study)


if __name__ == "__main__":
    raise SystemExit(main())
