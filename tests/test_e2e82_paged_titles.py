"""A PDF whose first page reads as nothing (a table of contents left out) opens its Markdown with a
form feed glued to its first heading (`\\f# 1 Foo`). The title chooser took that line for no heading
and titled the document with its second (`2 Bar`), which then opened every chunk's breadcrumb
(`2 Bar > 1 Foo`) and every hit's title; the chunker, which splits pages at form feeds, read it right."""

from __future__ import annotations

import shutil

from conftest import FIXTURES

from minirag.chunking.titles import choose_title, first_h1


def test_e2e82_a_heading_after_a_page_break_is_the_first_h1():
    markdown = "\n\f# Install\n\nSteps.\n\n\f# Usage\n\nMore.\n"
    assert first_h1(markdown) == "Install"
    assert choose_title(markdown, metadata_title=None, stem="x") == "Install"


def test_e2e82_a_pdf_whose_contents_page_is_left_out_is_titled_by_its_first_heading(app, docs):
    shutil.copy(FIXTURES / "docs" / "pdf_multipage_pdflatex_outline.pdf", docs / "outline.pdf")
    app.sync()
    hits = app.query("Huardest gefburn blind text", top_k=10).hits
    assert hits and {hit.title for hit in hits} == {"1 Foo"}
    first = app.neighbors(str(docs / "outline.pdf"), 0, before=0, after=0)
    assert not first.chunks[0].text.startswith("2 Bar"), first.chunks[0].text[:80]
