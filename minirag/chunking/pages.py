"""Page numbers: Markdown converted from PDF separates pages with form feeds."""

from __future__ import annotations


def split_pages(text: str) -> tuple[list[str], list[int | None]]:
    """Lines of ``text`` without form feeds, and the 1-based page of each (None without pages)."""
    if "\f" not in text:
        unpaged = text.split("\n")
        return unpaged, [None] * len(unpaged)
    lines: list[str] = []
    pages: list[int | None] = []
    for number, page in enumerate(text.split("\f"), start=1):
        for line in page.split("\n"):
            lines.append(line)
            pages.append(number)
    return lines, pages


def page_span(pages: list[int | None]) -> tuple[int | None, int | None]:
    known = [page for page in pages if page is not None]
    if not known:
        return None, None
    return min(known), max(known)
