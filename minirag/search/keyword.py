"""The keyword side of a query: FTS5 BM25 candidates, bounded in cost on large indexes.

FTS5 scores every chunk that matches any query term, so an OR over common
words scores 100k+ rows at 1M chunks. On an
index larger than the row budget the match is narrowed to the rarest terms
whose document counts fit the budget, the best RESCORE_DEPTH of those matches are
fetched, and they are ranked again by BM25 over every query term, computed
here exactly as FTS5's bm25() does (same idf, k1, b, column weights and
lengths). So a chunk loses its place only if it holds none of the rare terms.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable

from minirag.keywords import any_term, query_terms
from minirag.language import SNOWBALL
from minirag.search.scope import Scopes
from minirag.store.connection import json_counts, stored_value

TITLE_WEIGHT = 1.0  # BM25 column weight of the source title relative to the body
# Matches FTS5 scores per query, at most: this share of the index, and never
# fewer than the floor (what each costs: see docs/evaluation.md#narrowing-common-terms-on-large-indexes).
KEYWORD_ROW_BUDGET = 12_000
KEYWORD_ROW_SHARE = 0.04
# Matches of the rare terms ranked again over every term (at least the caller's
# depth); why 200: see docs/evaluation.md#narrowing-common-terms-on-large-indexes.
RESCORE_DEPTH = 200
# A language counts as one of the index's (its stems are added to every query) from this share
# of the identified chunks on; at most this many, the most frequent first.
INDEX_LANGUAGE_SHARE = 0.02
MAX_INDEX_LANGUAGES = 4
# FTS5's bm25() constants (fts5_aux.c).
_K1, _B = 1.2, 0.75


def index_languages(conn) -> tuple[str, ...]:
    """The stemmed languages the index's chunks are written in (see store/index.py), most chunks first."""
    row = conn.execute("SELECT value FROM meta WHERE key = 'keyword_languages'").fetchone()
    stored = stored_value("keyword_languages", row[0], json_counts) if row else {}
    counts = {k: v for k, v in stored.items() if k in SNOWBALL}
    # Languages one stemmer reads (Croatian and Serbian) count as one, named by the most frequent.
    by_stemmer: dict[str, int] = {}
    named: dict[str, str] = {}
    for code in sorted(counts, key=lambda k: (-counts[k], k)):
        algorithm = SNOWBALL[code][0]
        named.setdefault(algorithm, code)
        by_stemmer[algorithm] = by_stemmer.get(algorithm, 0) + counts[code]
    total = sum(by_stemmer.values())
    ranked = sorted(by_stemmer, key=lambda a: (-by_stemmer[a], named[a]))
    return tuple(named[a] for a in ranked if by_stemmer[a] >= INDEX_LANGUAGE_SHARE * total)[:MAX_INDEX_LANGUAGES]


def document_counts(conn, terms: list[str]) -> dict[str, int]:
    """Chunks holding each term, for the terms the FTS vocabulary has as spelled."""
    # fts5vocab counts a term's documents by walking its posting list: a few ms at 1M.
    conn.execute("CREATE VIRTUAL TABLE IF NOT EXISTS temp.chunks_fts_terms USING fts5vocab(main, chunks_fts, row)")
    marks = ",".join("?" * len(terms))
    return dict(conn.execute(f"SELECT term, doc FROM temp.chunks_fts_terms WHERE term IN ({marks})", terms))


def term_weights(conn, text: str) -> dict[str, float]:
    """Each keyword term of query `text` (stemmed for the index's languages too) with its IDF in
    the index, as BM25 weighs it; 0 for a term no chunk holds."""
    terms = query_terms(text, index_languages(conn))
    if not terms:
        return {}
    counts = document_counts(conn, terms)
    rows, _tokens_total = fts_totals(conn)
    return {term: _idf(rows, counts[term]) if counts.get(term) else 0.0 for term in terms}


