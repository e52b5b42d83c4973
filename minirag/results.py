"""Output shapes shared by the CLI's --json and the MCP tools: one definition each.

`payload(value)` shapes any value an App operation returns: camelCase keys, field order, and
what is left out when it does not apply. Nothing else in the package writes a wire name.
"""

from __future__ import annotations

import heapq
import re
import shlex
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace
from datetime import UTC, datetime
from functools import singledispatch
from pathlib import Path
from typing import TYPE_CHECKING, Any

from minirag.budget import cost, largest_fitting, page_end
from minirag.chunking.rows import SheetRows
from minirag.display import a_name, display_width, on_one_line, wrapped
from minirag.doctor import Check, DoctorReport
from minirag.errors import InvalidArgument, MiniragError
from minirag.gitstate import GitState
from minirag.ingest.jobs import SyncJob
from minirag.ingest.listing import ListEntry
from minirag.ingest.progress import Progress, nothing_found
from minirag.ingest.watch import PassReport, WatchState
from minirag.search import Hit
from minirag.store.backup import BackupResult
from minirag.store.index import ChunkRow, IndexStats
from minirag.values import (
    ChunkWindow,
    CollectionInfo,
    Collections,
    ConfigFailure,
    DeleteResult,
    FileListing,
    FilesElsewhere,
    IngestResult,
    ListedPage,
    QueryResult,
    ReadResult,
    Status,
    SyncStatus,
)

if TYPE_CHECKING:
    from minirag.chunking.model import Section

READ_SLACK_TOKENS = 8  # a page's nextOffset, once known, may be a few digits longer than the null it replaces

QUERY_NEXT = ("ask for fewer results (topK) or narrow scope; a left-out parent is the section around its hit: "
              "read_chunk_neighbors (source, chunkIndex) gives the text around it")


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
    if hit.rows is not None:
        out.update(sheet_rows(hit.rows))
    if hit.also_in:
        out["alsoIn"] = list(hit.also_in)
    if hit.also_in_more:
        out["alsoInMore"] = hit.also_in_more
    return out


def page_label(start: int | None, end: int | None) -> str | None:
    if start is None:
        return None
    return str(start) if end in (None, start) else f"{start}-{end}"


def sheet_rows(rows: SheetRows) -> dict:
    """A spreadsheet passage's place: `sheet` (none for a CSV or TSV file) and `rows`, as `pages` are
    written (`"12"`, `"12-40"`)."""
    label = str(rows.first) if rows.last == rows.first else f"{rows.first}-{rows.last}"
    return {**_present(sheet=rows.sheet), "rows": label}


def rows_text(shaped: Mapping) -> str:
    """A passage's place in a sheet (`sheet_rows`' keys, in a hit's or a chunk's shape) as the CLI
    writes it after the chunk's index: ` Staff: rows 12–40` (a sheet's name holds no colon in Excel or
    LibreOffice), a CSV file's ` rows 12–40`; "" for a passage with none."""
    if not shaped.get("rows"):
        return ""
    label = str(shaped["rows"]).replace("-", "\u2013")
    return f" {a_name(shaped['sheet'])}: rows {label}" if shaped.get("sheet") is not None else f" rows {label}"


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


def query_result(value: QueryResult, budget: int | None = None) -> dict:
    """Hits in rank order, then the parents they point to, each parent once. Over `budget`
    tokens: as many hits as fit, then parents in their first hit's rank order while they fit,
    and `truncated` says what was left out and how to get it. The first hit always comes back:
    one alone over the budget names fewer files in `alsoIn` (counted in `alsoInMore`), then has
    its text cut, and `truncated` says so. Each hit names its collection (null for data and url
    sources)."""
    hits, parents, roots = list(value.hits), value.parents, value.roots
    named = {h.source: name for h, name in zip(hits, value.collections, strict=True)}
    full = _query_payload(hits, parents, roots, list(parents), named)
    if value.elsewhere is not None and not hits:
        full["note"] = files_elsewhere(value.elsewhere, roots)
    elif value.unread is not None and not hits:
        model, script = value.unread
        full["note"] = (f"{model} does not read {script} text: this query was matched by its exact words alone, "
                        "and no indexed passage holds them; ask in a language the model reads")
    if budget is None or cost(full) <= budget:
        return full
    ranked = list(dict.fromkeys(h.parent_id for h in hits if h.parent_id in parents))

    def shaped(kept: list[Hit], sent: list[int], cut: Mapping[str, int]) -> dict:
        wanted = [pid for pid in dict.fromkeys(h.parent_id for h in kept) if pid in parents]
        out = _query_payload(kept, parents, roots, sent, named)
        out["truncated"] = {"hitsLeftOut": len(hits) - len(kept),
                            "parentsLeftOut": [str(pid) for pid in wanted if pid not in sent], **cut,
                            "maxResponseTokens": budget, "next": QUERY_NEXT + (FIRST_HIT_CUT_NEXT if cut else "")}
        return out

    kept = hits[:largest_fitting(len(hits), lambda n: cost(shaped(hits[:n], [], {})) <= budget)]
    cut: dict[str, int] = {}  # what the first hit lost to fit alone, when it did not
    if hits and not kept:
        first, cut = _first_hit_within(hits[0], lambda hit, lost: cost(shaped([hit], [], lost)) <= budget)
        kept = [first]
    sent: list[int] = []
    for pid in ranked:
        if any(h.parent_id == pid for h in kept) and cost(shaped(kept, [*sent, pid], cut)) <= budget:
            sent.append(pid)
    return shaped(kept, sent, cut)


