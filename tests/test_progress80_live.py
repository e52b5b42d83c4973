"""The live line of a long ingest says how far the embedding is: chunks embedded of the chunks found
to embed so far, where it said only a count that grew towards nothing known."""

from __future__ import annotations

import re

from conftest import write

from minirag.ingest.progress import Progress


def _long_document(paragraphs: int) -> str:
    return "# Chapter\n\n" + "\n\n".join(
        f"Paragraph {i} tells of lighthouse keeper number {i}, the storms of year {1800 + i} and the "
        f"ships that passed the rocks at night, each with its own cargo and crew of {i % 17 + 3}."
        for i in range(paragraphs))


def test_the_live_line_says_chunks_embedded_of_those_to_embed_inside_one_large_file(app, docs):
    write(docs / "chapter.md", _long_document(300))
    lines: list[str] = []
    progress = app.ingest_paths([str(docs / "chapter.md")],
                                on_change=lambda p: lines.append(p.live_line()) if p.done == 0 else None)
    said = [m for line in lines if (m := re.search(r"\] (\d+) of (\d+) chunks embedded", line))]
    assert said, lines
    assert all(int(m.group(1)) < int(m.group(2)) == progress.chunks_embedded for m in said), lines
    assert len({m.group(1) for m in said}) >= 2  # it moved inside the file
    # Done: the count alone, as before.
    assert progress.live_line().startswith(f"[1/1 file] {progress.chunks_embedded} chunks embedded")


def test_a_count_with_nothing_left_to_embed_reads_as_before():
    progress = Progress(total=3, done=1, chunks_embedded=40, chunks_to_embed=40)
    assert progress.live_line().startswith("[1/3 files] 40 chunks embedded")
    progress.chunks_to_embed = 100
    assert progress.live_line().startswith("[1/3 files] 40 of 100 chunks embedded")