class CountCache:
    """Document counts of the terms queried, kept across the queries of a serving process while
    the index's write generation stays: each read walks the terms' posting lists (milliseconds for
    a common term at 100k chunks), and queries share terms. Thread-safe; at most MAX_TERMS kept."""

    MAX_TERMS = 20_000

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._generation: int | None = None
        self._counts: dict[str, int | None] = {}  # None: the vocabulary lacks the term

    def clear(self) -> None:
        with self._lock:
            self._generation, self._counts = None, {}

    def counts(self, conn, terms: list[str], generation: int) -> dict[str, int]:
        """document_counts(conn, terms) as of `generation`, reading only the terms not kept."""
        with self._lock:
            if generation != self._generation:
                self._generation, self._counts = generation, {}
            known: dict[str, int | None] = {t: self._counts[t] for t in terms if t in self._counts}
        missing = [t for t in terms if t not in known]
        if missing:
            read = document_counts(conn, missing)
            fresh = {t: read.get(t) for t in missing}
            known.update(fresh)
            with self._lock:
                if generation == self._generation:
                    if len(self._counts) + len(fresh) > self.MAX_TERMS:
                        self._counts = {}
                    self._counts.update(fresh)
        ordered: dict[str, int] = {}
        for term in sorted(known):  # in term order, as the fts5vocab statement returns them
            count = known[term]
            if count is not None:
                ordered[term] = count
        return ordered


class TermCounts:
    """A query's document_counts, read on first need and then kept: narrowing the keyword side
    and scoring the vector side's chunks want the same counts, and each read walks every term's
    posting list. With a CountCache, from there for the terms it keeps (`generation`: the index
    generation the query read)."""

    def __init__(self, conn, terms: list[str], cache: CountCache | None = None, generation: int = 0) -> None:
        self.terms = terms
        self._conn = conn
        self._cache = cache
        self._generation = generation
        self._counts: dict[str, int] | None = None

    def get(self) -> dict[str, int]:
        if self._counts is None:
            self._counts = (document_counts(self._conn, self.terms) if self._cache is None
                            else self._cache.counts(self._conn, self.terms, self._generation))
        return self._counts


def rare_terms(terms: list[str], counts: dict[str, int], budget: int) -> list[str]:
    """Rarest first while the summed document counts fit the budget; the rarest that occurs always.

    A term the vocabulary lacks as spelled matches nothing, or is one the
    tokenizer folds (diacritics): kept, uncounted, never the one rarest term.
    """
    kept = [t for t in terms if t not in counts]
    rows, took_one = 0, False
    for term in sorted(counts, key=lambda t: (counts[t], t)):  # ties in term order
        rows += counts[term]
        if took_one and rows > budget:
            break
        kept.append(term)
        took_one = True
    return kept


def keyword_candidates(conn, terms: list[str], depth: int, scope: Scopes | None,
                       chunk_bound: int, counts: TermCounts | None = None) -> list[tuple[int, float]]:
    """(chunk id, BM25) of the best matches of `terms` over body and title, active sources only,
    best first. BM25 here is FTS5's score negated: 0 for no match, larger is better.

    `chunk_bound`: the largest chunk id, which bounds the index's size (the budget is a share of it).
    `counts`: the TermCounts of these terms the query shares, if any.
    """
    if not terms:
        return []
    budget = max(KEYWORD_ROW_BUDGET, round(KEYWORD_ROW_SHARE * chunk_bound))
    if len(terms) > 1 and chunk_bound > budget:
        documents = (counts or TermCounts(conn, terms)).get()
        narrowed = rare_terms(terms, documents, budget)
        if len(narrowed) < len(terms):
            matches = _bm25_matches(conn, any_term(narrowed), max(depth, RESCORE_DEPTH), scope)
            return rescore(conn, matches, terms, documents)[:depth]
    return [(chunk_id, -bm) for chunk_id, bm in _bm25_matches(conn, any_term(terms), depth, scope)]


