"""Web pages saved whole, as one file: a browser's .mhtml, Word's .mht. The fixtures are written in
the layout each tool writes (Blink's MHTML serializer; Word's "Single File Web Page"): the first around
a real page of Python's documentation, the second around a page in Word's HTML in windows-1252."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest
from helpers.growth import grows_linearly

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


def test_a_frameset_page_reads_as_the_frames_it_names_in_order():
    # Old Javadoc and many manuals are framesets: the page itself shows nothing but its frames, and
    # had been indexed empty. Frames are found by cid: (Blink) or by Content-Location (Internet
    # Explorer, Word), a nested frameset in its place; a part no frame names (an ad) is not read.
    frames = (b'<html><head><title>Java API</title></head><frameset cols="20%,80%"><frame src="cid:frame-1@mhtml.blink">'
              b"<FRAME name=main SRC='cid:frame-2@mhtml.blink'></frameset></html>")
    data = _related([("text/html", "<root@x>", frames), ("text/html", "<frame-1@mhtml.blink>", b"<ul><li>Class List</li></ul>"),
                     ("text/html", "<frame-2@mhtml.blink>", b'<frameset rows="50%,50%"><frame src="cid:frame-3@mhtml.blink">'
                                                            b'<frame src="cid:frame-1@mhtml.blink"></frameset>'),
                     ("text/html", "<frame-3@mhtml.blink>", b"<p>String holds text.</p>"),
                     ("text/html", "<ad@x>", b"<p>Buy now</p>")])
    converted = convert_document(data, ".mhtml", "api.mhtml")
    assert (converted.markdown, converted.metadata_title) == ("- Class List\n\nString holds text.", "Java API")

    located = (b"MIME-Version: 1.0\r\nContent-Type: multipart/related; boundary=\"B\"\r\n\r\n"
               b"--B\r\nContent-Type: text/html\r\nContent-Location: http://example.org/docs/index.html\r\n\r\n"
               b"<frameset><frame src=\"nav.html\"><frame src='main/intro.html'></frameset>\r\n"
               b"--B\r\nContent-Type: text/html\r\nContent-Location: http://example.org/docs/main/intro.html\r\n\r\n"
               b"<p>Welcome to the manual.</p>\r\n"
               b"--B\r\nContent-Type: text/html\r\nContent-Location: http://example.org/docs/nav.html\r\n\r\n"
               b"<p>Contents</p>\r\n--B--\r\n")
    assert convert_document(located, ".mht", "manual.mht").markdown == "Contents\n\nWelcome to the manual."


def test_frames_are_found_in_time_in_proportion_to_the_page_and_a_chain_of_framesets_is_bounded():
    assert grows_linearly(lambda html: convert_document(_related([("text/html", "<r@x>", html.encode())]), ".mhtml", "x.mhtml"),
                          lambda n: "<frameset>" + '<frame name="a" title="b c d e f g"' * (8 * n))
    chain = [("text/html", f"<f{n}@x>", f'<frameset><frame src="cid:f{n + 1}@x"></frameset>'.encode()) for n in range(3000)]
    data = _related([*chain, ("text/html", "<f3000@x>", b"<p>the end</p>")])
    assert convert_document(data, ".mhtml", "deep.mhtml").markdown == ""  # no frame shows text within the bound