FIRST_HIT_CUT_NEXT = ("; the first hit alone was over the budget: alsoInLeftOut names fewer of the files that also "
                      "hold it (alsoInMore counts them), textCharsLeftOut is how much of its text was cut from the "
                      "end (read_file, source, pages through the whole file)")


def _first_hit_within(hit: Hit, fits: Callable[[Hit, dict[str, int]], bool]) -> tuple[Hit, dict[str, int]]:
    """`hit` made to `fits` as the one hit of a result, with what it lost said: fewer files named in
    `alsoIn` (the rest counted in `alsoInMore`; `alsoInLeftOut`), then, if still over, its text cut from
    the end (`textCharsLeftOut`). Cut to no text it may still be over: the caller's budget refuses that."""
    names = hit.also_in

    def naming(n: int) -> tuple[Hit, dict[str, int]]:
        return (replace(hit, also_in=names[:n], also_in_more=hit.also_in_more + len(names) - n),
                {"alsoInLeftOut": len(names) - n} if n < len(names) else {})

    shorter, lost = naming(largest_fitting(len(names), lambda n: fits(*naming(n))))
    if fits(shorter, lost):
        return shorter, lost

    def cutting(n: int) -> tuple[Hit, dict[str, int]]:
        return replace(shorter, text=hit.text[:n]), {**lost, "textCharsLeftOut": len(hit.text) - n}

    return cutting(largest_fitting(len(hit.text), lambda n: fits(*cutting(n))))


def _query_payload(hits: list[Hit], parents: Mapping[int, str], roots: Sequence[Path], sent: list[int],
                   named: dict[str, str | None]) -> dict:
    return {
        "results": [{**hit_dict(h), "collection": named[h.source]} for h in hits],
        "sources": sources_summary(hits, roots),
        "parents": {str(pid): parents[pid] for pid in sent},
    }


def query_text(result: dict, scope: str | Sequence[str] | None = None, max_distance: float | None = None,
               query: str | None = None, weights: Mapping[str, float] | None = None,
               columns: int | None = None) -> str:
    """A query result as the CLI prints it: rank, source, chunk and scores, then the heading and a
    snippet (the stretch of the text that holds the most of `query`'s words, each counted at its
    `weights` when given). With `columns` (a terminal's width), the indented lines are wrapped to it
    at word breaks; without, each is one line."""
    if not result["results"]:
        if "note" in result:
            return f"no results: {result['note']}"
        if max_distance is not None:
            return (f"no results within RAG_MAX_DISTANCE={max_distance:g} (a cosine distance, 0 to 2): "
                    "raise or unset it to see farther hits")
        if scope:
            scopes = (scope,) if isinstance(scope, str) else scope
            under = " or ".join(a_name(each) for each in scopes)
            flags = " ".join(f"--scope {shlex.quote(a_name(each))}" for each in scopes)
            return f"no results under {under}; `minirag list {flags}` shows what is indexed there"
        return "no results (is anything indexed? try `minirag status`)"
    from minirag.chunking.breadcrumb import opens_with_title
    from minirag.snippet import snippet

    lines = []
    for rank, hit in enumerate(result["results"], 1):
        distance = "keyword-only" if hit["distance"] is None else f"distance {hit['distance']:.3f}"
        pages = f" p. {hit['pages']}" if hit.get("pages") else ""
        pages += rows_text(hit)
        where, scores = f"{rank}. {a_name(hit['source'])} #{hit['chunkIndex']}{pages}", f"(score {hit['score']:.4f}, {distance})"
        fits = columns is None or display_width(where) + 2 + len(scores) <= columns
        lines.append(f"{where}  {scores}" if fits else f"{where}\n   {scores}")  # a path is not broken
        # A chunk's text opens with its breadcrumb (title > headings) when it has a title: shown
        # once, as the heading line, not again as the snippet's first words.
        first, _, rest = hit["text"].partition("\n")
        heading, body = (first, rest) if opens_with_title(first, hit["title"]) and rest.strip() else (
            hit["title"], hit["text"])
        if not hit["source"].lower().endswith(".txt"):  # plain text's backslashes are its own
            body = _MARKDOWN_ESCAPE.sub(r"\1", body)
        indented = [on_one_line(heading)] if heading else []
        indented.append(snippet(body, query, weights))
        if hit.get("alsoIn"):
            more = f" and {hit['alsoInMore']} more" if hit.get("alsoInMore") else ""
            indented.append(f"also in: {', '.join(a_name(s) for s in hit['alsoIn'])}{more}")
        lines += [f"   {line}" if columns is None else wrapped(line, columns, "   ") for line in indented]
    return "\n".join(lines)


