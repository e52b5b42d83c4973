"""Fusion study: dump both sides' scored candidates per query once, then score fusion rules offline.

    python scripts/fusion_study.py dump DIR INDEX.db OUT.npz [--model-path P]
    python scripts/fusion_study.py score OUT.npz [OUT.npz ...]

`dump` runs every query of a BEIR set (DIR) against an index that scripts/eval.py
built (--index-dir), through the real keyword side (FTS5 BM25 over the same terms
the product uses) and the exact vector side (every chunk's cosine), and keeps,
for the union of each side's best DEPTH chunks, both scores: a chunk the keyword
side did not match scores 0 there. `score` replays fusion rules over the dumps
at document level (a source's first hit counts), as eval.py scores: nDCG@10.
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

DEPTH = 400


def dump(directory: Path, db_path: Path, out: Path, model_path: str, title_weight: float = 1.0) -> None:
    from eval import read_jsonl, read_qrels

    from minirag import keywords
    from minirag.encoder import Encoder
    from minirag.models import resolve
    from minirag.search.plan import query_terms  # as the product reads a query
    from minirag.search.query_form import default_hybrid_weight
    from minirag.store import connection

    encoder = Encoder(resolve("unused", Path(model_path), Path("/nonexistent")))
    conn = connection.connect(db_path, read_only=True)
    ids = np.array([r[0] for r in conn.execute("SELECT chunk_id FROM chunks_vec ORDER BY chunk_id")])
    matrix = np.stack([np.frombuffer(r[0], dtype=np.float32) for r in
                       conn.execute("SELECT embedding FROM chunks_vec ORDER BY chunk_id")])
    source_of = dict(conn.execute("SELECT c.id, s.source FROM chunks c JOIN sources s ON s.id = c.source_id"))
    queries = {q["_id"]: q["text"] for q in read_jsonl(directory / "queries.jsonl")}
    qrels = read_qrels(directory / "qrels" / "test.tsv")
    judged = [qid for qid in sorted(qrels) if qid in queries]
    vectors = encoder.embed_queries([queries[q] for q in judged])
    rows, idf_sums = [], []
    for n, (qid, qvec) in enumerate(zip(judged, vectors, strict=True)):
        sims = matrix @ qvec
        top_vec = np.argsort(-sims)[:DEPTH]
        terms = query_terms(conn, queries[qid], 0)
        bm = {}
        if terms:
            bm = dict(conn.execute(
                "SELECT rowid, -bm25(chunks_fts, 1.0, ?) FROM chunks_fts WHERE chunks_fts MATCH ? "
                "ORDER BY 2 DESC LIMIT ?", (title_weight, keywords.match_expression(terms), DEPTH)))
        idf_sums.append(idf_sum(conn, terms))
        union = {int(ids[i]) for i in top_vec} | set(bm)
        index_of = {int(c): i for i, c in enumerate(ids)}
        for chunk in union:
            rows.append((n, chunk, float(sims[index_of[chunk]]), bm.get(chunk, 0.0), chunk in bm))
        if n % 200 == 0:
            print(f"\r{directory.name}: {n}/{len(judged)}", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    arr = np.array(rows, dtype=[("q", "i4"), ("chunk", "i8"), ("cos", "f4"), ("bm25", "f4"), ("matched", "?")])
    sources = sorted(set(source_of.values()))
    code = {s: i for i, s in enumerate(sources)}
    chunk_source = np.array([code[source_of[int(c)]] for c in arr["chunk"]], dtype=np.int32)
    relevant = [[code[d] for d in qrels[qid] if d in code] for qid in judged]
    np.savez_compressed(out, rows=arr, chunk_source=chunk_source, n_terms=np.array(
        [len(query_terms(conn, queries[q], 0)) for q in judged]), idf_sum=np.array(idf_sums),
        form_weight=np.array([default_hybrid_weight(queries[q], encoder.spec.languages) for q in judged]),
        relevant=np.array([",".join(map(str, r)) for r in relevant]))


def idf_sum(conn, terms: list[str]) -> float:
    """The sum of the IDFs, as FTS5's bm25() computes them, of the query terms the index holds: the
    BM25 of a chunk of average length that holds each of them once."""
    from minirag.search.keyword import document_counts, fts_totals
    if not terms:
        return 0.0
    rows, _tokens = fts_totals(conn)
    counts = document_counts(conn, terms)
    return sum(max(math.log((rows - n + 0.5) / (n + 0.5)), 1e-6) for n in counts.values() if n)


def ndcg_at_10(ranked_sources: list[int], relevant: set[int]) -> float:
    seen, ranking = set(), []
    for s in ranked_sources:
        if s not in seen:
            seen.add(s)
            ranking.append(s)
        if len(ranking) == 10:
            break
    dcg = sum(1.0 / math.log2(i + 2) for i, s in enumerate(ranking) if s in relevant)
    idcg = sum(1.0 / math.log2(i + 2) for i in range(min(10, len(relevant))))
    return dcg / idcg if idcg else 0.0


def load(path: Path):
    data = np.load(path)
    rows, sources = data["rows"], data["chunk_source"]
    relevant = [set(map(int, r.split(","))) if r else set() for r in data["relevant"]]
    per_query = []
    order = np.argsort(rows["q"], kind="stable")
    rows, sources = rows[order], sources[order]
    bounds = np.searchsorted(rows["q"], np.arange(len(relevant) + 1))
    for q in range(len(relevant)):
        a, b = bounds[q], bounds[q + 1]
        meta = {"idf_sum": float(data["idf_sum"][q]),
                "form_weight": float(data["form_weight"][q]) if "form_weight" in data else 0.4}
        per_query.append((rows[a:b], sources[a:b], relevant[q], meta))
    return per_query


def ranks(scores: np.ndarray) -> np.ndarray:
    """1-based rank of each score, higher is better."""
    order = np.argsort(-scores, kind="stable")
    out = np.empty(len(scores))
    out[order] = np.arange(1, len(scores) + 1)
    return out


def rule_vector(r, meta=None):
    return r["cos"]


def rule_keyword(r, meta=None):
    return np.where(r["matched"], r["bm25"], -np.inf)


def make_rrf(weight: float, depth: int = 400, k: int = 60):
    def rule(r, meta=None):
        vr, kr = ranks(r["cos"]), ranks(np.where(r["matched"], r["bm25"], -1.0))
        vs = np.where(vr <= depth, (1 - weight) / (k + vr), 0.0)
        ks = np.where((kr <= depth) & r["matched"], weight / (k + kr), 0.0)
        return vs + ks
    return rule


def minmax(x: np.ndarray, floor: float | None = None) -> np.ndarray:
    lo = x.min() if floor is None else floor
    hi = x.max()
    return (x - lo) / (hi - lo) if hi > lo else np.zeros_like(x)


def within_depth(r, depth: int):
    """The candidates either side ranks in its best `depth` (what a query with a smaller topK fetches)."""
    vr = ranks(r["cos"])
    kr = ranks(np.where(r["matched"], r["bm25"], -np.inf))
    return (vr <= depth) | ((kr <= depth) & r["matched"])


def make_cc(weight: float, norm: str = "minmax", depth: int | None = None):
    """Convex combination of normalized scores (keyword weight `weight`). norm "unit": BM25 over the
    larger of its best and the query's idf_sum (what holding each query term once scores)."""
    def rule(r, meta=None):
        unit = meta["idf_sum"] if meta is not None else 0.0
        if depth is not None:
            keep = within_depth(r, depth)
            out = np.full(len(r), -np.inf)
            out[keep] = rule_at_full(r[keep], unit)
            return out
        return rule_at_full(r, unit)

    def rule_at_full(r, unit):
        cos, bm = r["cos"].astype(float), r["bm25"].astype(float)
        if norm == "minmax":
            v, k = minmax(cos), minmax(bm, 0.0)
        elif norm == "unit":
            best = max(bm.max(), unit)
            v, k = minmax(cos), (bm / best if best > 0 else bm * 0)
        elif norm == "z":
            v = (cos - cos.mean()) / (cos.std() or 1)
            k = (bm - bm[r["matched"]].mean()) / (bm[r["matched"]].std() or 1) if r["matched"].any() else bm * 0
            k = np.where(r["matched"], k, k.min() if len(k) else 0)
        elif norm == "max":
            v, k = cos / (cos.max() or 1), bm / (bm.max() or 1)
        return (1 - weight) * v + weight * k
    return rule


