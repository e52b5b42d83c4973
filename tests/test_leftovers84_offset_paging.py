"""Leftovers 84: a client paging list_files by the nextOffset each page gives (passed back as offset, as
list_collections pages) walked the roots again for every page: n files cost about n x n/page. A page
past the first is now cut from that client's own latest listing of the same arguments while the index
is unchanged, as a cursor's page is; a listing from offset 0 walks again."""

from __future__ import annotations

import pytest
from test_agent81_listing import _counting, _notes, make_state  # noqa: F401 - make_state: a fixture
from test_server import connected, ok


async def _offset_pages(client) -> list[str]:
    seen, more = [], {}
    while more is not None:
        page = await ok(client, "list_files", **more)
        seen += [entry["source"] for entry in page["files"]]
        more = {"offset": page["nextOffset"]} if page.get("nextOffset") is not None else None
    return seen


@pytest.mark.anyio
async def test_leftovers84_paging_by_next_offset_costs_about_the_files_not_files_times_pages(
        make_state, tmp_path, monkeypatch):  # noqa: F811 - the imported fixture
    walked = {}
    for count in (100, 800):
        root = tmp_path / f"docs-{count}"
        root.mkdir()
        state = make_state(root)
        async with connected(state) as client:
            await ok(client, "sync_start", wait=True)
            _notes(root, count)
            counted = _counting(monkeypatch)
            seen = await _offset_pages(client)
            monkeypatch.undo()
        assert seen == [str(root / f"note-{n:05}.md") for n in range(count)]
        walked[count] = counted["walked"]
    assert walked[800] < 12 * walked[100], walked  # a walk per page was ~64x


@pytest.mark.anyio
async def test_leftovers84_a_listing_from_offset_zero_walks_again_and_sees_a_new_file(
        make_state, tmp_path):  # noqa: F811 - the imported fixture
    root = tmp_path / "docs"
    root.mkdir()
    state = make_state(root)
    async with connected(state) as client:
        await ok(client, "sync_start", wait=True)
        _notes(root, 30)
        first = await ok(client, "list_files")
        assert first.get("nextOffset") is not None
        (root / "aaa-new.md").write_text("# New\n\nA new note.\n")
        again = await ok(client, "list_files")
        assert again["files"][0]["source"] == str(root / "aaa-new.md")