# Backslash escapes the Markdown conversion adds (`toml\_str`): read as the characters they escape.
_MARKDOWN_ESCAPE = re.compile(r"\\([\\`*_{}\[\]()#+\-.!|~<>])")


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


def fit_page(listing: dict, key: str, offset: int, budget: int, next_step: str, noun: str,
             shape: Callable[[Any], dict] | None = None, listing_id: str | None = None) -> dict:
    """`listing` from item `offset` of `listing[key]` on, as many as fit `budget`, each item shaped by
    `shape` (only those a page can hold are: a page costs its own items, not the whole listing's):
    when some are left out, `truncated` says how many and `nextOffset` is the `offset` that lists them
    (a paged listing: list_files, list_collections, each item a `noun`). An item that alone is over the
    budget is refused saying how to pass it: an empty page's `nextOffset` was the `offset` given,
    asked for again for ever. `listing_id`: a kept listing's (ListingPages), whose `nextCursor` a cut page
    gives too, `ID.nextOffset`."""
    if offset < 0:
        raise InvalidArgument(f"offset must be 0 or more, got {offset}")
    items = listing[key]
    window: list[dict] = []
    spent = 0  # the items' own costs: in the page, each costs at least its own less one (budget.cost)
    for at in range(offset, len(items)):
        window.append(items[at] if shape is None else shape(items[at]))
        spent += cost(window[-1]) - 1
        if spent > budget:
            break

    def page(count: int) -> dict:
        out = {**listing, key: window[:count]}
        if offset + count < len(items):
            out["nextOffset"] = offset + count
            if listing_id is not None:
                out["nextCursor"] = f"{listing_id}.{offset + count}"
            out["truncated"] = {"field": key, "leftOut": len(items) - offset - count, "maxResponseTokens": budget,
                                "next": next_step}
        return out

    if offset + len(window) >= len(items) and cost(whole := page(len(window))) <= budget:
        return whole
    # Fitted with the largest nextOffset it can take, so that the number counts against the budget.
    longest = {"nextOffset": len(items), **({"nextCursor": f"{listing_id}.{len(items)}"} if listing_id else {})}
    count = largest_fitting(len(window), lambda n: cost({**page(n), **longest}) <= budget)
    if not count:
        past = f"cursor {listing_id}.{offset + 1}" if listing_id is not None else f"offset {offset + 1}"
        raise MiniragError(f"the {noun} at offset {offset} alone is over MINIRAG_MAX_RESPONSE_TOKENS "
                           f"({budget}): raise it, or pass {past} to go on past it")
    return page(count)


def files_page(page: ListedPage, budget: int, next_step: str) -> dict:
    """list_files' page (fit_page), with `nextCursor` naming the rest of its kept listing when cut;
    `indexChanged` when the index changed since the listing the pages before were cut from, so this
    page is cut from a new one."""
    value = page.listing
    head = {"files": value.files, **other_types(value.other_types),
            **({"indexChanged": INDEX_CHANGED} if page.changed else {})}
    return fit_page(head, "files", page.offset, budget, next_step, "file", shape=list_entry,
                    listing_id=page.name)


