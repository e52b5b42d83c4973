"""An agent's citation read back: a hit's page (`report.pdf#page=3`, the PDF open parameter a
citation takes) and a link copied from a passage, relative to the file it is in."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from pdf_maker import make_pdf
from test_server import connected, ok, refused

from minirag.app import App
from minirag.config import load_config
from minirag.server import ServerState

FIXTURES = Path(__file__).parent / "fixtures" / "docs"


@pytest.fixture
def make_state(tmp_path, model_path, encoder):
    states = []

    def make(root: Path) -> ServerState:
        config = load_config(env={}, base_dirs=[str(root)], db_path=str(tmp_path / "index.db"), model_path=model_path)
        states.append(ServerState.from_config(config, App(config, encoder=encoder)))
        return states[-1]

    yield make
    for state in states:
        state.close()


def _report(root: Path) -> Path:
    """Three pages, each under its own outline heading: each page its own section."""
    pages = [[f"Chapter {n}", "", f"The {word} survey counted the herons nesting on the east bank."]
             for n, word in ((1, "spring"), (2, "summer"), (3, "autumn"))]
    path = root / "report.pdf"
    path.write_bytes(make_pdf(pages, outline=[(1, f"Chapter {n}", n - 1) for n in (1, 2, 3)]))
    return path


@pytest.mark.anyio
@pytest.mark.parametrize("fragment", ["page=3", "page=3&zoom=100", "slide=3"])
async def test_agent85_a_pdf_page_cited_as_its_open_parameter_reads_from_that_page(make_state, tmp_path, fragment):
    root = tmp_path / "docs"
    root.mkdir()
    report = _report(root)
    async with connected(make_state(root)) as client:
        await ok(client, "sync_start", wait=True)
        hit = (await ok(client, "query_documents", query="autumn survey herons", topK=1))["results"][0]
        assert hit["pages"] == "3"
        page = await ok(client, "read_file", filePath=f"{report}#{fragment}")
    assert page["fragmentOffset"] is not None and page["fragmentOffset"] > 0
    assert page["text"].lstrip("# ").startswith("Chapter 3")
    assert page["pages"] == "3"


@pytest.mark.anyio
async def test_agent85_a_slide_cited_by_number_reads_from_that_slide(make_state, tmp_path):
    root = tmp_path / "docs"
    root.mkdir()
    deck = root / "deck.pptx"
    shutil.copy(FIXTURES / "pptx_python_tutorial_interpreter.pptx", deck)
    async with connected(make_state(root)) as client:
        await ok(client, "sync_start", wait=True)
        page = await ok(client, "read_file", filePath=f"{deck}#slide=5", maxChars=200)
        past = await ok(client, "read_file", filePath=f"{deck}#page=99", maxChars=200)
    assert page["pages"] == "5" and page["offset"] == page["fragmentOffset"] > 0
    assert past["fragmentOffset"] is None and past["offset"] == 0


@pytest.mark.anyio
async def test_agent85_a_link_copied_from_a_page_in_a_folder_is_refused_naming_the_file_it_leads_to(
        make_state, tmp_path):
    root = tmp_path / "docs"
    (root / "manual").mkdir(parents=True)
    (root / "manual" / "index.md").write_text("# Manual\n\nSee [installing](install.md#from-source).\n")
    (root / "manual" / "install.md").write_text("# Install\n\n## From source\n\nRun make.\n")
    (root / "notes.md").write_text("# Notes\n\n## Tides\n\nHigh water at noon.\n")
    async with connected(make_state(root)) as client:
        await ok(client, "sync_start", wait=True)
        from_folder = await refused(client, "read_file", filePath="install.md#from-source")
        from_root = await refused(client, "read_file", filePath="notes.md#tides")
        unknown = await refused(client, "read_file", filePath="nowhere.md#tides")
        followed = await ok(client, "read_file", filePath=str(root / "manual" / "install.md#from-source"))
    assert f"{root}/manual/install.md#from-source" in from_folder
    assert f"{root}/notes.md#tides" in from_root
    assert unknown == "read_file: filePath must be an absolute path, got 'nowhere.md#tides'"
    assert followed["text"].startswith("## From source")


@pytest.mark.anyio
async def test_agent85_a_hits_heading_path_cited_as_its_fragment_reads_from_that_heading(make_state, tmp_path):
    root = tmp_path / "docs"
    root.mkdir()
    guide = root / "guide.md"
    guide.write_text("# Guide\n\n## Install\n\n### Linux\n\nRun the installer package.\n\n"
                     "## Upgrade\n\n### Linux\n\nStop the daemon before replacing the binary.\n")
    async with connected(make_state(root)) as client:
        await ok(client, "sync_start", wait=True)
        hits = (await ok(client, "query_documents", query="stop the daemon", scope=str(guide)))["results"]
        breadcrumb = next(hit["text"] for hit in hits if "daemon" in hit["text"]).split("\n")[0]
        page = await ok(client, "read_file", filePath=f"{guide}#{breadcrumb}")
    assert " > " in breadcrumb
    assert page["fragmentOffset"] is not None
    assert page["text"].startswith("### Linux\n\nStop the daemon")


def test_agent85_a_trail_ending_in_a_term_cut_short_reads_from_the_terms_line():
    from minirag.anchors import heading_offset

    text = ("# The Closure API\n\nIntro.\n\nFunction: void ffi_call (ffi_cif *cif, void *fn)\n\n: Call it.\n\n"
            "Function: ffi_status ffi_prep_closure_loc (ffi_closure *closure, ffi_cif *cif, void (*fun) (ffi_cif *),"
            " void *user_data)\n\n: Prepare it.\n")
    trail = ("The Closure API > Function: ffi_status ffi_prep_closure_loc (ffi_closure *`closure`, ffi_cif *`cif`, "
             "void (…) (…), void *`user_data`)")
    assert text[heading_offset(text, trail):].startswith("Function: ffi_status ffi_prep_closure_loc")
