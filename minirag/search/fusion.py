"""Weighted Reciprocal Rank Fusion of the two sides' candidate lists, in one SQL statement.

score = (1 - w) / (k + vector_rank) + w / (k + keyword_rank), ranks 1-based,
k = 60. A chunk only the keyword side found has distance NULL. The statement
also joins each fused chunk to its row and its source, so the hits come back
whole.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

RRF_K = 60


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


# Each candidate list arrives as a JSON array in rank order:
# vector [[chunk_id, distance], ...], keyword [chunk_id, ...].
FUSION_SQL = """
WITH vec AS (
    SELECT CAST(json_extract(value, '$[0]') AS INTEGER) AS chunk_id,
           json_extract(value, '$[1]') AS distance,
           CAST(key AS INTEGER) + 1 AS rnk
    FROM json_each(:vector)
),
kw AS (
    SELECT CAST(value AS INTEGER) AS chunk_id, CAST(key AS INTEGER) + 1 AS rnk
    FROM json_each(:keyword)
),
fused AS (
    SELECT chunk_id, SUM(score) AS score, MIN(distance) AS distance
    FROM (
        SELECT chunk_id, :vector_weight / (:k + rnk) AS score, distance FROM vec
        UNION ALL
        SELECT chunk_id, :keyword_weight / (:k + rnk) AS score, NULL AS distance FROM kw
    )
    GROUP BY chunk_id
)
SELECT f.chunk_id, s.source, s.kind, s.title, c.ord, c.text, f.score, f.distance, c.parent_id,
       c.page_start, c.page_end
FROM fused f
JOIN chunks c ON c.id = f.chunk_id
JOIN sources s ON s.id = c.source_id
ORDER BY f.score DESC, f.distance IS NULL, f.distance, f.chunk_id
"""


def fuse(conn, nearest: list[tuple[int, float]], keyword: list[int], keyword_weight: float) -> list[Hit]:
    """Every candidate of either list, best fused score first."""
    rows = conn.execute(FUSION_SQL, {
        "vector": json.dumps([list(n) for n in nearest]), "keyword": json.dumps(keyword),
        "vector_weight": 1.0 - keyword_weight, "keyword_weight": keyword_weight, "k": RRF_K,
    }).fetchall()
    return [Hit(*row) for row in rows]