def files_slice(value: FileListing, offset: int, limit: int | None) -> dict:
    """`minirag list --json`: the listing's `limit` files from `offset` on, shaped as list_files' page is,
    with `nextOffset` and `truncated` when some are left after them."""
    end = len(value.files) if limit is None else min(len(value.files), offset + limit)
    out = {"files": [list_entry(entry) for entry in value.files[offset:end]], **other_types(value.other_types)}
    if end < len(value.files):
        out["nextOffset"] = end
        out["truncated"] = {"field": "files", "leftOut": len(value.files) - end, "limit": limit,
                            "next": f"pass --offset {end} for the rest"}
    return out


INDEX_CHANGED = ("the index changed since the pages before were listed (a sync or an ingest wrote to it): this "
                 "page is from a new listing, so a file may have moved across pages; list again without a cursor "
                 "for one consistent listing")


PER_ROOT = (("roots",), ("collections",), ("gitState",), ("watch", "roots"))  # status's parts, one a root


def fit_status(out: dict, budget: int) -> dict:
    """`status` within `budget`: its per-root parts (`roots`, `collections`, `gitState`, the watcher's
    `roots`) cut alike to the first roots that fit with its other lists (a watcher's pass's warnings)
    left empty, and `truncated` saying how many were left out and that list_collections pages them;
    then its other lists cut to the room left, each counted in `truncated.alsoLeftOut` by its path.
    Cut by within_budget after, the longest list, `collections`, lost more than `roots` did, and the
    `offset` given for list_collections skipped those."""
    roots = out.get("roots") or []
    if cost(out) <= budget or not roots:
        return out
    field = "collections" if "collections" in out else "roots"

    def shaped(whole: dict, count: int) -> dict:
        kept = set(roots[:count])
        cut = {**whole, "roots": roots[:count]}
        if "collections" in whole:
            cut["collections"] = [c for c in whole["collections"] if c["path"] in kept]
        if "gitState" in whole:
            cut["gitState"] = [g for g in whole["gitState"] if g["root"] in kept]
        if isinstance(whole.get("watch"), dict):
            cut["watch"] = {**whole["watch"], "roots": [r for r in whole["watch"].get("roots", ()) if r in kept]}
        cut["truncated"] = {"field": field, "leftOut": len(_at(whole, (field,))) - len(cut[field]),
                            "maxResponseTokens": budget,
                            "next": f"list_collections with offset {count} lists the rest (status keeps the "
                                    f"first {count} roots, in roots, collections and gitState alike)"}
        return cut

    others = [path for path in _lists(out) if path not in PER_ROOT]
    bare = out
    for path in others:
        bare = _with(bare, path, [])

    def noted(cut: dict) -> dict:  # room for the count each of the others is given, at its largest
        return {**cut, "truncated": {**cut["truncated"],
                                     "alsoLeftOut": {".".join(path): len(_at(out, path)) for path in others}}}

    count = largest_fitting(len(roots), lambda n: cost(noted(shaped(bare, n)) if others else shaped(bare, n))
                            <= budget)
    fitted = out if count == len(roots) else shaped(out, count)
    for path in sorted(others, key=lambda path: cost(_at(out, path)), reverse=True):
        if cost(fitted) > budget:
            fitted = _cut(fitted, path, budget)
    return fitted


# What a cut list's `truncated.next` says: a sync's warnings (one per failed file, each with its path) are
# all in list_files, each failed file with its reason; any other list's rest is not asked for again.
CUT_NEXT = "the rest is left out to fit MINIRAG_MAX_RESPONSE_TOKENS"
WARNINGS_NEXT = (f"{CUT_NEXT}; list_files lists every file that failed with its reason (state `failed`), "
                 "a page at a time")


def within_budget(payload: dict, budget: int) -> dict:
    """Any tool's result cut to `budget`: its longest list first (warnings, files, chunks), one inside
    an object too (status's `watch.lastPass.warnings`); one that cannot be cut is refused in one line
    rather than sent past the client's limit."""
    lists = sorted(_lists(payload), key=lambda path: cost(_at(payload, path)), reverse=True)
    for path in lists:
        if cost(payload) <= budget:
            break
        payload = _cut(payload, path, budget)
    if cost(payload) > budget:
        raise MiniragError(f"the result is about {cost(payload)} tokens, over MINIRAG_MAX_RESPONSE_TOKENS "
                           f"({budget}); narrow the request")
    return payload