def keyword_scores(conn, ids: list[int], terms: list[str], counts: TermCounts | None = None) -> dict[int, float]:
    """The BM25 (negated, as keyword_candidates gives it) of each of `ids` for `terms`; 0 for no match.

    For the chunks only the vector side found: computed here for just those rows,
    never by a MATCH over the whole index. `counts`: the TermCounts of these terms, if any.
    """
    if not ids or not terms:
        return dict.fromkeys(ids, 0.0)
    scores = bm25_scores(conn, ids, terms, (counts or TermCounts(conn, terms)).get())
    return {chunk_id: -scores.get(chunk_id, 0.0) for chunk_id in ids}


def unreadable_chunks(conn, ids: list[int], query_script: str, model_reads: Callable[[str], bool]) -> frozenset[int]:
    """Those of `ids` written in none of the query's writing system `query_script` (the FTS table's
    `scripts`, keywords.KeywordText): the keyword side cannot find the query's words there. Only
    chunks whose main writing system the model reads: elsewhere the vector side cannot judge either."""
    if not ids:
        return frozenset()
    marks = ",".join("?" * len(ids))
    found = set()
    for chunk_id, scripts in conn.execute(f"SELECT rowid, scripts FROM chunks_fts WHERE rowid IN ({marks})", ids):
        held = (scripts or "").split()
        if held and query_script not in held and model_reads(held[0]):
            found.add(chunk_id)
    return frozenset(found)


def _bm25_matches(conn, fts: str, depth: int, scope: Scopes | None) -> list[tuple[int, float]]:
    """(chunk_id, bm25) best first; inactive sources and chunks outside the scope left out.

    Joining every match to its source costs as much as BM25 itself, so without a
    scope the best depth matches are taken from FTS5 alone and only those are
    joined and filtered; when some of them were inactive, the best depth +
    (chunks of inactive sources) are, so never fewer than depth active ones
    survive. A scope filters every match through the join.
    """
    args: tuple[object, ...]
    if scope is None:
        sql = """
            WITH top AS MATERIALIZED (
                SELECT rowid AS chunk_id, bm25(chunks_fts, 1.0, ?) AS bm FROM chunks_fts
                WHERE chunks_fts MATCH ? ORDER BY bm, rowid LIMIT ?
            )
            SELECT t.chunk_id, t.bm FROM top t
            JOIN chunks c ON c.id = t.chunk_id JOIN sources s ON s.id = c.source_id
            WHERE s.lifecycle = 'active' ORDER BY t.bm, t.chunk_id LIMIT ?
        """
        # When the best `depth` matches all survive the join, they are the answer: the count of
        # inactive chunks (a scan of the sources) is needed only when some were left out.
        found = conn.execute(sql, (TITLE_WEIGHT, fts, depth, depth)).fetchall()
        if len(found) == depth:
            return found
        inactive = conn.execute(
            "SELECT COUNT(*) FROM chunks WHERE source_id IN (SELECT id FROM sources WHERE lifecycle <> 'active')"
        ).fetchone()[0]
        if not inactive:
            return found
        args = (TITLE_WEIGHT, fts, depth + inactive, depth)
    else:
        sql = f"""
            SELECT f.rowid, bm25(chunks_fts, 1.0, ?) AS bm FROM chunks_fts f
            JOIN chunks c ON c.id = f.rowid JOIN sources s ON s.id = c.source_id
            WHERE chunks_fts MATCH ? AND s.lifecycle = 'active' AND {scope.sql}
            ORDER BY bm, f.rowid LIMIT ?
        """
        args = (TITLE_WEIGHT, fts, *scope.args, depth)
    return conn.execute(sql, args).fetchall()


