"""Score fusion of the two sides' candidates, in one SQL statement: a convex combination of
normalized scores.

    score = (1 - w) * v + w * k

v is the cosine similarity min-max normalized over the query's candidates (1 for
the nearest, 0 for the farthest); k is BM25 divided by the best BM25 among them
(BM25's own floor is 0, so a chunk holding no query term scores 0), or by
HALF_QUERY_SHARE of the whole query's score (keyword.whole_query_score: what a
chunk holding every query term once scores) when that is larger. So the keyword
side's best hit counts in full only when it holds about half of what the query
asks, weighed by IDF; a best hit sharing one common word with a long query, or
nothing but script fragments with a page in another language, counts for what
it holds. (Dividing by the whole query's score itself cut the keyword side's
share of nearly every prose query, since no one chunk holds all of a
description's words: docs/evaluation.md.)

A chunk written in none of the query's writing system (an English page for a
Japanese query) holds no word the keyword side could find: its BM25 of 0 says
nothing of it, as the vector side, which reads both, does. Its k is at least
UNREADABLE_SHARE of its v, halfway between no match and what the vector side
says, so it is neither sunk by a side that cannot read it nor lifted as if
that side agreed; the plan names such chunks (plan.py). Every
candidate carries both scores: the plan computes the side that did not find it
(plan.py), so a chunk is never penalised for sitting just past one side's
depth. w is the keyword side's share: RAG_HYBRID_WEIGHT, else the default for the
query's form (query_form.py).

A link page, links to other pages of its site line after line (chunking/link_pages.py), is a
pointer: a generated index (Sphinx's genindex, DocBook's bookindex) names every identifier once
or many times, so both sides rank it beside, or above, the page that defines it. Its score is
weighed down (LINK_PAGE_WEIGHT), as a generator's own search leaves its index out.

Why not Reciprocal Rank Fusion: ranks throw away how sure each side is. On the
three dev sets, with both models, this rule beat weighted RRF (k = 60) at every
weight tried (scripts/fusion_study.py; docs/evaluation.md has the numbers) --
as Bruch, Gai and Ingber found across BEIR (ACM TOIS 42(1), 2023).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace

from minirag.chunking.link_pages import LINK_PAGE_LINES, LINK_PAGE_SHARE
from minirag.chunking.rows import SheetRows
from minirag.store import connection as db

# The share of the whole query's keyword score from which the keyword side's best hit counts in full.
HALF_QUERY_SHARE = 0.5
# The share of its normalized vector score a chunk the keyword side cannot read takes as its k.
UNREADABLE_SHARE = 0.5
# A link page (a generated index, a table of contents: chunking/link_pages.py) points to what it
# names; its chunks count for this share of their score, so the page it points to ranks first and
# the index still answers when nothing else does.
LINK_PAGE_WEIGHT = 0.5


@dataclass(frozen=True)
class Hit:
    chunk_id: int
    source: str
    kind: str
    title: str
    chunk_index: int
    text: str
    score: float
    distance: float | None
    parent_id: int
    page_start: int | None
    page_end: int | None
    also_in: tuple[str, ...] = ()  # other sources holding this very passage (filters.one_slot_per_passage)
    also_in_more: int = 0  # ... and how many more, past those named
    rows: SheetRows | None = None  # a spreadsheet's: its sheet and rows


# Each list is JSON in any order: vector [[chunk_id, cosine distance], ...],
# keyword [[chunk_id, bm25], ...] (BM25 negated: 0 = no match, larger = better),
# unreadable [chunk_id, ...] (chunks in another writing system than the query's).
FUSION_SQL = """
WITH vec AS (
    SELECT CAST(json_extract(value, '$[0]') AS INTEGER) AS chunk_id, json_extract(value, '$[1]') AS distance
    FROM json_each(:vector)
),
kw AS (
    SELECT CAST(json_extract(value, '$[0]') AS INTEGER) AS chunk_id, json_extract(value, '$[1]') AS bm25
    FROM json_each(:keyword)
),
vector_bounds AS (SELECT MIN(distance) AS nearest, MAX(distance) AS farthest FROM vec),
keyword_best AS (SELECT MAX(COALESCE(MAX(bm25), 0.0), :keyword_unit_floor) AS best FROM kw),
-- One row per candidate with both of its scores (a side's missing score stays NULL): a
-- UNION ALL and GROUP BY, not a join, since json_each tables have no index to join on.
per_chunk AS (
    SELECT chunk_id, MAX(distance) AS distance, MAX(bm25) AS bm25, MAX(unreadable) AS unreadable
    FROM (SELECT chunk_id, distance, NULL AS bm25, 0 AS unreadable, 1 AS candidate FROM vec
          UNION ALL
          SELECT chunk_id, NULL AS distance, bm25, 0 AS unreadable, 1 AS candidate FROM kw
          UNION ALL
          SELECT CAST(value AS INTEGER) AS chunk_id, NULL AS distance, NULL AS bm25, 1 AS unreadable,
                 0 AS candidate
          FROM json_each(:unreadable))
    GROUP BY chunk_id
    HAVING MAX(candidate) = 1
),
normalized AS (
    SELECT p.chunk_id, p.distance, p.unreadable,
           CASE WHEN p.distance IS NULL THEN 0.0
                WHEN b.farthest > b.nearest THEN (b.farthest - p.distance) / (b.farthest - b.nearest)
                ELSE 1.0 END AS v,
           CASE WHEN p.bm25 IS NULL OR NOT k.best > 0 THEN 0.0 ELSE p.bm25 / k.best END AS k
    FROM per_chunk p CROSS JOIN vector_bounds b CROSS JOIN keyword_best k
),
fused AS (
    SELECT chunk_id, distance,
           :vector_weight * v
         + :keyword_weight * CASE WHEN unreadable THEN MAX(k, :unreadable_share * v) ELSE k END AS score
    FROM normalized
)
SELECT f.chunk_id, s.source, s.kind, s.title, ch.ord, ch.text,
       f.score * CASE WHEN s.link_share >= :link_page_share AND s.link_line_share >= :link_page_lines
                      THEN :link_page_weight ELSE 1.0 END AS score,
       f.distance, ch.parent_id, ch.page_start, ch.page_end, ch.sheet, ch.row_start, ch.row_end
FROM fused f
JOIN chunks ch ON ch.id = f.chunk_id
JOIN sources s ON s.id = ch.source_id
ORDER BY score DESC, f.distance IS NULL, f.distance, f.chunk_id
"""


def fuse(conn, nearest: list[tuple[int, float]], keyword: list[tuple[int, float]],
         keyword_weight: float, whole_query: float = 0.0, unreadable: frozenset[int] = frozenset()) -> list[Hit]:
    """Every candidate of either list, best fused score first. `whole_query`: the query's
    keyword.whole_query_score (0 leaves BM25 divided by the best candidate's). `unreadable`:
    candidates the keyword side cannot read (no writing system of the query's)."""
    rows = conn.execute(FUSION_SQL, {
        "vector": json.dumps([list(n) for n in nearest]), "keyword": json.dumps([list(k) for k in keyword]),
        "vector_weight": 1.0 - keyword_weight, "keyword_weight": keyword_weight,
        "keyword_unit_floor": HALF_QUERY_SHARE * whole_query,
        "unreadable": json.dumps(sorted(unreadable)), "unreadable_share": UNREADABLE_SHARE,
        "link_page_share": LINK_PAGE_SHARE, "link_page_lines": LINK_PAGE_LINES, "link_page_weight": LINK_PAGE_WEIGHT,
    }).fetchall()
    return [_hit(db.stored_row(row, _HIT_KINDS, "chunks")) for row in rows]


def _hit(row: tuple) -> Hit:
    hit = Hit(*row[:-3])
    rows = SheetRows.stored(*row[-3:])
    return hit if rows is None else replace(hit, rows=rows)


# chunk_id, source, kind, title, chunk_index, text, score, distance, parent_id, page_start, page_end,
# sheet, row_start, row_end
_HIT_KINDS = (db.INT, db.TEXT, db.TEXT, db.TEXT, db.INT, db.TEXT, db.ANY, db.ANY, db.INT, db.INT_OR_NULL,
              db.INT_OR_NULL, (str, type(None)), db.INT_OR_NULL, db.INT_OR_NULL)