def _lists(value: dict, path: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    """The paths of the non-empty lists in `value` and in the objects it holds (not in lists)."""
    found: list[tuple[str, ...]] = []
    for key, item in value.items():
        if isinstance(item, list) and item:
            found.append((*path, key))
        elif isinstance(item, dict) and key != "truncated":
            found += _lists(item, (*path, key))
    return found


def _at(value: dict, path: tuple[str, ...]):
    for key in path:
        value = value[key]
    return value


def _with(value: dict, path: tuple[str, ...], item) -> dict:
    """`value` with `item` at `path`, the objects on the way copied, `value` itself untouched."""
    head, *rest = path
    return {**value, head: _with(value[head], tuple(rest), item) if rest else item}


def _cut(payload: dict, path: tuple[str, ...], budget: int) -> dict:
    """`payload` with as many of the list at `path`'s first items as fit, the cut said in `truncated`:
    as its `field` (`warnings`, `watch.lastPass.warnings`) when it is the first, else under the first's
    `alsoLeftOut` (`{"roots": 877}`), where a second cut had replaced the first's `truncated` and left
    that one unsaid."""
    first, items, field = payload.get("truncated"), _at(payload, path), ".".join(path)

    def shaped(count: int) -> dict:
        if first is None:
            said = {"field": field, "leftOut": len(items) - count, "maxResponseTokens": budget,
                    "next": WARNINGS_NEXT if path[-1] == "warnings" else CUT_NEXT}
        else:
            said = {**first, "alsoLeftOut": {**first.get("alsoLeftOut", {}), field: len(items) - count}}
        return {**_with(payload, path, items[:count]), "truncated": said}

    return shaped(largest_fitting(len(items), lambda n: cost(shaped(n)) <= budget))


def _present(**fields) -> dict:
    """The fields that are not None, in the order given."""
    return {key: value for key, value in fields.items() if value is not None}


@singledispatch
def payload(value) -> dict:
    """`value` as --json prints it and the MCP tools return it."""
    raise TypeError(f"no output shape for {type(value).__name__}")


payload.register(QueryResult, query_result)  # unfitted: the faces fit it to their response budget


@payload.register
def ingest_result(value: IngestResult) -> dict:
    out = {"source": value.source, "chunkCount": value.chunk_count, "chunksEmbedded": value.chunks_embedded,
           "chunksReused": value.chunks_reused, "title": value.title or None}  # null, not "", when it has none
    if value.warnings:
        out["warnings"] = list(value.warnings)
    return out


@payload.register
def _delete(value: DeleteResult) -> dict:
    return {"source": value.source, "deletedChunks": value.deleted_chunks}


@payload.register
def _read(value: ReadResult) -> dict:
    return {"source": value.source, "sourceType": value.kind, "title": value.title, "chunkCount": value.chunk_count,
            "offset": value.offset, "totalChars": value.total_chars, "nextOffset": value.next_offset,
            "text": value.text, **_present(pages=value.pages),
            **({"sheets": [sheet_rows(rows) for rows in value.sheets]} if value.sheets else {}),
            **({"fragment": value.fragment, "fragmentOffset": value.fragment_offset} if value.fragment is not None
               else {})}


def read_page(head: ReadResult, text: str, placed: Sequence[tuple[int, int, Section]], max_chars: int | None,
              budget: int | None) -> ReadResult:
    """The page of `text` (the document, its sections `placed` as chunking.placed_sections gives them)
    from `head.offset`: at most `max_chars` characters, and the whole result within `budget` tokens
    (None: no budget); `nextOffset` is where the next page starts (None at the end). `head` holds the
    rest of the result. The pages named are those of the text returned (the whole document's range only
    when it is returned whole), so a page read by offset can be cited."""
    empty = replace(head, total_chars=len(text), next_offset=None, text="", pages=pages_in(placed, 0, len(text)),
                    sheets=())

    def page(end: int) -> ReadResult:
        return replace(empty, text=text[head.offset:end], next_offset=end if end < len(text) else None,
                       pages=pages_in(placed, head.offset, end), sheets=rows_in(placed, head.offset, end))

    if budget is None:
        return page(page_end(text, head.offset, max_chars, None))
    # Sized first without `sheets`, then with those of the page found, each pass narrower: room for the
    # whole workbook's sheets (1,500 of them) left none for text, and each page was one character.
    room = budget - cost(payload(empty)) - READ_SLACK_TOKENS
    result = page(page_end(text, head.offset, max_chars, room))
    for _ in range(_READ_FITS):
        over = cost(payload(result)) - budget
        if over <= 0 or len(result.text) <= 1:
            break
        room -= over + READ_SLACK_TOKENS
        result = page(min(page_end(text, head.offset, max_chars, room), head.offset + len(result.text) - 1))
    return result


_READ_FITS = 8  # passes that narrow a page to its sheets' room: each leaves fewer sheets, so room is found soon


def pages_in(placed: Sequence[tuple[int, int, Section]], low: int, high: int) -> str | None:
    """The pages of the sections the text from `low` to `high` holds a character of."""
    spans = [(section.page_start, section.page_end or section.page_start) for begin, stop, section in placed
             if section.page_start is not None and begin < max(high, low + 1) and stop > low]
    return page_label(min(first for first, _ in spans), max(last for _, last in spans)) if spans else None


def rows_in(placed: Sequence[tuple[int, int, Section]], low: int, high: int) -> tuple[SheetRows, ...]:
    """The sheets and rows of the sections the text from `low` to `high` holds a character of, a
    sheet's sections as one span, in the document's order."""
    spans: list[SheetRows] = []
    for begin, stop, section in placed:
        rows = section.rows
        if rows is None or not (begin < max(high, low + 1) and stop > low):
            continue
        if spans and spans[-1].sheet == rows.sheet:
            last = spans[-1]
            spans[-1] = SheetRows(last.sheet, min(last.first, rows.first), max(last.last, rows.last))
        else:
            spans.append(rows)
    return tuple(spans)


def chunk_row(row: ChunkRow) -> dict:
    return {"source": row.source, "chunkIndex": row.chunk_index, "text": row.text, "parentId": str(row.parent_id),
            **_present(pages=page_label(row.page_start, row.page_end)),
            **(sheet_rows(row.rows) if row.rows is not None else {}), "isTarget": row.is_target}


@payload.register
def _window(value: ChunkWindow) -> dict:
    return _window_payload(value.chunks, value.parents, _sections_of(value.chunks, value.parents))


def _sections_of(chunks: Sequence[ChunkRow], parents: Mapping[int, str]) -> list[int]:
    """The parent ids `chunks` point to that `parents` holds: the target's first, then in chunk order."""
    ordered = sorted(chunks, key=lambda row: not row.is_target)
    return [pid for pid in dict.fromkeys(row.parent_id for row in ordered) if pid in parents]


def _window_payload(chunks: Sequence[ChunkRow], parents: Mapping[int, str], sent: Sequence[int]) -> dict:
    return {"chunks": [chunk_row(row) for row in chunks], "parents": {str(pid): parents[pid] for pid in sent}}


NEIGHBORS_NEXT = ("ask for fewer chunks (before, after); a left-out parent is the section around its chunks: "
                  "read_file (source) gives the whole document, a page at a time")


def neighbors_result(value: ChunkWindow, budget: int) -> dict:
    """The chunks in order, then the sections they point to, each once (the target's first). Over
    `budget` tokens: as many chunks as fit from the first, then the sections of those while they fit,
    and `truncated` says what was left out and how to get it."""
    full = payload(value)
    if cost(full) <= budget:
        return full
    chunks, parents = list(value.chunks), value.parents

    def shaped(kept: list[ChunkRow], sent: list[int]) -> dict:
        out = _window_payload(kept, parents, sent)
        out["truncated"] = {"field": "chunks", "leftOut": len(chunks) - len(kept),
                            "parentsLeftOut": [str(pid) for pid in _sections_of(kept, parents) if pid not in sent],
                            "maxResponseTokens": budget, "next": NEIGHBORS_NEXT}
        return out

    kept = chunks[:largest_fitting(len(chunks), lambda n: cost(shaped(chunks[:n], [])) <= budget)]
    sent: list[int] = []
    for pid in _sections_of(kept, parents):
        if cost(shaped(kept, [*sent, pid])) <= budget:
            sent.append(pid)
    return shaped(kept, sent)


def list_entry(entry: ListEntry) -> dict:
    return {"source": entry.source, "sourceType": entry.kind, "title": entry.title, "state": entry.state,
            "size": entry.size, "chunkCount": entry.chunk_count,
            **_present(reason=entry.reason, lifecycle=entry.lifecycle, note=entry.note)}


# The most suffixes `otherTypes` names, most common first; `otherTypesMore` counts the rest. In a folder
# of files each with a suffix of its own (a Maildir's `...host,S=1234:2,S`, numbered rotations) every
# suffix was named, in each sync_status poll too: 200,000 such files made each answer 2.1 MB.
MAX_OTHER_TYPES = 100


def other_types(counts: Iterable[tuple[str, int]]) -> dict:
    """`otherTypes` (suffix: files, most first, equal counts by suffix) and, past MAX_OTHER_TYPES of
    them, `otherTypesMore` ({types, files} of the rest). O(n): polled while a walk counts."""
    pairs = list(counts)  # (a walk in another thread may add to a Counter given as its items)
    named = heapq.nsmallest(MAX_OTHER_TYPES, pairs, key=lambda item: (-item[1], item[0]))
    out: dict[str, object] = {"otherTypes": dict(named)}
    if len(pairs) > len(named):
        out["otherTypesMore"] = {"types": len(pairs) - len(named),
                                 "files": sum(n for _, n in pairs) - sum(n for _, n in named)}
    return out


@payload.register
def _listing(value: FileListing) -> dict:
    return {"files": [list_entry(entry) for entry in value.files], **other_types(value.other_types)}


def collection(info: CollectionInfo) -> dict:
    return {"name": info.name, "description": info.description, "path": info.path, "fileCount": info.file_count,
            "chunkCount": info.chunk_count, "lastSync": info.last_sync}


@payload.register
def _collections(value: Collections) -> dict:
    return {"collections": [collection(info) for info in value.collections]}


def progress_fields(progress: Progress, *, current: bool = True) -> dict:
    """A run's live counts; `current` False leaves out the file in progress and the time so far
    (a finished run's summary)."""
    out: dict[str, object] = {
        "seen": progress.seen,
        "total": progress.total,
        "ingested": progress.done,
        "skipped": progress.skipped,
        "excluded": progress.excluded,
        "failed": progress.failed,
        "stillFailing": progress.still_failing,
        "unread": progress.unread,
        "vanished": progress.vanished,
        "deleted": progress.deleted,
        "deletedOutsideRoots": progress.outside_roots,
        **other_types(progress.other_types.items()),
        "chunksWritten": progress.chunks_written,
        "chunksEmbedded": progress.chunks_embedded,
        "chunksToEmbed": progress.chunks_to_embed,  # found so far, those embedded included (grows as files convert)
        "chunksReused": progress.chunks_reused,
        "chunksPerSecond": progress.rate(),
        "etaSeconds": progress.eta_seconds(),
    }
    if current:
        out["currentFile"] = progress.current
        out["elapsedSeconds"] = progress.elapsed_seconds()
    out["warnings"] = list(progress.warnings)
    if progress.git_state:
        out["gitState"] = [git_state(state) for state in progress.git_state]
    return out


def run_summary(progress: Progress) -> dict:
    """What `ingest` and `sync` print with --json once the run has ended."""
    out = progress_fields(progress)
    del out["currentFile"]
    return out


@payload.register
def _progress(value: Progress) -> dict:
    return progress_fields(value)


def failure(message: str) -> dict:
    """What a --json command prints when it ends without its result (an error, Ctrl-C): the one line
    it says on stderr, under the key a failed sync job's JSON holds its error under."""
    return {"error": message}


def job_started(job: SyncJob) -> dict:
    """sync_start's answer when it does not wait."""
    return {"jobId": job.job_id}


@payload.register
def sync_job(job: SyncJob) -> dict:
    return {"jobId": job.job_id, "state": job.state, **progress_fields(job.progress),
            **({"error": job.error} if job.error else {}),
            **({"reason": job.cancel_reason} if job.state == "cancelled" else {}),
            **({"note": nothing_found(job.looked_in)}
               if job.state == "succeeded" and job.looked_in and job.progress.found_nothing else {}),
            **({"cancelling": True} if job.state == "running" and job.cancel_reason else {})}


@payload.register
def pass_report(report: PassReport) -> dict:
    return {"kind": report.kind, "paths": report.paths, **progress_fields(report.progress, current=False),
            "seconds": round(report.seconds, 2),
            "finishedAt": datetime.fromtimestamp(report.finished_at, UTC).isoformat(timespec="seconds")}


@payload.register
def watch_state(state: WatchState) -> dict:
    return {
        "watching": state.watching,
        "mode": state.mode,
        "roots": list(state.roots),
        "debounceSeconds": state.debounce_seconds,
        "reconcileEverySeconds": state.reconcile_every_seconds,
        "nextReconcileInSeconds": state.next_reconcile_in_seconds,
        "passes": state.passes,
        "running": state.running,
        "queued": state.queued,
        "queuedPaths": list(state.queued_paths),
        "lastPass": pass_report(state.last_pass) if state.last_pass is not None else None,
        **_present(pollIntervalSeconds=state.poll_interval_seconds, waitingForLock=state.waiting_for_lock,
                   lastError=state.last_error, notificationError=state.notification_error, warning=state.warning),
    }


@payload.register
def _sync_status(value: SyncStatus) -> dict:
    out = sync_job(value.job) if value.job is not None else {}
    if value.watch is not None:
        out["watch"] = watch_state(value.watch)
    return out


def git_state(state: GitState) -> dict:
    return {"root": state.root, "commit": state.commit, "dirty": state.dirty, "syncedAt": state.synced_at}


def index_stats(stats: IndexStats) -> dict:
    return {
        "sourceCount": stats.source_count,
        "chunkCount": stats.chunk_count,
        "sectionCount": stats.section_count,
        "staleChunkCount": stats.stale_chunk_count,
        "chunkScheme": stats.chunk_scheme,
        "indexModel": stats.index_model,
        "dimension": stats.dimension,
        "schemaVersion": stats.schema_version,
        "sqliteVersion": stats.sqlite_version,
    }


@payload.register
def _status(value: Status) -> dict:
    out = {
        "version": value.version,
        "roots": list(value.roots),
        "dbPath": value.db_path,
        "model": value.model,
        "hybridWeight": value.hybrid_weight,
        **_present(hybridWeightForQuestions=value.hybrid_weight_for_questions,
                   hybridWeightForSentences=value.hybrid_weight_for_sentences,
                   hybridWeightForNames=value.hybrid_weight_for_names),
        **_present(grouping=value.grouping, maxDistance=value.max_distance, maxFiles=value.max_files),
        "chunkTokenBudget": value.chunk_token_budget,
        "chunkScheme": value.chunk_scheme,
        "readOnly": value.read_only,
    }
    if value.watch is not None:
        out["watch"] = watch_state(value.watch)
    if value.sync_running is not None:
        out["syncRunning"] = value.sync_running
    if value.index_error is not None:
        out["indexError"] = value.index_error
    if value.stats is not None:
        out.update(index_stats(value.stats))  # chunkScheme, already there, keeps its place
    if value.collections is not None:
        out["collections"] = [collection(info) for info in value.collections]
    if value.git_state is not None:
        out["gitState"] = [git_state(state) for state in value.git_state]
    return out | _present(schemeWarning=value.scheme_warning,
                          filesElsewhere=None if value.files_elsewhere is None
                          else files_elsewhere(value.files_elsewhere, [Path(root) for root in value.roots]))


def files_elsewhere(value: FilesElsewhere, roots: Sequence[Path]) -> str:
    """Why an index whose files all lie outside the roots finds nothing, in one line."""
    from minirag.security import roots_named

    files, lie = (f"{value.count} files", "they lie") if value.count != 1 else ("1 file", "it lies")
    return (f"the index holds {files}, none in the document roots ({roots_named(roots)}): {lie} under "
            f"{value.folder} (where the index was made, if it was copied or moved, or a root since dropped from "
            "the configuration); set BASE_DIR to that folder to serve them, or sync to index these roots anew "
            "(a sync drops files outside them)")


@payload.register
def _config_failure(value: ConfigFailure) -> dict:
    return {"version": value.version, "configError": value.error}


def check(value: Check) -> dict:
    return {"name": value.name, "ok": value.ok, "detail": value.detail, **({} if value.ok else {"fix": value.fix})}


@payload.register
def _doctor(value: DoctorReport) -> dict:
    return {"ok": value.ok, "version": value.version, "python": value.python,
            "checks": [check(c) for c in value.checks]}


@payload.register
def _backup(value: BackupResult) -> dict:
    return {"source": value.source, "backup": value.backup, "bytes": value.bytes, "integrity": value.integrity,
            "takenAt": value.moment.taken_at, "generation": value.moment.generation,
            "sourceCount": value.moment.sources, "chunkCount": value.moment.chunks, "replaced": value.replaced}
