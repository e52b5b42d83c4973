"""Real documents (tests/fixtures/docs, see its README for sources and licenses)
through conversion, chunking and the whole ingest/search path."""

import shutil
from pathlib import Path

import pytest
from conftest import FIXTURES, converted_fixture, write

from minirag.chunking import chunk_document
from minirag.chunking.frontmatter import parse_frontmatter
from minirag.chunking.titles import choose_title
from minirag.ingest.sync import run_sync
from minirag.results import payload

pytestmark = pytest.mark.slow  # converts and syncs every real document in tests/fixtures

DOCS = FIXTURES / "docs"
BUDGET = 110


def cut(name, encoder):
    path = DOCS / name
    converted = converted_fixture(name)
    _, body = parse_frontmatter(converted.markdown)
    title = choose_title(body, metadata_title=converted.metadata_title, stem=path.stem)
    return chunk_document(body, title=title, count_tokens=encoder.count_tokens, budget=BUDGET,
                          max_tokens=encoder.max_length)


SUBTITLES = {"txt_sintel_subtitles_en.txt", "srt_sintel_subtitles_en.srt", "vtt_youtube_dl_rolling_captions.vtt"}


@pytest.mark.parametrize("name", sorted(p.name for p in DOCS.iterdir() if p.name != "README.md"))
def test_every_fixture_converts_and_no_chunk_exceeds_the_model_maximum(name, encoder):
    doc = cut(name, encoder)
    assert doc.chunks and doc.sections
    # Clock times appear in several (a test log, a changelog); only the film's subtitles are a recording.
    assert (doc.category == "transcript") == (name in SUBTITLES)
    assert all(c.tokens <= encoder.max_length for c in doc.chunks)
    assert all(c.tokens <= BUDGET or c.text.lstrip().startswith(("```", "~~~")) or "```" in c.text
               for c in doc.chunks)


@pytest.mark.parametrize("name, category", [
    ("pptx_python_tutorial_interpreter.pptx", "slides"),
    ("pptx_slides_text.pptx", "slides"),
    ("docx_headings_table.docx", "headings"),
    ("html_python_tomllib_en.html", "headings"),
    ("md_debug_readme.md", "headings"),
    ("rst_crcmod_sphinx.rst", "headings"),
    ("adoc_asciidoctor_syntax.adoc", "headings"),
    ("tex_smf_author_guide_fr.tex", "headings"),
    ("rtf_word_cvs_writeproxy.rtf", "headings"),
    ("rtf_libreoffice_cjk_notes.rtf", "headings"),
    ("txt_python_tutorial_appetite_en.txt", "generic"),
])
def test_the_category_is_read_off_the_converted_markdown(name, category, encoder):
    assert cut(name, encoder).category == category


def test_slides_become_one_section_each(encoder):
    doc = cut("pptx_python_tutorial_interpreter.pptx", encoder)
    assert len(doc.sections) == 7


def test_pdf_chunks_and_sections_carry_their_pages(encoder):
    doc = cut("pdf_multipage_ocr_vicksburg.pdf", encoder)
    assert sorted({c.page_start for c in doc.chunks}) == [1, 2, 3, 4, 5, 6]
    assert all("\f" not in c.text for c in doc.chunks)
    assert doc.sections[0].page_start == 1 and doc.sections[-1].page_end == 6


def test_html_and_epub_titles_come_from_converter_metadata(encoder):
    assert cut("html_libreoffice_footnotes_ru.html", encoder).title == "Вставка и редактирование сносок и концевых сносок"
    assert cut("epub_ubuntu_packaging_guide_ru.epub", encoder).title == "Ubuntu Packaging Guide"


def test_a_spreadsheet_table_repeats_its_header_in_every_chunk(encoder):
    doc = cut("csv_ubuntu_releases.csv", encoder)
    header = next(line for line in doc.chunks[1].text.split("\n") if line.startswith("|"))
    assert header.startswith("|")
    assert all(header in c.text for c in doc.chunks[1:])


def test_the_fixture_folder_syncs_without_a_failure_and_pdf_hits_cite_pages(app, docs):
    for path in DOCS.iterdir():
        if path.name != "README.md":
            shutil.copy(path, docs / path.name)
    result = run_sync(app.pipeline, list(app.config.roots))
    assert result.failed == 0, result.warnings
    pdf = app.read(str(docs / "pdf_multipage_ocr_vicksburg.pdf"))
    assert pdf.pages == "1-6"
    pdf_hits = payload(app.query("Vicksburg", top_k=3, scope=str(docs / "pdf_multipage_ocr_vicksburg.pdf")))["results"]
    assert pdf_hits and all("pages" in h for h in pdf_hits)


