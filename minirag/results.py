"""Output shapes shared by the CLI's --json and the MCP tools: one definition each."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

from minirag.search import Hit


def hit_dict(hit: Hit) -> dict:
    out = {
        "text": hit.text,
        "source": hit.source,
        "sourceType": hit.kind,
        "title": hit.title,
        "chunkIndex": hit.chunk_index,
        "score": round(hit.score, 6),
        "distance": None if hit.distance is None else round(hit.distance, 6),
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


def query_result(hits: list[Hit], parents: dict[int, str], roots: Sequence[Path]) -> dict:
    return {
        "results": [hit_dict(h) for h in hits],
        "sources": sources_summary(hits, roots),
        "parents": {str(pid): text for pid, text in parents.items()},
    }


def ingest_result(source: str, title: str, chunk_count: int, warnings: Sequence[str] = ()) -> dict:
    out = {"source": source, "chunkCount": chunk_count, "title": title}
    if warnings:
        out["warnings"] = list(warnings)
    return out
