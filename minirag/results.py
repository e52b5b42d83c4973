"""Output shapes shared by the CLI's --json and the MCP tools: one definition each."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

from minirag.budget import cost, largest_fitting
from minirag.errors import MiniragError
from minirag.search import Hit

QUERY_NEXT = ("ask for fewer results (topK) or narrow scope; a left-out parent is the section around its hit: "
              "read_chunk_neighbors (source, chunkIndex) or read_file with offset gives it")


def hit_dict(hit: Hit) -> dict:
    out = {
        "text": hit.text,
        "source": hit.source,
        "sourceType": hit.kind,
        "title": hit.title,
        "chunkIndex": hit.chunk_index,
        "score": round(hit.score, 6),
        "distance": None if hit.distance is None else max(0.0, round(hit.distance, 6)),  # never -0.0
        "parentId": str(hit.parent_id),
    }
    if hit.page_start is not None:
        out["pages"] = page_label(hit.page_start, hit.page_end)
    return out


def page_label(start: int | None, end: int | None) -> str | None:
    if start is None:
        return None
    return str(start) if end in (None, start) else f"{start}-{end}"


def display_path(source: str, roots: Sequence[Path]) -> str:
    """The source relative to the longest root holding it; the source itself otherwise."""
    best = ""
    for root in roots:
        prefix = str(root).rstrip("/\\") + ("\\" if "\\" in str(root) and "/" not in str(root) else "/")
        if source.startswith(prefix) and len(prefix) > len(best):
            best = prefix
    return source[len(best):] if best else source


def sources_summary(hits: Iterable[Hit], roots: Sequence[Path]) -> list[dict]:
    """Distinct sources in rank order with their hit counts."""
    summary: dict[str, dict] = {}
    for hit in hits:
        entry = summary.setdefault(
            hit.source,
            {"source": hit.source, "sourceType": hit.kind, "title": hit.title, "hits": 0, "displayPath": display_path(hit.source, roots)},
        )
        entry["hits"] += 1
    return list(summary.values())


def query_result(hits: list[Hit], parents: dict[int, str], roots: Sequence[Path], budget: int | None = None,
                 collection_of: Callable[[str], str | None] = lambda source: None) -> dict:
    """Hits in rank order, then the parents they point to, each parent once. Over `budget`
    tokens: as many hits as fit, then parents in their first hit's rank order while they fit,
    and `truncated` says what was left out and how to get it. Each hit names its collection
    (`collection_of` its source; null for data and url sources)."""
    named = {h.source: collection_of(h.source) for h in hits}
    full = _query_payload(hits, parents, roots, list(parents), named)
    if budget is None or cost(full) <= budget:
        return full
    ranked = list(dict.fromkeys(h.parent_id for h in hits if h.parent_id in parents))

    def shaped(count: int, sent: list[int]) -> dict:
        kept = hits[:count]
        wanted = [pid for pid in dict.fromkeys(h.parent_id for h in kept) if pid in parents]
        out = _query_payload(kept, parents, roots, sent, named)
        out["truncated"] = {"hitsLeftOut": len(hits) - count,
                            "parentsLeftOut": [str(pid) for pid in wanted if pid not in sent],
                            "maxResponseTokens": budget, "next": QUERY_NEXT}
        return out

    count = largest_fitting(len(hits), lambda n: cost(shaped(n, [])) <= budget)
    sent: list[int] = []
    for pid in ranked:
        if any(h.parent_id == pid for h in hits[:count]) and cost(shaped(count, [*sent, pid])) <= budget:
            sent.append(pid)
    return shaped(count, sent)


def _query_payload(hits: list[Hit], parents: dict[int, str], roots: Sequence[Path], sent: list[int],
                   named: dict[str, str | None]) -> dict:
    return {
        "results": [{**hit_dict(h), "collection": named[h.source]} for h in hits],
        "sources": sources_summary(hits, roots),
        "parents": {str(pid): parents[pid] for pid in sent},
    }


def fit_list(payload: dict, key: str, budget: int, next_step: str) -> dict:
    """`payload` with as many of `payload[key]`'s first items as fit `budget`, and `truncated`
    saying how many were left out, when they do not all fit."""
    items = payload.get(key)
    if not isinstance(items, list) or cost(payload) <= budget:
        return payload

    def shaped(count: int) -> dict:
        return {**payload, key: items[:count],
                "truncated": {"field": key, "leftOut": len(items) - count, "maxResponseTokens": budget,
                              "next": next_step}}

    return shaped(largest_fitting(len(items), lambda n: cost(shaped(n)) <= budget))


def within_budget(payload: dict, budget: int) -> dict:
    """Any tool's result cut to `budget`: its longest list first (warnings, files, chunks);
    one that cannot be cut is refused in one line rather than sent past the client's limit."""
    lists = sorted((k for k, v in payload.items() if isinstance(v, list) and v),
                   key=lambda k: cost(payload[k]), reverse=True)
    for key in lists:
        if cost(payload) <= budget:
            break
        payload = fit_list(payload, key, budget, "the rest is left out to fit MINIRAG_MAX_RESPONSE_TOKENS")
    if cost(payload) > budget:
        raise MiniragError(f"the result is about {cost(payload)} tokens, over MINIRAG_MAX_RESPONSE_TOKENS "
                           f"({budget}); narrow the request")
    return payload


def ingest_result(source: str, title: str, chunk_count: int, warnings: Sequence[str] = ()) -> dict:
    out = {"source": source, "chunkCount": chunk_count, "title": title or None}  # null, not "", when it has none
    if warnings:
        out["warnings"] = list(warnings)
    return out
