"""agent81: paging through list_files costs about the files listed, and its pages join.

Each page of list_files walked the whole corpus again (every file stat'ed, its state judged), shaped
every entry and measured the rest of the listing several times, to cut one page: paging through n files
cost about n x n/page. The pages after the first are now cut from the first page's listing while the
index has not changed; where it has, the page says so (`indexChanged`)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from test_server import connected, ok

from minirag import budget, results
from minirag.app import App
from minirag.config import load_config
from minirag.ingest import listing
from minirag.server import ServerState

BUDGET = "1000"  # the smallest: some eight files a page


@pytest.fixture
def make_state(tmp_path, model_path, encoder):
    states = []

    def make(root: Path) -> ServerState:
        config = load_config(env={"MINIRAG_MAX_RESPONSE_TOKENS": BUDGET}, base_dirs=[str(root)],
                             db_path=str(tmp_path / f"index-{len(states)}.db"), model_path=model_path)
        states.append(ServerState.from_config(config, App(config, encoder=encoder)))
        return states[-1]

    yield make
    for state in states:
        state.close()


def _notes(root: Path, count: int) -> None:
    for n in range(count):
        (root / f"note-{n:05}.md").write_text(f"# Note {n}\n\nA short note.\n")


async def _pages(client, *, between=None) -> tuple[list[str], list[dict]]:
    """Every page of list_files from the start, following nextCursor; `between(n)` runs after page n."""
    seen, pages, more = [], [], {}
    while more is not None:
        page = await ok(client, "list_files", **more)
        seen += [entry["source"] for entry in page["files"]]
        pages.append(page)
        if between is not None:
            await between(len(pages))
        more = {"cursor": page["nextCursor"]} if "nextCursor" in page else None
    return seen, pages


def _counting(monkeypatch) -> Counter:
    """The work a listing does, counted where it is done: files walked, entries shaped, characters
    measured against the budget."""
    work: Counter = Counter()
    walk, shape, serialized = listing.walk_roots, results.list_entry, budget.serialized

    def walked(*args, **kwargs):
        for found in walk(*args, **kwargs):
            work["walked"] += 1
            yield found

    def shaped(entry):
        work["shaped"] += 1
        return shape(entry)

    def measured(value) -> str:
        text = serialized(value)
        work["measured"] += len(text)
        return text

    monkeypatch.setattr(listing, "walk_roots", walked)
    monkeypatch.setattr(results, "list_entry", shaped)
    monkeypatch.setattr(budget, "serialized", measured)
    return work


@pytest.mark.anyio
async def test_paging_through_a_listing_costs_about_its_files_not_files_times_pages(make_state, tmp_path,
                                                                                     monkeypatch):
    work = {}
    for count in (100, 800):
        root = tmp_path / f"docs-{count}"
        root.mkdir()
        state = make_state(root)
        async with connected(state) as client:
            await ok(client, "sync_start", wait=True)  # an index, empty: the files come after
            _notes(root, count)
            counted = _counting(monkeypatch)
            seen, pages = await _pages(client)
            monkeypatch.undo()
        assert seen == [str(root / f"note-{n:05}.md") for n in range(count)]
        assert len(pages) > count / 20
        work[count] = counted
    for kind in ("walked", "shaped", "measured"):
        # 8x the files may cost about 8x (each page measured a few times over); a walk per page was ~64x.
        assert work[800][kind] < 12 * work[100][kind], (kind, work)


@pytest.mark.anyio
async def test_a_file_made_between_pages_moves_no_file_across_them(make_state, tmp_path):
    """A new file sorting first pushed every entry one place on: the last file of a page came again as
    the first of the next."""
    root = tmp_path / "docs"
    root.mkdir()
    _notes(root, 40)
    state = make_state(root)

    async def add_a_file(page: int) -> None:
        if page == 1:
            (root / "a-first.md").write_text("# First\n\nMade between two pages.\n")

    async with connected(state) as client:
        await ok(client, "sync_start", wait=True)
        seen, pages = await _pages(client, between=add_a_file)
        again = await ok(client, "list_files")
    assert seen == [str(root / f"note-{n:05}.md") for n in range(40)] and len(pages) > 2
    assert not any("indexChanged" in page for page in pages)
    assert again["files"][0]["source"] == str(root / "a-first.md")  # a first page walks again


@pytest.mark.anyio
async def test_a_page_after_the_index_changed_says_so(make_state, tmp_path):
    root = tmp_path / "docs"
    root.mkdir()
    _notes(root, 40)
    state = make_state(root)

    async def ingest(page: int) -> None:
        if page == 1:
            await ok(state_client, "ingest_data", data="A note held by the agent.", source="agent-note")

    async with connected(state) as client:
        state_client = client
        await ok(client, "sync_start", wait=True)
        seen, pages = await _pages(client, between=ingest)
    assert "indexChanged" not in pages[0]
    assert "the index changed" in pages[1]["indexChanged"] and "without a cursor" in pages[1]["indexChanged"]
    assert not any("indexChanged" in page for page in pages[2:])
    assert "agent-note" in seen  # the rest is from the new listing, which holds it


@pytest.mark.anyio
async def test_a_sync_that_only_recorded_failures_between_pages_is_a_change_too(make_state, tmp_path):
    """A failure recorded moves no write generation (nothing searchable changed): pages cut from the
    listing kept went on calling a file that had failed since `not_indexed`."""
    root = tmp_path / "docs"
    root.mkdir()
    _notes(root, 40)
    state = make_state(root)

    async def sync(page: int) -> None:
        if page == 1:
            (root / "zz-broken.pdf").write_bytes(b"%PDF-1.4 not a PDF at all")
            await ok(state_client, "sync_start", wait=True)

    async with connected(state) as client:
        state_client = client
        await ok(client, "sync_start", wait=True)
        _seen, pages = await _pages(client, between=sync)
    assert "indexChanged" in pages[1]
    last = pages[-1]["files"][-1]
    assert last["source"] == str(root / "zz-broken.pdf") and last["state"] == "failed", last
