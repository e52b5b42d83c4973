"""A fetched body meets the same guards as a file on disk, whatever Content-Type its server sends:
the format is sniffed from the bytes, archives are checked from their directory before
anything inflates them, and binary data is never indexed as text."""

from __future__ import annotations

import contextlib
import gzip
import http.server
import io
import os
import threading
import zipfile
from pathlib import Path

import pytest
from conftest import FIXTURES

from minirag.errors import ConversionFailed, NotFound
from minirag.ingest.convert import sniff_format

FIXTURE_DOCX = os.path.join(os.path.dirname(__file__), "fixtures", "docs", "docx_headings_table.docx")


def zip_bomb(members: int = 4, member_bytes: int = 16 * 1024 * 1024) -> bytes:
    """A real bomb, small enough to build fast: 64 MB of zeros deflated to ~64 kB (over the 50 MB and 200:1 lines)."""
    buffer = io.BytesIO()
    zeros = bytes(1024 * 1024)
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        for n in range(members):
            with archive.open(f"word/part{n}.xml", "w") as member:
                for _ in range(member_bytes // len(zeros)):
                    member.write(zeros)
    return buffer.getvalue()


def plain_zip() -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("notes.txt", "just some notes in an archive")
    return buffer.getvalue()


class _Handler(http.server.BaseHTTPRequestHandler):
    bodies: dict[str, tuple[bytes, str]] = {}

    def log_message(self, format, *args):  # noqa: A002
        pass

    def do_GET(self):
        body, content_type = self.bodies.get(self.path, (b"", "text/plain"))
        self.send_response(200 if self.path in self.bodies else 404)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        with contextlib.suppress(ConnectionError):
            self.wfile.write(body)


@pytest.fixture(scope="module")
def served():
    bomb = zip_bomb()
    bodies = {
        "/bomb.bin": (bomb, "application/octet-stream"),
        "/bomb.txt": (bomb, "text/plain"),
        "/archive": (plain_zip(), "text/plain; charset=utf-8"),
        "/noise": (os.urandom(256 * 1024), "text/plain"),
        "/doc": (Path(FIXTURE_DOCX).read_bytes(), "application/octet-stream"),
        "/page": (b"<!DOCTYPE html><html><head><title>Otters</title></head><body><h1>Otters</h1>"
                  b"<p>Sea otters hold hands while they sleep.</p></body></html>", "text/plain"),
        **{path: (text.encode(codec), content_type) for path, (text, codec, content_type) in _LABELLED.items()},
        "/notes.md.gz": (gzip.compress(b"# Herons\n\nGrey herons nest in colonies.\n"), "application/gzip"),
        "/git-commit.1.gz": ((FIXTURES / "docs" / "man_git_commit.1.gz").read_bytes(), "application/x-gzip"),
    }
    handler = type("Handler", (_Handler,), {"bodies": bodies})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


_OTTERS = "Морские выдры держатся за лапы, пока спят."
# Bodies whose Content-Type charset is the only way to read them: UTF-16 without a byte-order mark,
# a few words of KOI8-R (which the detector takes for Shift_JIS), a page whose meta tag the HTTP
# label outranks, and one whose HTTP label its bytes belie (a server's default), read by its meta tag.
_LABELLED = {
    "/notes-utf16le": (_OTTERS, "utf-16-le", "text/plain; charset=utf-16le"),
    "/notes-utf16": (_OTTERS, "utf-16-be", "text/plain; charset=UTF-16"),
    "/readme": (f"# Выдры\n\n{_OTTERS}\n", "utf-16-le", "text/markdown; charset=utf-16le"),
    "/table.csv": ("Сверка;Итог\nвыдры;1 200\n", "koi8-r", "text/csv; charset=koi8-r"),
    "/page-utf16": (f"<html><head><title>Выдры</title></head><body><p>{_OTTERS}</p></body></html>", "utf-16-le",
                    "text/html; charset=utf-16le"),
    "/page-http": (f'<html><head><meta charset="koi8-r"><title>Выдры</title></head><body><p>{_OTTERS}</p></body></html>',
                   "cp1251", "text/html; charset=windows-1251"),
    "/page-meta": (f'<html><head><meta charset="windows-1251"><title>Выдры</title></head><body><p>{_OTTERS}</p>'
                   "</body></html>", "cp1251", "text/html; charset=utf-8"),
}


@pytest.fixture
def app(make_app):
    return make_app({"ALLOW_PRIVATE_URLS": "1"})


@pytest.mark.slow
@pytest.mark.parametrize("path", ["/bomb.bin", "/bomb.txt"])
def test_a_zip_bomb_is_refused_from_its_directory_whatever_it_is_served_as(app, served, path):
    app.sync()  # an index, so that reading the refused URL back is a plain "not indexed"
    with pytest.raises(ConversionFailed, match="zip bomb"):
        app.ingest_url(served + path)
    with pytest.raises(NotFound):
        app.read(served + path)


def test_a_gzip_body_is_ingested_as_the_document_it_inflates_to(app, served):
    result = app.ingest_url(served + "/notes.md.gz")
    assert result.title == "Herons"
    assert "Grey herons nest in colonies." in app.read(served + "/notes.md.gz").text
    page = app.ingest_url(served + "/git-commit.1.gz")
    assert page.title == "git-commit(1) — Record changes to the repository"


def test_an_archive_that_is_not_a_document_is_refused(app, served):
    with pytest.raises(ConversionFailed, match="archives are not indexed"):
        app.ingest_url(served + "/archive")


def test_random_bytes_served_as_text_are_refused_as_binary(app, served):
    with pytest.raises(ConversionFailed, match="binary"):
        app.ingest_url(served + "/noise")
    assert app.index.stats().chunk_count == 0


@pytest.mark.slow
def test_a_document_served_as_octet_stream_is_recognised_by_its_bytes(app, served):
    result = app.ingest_url(served + "/doc")
    assert result.chunk_count > 0
    assert sniff_format(Path(FIXTURE_DOCX).read_bytes(), "application/octet-stream", served + "/doc") == ".docx"


@pytest.mark.slow  # waits on real timeouts or file events: about a second
def test_html_served_as_plain_text_is_converted_as_html(app, served):
    result = app.ingest_url(served + "/page")
    assert result.title == "Otters"
    assert "<p>" not in app.read(served + "/page").text


@pytest.mark.parametrize(("body", "mimetype", "expected"), [
    (b"%PDF-1.7 ...", "text/html", ".pdf"),
    (b"<html><body>x</body></html>", "application/octet-stream", ".html"),
    (b"a,b\n1,2\n", "text/csv", ".csv"),
    (b"plain words", "application/json", ".txt"),
])
def test_the_bytes_decide_the_format_before_the_content_type(body, mimetype, expected):
    assert sniff_format(body, mimetype, "https://example.org/x") == expected


@pytest.mark.parametrize(("mimetype", "url", "expected"), [
    ("text/markdown", "https://example.org/notes", ".md"),
    ("text/x-rst", "https://example.org/notes", ".rst"),
    ("text/plain", "https://raw.githubusercontent.com/o/r/main/README.md", ".md"),
    ("text/plain", "https://raw.githubusercontent.com/o/r/main/docs/index.rst?plain=1", ".rst"),
    ("text/plain", "https://raw.githubusercontent.com/o/r/main/docs/intro.mdx", ".mdx"),
    ("text/plain", "https://example.org/page.html", ".txt"),  # served as text: its tags are what it says
    ("text/plain", "https://example.org/notes", ".txt"),
    ("text/vtt", "https://example.org/captions", ".vtt"),
    ("application/x-subrip", "https://example.org/subs", ".srt"),
    ("text/plain", "https://raw.githubusercontent.com/o/r/main/talk.en.srt", ".srt"),
    ("text/plain", "https://raw.githubusercontent.com/o/r/main/report.Rmd", ".rmd"),
    ("multipart/related", "https://example.org/saved", ".mhtml"),
])
def test_markdown_and_restructuredtext_are_read_as_such_by_their_type_or_a_plain_texts_name(mimetype, url, expected):
    assert sniff_format(b"# Title\n\nText.\n", mimetype, url) == expected


@pytest.mark.parametrize("path", list(_LABELLED))
def test_a_fetched_text_is_read_in_the_charset_its_content_type_declares(app, served, path):
    # A UTF-16 body without a mark had been refused as binary, the HTTP charset having been read
    # for HTML alone; a KOI8-R CSV was read as the detector's Shift_JIS.
    app.ingest_url(served + path)
    text = app.read(served + path).text
    assert (_OTTERS if "table" not in path else "| выдры | 1 200 |") in text
