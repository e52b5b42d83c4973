"""ingest_url's errors, when the URL, a redirect's Location or a server's status line is hostile:
one short line naming what went wrong, never a crash, never a password the URL carried. Real HTTP
servers on loopback (test_fetch's), names through its fake resolver; nothing leaves the machine."""

from __future__ import annotations

from urllib.parse import quote

import pytest
from fetch_helpers import Handler
from test_fetch import dns, public_loopback, servers, url  # noqa: F401 - fixtures

from minirag.ingest.fetch import FetchError, UrlRefused, fetch_url

LONG = 100_000


def _refusal(target: str) -> str:
    with pytest.raises((FetchError, UrlRefused)) as refused:
        fetch_url(target, timeout=5)
    return str(refused.value)


@pytest.mark.parametrize("location", ["http://[oops]/", "http://[::1/", "https://[1.2.3.4]/page"])
def test_redteam85_a_redirect_to_an_address_no_url_parser_reads_is_a_fetch_error(servers, location):  # noqa: F811
    """A public server's Location that urljoin cannot read ('http://[oops]/') ended ingest_url in
    'internal error: ValueError: ... does not appear to be an IPv4 or IPv6 address, please report it'."""
    message = _refusal(url(servers[0], f"/redirect?to={quote(location)}"))
    assert "redirect" in message and len(message) < 600, message


@pytest.mark.parametrize("spelling", [
    "http://{long}.test/page",  # a name never resolved: 'cannot resolve host' named it whole
    "ftp://{long}/",  # a scheme refused
    "http://[{long}]/",  # a bad IPv6 literal (named twice)
    "http://public.test:{digits}/",  # a port out of range
])
def test_redteam85_a_url_of_any_length_is_named_in_a_short_line(dns, spelling):  # noqa: F811
    """A 100,000-character URL came back whole inside the error (100 KB and 200 KB lines), where every
    other argument of a tool is named shortened (display.shown)."""
    message = _refusal(spelling.format(long="a" * LONG, digits="9" * LONG))
    assert len(message) < 600 and " characters)" in message, message[:300]


def _route_long_reason(self, path, query):
    self.wfile.write(b"HTTP/1.1 404 " + b"R" * 60_000 + b"\r\nContent-Length: 0\r\n\r\n")
    self.close_connection = True


def test_redteam85_a_long_redirect_or_status_line_from_the_server_is_named_in_a_short_line(
        servers, monkeypatch):  # noqa: F811
    """A server's 60,000-character Location (to an ftp: address) or reason phrase came back whole."""
    monkeypatch.setattr(Handler, "route_reason", _route_long_reason, raising=False)
    for target in (url(servers[0], "/redirect?to=" + quote("ftp://" + "L" * 60_000)), url(servers[0], "/reason")):
        message = _refusal(target)
        assert len(message) < 600, message[:300]


@pytest.mark.parametrize("target", [
    "http://admin:s3cret@public.test/page",
    "http://:s3cret@public.test/page",
    "http://admin:s3cret@[::1/",  # refused as a bad URL before the credentials are looked at
    "http://admin:s3cret@public.test:99999/",
    "ht\ttp://admin:s3cret@public.test/page",  # a tab or a control character, which the URL parser drops
    "\x00http://admin:s3cret@public.test/page",
])
def test_redteam85_a_password_in_the_url_is_not_repeated_in_the_refusal(dns, target):  # noqa: F811
    """'refused 'http://admin:s3cret@...': URLs with embedded credentials are not fetched' wrote the
    password into the CLI's line, the server's log and the answer an agent's transcript keeps."""
    message = _refusal(target)
    assert "s3cret" not in message and ("public.test" in message or "::1" in message), message


def test_redteam85_a_password_in_a_redirect_is_not_repeated_in_the_refusal(servers):  # noqa: F811
    message = _refusal(url(servers[0], "/redirect?to=" + quote("http://admin:s3cret@example.com/")))
    # (the URL fetched first holds the Location percent-encoded, and is named as it was given)
    assert "admin:s3cret@" not in message and "example.com" in message and "credentials" in message, message


def test_redteam85_ingest_url_names_a_long_file_address_in_a_short_line(app):
    """App.ingest_url refuses a file: address itself (before the source id's rule): a 100,000-character
    one came back whole."""
    with pytest.raises(UrlRefused) as refused:
        app.ingest_url("file:///" + "a" * LONG)
    assert len(str(refused.value)) < 600 and "'file'" in str(refused.value), str(refused.value)[:300]