# The largest fixtures (an EPUB book, an OCR'd PDF, a test log) would only slow the real model down here;
# so would the largest of the rest (a README of 119 chunks, a CSV of 46: 45% of the chunks embedded; two
# manual pages of 94 and 72, 40% of the 490 left), which rank nowhere near the top ten for either question
# (best chunks 30th to 42nd).
HEAVY = {"README.md", "epub_ubuntu_packaging_guide_ru.epub", "epub_live_manual_en.epub", "pdf_multipage_ocr_vicksburg.pdf",
         "pdf_two_columns_elsarticle.pdf", "pdf_xelatex_persian_tabriz_thesis.pdf",
         "txt_cpython_regrtest_log.txt", "md_debug_readme.md", "csv_ubuntu_releases.csv",
         "rst_crcmod_sphinx.rst", "rst_python_email_architecture.rst", "adoc_asciidoctor_syntax.adoc",
         "tex_smf_author_guide_fr.tex", "rtf_docbook_muttprint_manual_sl.rtf", "rtf_word_cvs_writeproxy.rtf",
         "man_git_commit.1.gz", "man_file_mdoc.1"}


@pytest.mark.minilm
def test_real_questions_are_answered_from_real_documents(app, docs):
    for path in DOCS.iterdir():
        if path.name not in HEAVY:
            shutil.copy(path, docs / path.name)
    assert run_sync(app.pipeline, list(app.config.roots)).failed == 0
    top = payload(app.query("How do I insert a footnote or an endnote?", top_k=5))["results"][0]
    assert "footnotes" in top["source"]
    toml = payload(app.query("parse a TOML file into a dict", top_k=5))["results"]
    # Two fixtures hold the tomllib page (the HTML and a DOCX made from it): either answers.
    tomllib_pages = {"html_python_tomllib_en.html", "docx_headings_table.docx"}
    assert "tomllib" in toml[0]["text"] and {Path(h["source"]).name for h in toml[:3]} <= tomllib_pages


@pytest.mark.parametrize("name, category", [
    ("txt_sintel_subtitles_en.txt", "transcript"),  # WebVTT cues of a film's dialogue
    ("txt_cpython_regrtest_log.txt", "generic"),  # a test log timed from 0:00:00: not speech
    ("txt_tzdata_news_excerpt.txt", "generic"),  # a changelog full of clock times
    ("docx_title_style_appetite.docx", "generic"),
])
def test_only_recordings_are_transcripts_among_real_documents_with_times(name, category, encoder):
    assert cut(name, encoder).category == category


def test_a_real_transcripts_window_label_quotes_its_first_and_last_cue_times_as_written(encoder):
    doc = cut("txt_sintel_subtitles_en.txt", encoder)
    window = next(s for s in doc.sections if s.context_lines)
    label = window.text.split("\n")[0]
    assert label == "[00:00:18.700–00:01:58.250]"
    source = (DOCS / "txt_sintel_subtitles_en.txt").read_text(encoding="utf-8")
    assert all(time in source for time in label.strip("[]").split("–"))


def sintel_with_headings(frontmatter: str) -> str:
    cues = (DOCS / "txt_sintel_subtitles_en.txt").read_text(encoding="utf-8").split("\n\n")[1:]
    return (f"{frontmatter}# Sintel\n\n## The shaman's hut\n\n" + "\n\n".join(cues[:7])
            + "\n\n## The quest\n\n" + "\n\n".join(cues[7:]))


def test_rag_chunk_headings_splits_a_real_transcript_at_its_headings(app, docs):
    write(docs / "auto.md", sintel_with_headings(""))
    write(docs / "asked.md", sintel_with_headings("---\nrag_chunk: headings\n---\n"))
    assert run_sync(app.pipeline, list(app.config.roots)).done == 2
    assert app.index.source_row(str(docs / "auto.md")).category == "transcript"
    assert app.index.source_row(str(docs / "asked.md")).category == "headings"
    hit = payload(app.query("a dangerous quest for a lone hunter", top_k=5, scope=str(docs / "asked.md")))["results"][0]
    assert hit["text"].startswith("Sintel > The quest\n")


def test_an_unknown_rag_chunk_value_is_a_warning_not_a_failure(app, docs):
    write(docs / "odd.md", "---\nrag_chunk: paragraphs\n---\n# Odd\n\nText.")
    result = run_sync(app.pipeline, list(app.config.roots))
    assert result.done == 1 and any("rag_chunk: 'paragraphs' is not understood" in w for w in result.warnings)
