"""Answers an agent can take: every tool result within MINIRAG_MAX_RESPONSE_TOKENS, paged
reads that give back the exact text, and no advertised capability the server does not
serve. Through the SDK's own client, on the largest real fixtures."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from mcp import Client

from minirag import cli
from minirag.app import App
from minirag.budget import cost, estimate_tokens, page_end
from minirag.chunking import placed_sections
from minirag.chunking.model import Section
from minirag.config import DEFAULT_MAX_RESPONSE_TOKENS, load_config
from minirag.results import payload, read_page
from minirag.server import ServerState, build_server
from minirag.values import ReadResult

FIXTURES = Path(__file__).parent / "fixtures" / "docs"
EPUB = "epub_ubuntu_packaging_guide_ru.epub"
LOG = "txt_cpython_regrtest_log.txt"
pytestmark = pytest.mark.anyio


@pytest.fixture(scope="module")
def largest(tmp_path_factory, tiny_model_dir, tiny_encoder):
    """The two largest fixtures, synced once into an index the module's tests share (read only)."""
    root = tmp_path_factory.mktemp("largest")
    docs = root / "docs"
    docs.mkdir()
    for name in (EPUB, LOG):
        shutil.copy(FIXTURES / name, docs / name)
    config = load_config(env={}, base_dirs=[str(docs)], db_path=str(root / "index.db"),
                         model_path=str(tiny_model_dir))
    app = App(config, encoder=tiny_encoder)
    assert app.sync().failed == 0
    app.close()
    return docs, root / "index.db"


def _state(largest, tiny_model_dir, tiny_encoder, budget: int | None = None, **flags) -> ServerState:
    docs, db = largest
    env = {} if budget is None else {"MINIRAG_MAX_RESPONSE_TOKENS": str(budget)}
    config = load_config(env=env, base_dirs=[str(docs)], db_path=str(db), model_path=str(tiny_model_dir), **flags)
    return ServerState.from_config(config, App(config, encoder=tiny_encoder))


async def _call(client: Client, tool: str, **arguments):
    result = await client.call_tool(tool, arguments)
    return result, result.content[0].text


@pytest.mark.slow
async def test_every_tool_result_fits_the_budget_on_the_largest_fixtures(largest, tiny_model_dir, tiny_encoder):
    docs, _db = largest
    epub, log = str(docs / EPUB), str(docs / LOG)
    for budget in (DEFAULT_MAX_RESPONSE_TOKENS, 2000):
        state = _state(largest, tiny_model_dir, tiny_encoder, budget)
        calls = [
            ("status", {}), ("list_files", {}), ("list_collections", {}), ("sync_status", {"jobId": "nope"}),
            ("sync_cancel", {"jobId": "nope"}),
            ("query_documents", {"query": "пакет debian сборка", "topK": 100}),
            ("query_documents", {"query": "test failed traceback", "topK": 100}),
            ("read_file", {"filePath": epub}), ("read_file", {"filePath": log, "offset": 100}),
            ("read_chunk_neighbors", {"filePath": epub, "chunkIndex": 30, "before": 20, "after": 20}),
            ("ingest_data", {"data": "# Note\n\n" + "Один абзац текста. " * 2000, "source": "notes/long"}),
            ("delete_file", {"source": "notes/long"}),
            ("ingest_url", {"url": "file:///etc/passwd"}),
            ("ingest_file", {"filePath": log}),
            ("sync_start", {"wait": True}),
        ]
        async with Client(build_server(state)) as client:
            listed = {tool.name for tool in (await client.list_tools()).tools}
            assert listed == {name for name, _ in calls}, "a tool this test does not call"
            for name, arguments in calls:
                _result, text = await _call(client, name, **arguments)
                assert estimate_tokens(text) <= budget, (name, budget, estimate_tokens(text))
        state.close()


@pytest.mark.slow
async def test_a_query_fills_the_budget_in_rank_order_and_sends_each_parent_once(largest, tiny_model_dir,
                                                                                  tiny_encoder):
    whole = _state(largest, tiny_model_dir, tiny_encoder, 1_000_000)
    tight = _state(largest, tiny_model_dir, tiny_encoder, 3000)
    arguments = {"query": "пакет debian сборка", "topK": 100}
    async with Client(build_server(whole)) as client:
        full = (await client.call_tool("query_documents", arguments)).structured_content
    async with Client(build_server(tight)) as client:
        cut = (await client.call_tool("query_documents", arguments)).structured_content
    whole.close()
    tight.close()
    assert "truncated" not in full and len(full["results"]) == 100
    left = cut["truncated"]
    kept = cut["results"]
    assert kept == full["results"][:len(kept)] and left["hitsLeftOut"] == 100 - len(kept) > 0
    wanted = list(dict.fromkeys(hit["parentId"] for hit in kept))
    assert set(cut["parents"]) | set(left["parentsLeftOut"]) == set(wanted)
    assert not set(cut["parents"]) & set(left["parentsLeftOut"])
    assert all(cut["parents"][pid] == full["parents"][pid] for pid in cut["parents"])
    assert left["maxResponseTokens"] == 3000 and "read_chunk_neighbors" in left["next"]
    # Several hits share a section: the section is sent once, not once a hit.
    assert len(full["parents"]) < len(full["results"])