def rescore(conn, matches: list[tuple[int, float]], terms: list[str],
            counts: dict[str, int]) -> list[tuple[int, float]]:
    """The matched chunks ranked by FTS5's BM25 over all `terms` (ties by chunk id), score negated."""
    scores = bm25_scores(conn, [chunk_id for chunk_id, _bm in matches], terms, counts)
    return [(chunk_id, -scores[chunk_id]) for chunk_id in sorted(scores, key=lambda c: (scores[c], c))]


def bm25_scores(conn, ids: list[int], terms: list[str], counts: dict[str, int]) -> dict[int, float]:
    """FTS5's bm25(chunks_fts, 1.0, TITLE_WEIGHT) of each chunk for the OR of `terms` (lower is better).

    `counts`: chunks holding each term (document_counts). Lengths are tokens of
    the stored keyword text, which keywords.normalize joins with single spaces.
    """
    if not ids:
        return {}
    rows, total_tokens = fts_totals(conn)
    avgdl = total_tokens / rows if rows else 1.0
    idf = {term: _idf(rows, counts.get(term, 0)) for term in terms}
    marks = ",".join("?" * len(ids))
    scores = {}
    for chunk_id, body, title in conn.execute(
        f"SELECT rowid, body, title FROM chunks_fts WHERE rowid IN ({marks})", ids
    ):
        length = _tokens(body) + _tokens(title)
        norm = _K1 * (1 - _B + _B * length / avgdl)
        score = 0.0
        # A term that is not even a substring of the text is not one of its tokens: most are not,
        # and the substring test costs far less than counting.
        present = [term for term in terms if term in body or term in title]
        if present:
            body_spaced, title_spaced = _spaced(body), _spaced(title)
            for term in present:
                token = f" {term} "
                freq = body_spaced.count(token) + TITLE_WEIGHT * title_spaced.count(token)
                if freq:
                    score += idf[term] * (freq * (_K1 + 1.0)) / (freq + norm)
        scores[chunk_id] = -score
    return scores


def whole_query_score(conn, counts: dict[str, int]) -> float:
    """The BM25 of a chunk of average length that holds each query term the index holds once:
    the sum of their IDFs (at tf 1 and average length BM25's saturation factor is 1).
    `counts`: chunks holding each term (document_counts)."""
    rows, _tokens_total = fts_totals(conn)
    return sum(_idf(rows, hits) for hits in counts.values() if hits)


def _idf(rows: int, hits: int) -> float:
    """FTS5's idf (fts5_aux.c): a term in half the rows or more gets a token weight, not a negative one."""
    value = math.log((rows - hits + 0.5) / (hits + 0.5))
    return value if value > 0.0 else 1e-6


def _tokens(text: str) -> int:
    """Tokens of a keyword text (single spaces between them, none around)."""
    return text.count(" ") + 1 if text else 0


def _spaced(text: str) -> str:
    """The keyword text with every token between two spaces of its own, so counting " term "
    counts each occurrence: adjacent tokens share no space to overlap on."""
    return "  " + text.replace(" ", "  ") + "  "


def fts_totals(conn) -> tuple[int, int]:
    """(rows, tokens over all columns) as FTS5 keeps them for BM25: the averages record of chunks_fts_data."""
    blob = conn.execute("SELECT block FROM chunks_fts_data WHERE id = 1").fetchone()
    if not blob or not blob[0]:
        return 0, 0
    values, pos = [], 0
    data = bytes(blob[0])
    while pos < len(data):
        value, pos = _varint(data, pos)
        values.append(value)
    return values[0], sum(values[1:])


def _varint(data: bytes, pos: int) -> tuple[int, int]:
    """SQLite's varint: big-endian 7-bit groups, high bit = more; a 9th byte carries 8 bits."""
    value = 0
    for i in range(9):
        byte = data[pos + i]
        if i == 8:
            return (value << 8) | byte, pos + 9
        value = (value << 7) | (byte & 0x7F)
        if not byte & 0x80:
            return value, pos + i + 1
    raise AssertionError("unreachable")
