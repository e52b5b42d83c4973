"""A document cut into far more chunks than any real one (found by bounds77): lines like
`###### N\\nx\\n` cut one chunk per ~14 characters, so a planted 32 MB text file made ~2.3M chunks,
each embedded and stored (hours of a sync, GBs of index). One document may yield at most
chunking.chunk_limit chunks; past it, it is refused in one line, counted failed, nothing of it
written, and its previous version kept."""

from __future__ import annotations

import pytest
from conftest import write

from minirag.chunking import CHUNKS_FLOOR, chunk_limit
from minirag.errors import MiniragError


def _hostile(lines: int = CHUNKS_FLOOR + 200) -> str:
    return "".join(f"###### {n}\nx\n" for n in range(lines))


def test_a_document_of_tiny_sections_past_the_bound_is_refused_and_its_previous_version_kept(make_app, docs):
    write(docs / "page.md", "# Page\n\nThe lighthouse keeper logs the tide.\n")
    write(docs / "planted.md", "# Planted\n\nThe harbour master counts the boats.\n")
    app = make_app()
    app.sync()
    write(docs / "planted.md", _hostile())
    progress = app.sync()
    assert progress.failed == 1
    [said] = [w for w in progress.warnings if "planted.md" in w]
    assert "\n" not in said and f"past the bound of {CHUNKS_FLOOR}" in said, said
    sources = {row.source: row.chunk_count for row in app.index.list_sources()}
    assert sources[str(docs / "planted.md")] == 1  # the earlier version, untouched
    assert [hit.source for hit in app.query("harbour master boats").hits][:1] == [str(docs / "planted.md")]
    again = app.sync()  # the same bytes: not cut again, still failing
    assert again.failed == 0 and again.still_failing == 1


def test_data_past_the_bound_is_refused_in_one_line(make_app):
    app = make_app()
    with pytest.raises(MiniragError, match=r"^planted: cut into \d+ chunks .* past the bound"):
        app.ingest_data(_hostile(), "planted", fmt="markdown")
    assert not app.index.list_sources()


def test_the_bound_is_far_above_what_real_documents_make():
    """scripts/chunk_density.py: at most ~16 chunks per 1,000 characters over tests/fixtures and the eval
    sets at the default budget, ~98 at the smallest budget (16); the bound allows 62.5 and 429."""
    assert chunk_limit(1_000_000, 110) == chunk_limit(1_000_000, 512) == 62_500
    assert chunk_limit(1_000_000, 16) == 429_687
    assert chunk_limit(100, 110) == CHUNKS_FLOOR