@pytest.mark.slow
async def test_reading_a_file_page_by_page_gives_back_exactly_its_text(largest, tiny_model_dir, tiny_encoder):
    docs, _db = largest
    state = _state(largest, tiny_model_dir, tiny_encoder)
    whole = state.app.read(str(docs / EPUB), budgeted=False).text
    assert estimate_tokens(whole) > 3 * DEFAULT_MAX_RESPONSE_TOKENS  # the book does not fit one result
    pages, offset = [], 0
    async with Client(build_server(state)) as client:
        while offset is not None:
            page = (await client.call_tool("read_file", {"filePath": str(docs / EPUB), "offset": offset})
                    ).structured_content
            assert page["offset"] == offset and page["totalChars"] == len(whole)
            pages.append(page["text"])
            offset = page["nextOffset"]
    state.close()
    assert "".join(pages) == whole and len(pages) > 3
    assert all(p.endswith("\n") for p in pages[:-1]), "pages end at a line break when one is near"


@settings(max_examples=200, deadline=None)
@given(text=st.text(alphabet=st.sampled_from("ab \n\nя\"\\\t字"), max_size=400),
       max_chars=st.integers(1, 60), tokens=st.one_of(st.none(), st.integers(1, 40)))
@pytest.mark.slow
def test_pages_of_any_text_join_back_to_it_and_always_move_on(text, max_chars, tokens):
    pages, offset = [], 0
    while offset < len(text):
        end = page_end(text, offset, max_chars, tokens)
        assert offset < end <= min(len(text), offset + max_chars)
        pages.append(text[offset:end])
        offset = end
    assert "".join(pages) == text


def test_a_page_ends_at_a_paragraph_break_when_one_is_near():
    text = "first paragraph line\n\nsecond one\nand its line\n\nthird"
    end = page_end(text, 0, 40, None)
    assert text[:end] == "first paragraph line\n\nsecond one\n"
    assert page_end("x" * 100, 0, 30, None) == 30  # no break near: cut where the budget ends


def test_a_page_stays_within_its_token_room_in_any_script():
    text = "字" * 500
    end = page_end(text, 0, None, 100)
    assert estimate_tokens(json.dumps(text[:end], ensure_ascii=False)) <= 100 and end >= 90


def _paged(sections: list[Section], *, offset: int = 0, max_chars: int | None = None,
           budget: int | None = None) -> tuple[str, ReadResult]:
    text, placed = placed_sections(sections)
    head = ReadResult("/docs/a.pdf", "pdf", "A", 1, offset, len(text), None, "")
    return text, read_page(head, text, placed, max_chars, budget)


def test_an_empty_document_is_one_empty_last_page():
    text, page = _paged([], budget=100)
    assert (text, page.text, page.next_offset, page.total_chars, page.pages) == ("", "", None, 0, None)


def test_a_document_within_the_budget_is_one_page_naming_all_its_pages():
    sections = [Section("First part.", page_start=2), Section("Second part.", page_start=3, page_end=4)]
    text, page = _paged(sections, budget=DEFAULT_MAX_RESPONSE_TOKENS)
    assert (page.text, page.next_offset, page.pages) == (text, None, "2-4")
    assert text == "First part.\n\nSecond part."


def test_a_page_at_the_exact_budget_boundary_is_whole_and_one_token_less_is_not():
    text, _ = _paged([Section("word " * 60)])
    whole = next(budget for budget in range(1, 2_000) if _paged([Section("word " * 60)], budget=budget)[1].text == text)
    at, below = _paged([Section("word " * 60)], budget=whole)[1], _paged([Section("word " * 60)], budget=whole - 1)[1]
    assert at.next_offset is None and cost(payload(at)) <= whole
    assert below.text == text[:below.next_offset] and 0 < len(below.text) < len(text)
    assert cost(payload(below)) <= whole - 1  # its nextOffset included


def test_a_section_longer_than_the_budget_is_paged_across_and_each_page_names_its_pages():
    sections = [Section("Opening line.", page_start=1), Section("\n".join(f"line {n} of the long part" for n in range(400)),
                                                              page_start=2, page_end=5)]
    text, first = _paged(sections, budget=200)
    pages, offset = [], 0
    while offset is not None:
        _, page = _paged(sections, offset=offset, budget=200)
        assert cost(payload(page)) <= 200 and page.text
        pages.append(page)
        offset = page.next_offset
    assert "".join(page.text for page in pages) == text and len(pages) > 5
    assert first.pages == "1-5" and all(page.pages == "2-5" for page in pages[1:])
    _, short = _paged(sections, max_chars=5)
    assert (short.text, short.next_offset, short.pages) == ("Openi", 5, "1")


