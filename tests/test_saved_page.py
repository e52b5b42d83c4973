"""Web pages saved whole, as one file: a browser's .mhtml, Word's .mht. The fixtures are written in
the layout each tool writes (Blink's MHTML serializer; Word's "Single File Web Page"): the first around
a real page of Python's documentation, the second around a page in Word's HTML in windows-1252."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest

from minirag.errors import ConversionFailed
from minirag.ingest.convert import convert_document
from minirag.ingest.sync import run_sync

FIXTURES = Path(__file__).parent / "fixtures" / "docs"


def test_a_browsers_saved_page_reads_as_its_html_part_without_its_style_sheets_or_pictures():
    data = (FIXTURES / "mhtml_chrome_python_tomllib_en.mhtml").read_bytes()
    converted = convert_document(data, ".mhtml", "tomllib.mhtml")
    page = convert_document((FIXTURES / "html_python_tomllib_en.html").read_bytes(), ".html", "tomllib.html")
    assert converted.markdown == page.markdown
    assert converted.metadata_title == page.metadata_title and "tomllib" in converted.metadata_title
    assert "font-family" not in converted.markdown and "iVBORw0KGgo" not in converted.markdown
    assert converted.warnings == ()


def test_words_single_file_web_page_reads_in_the_charset_its_part_declares():
    data = (FIXTURES / "mht_word_single_file_page_fr.mht").read_bytes()
    converted = convert_document(data, ".mht", "Reunion.mht")
    assert "Le comité a décidé de reporter la rénovation de la bibliothèque" in converted.markdown
    assert "# Réunion du comité — compte rendu" in converted.markdown
    assert converted.metadata_title == "Réunion du comité"
    assert "MsoNormal" not in converted.markdown and "archive Web" not in converted.markdown
    assert converted.warnings == ()


def _related(parts: list[tuple[str, str, bytes]], start: str | None = None, subject: str = "") -> bytes:
    params = f'; start="{start}"' if start else ""
    out = [f'Subject: {subject}\r\nMIME-Version: 1.0\r\nContent-Type: multipart/related; boundary="B"{params}\r\n\r\n']
    for kind, cid, body in parts:
        encoded = base64.b64encode(body).decode()
        out.append(f"--B\r\nContent-Type: {kind}\r\nContent-ID: {cid}\r\nContent-Transfer-Encoding: base64\r\n\r\n{encoded}\r\n")
    out.append("--B--\r\n")
    return "".join(out).encode()


def test_the_part_that_start_names_is_the_page_not_the_first_html_part():
    data = _related([("image/png", "<pic@x>", b"\x89PNG\r\n"), ("text/html", "<frame@x>", b"<p>an ad in a frame</p>"),
                     ("text/html", "<root@x>", b"<h1>Release notes</h1><p>What changed in 2.0.</p>")], start="<root@x>")
    assert convert_document(data, ".mhtml", "notes.mhtml").markdown == "# Release notes\n\nWhat changed in 2.0."



@pytest.mark.parametrize("start", ["root@x", " <root@x> "])
def test_start_names_the_page_with_or_without_the_content_ids_angle_brackets(start):
    # RFC 2387's start is a Content-ID, brackets and all; writers drop them (or pad them) as often.
    data = _related([("text/html", "<frame@x>", b"<p>an ad in a frame</p>"),
                     ("text/html", "<root@x>", b"<p>What changed in 2.0.</p>")], start=start)
    assert convert_document(data, ".mhtml", "notes.mhtml").markdown == "What changed in 2.0."



@pytest.mark.parametrize(("charset", "codec"), [("utf-16le", "utf-16-le"), ("UTF-16BE", "utf-16-be"), ("utf-16", "utf-16-le"),
                                                ("utf-16", "utf-16")])
def test_a_utf16_page_part_reads_by_the_charset_its_part_declares_with_or_without_a_mark(charset, codec):
    # A part's charset is its bytes' label, as HTTP's is: UTF-16LE needs no byte-order mark, and a
    # UTF-16 page had been refused as binary (NUL bytes) without one.
    page = "<title>Grüße</title><p>Größere Änderungen in 2.0.</p>".encode(codec)
    converted = convert_document(_related([(f"text/html; charset={charset}", "<root@x>", page)]), ".mhtml", "p.mhtml")
    assert (converted.markdown, converted.metadata_title, converted.warnings) == (
        "Größere Änderungen in 2.0.", "Grüße", ())


def test_a_page_without_a_title_of_its_own_takes_the_subject_the_browser_wrote():
    data = _related([("text/html", "<root@x>", b"<p>Body text.</p>")], subject="=?utf-8?Q?Caf=C3=A9_menu?=")
    converted = convert_document(data, ".mhtml", "menu.mhtml")
    assert converted.metadata_title == "Café menu" and converted.markdown == "Body text."


@pytest.mark.parametrize(("data", "said"), [
    (b"just some text, no MIME at all\n", "not a saved web page (no HTML part in it)"),
    (_related([("image/png", "<pic@x>", b"\x89PNG\r\n")]), "not a saved web page (no HTML part in it)"),
    (b"", "empty file"),
])
def test_a_file_with_no_html_part_is_refused_in_one_line(data, said):
    with pytest.raises(ConversionFailed) as refused:
        convert_document(data, ".mhtml", "odd.mhtml")
    assert str(refused.value) == f"odd.mhtml: {said}"


def test_a_sync_indexes_saved_pages_and_reads_them_back(app, docs):
    for fixture in ("mhtml_chrome_python_tomllib_en.mhtml", "mht_word_single_file_page_fr.mht"):
        (docs / fixture).write_bytes((FIXTURES / fixture).read_bytes())
    result = run_sync(app.pipeline, list(app.config.roots))
    assert (result.done, result.failed, dict(result.other_types)) == (2, 0, {}), result.warnings
    page = app.read(str(docs / "mht_word_single_file_page_fr.mht"))
    assert "Prochaine réunion : jeudi 14 janvier" in page.text
