"""A deck tells each slide it has read and a book each chapter (conversion_progress.py), as a PDF its
pages: a piped ingest_file of one EPUB converting for longer than SETTLE_S after stdin closed was
cancelled, its answer lost, though it was reading chapter after chapter. One whose reading hangs
tells nothing and is still cancelled."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from helpers.epub import epub_book, xhtml
from test_server_stdio import RawServer
from test_settle82_progress import _answers_until_it_ends, piped_ingest

from minirag.ingest import conversion_progress
from minirag.ingest.convert import convert_document

CHAPTER_S = 0.2  # each chapter's reading slowed by this, in the worker
CHAPTERS = 20  # read in CHAPTERS * CHAPTER_S: twice SETTLE_S

# Put on the module path of the server and of its converter workers (PYTHONPATH): each HTML page read
# (an EPUB's chapter) waits TEST_CHAPTER_S first; the TEST_HANG_AT_CHAPTER-th never ends (10 minutes).
SLOW_CHAPTERS = """import os
if os.environ.get("TEST_CHAPTER_S"):
    import threading
    from minirag.ingest import html_markdown
    real = html_markdown.html_to_markdown
    read = [0]
    def html_to_markdown(*args, **kwargs):
        read[0] += 1
        threading.Event().wait(600 if read[0] == int(os.environ.get("TEST_HANG_AT_CHAPTER", "0")) else
                               float(os.environ["TEST_CHAPTER_S"]))
        return real(*args, **kwargs)
    html_markdown.html_to_markdown = html_to_markdown
"""


def _book(chapters: int = CHAPTERS) -> bytes:
    names = [f"c{n}.xhtml" for n in range(1, chapters + 1)]
    return epub_book([(f"c{n}", name) for n, name in enumerate(names, start=1)], [f"c{n}" for n in range(1, chapters + 1)],
                     {name: xhtml(f"<h1>Chapter {n}</h1><p>The tide turns {n} times in the estuary.</p>")
                      for n, name in enumerate(names, start=1)}, title="Tide Tables")


def _deck(slides: int) -> bytes:
    import io

    from pptx import Presentation

    deck = Presentation()
    for n in range(1, slides + 1):
        slide = deck.slides.add_slide(deck.slide_layouts[1])
        slide.shapes.title.text = f"Tide {n}"
        slide.placeholders[1].text_frame.text = f"High water at {n} o'clock."
    buffer = io.BytesIO()
    deck.save(buffer)
    return buffer.getvalue()


def test_progress84_a_deck_tells_each_slide_and_a_book_each_chapter_as_they_are_read():
    told: list[str] = []
    token = conversion_progress.LISTENER.set(lambda: told.append("piece"))
    try:
        convert_document(_deck(7), ".pptx", "tides.pptx")
        slides = len(told)
        convert_document(_book(), ".epub", "tides.epub")
    finally:
        conversion_progress.LISTENER.reset(token)
    assert (slides, len(told) - slides) == (7, CHAPTERS)


def _server(tmp_path: Path, model_path: str, **hooks: str) -> RawServer:
    return piped_ingest(tmp_path, model_path, SLOW_CHAPTERS, "tables.epub", _book(),
                        {"TEST_CHAPTER_S": str(CHAPTER_S), **hooks})[0]


@pytest.mark.skipif(sys.platform == "win32", reason="sitecustomize on PYTHONPATH, as on POSIX")
def test_progress84_a_piped_ingest_of_a_book_read_longer_than_settle_s_is_answered(tmp_path, model_path):
    server = _server(tmp_path, model_path)
    answers, stderr = _answers_until_it_ends(server)
    assert [answer["id"] for answer in answers] == ["epub"], (answers, stderr)
    assert answers[0].get("result", {}).get("isError") is False, (answers, stderr)
    assert answers[0]["result"]["structuredContent"]["chunkCount"] >= 1, answers
    assert server.proc.returncode == 0 and "Traceback" not in stderr, stderr


@pytest.mark.skipif(sys.platform == "win32", reason="sitecustomize on PYTHONPATH, as on POSIX")
def test_progress84_a_piped_ingest_of_a_book_whose_reading_hangs_is_still_cancelled(tmp_path, model_path):
    server = _server(tmp_path, model_path, TEST_HANG_AT_CHAPTER="5")
    answers, stderr = _answers_until_it_ends(server)
    assert answers == [{"jsonrpc": "2.0", "id": "epub", "error": {"code": -32000, "message": "Connection closed"}}], \
        (answers, stderr)  # the SDK's answer to a call it cancelled as stdin closed
    assert server.proc.returncode == 0 and "Traceback" not in stderr, stderr