@pytest.mark.slow
async def test_bad_offsets_are_one_line_tool_errors(largest, tiny_model_dir, tiny_encoder):
    docs, _db = largest
    state = _state(largest, tiny_model_dir, tiny_encoder)
    async with Client(build_server(state)) as client:
        for arguments, expected in (({"offset": -1}, "offset must be 0 or more"),
                                    ({"offset": 10**9}, "past the end"),
                                    ({"maxChars": 0}, "maxChars must be 1 or more")):
            result = await client.call_tool("read_file", {"filePath": str(docs / LOG), **arguments})
            assert result.is_error and expected in result.content[0].text
            assert "\n" not in result.content[0].text
    state.close()


@pytest.mark.slow
def test_the_cli_reads_a_page_with_offset_and_max_chars(largest, tiny_model_dir, capsys):
    docs, db = largest
    flags = ["--base-dir", str(docs), "--db-path", str(db), "--model-path", str(tiny_model_dir)]
    assert cli.main(["read", str(docs / LOG), "--offset", "50", "--max-chars", "300", "--json", *flags]) == 0
    page = json.loads(capsys.readouterr().out)
    whole = (docs / LOG).read_text()
    assert page["offset"] == 50 and 0 < len(page["text"]) <= 300 and page["nextOffset"] == 50 + len(page["text"])
    assert page["text"].endswith("\n") and page["totalChars"] > 300
    assert page["text"].strip().splitlines()[0] in whole
    assert cli.main(["read", str(docs / LOG), "--offset", str(page["nextOffset"]), "--max-chars", "100",
                     *flags]) == 0
    captured = capsys.readouterr()
    assert "more characters: --offset" in captured.err


@pytest.mark.slow
async def test_the_server_advertises_only_what_it_serves(largest, tiny_model_dir, tiny_encoder):
    state = _state(largest, tiny_model_dir, tiny_encoder)
    async with Client(build_server(state)) as client:
        capabilities = client.server_capabilities
        assert capabilities.tools is not None
        assert capabilities.resources is None and capabilities.prompts is None
    state.close()


def test_any_result_cuts_its_longest_list_to_the_budget_and_says_so():
    from minirag.results import within_budget

    warnings = [f"/docs/file-{i}.pdf: encrypted, cannot be read" for i in range(2000)]
    cut = within_budget({"jobId": "j1", "failed": 2000, "warnings": warnings, "otherTypes": {".gz": 3}}, 1000)
    assert estimate_tokens(json.dumps(cut, ensure_ascii=False, indent=2)) <= 1000
    assert cut["warnings"] == warnings[:len(cut["warnings"])] and cut["failed"] == 2000
    assert cut["truncated"]["field"] == "warnings" and cut["truncated"]["leftOut"] == 2000 - len(cut["warnings"])
    small = {"version": "1", "roots": ["/a"]}
    assert within_budget(small, 1000) is small


def test_a_result_that_cannot_be_cut_is_refused_in_one_line():
    from minirag.errors import MiniragError
    from minirag.results import within_budget

    with pytest.raises(MiniragError, match="over MINIRAG_MAX_RESPONSE_TOKENS") as caught:
        within_budget({"text": "x" * 10_000}, 1000)
    assert "\n" not in str(caught.value)


def test_a_pdf_read_by_offset_names_the_pages_of_the_text_returned(app, docs):
    """read_file gave a PDF's whole range (`1-3`) with every page of it: an agent reading on from
    `nextOffset` could not cite the page it read. (The pages of the sections the text is in: a
    section is a heading's, here the outline's one a page.)"""
    from pdf_maker import make_pdf

    topics = ("Otters", "Herons", "Beavers")
    pages = [[topic, f"Page {n} tells of {topic.lower()}."] + [f"More about them, line {line}." for line in range(40)]
             for n, topic in enumerate(topics, 1)]
    (docs / "wildlife.pdf").write_bytes(make_pdf(pages, outline=[(1, topic, n) for n, topic in enumerate(topics)]))
    app.sync()
    whole = app.read(str(docs / "wildlife.pdf"))
    assert whole.pages == "1-3" and whole.next_offset is None
    start = whole.text.index("Page 2 tells of herons.")
    second = app.read(str(docs / "wildlife.pdf"), offset=start, max_chars=len("Page 2 tells of herons."))
    assert second.text == "Page 2 tells of herons." and second.pages == "2"
    last = app.read(str(docs / "wildlife.pdf"), offset=whole.text.index("Page 3"))
    assert last.pages == "3" and last.next_offset is None
