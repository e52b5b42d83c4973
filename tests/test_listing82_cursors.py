"""listing82: a listing's pages are the client's own, and a cursor that names nothing kept says to start over.

Over streamable HTTP several clients share one server. The listings kept for list_files' pages were shared
by what they listed: a client listing anything evicted another's, whose next page was then silently cut
from a new walk (a file made meanwhile moved an entry across pages, with no `indexChanged`), and a page was
reached by any client that guessed the offset."""

from __future__ import annotations

import re
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from mcp import Client
from test_server import make_state, ok, refused  # noqa: F401 (make_state: a fixture)

from minirag.errors import ListingGone
from minirag.ingest.listing import KEPT_LISTINGS, KEPT_TOTAL, ListingPages
from minirag.server import ServerState, build_server

BUDGET = "1000"  # the smallest: some eight files a page


@pytest.fixture
def docs(tmp_path) -> Path:
    root = tmp_path / "docs"
    (root / "sub").mkdir(parents=True)
    for n in range(40):
        (root / f"note-{n:05}.md").write_text(f"# Note {n}\n\nA short note.\n")
    (root / "sub" / "inner.md").write_text("# Inner\n\nA note in a folder.\n")
    return root


@pytest.fixture
def budgeted_state(make_state):  # noqa: F811 (the fixture imported above)
    """A server (re)started on the same index, whose pages hold some eight files."""
    return lambda: make_state(env={"MINIRAG_MAX_RESPONSE_TOKENS": BUDGET})


@asynccontextmanager
async def connected(state: ServerState):
    """A client that keeps a connection, as one over stdio or a streamable HTTP session does (the
    initialize handshake): a stateless protocol version's requests come each on a connection of its own."""
    async with Client(build_server(state), mode="legacy") as client:
        yield client


async def _rest(client, cursor: str) -> list[str]:
    seen = []
    while cursor is not None:
        page = await ok(client, "list_files", cursor=cursor)
        assert "indexChanged" not in page
        seen += [entry["source"] for entry in page["files"]]
        cursor = page.get("nextCursor")
    return seen


@pytest.mark.anyio
async def test_listing82_a_client_listing_many_evicts_none_of_another_clients_listings(budgeted_state, docs):
    state = budgeted_state()
    async with connected(state) as agent, connected(state) as other:
        await ok(agent, "sync_start", wait=True)
        first = await ok(agent, "list_files")
        for n in range(3 * KEPT_LISTINGS):  # another client's listings, of the same files and of others
            await ok(other, "list_files")
            await ok(other, "list_files", scope=str(docs / f"note-{n:05}.md"))
        (docs / "a-first.md").write_text("# First\n\nMade between two pages.\n")  # sorts first: shifts all
        seen = [entry["source"] for entry in first["files"]] + await _rest(agent, first["nextCursor"])
    assert seen == [*(str(docs / f"note-{n:05}.md") for n in range(40)), str(docs / "sub" / "inner.md")]


@pytest.mark.anyio
async def test_listing82_another_clients_cursor_lists_nothing_and_cannot_be_told_from_a_gone_one(budgeted_state):
    state = budgeted_state()
    async with connected(state) as agent, connected(state) as other:
        await ok(agent, "sync_start", wait=True)
        cursors = [(await ok(agent, "list_files"))["nextCursor"] for _ in range(KEPT_LISTINGS)]
        stolen = await refused(other, "list_files", cursor=cursors[-1])
        forged = await refused(agent, "list_files", cursor="0." + cursors[-1].rpartition(".")[2])
    assert "no longer kept" in stolen and "without a cursor" in stolen and "note-" not in stolen
    assert stolen == forged  # naming another's listing says no more than naming none
    names = {cursor.rpartition(".")[0] for cursor in cursors}
    assert len(names) == KEPT_LISTINGS
    assert all(re.fullmatch(r"[A-Za-z0-9_-]{22,}", name) for name in names)  # 128 random bits: no counter