def peak(x: np.ndarray, n: int = 50) -> float:
    """How far the best score stands above the rest of the top n, in standard deviations."""
    top = np.sort(x)[::-1][:n]
    if len(top) < 3:
        return 0.0
    spread = top[1:].std()
    return float((top[0] - top[1:].mean()) / spread) if spread > 0 else 0.0


def make_adaptive(prior: float, mix: float, n: int = 50):
    """CC whose keyword weight leans toward the side whose best hit stands out more."""
    def rule(r, meta=None):
        cos, bm = r["cos"].astype(float), r["bm25"].astype(float)
        zv = peak(cos, n)
        zk = peak(bm[r["matched"]], n) if r["matched"].sum() >= 3 else 0.0
        adaptive = zk / (zk + zv) if zk + zv > 0 else prior
        w = (1 - mix) * prior + mix * adaptive
        v, k = minmax(cos), minmax(bm, 0.0)
        return (1 - w) * v + w * k
    return rule


def make_by_form(norm: str):
    """CC at the product's default weight for each query's form (query_form.py)."""
    def rule(r, meta):
        return make_cc(meta["form_weight"], norm)(r, meta)
    return rule


def score(paths: list[Path]) -> None:
    rules = {"vector": rule_vector, "keyword": rule_keyword,
             "cc-by-form": make_by_form("minmax"), "cc-unit-by-form": make_by_form("unit")}
    for w in (0.4, 0.5, 0.6):
        rules[f"rrf{w}"] = make_rrf(w)
    for w in (0.3, 0.4, 0.5, 0.6):
        rules[f"cc-minmax{w}"] = make_cc(w)
        rules[f"cc-z{w}"] = make_cc(w, "z")
        rules[f"cc-unit{w}"] = make_cc(w, "unit")
    for mix in (0.5, 1.0):
        rules[f"adaptive-mix{mix}"] = make_adaptive(0.4, mix)
    for w in (0.4, 0.6):
        rules[f"rrf{w}@40"] = make_rrf(w, depth=40)
    for w in (0.3, 0.4, 0.5):
        rules[f"cc-minmax{w}@40"] = make_cc(w, depth=40)
    header = f"{'rule':<16}" + "".join(f"{p.stem[:22]:>24}" for p in paths)
    print(header)
    data = [load(p) for p in paths]
    for name, rule in rules.items():
        cells = []
        for per_query in data:
            total = 0.0
            for r, sources, relevant, meta in per_query:
                if len(r) == 0:
                    continue
                s = rule(r, meta)
                order = np.argsort(-s, kind="stable")
                order = order[np.isfinite(s[order])]
                total += ndcg_at_10([int(sources[i]) for i in order[:200]], relevant)
            cells.append(total / len(per_query))
        print(f"{name:<16}" + "".join(f"{c:>24.4f}" for c in cells), flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    d = sub.add_parser("dump")
    d.add_argument("dir", type=Path)
    d.add_argument("db", type=Path)
    d.add_argument("out", type=Path)
    d.add_argument("--model-path", required=True)
    d.add_argument("--title-weight", type=float, default=1.0, help="BM25 column weight of the title (the product's: 1)")
    s = sub.add_parser("score")
    s.add_argument("dumps", nargs="+", type=Path)
    args = parser.parse_args()
    if args.command == "dump":
        dump(args.dir, args.db, args.out, args.model_path, args.title_weight)
    else:
        score(args.dumps)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
