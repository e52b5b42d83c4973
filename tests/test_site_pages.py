"""ingest_url on saved real pages served from 127.0.0.1: markitdown's site converters
(Wikipedia, YouTube) get the bytes our guarded fetcher fetched, with the URL they came from.

The pages are saved copies (tests/fixtures/pages, see the README). A fake resolver sends
their real host names to 127.0.0.1 and connections for port 80 go to the test server's
port; everything else (the fetch, the guard with ALLOW_PRIVATE_URLS, the conversion, the
index) is the real path.
"""

import gzip
import socket

import pytest
from conftest import FIXTURES
from fetch_helpers import FakeDns, Server

from minirag.errors import InvalidArgument
from minirag.ingest import fetch
from minirag.ingest.convert import convert_fetched
from minirag.results import payload

PAGES = FIXTURES / "pages"
WIKIPEDIA = "http://en.wikipedia.org/wiki/Microsoft"
YOUTUBE = "http://www.youtube.com/watch?v=GJLlxj_dtq8"


@pytest.fixture
def web(monkeypatch):
    server = Server("127.0.0.1")
    dns = FakeDns()
    for host in ("en.wikipedia.org", "www.youtube.com", "example.test"):
        dns.table[host] = ["127.0.0.1"]
    monkeypatch.setattr(socket, "getaddrinfo", dns)
    connect = fetch._connect_any
    monkeypatch.setattr(fetch, "_connect_any",
                        lambda addresses, port, deadline: connect(addresses, server.port if port == 80 else port,
                                                                  deadline))
    html = "text/html; charset=utf-8"
    server.pages["/wiki/Microsoft"] = (gzip.decompress((PAGES / "wikipedia_microsoft.html.gz").read_bytes()), html)
    youtube = gzip.decompress((PAGES / "youtube_surface_go_review.html.gz").read_bytes())
    server.pages["/watch"] = (youtube, html)
    server.pages["/copy-of-wikipedia"] = server.pages["/wiki/Microsoft"]
    yield server
    server.stop()


@pytest.fixture
def web_app(make_app):
    return make_app({"ALLOW_PRIVATE_URLS": "1"})


def fetched(url: str):
    """What ingest_url indexes for ``url``, short of embedding it (the article is long)."""
    page = fetch.fetch_url(url, allow_private=True)
    return convert_fetched(page.body, mimetype=page.content_type, charset=page.charset, url=page.final_url)


@pytest.mark.slow
def test_a_wikipedia_page_is_converted_as_its_article_without_the_site_around_it(web):
    converted = fetched(WIKIPEDIA)
    assert converted.metadata_title == "Microsoft"
    text = converted.markdown
    assert "Microsoft entered the operating system (OS) business in 1980" in text
    for chrome in ("154 languages", "Main menu", "Create account", "Jump to content"):
        assert chrome not in text
    assert web.requests[0]["path"] == "/wiki/Microsoft"  # fetched by our fetcher, once
    assert len(web.requests) == 1


@pytest.mark.slow
def test_the_same_page_under_another_url_goes_through_the_generic_html_converter(web):
    text = fetched("http://example.test/copy-of-wikipedia").markdown
    assert "Microsoft entered the operating system (OS) business in 1980" in text
    # No site converter, yet the generic one leaves MediaWiki's chrome out by the page's structure:
    # the menus (role="navigation"), the search box, the language dropdown (aria-haspopup).
    for chrome in ("Main menu", "Create account", "Jump to content", "Afrikaans", "Search Wikipedia"):
        assert chrome not in text


@pytest.mark.slow
def test_a_youtube_page_is_indexed_as_the_videos_title_metadata_and_description(web, web_app):
    result = web_app.ingest_url(YOUTUBE)
    assert result.title == "Surface Go Review - It’s Awesome"
    text = web_app.read(YOUTUBE).text
    assert "Dave2D review of the Microsoft Surface Go" in text
    assert "**Runtime:** PT5M17S" in text
    hits = payload(web_app.query("Surface Go review for students on a budget", top_k=3))["results"]
    assert hits and hits[0]["source"] == YOUTUBE


@pytest.mark.slow
def test_youtube_pages_are_converted_as_plain_html_when_markitdown_would_fetch_transcripts_itself(
        web, web_app, monkeypatch):
    from markitdown.converters import _youtube_converter

    from minirag.ingest import convert_worker, isolation

    class InProcess:  # the flag below is set in this process, so the conversion must run here too
        def run(self, op, args, name, limits, started=None, on_page=None, stop=None):
            return convert_worker._run(op, args)

    monkeypatch.setattr(isolation, "POOL", InProcess())
    monkeypatch.setattr(_youtube_converter, "IS_YOUTUBE_TRANSCRIPT_CAPABLE", True)
    converted = fetched(YOUTUBE)
    assert converted.metadata_title == "Surface Go Review - It’s Awesome - YouTube"  # the page's own <title>
    # Its text is drawn by a script, so the page as HTML holds none: nothing is indexed, saying so.
    with pytest.raises(InvalidArgument, match="no text found in what was given"):
        web_app.ingest_url(YOUTUBE)
    assert len(web.requests) == 2  # one a fetch: nothing fetched the transcript


_RUSSIAN_ARTICLE = ('<html><head><title>Москва — Википедия</title>{meta}</head><body><h1 id="firstHeading">'
                    '<span class="mw-page-title-main">Москва</span></h1><div id="mw-content-text">'
                    '<p>Москва — столица России, город федерального значения.</p></div></body></html>')


@pytest.mark.parametrize(("codec", "meta", "charset", "warned"), [
    ("utf-16-be", "", "utf-16", False),  # UTF-16 without a mark, big-endian by its zero bytes
    ("utf-16-le", "", "utf-16le", False),
    ("utf-8", "", "koi8-r", False),  # a label the bytes belie: UTF-8 reads first, as decode_text has it
    ("cp1251", '<meta charset="windows-1251">', "utf-8", False),  # the meta tag where the HTTP label is wrong
    ("cp1251", "", "x-unknown", True),  # a label no codec knows: detected, and said so
])
def test_a_site_pages_bytes_are_read_as_decode_text_reads_any_pages(codec, meta, charset, warned):
    # markitdown's site converters decoded the bytes by the HTTP charset themselves (bs4's
    # from_encoding): a big-endian page labelled utf-16 read as CJK noise, UTF-8 labelled koi8-r as
    # mojibake. They now get the text decode_text reads, as the generic HTML converter does.
    body = _RUSSIAN_ARTICLE.format(meta=meta).encode(codec)
    converted = convert_fetched(body, mimetype="text/html", charset=charset, url="https://ru.wikipedia.org/wiki/Moscow")
    assert converted.metadata_title == "Москва"
    assert "Москва — столица России, город федерального значения." in converted.markdown
    assert bool(converted.warnings) == warned, converted.warnings