@pytest.mark.anyio
async def test_listing82_a_cursor_past_its_clients_kept_listings_or_a_restart_says_to_start_over(budgeted_state):
    state = budgeted_state()
    async with connected(state) as agent:
        await ok(agent, "sync_start", wait=True)
        oldest = (await ok(agent, "list_files"))["nextCursor"]
        kept = (await ok(agent, "list_files"))["nextCursor"]
        for _ in range(KEPT_LISTINGS - 1):
            await ok(agent, "list_files", scope="notes")  # none: a page with no cursor, still kept
        evicted = await refused(agent, "list_files", cursor=oldest)
        assert await _rest(agent, kept)  # the newest it kept still pages
    async with connected(budgeted_state()) as agent:
        restarted = await refused(agent, "list_files", cursor=kept)
        malformed = await refused(agent, "list_files", cursor="40")
        both = await refused(agent, "list_files", cursor=kept, offset=8)
    for said in (evicted, restarted):
        assert said.startswith("list_files: ") and "no longer kept" in said and "without a cursor" in said, said
        assert "\n" not in said
    assert "is not one list_files gave" in malformed and "no longer kept" not in malformed
    assert "not both" in both


@pytest.mark.anyio
async def test_listing82_a_cursor_with_other_arguments_than_its_listing_is_refused(budgeted_state, docs):
    state = budgeted_state()
    async with connected(state) as agent:
        await ok(agent, "sync_start", wait=True)
        cursor = (await ok(agent, "list_files"))["nextCursor"]
        said = await refused(agent, "list_files", cursor=cursor, scope=str(docs / "sub"))
        same = await ok(agent, "list_files", cursor=cursor, ignored=False)
    assert "another scope" in said
    assert same["files"]


@pytest.mark.slow
@pytest.mark.anyio
async def test_listing82_over_streamable_http_each_session_keeps_its_own_listings(tmp_path, model_path, docs):
    """The listings are kept by connection: over HTTP a session's connection outlives its requests (a
    stateless-version client's requests share one store)."""
    import os

    import httpx2
    from mcp.client.streamable_http import streamable_http_client
    from test_http_token import start, stop
    from test_server_stdio import CONFIG_VARS, TIMEOUT_S

    env = {k: v for k, v in os.environ.items() if k not in CONFIG_VARS | {"MINIRAG_HTTP_TOKEN"}}
    env |= {"MODEL_PATH": model_path, "BASE_DIR": str(docs), "DB_PATH": str(tmp_path / "index.db"),
            "MINIRAG_MAX_RESPONSE_TOKENS": BUDGET}
    proc, port = start(env)
    url = f"http://127.0.0.1:{port}/mcp"
    try:
        async with (httpx2.AsyncClient(timeout=TIMEOUT_S) as one, httpx2.AsyncClient(timeout=TIMEOUT_S) as two,
                    httpx2.AsyncClient(timeout=TIMEOUT_S) as three,
                    Client(streamable_http_client(url, http_client=one), mode="legacy") as agent,
                    Client(streamable_http_client(url, http_client=two), mode="legacy") as other,
                    Client(streamable_http_client(url, http_client=three)) as stateless):
            await ok(agent, "sync_start", wait=True)
            first = await ok(agent, "list_files")
            for n in range(2 * KEPT_LISTINGS):
                await ok(other, "list_files", scope=str(docs / f"note-{n:05}.md"))
            stolen = await refused(other, "list_files", cursor=first["nextCursor"])
            rest = await _rest(agent, first["nextCursor"])
            modern = await ok(stateless, "list_files")
            modern_rest = await _rest(stateless, modern["nextCursor"])
    finally:
        stderr = stop(proc)
    assert "no longer kept" in stolen, stderr
    assert len(first["files"]) + len(rest) == 41 == len(modern["files"]) + len(modern_rest)


class _Client:
    """A client as ListingPages holds it: an object that lives as long as its connection."""


def test_listing82_clients_opening_many_connections_keep_a_bounded_store_and_starve_no_other():
    """Each connection keeps its KEPT_LISTINGS: an HTTP client opening many sessions (the SDK allows 10,000)
    kept listings of a whole corpus without bound."""
    pages: ListingPages[list[str]] = ListingPages()
    victim = _Client()
    kept, _ = pages.start(victim, "key", 1, lambda: ["a.md"])
    attackers = [_Client() for _ in range(KEPT_TOTAL // 2)]  # twice KEPT_TOTAL listings in all
    names = [(client, pages.start(client, "key", 1, lambda: ["a.md"])[0])
             for client in attackers for _ in range(KEPT_LISTINGS)]
    resumed = 0
    for client, name in names:
        try:
            pages.resume(client, name, 1, lambda key: ["a.md"])
            resumed += 1
        except ListingGone:
            pass
    assert len(pages) <= KEPT_TOTAL and resumed < KEPT_TOTAL
    assert pages.resume(victim, kept, 1, lambda key: ["a.md"])[1] == ["a.md"]  # the client keeping fewest
    del attackers, names, client
    assert len(pages) == 1  # a client's listings go with its connection
