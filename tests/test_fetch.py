"""minirag.ingest.fetch against real HTTP(S) servers bound to 127.0.0.1 and 127.0.0.2 only.

Both test addresses are loopback, so end-to-end tests swap in a policy under which
127.0.0.1 stands for "the public internet" while every other address keeps its
real classification (127.0.0.2 stays "a loopback address"). Names resolve through a
fake socket.getaddrinfo, so no test ever asks real DNS or leaves the machine.
"""

from __future__ import annotations

import functools
import http.client
import ipaddress
import socket
import ssl
import time
from urllib.parse import quote, urlsplit

import pytest
from fetch_helpers import PAGE, FakeDns, Server, make_certificates, server_pair
from hypothesis import given
from hypothesis import strategies as st

from minirag import __version__
from minirag.ingest import fetch
from minirag.ingest.fetch import FetchedPage, FetchError, UrlRefused, blocked_reason, fetch_url

PUBLIC = ipaddress.ip_address("127.0.0.1")


@pytest.fixture
def dns(monkeypatch):
    fake = FakeDns()
    monkeypatch.setattr(socket, "getaddrinfo", fake)
    return fake


@pytest.fixture
def public_loopback(monkeypatch):
    """127.0.0.1 counts as public, and as another machine's; everything else is classified for real."""
    monkeypatch.setattr(fetch, "_policy", lambda ip: None if ip == PUBLIC else blocked_reason(ip))
    this_machine = fetch._this_machine
    monkeypatch.setattr(fetch, "_this_machine", lambda ip: ip != PUBLIC and this_machine(ip))


@pytest.fixture
def servers(dns, public_loopback):
    """(public, private): on 127.0.0.1 and 127.0.0.2, same port; public.test and private.test."""
    public, private = server_pair()
    dns.table.update({"public.test": ["127.0.0.1"], "private.test": ["127.0.0.2"]})
    yield public, private
    public.stop()
    private.stop()


@pytest.fixture
def bytes_read(monkeypatch):
    """Counts body bytes fetch_url pulls off the wire."""
    counter = {"total": 0}
    original = http.client.HTTPResponse.read

    def counting_read(self, amt=None):
        data = original(self, amt)
        counter["total"] += len(data)
        return data

    monkeypatch.setattr(http.client.HTTPResponse, "read", counting_read)
    return counter


def url(server: Server, path: str, host: str = "public.test", scheme: str = "http") -> str:
    return f"{scheme}://{host}:{server.port}{path}"


# --- address classification ---------------------------------------------------------


@pytest.mark.parametrize(
    ("address", "reason"),
    [
        ("127.0.0.1", "loopback"),
        ("127.255.255.254", "loopback"),
        ("::1", "loopback"),
        ("0.0.0.0", "unspecified"),
        ("::", "unspecified"),
        ("169.254.169.254", "link-local"),
        ("fe80::1", "link-local"),
        ("10.1.2.3", "private"),
        ("172.16.0.1", "private"),
        ("192.168.1.1", "private"),
        ("fd00::1", "private"),
        ("100.64.0.1", "carrier-grade NAT"),
        ("100.127.255.255", "carrier-grade NAT"),
        ("224.0.0.1", "multicast"),
        ("ff02::1", "multicast"),
        ("240.0.0.1", "reserved"),
        ("255.255.255.255", "reserved"),
        ("0.1.2.3", "private"),
        ("fec0::1", "site-local"),
        ("::ffff:127.0.0.1", "embedding 127.0.0.1, a loopback address"),
        ("::ffff:169.254.169.254", "embedding 169.254.169.254, a link-local address"),
        ("64:ff9b::a00:1", "embedding 10.0.0.1, a private address"),
        ("2002:c0a8:101::1", "embedding 192.168.1.1, a private address"),
        ("::127.0.0.1", "reserved"),
        ("2001:db8::1", "private"),
        # IETF protocol assignments; Python before 3.13 calls all but 192.0.0.0/29 and .170/31 global,
        # and 192.0.0.192 is Oracle Cloud's instance metadata service.
        ("192.0.0.192", "special-purpose"),
        ("192.0.0.100", "special-purpose"),
        ("::ffff:192.0.0.192", "embedding 192.0.0.192, a special-purpose address"),
    ],
)
def test_blocked_addresses_are_refused_with_their_reason(address, reason):
    assert reason in blocked_reason(ipaddress.ip_address(address))


@pytest.mark.parametrize(
    "address",
    [
        "8.8.8.8",
        "1.1.1.1",
        "93.184.215.14",
        "2606:4700:4700::1111",
        "::ffff:8.8.8.8",
        "64:ff9b::808:808",
    ],
)
def test_public_addresses_are_allowed(address):
    assert blocked_reason(ipaddress.ip_address(address)) is None


@pytest.mark.parametrize(
    ("spelling", "address"),
    [
        ("2130706433", "127.0.0.1"),
        ("0x7f000001", "127.0.0.1"),
        ("017700000001", "127.0.0.1"),
        ("0177.0.0.1", "127.0.0.1"),
        ("0x7f.0.0.1", "127.0.0.1"),
        ("0x7F.1", "127.0.0.1"),
        ("127.1", "127.0.0.1"),
        ("127.0.1", "127.0.0.1"),
        ("127.0.0.1.", "127.0.0.1"),
        ("0", "0.0.0.0"),
        ("169.254.43518", "169.254.169.254"),
    ],
)
def test_numeric_host_spellings_parse_like_inet_aton(spelling, address):
    assert fetch._parse_ipv4(spelling) == ipaddress.IPv4Address(address)
    assert socket.inet_aton(spelling.rstrip(".")) == ipaddress.IPv4Address(address).packed


@pytest.mark.parametrize(
    "name", ["example.com", "localhost", "1.2.3.4.5", "08.0.0.1", "0x", "256.1.1.1"]
)
def test_names_and_malformed_numbers_are_not_parsed_as_ipv4(name):
    assert fetch._parse_ipv4(name) is None


def _spell(value: int, parts: int, bases: list[int]) -> str:
    sizes = [1] * (parts - 1) + [5 - parts]
    numbers, shift = [], 32
    for size in sizes:
        shift -= 8 * size
        numbers.append((value >> shift) & ((1 << (8 * size)) - 1))
    formats = {10: str, 16: hex, 8: lambda n: "0" + format(n, "o") if n else "0"}
    return ".".join(formats[base](n) for n, base in zip(numbers, bases, strict=False))


@given(
    st.integers(0, 2**32 - 1),
    st.integers(1, 4),
    st.lists(st.sampled_from([8, 10, 16]), min_size=4, max_size=4),
)
@pytest.mark.slow
def test_every_inet_aton_spelling_of_an_address_parses_to_that_address(value, parts, bases):
    spelling = _spell(value, parts, bases)
    assert fetch._parse_ipv4(spelling) == ipaddress.IPv4Address(value)
    assert socket.inet_aton(spelling) == ipaddress.IPv4Address(value).packed


@given(st.text(alphabet="0123456789abcdefxX.", max_size=20))
def test_whatever_the_parser_accepts_inet_aton_reads_the_same_way(text):
    parsed = fetch._parse_ipv4(text)
    if parsed is not None:
        assert socket.inet_aton(text.removesuffix(".")) == parsed.packed


# --- refusals made before any lookup or connection -------------------------------------


@pytest.mark.parametrize(
    "target",
    [
        "http://127.0.0.1/",
        "http://2130706433/",
        "http://0x7f000001/",
        "http://0177.0.0.1/",
        "http://0x7f.0.0.1/",
        "http://127.1/",
        "http://127.0.0.1.:8080/admin",
        "http://0/",
        "http://[::1]/",
        "http://[::]/",
        "http://[::ffff:127.0.0.1]/",
        "http://[::ffff:7f00:1]/",
        "http://169.254.169.254/latest/meta-data/",
        "http://[fe80::1]/",
        "http://10.0.0.1/",
        "http://100.64.0.1/",
        "https://192.168.0.1/",
        "http://[64:ff9b::a9fe:a9fe]/",
        "http://[2002:a9fe:a9fe::]/",
    ],
)
def test_literal_blocked_hosts_are_refused_without_dns_or_connecting(target, dns, monkeypatch):
    monkeypatch.setattr(socket.socket, "connect", lambda *a: pytest.fail("connected"))
    with pytest.raises(UrlRefused) as refused:
        fetch_url(target)
    assert repr(urlsplit(target).hostname) in str(refused.value)
    assert dns.lookups == []


def test_refusal_names_the_host_as_written_and_the_reason():
    with pytest.raises(UrlRefused, match=r"'2130706433'.*127\.0\.0\.1 is a loopback address"):
        fetch_url("http://2130706433/")


@pytest.mark.parametrize(
    "target",
    [
        "file:///etc/passwd",
        "data:text/plain,hello",
        "ftp://example.com/file",
        "gopher://example.com/",
        "javascript:alert(1)",
        "//example.com/no-scheme",
        "example.com",
    ],
)
def test_schemes_other_than_http_and_https_are_refused(target, dns):
    with pytest.raises(UrlRefused, match="is not http or https"):
        fetch_url(target, allow_private=True)
    assert dns.lookups == []


def test_credentials_in_the_url_are_refused(dns):
    with pytest.raises(UrlRefused, match="credentials"):
        fetch_url("http://user:secret@example.com/")
    assert dns.lookups == []


@pytest.mark.parametrize(
    "target",
    [
        "http:///path",
        "http://1.2.3.4.5/",
        "http://[::1/",
        "http://a:bad/",
        "http://a%00b/",
        "http://a..b/",
    ],
)
def test_malformed_urls_are_fetch_errors(target, dns):
    with pytest.raises(FetchError):
        fetch_url(target)


def test_a_name_that_does_not_resolve_is_a_fetch_error_not_a_refusal(dns):
    with pytest.raises(FetchError, match="cannot resolve host 'nosuch.test'"):
        fetch_url("http://nosuch.test/")


def test_a_name_resolving_to_a_blocked_address_is_refused_naming_host_and_address(servers, dns):
    with pytest.raises(UrlRefused, match=r"'private\.test'.*127\.0\.0\.2, a loopback address"):
        fetch_url(url(servers[1], "/page", "private.test"))
    assert servers[1].requests == []


def test_a_name_with_any_blocked_address_is_refused(servers, dns):
    dns.table["mixed.test"] = ["127.0.0.1", "127.0.0.2"]
    with pytest.raises(UrlRefused, match=r"'mixed\.test'.*127\.0\.0\.2"):
        fetch_url(url(servers[0], "/page", "mixed.test"))
    assert servers[0].requests == [] and servers[1].requests == []


def test_the_real_policy_refuses_localhost_by_name(dns):
    dns.table["localhost"] = ["127.0.0.1", "::1"]
    with pytest.raises(UrlRefused, match="'localhost'.*loopback"):
        fetch_url("http://localhost:8080/admin")


# --- fetching -----------------------------------------------------------------------------


def test_a_plain_fetch_returns_the_page_with_its_type_and_charset(servers):
    page = fetch_url(url(servers[0], "/page"))
    assert page == FetchedPage(
        final_url=url(servers[0], "/page"),
        status=200,
        content_type="text/html",
        charset="iso-8859-1",
        body=PAGE,
    )


def test_the_request_carries_the_url_host_our_user_agent_and_identity_encoding(servers):
    fetch_url(url(servers[0], "/page?q=1#fragment"))
    (request,) = servers[0].requests
    assert request["path"] == "/page?q=1"
    assert request["headers"]["Host"] == f"public.test:{servers[0].port}"
    assert request["headers"]["User-Agent"] == f"minirag/{__version__}"
    assert request["headers"]["Accept-Encoding"] == "identity"


def test_a_response_without_content_type_is_octet_stream(servers):
    page = fetch_url(url(servers[0], "/untyped"))
    assert (page.content_type, page.charset) == ("application/octet-stream", None)


def test_allow_private_fetches_from_loopback_with_the_real_policy(monkeypatch):
    server = Server("127.0.0.1")
    try:
        target = f"http://127.0.0.1:{server.port}/page"
        with pytest.raises(UrlRefused, match="loopback"):
            fetch_url(target)
        assert fetch_url(target, allow_private=True).body == PAGE
    finally:
        server.stop()


def test_an_http_error_status_is_a_fetch_error(servers):
    with pytest.raises(FetchError, match="HTTP 404"):
        fetch_url(url(servers[0], "/nothing-here"))


def test_a_refused_connection_is_a_fetch_error(servers, dns):
    dns.table["closed.test"] = ["127.0.0.1"]
    probe = socket.socket()
    probe.bind(("127.0.0.1", 0))
    port = probe.getsockname()[1]
    probe.close()
    with pytest.raises(FetchError):
        fetch_url(f"http://closed.test:{port}/")


def test_a_body_shorter_than_its_content_length_is_a_fetch_error(servers):
    with pytest.raises(FetchError, match="early"):
        fetch_url(url(servers[0], "/short"))


@pytest.mark.parametrize("size", ["-5", "-0x5", "-1", "-0", "+5", "0x5", "1_0", "zz", "5zz", " "])
def test_a_malformed_chunk_size_is_one_clear_fetch_error(servers, size):
    with pytest.raises(FetchError) as caught:
        fetch_url(url(servers[0], "/chunked?size=" + quote(size)))
    message = str(caught.value)
    assert message.startswith("fetching 'http://public.test:") and "\n" not in message
    assert "failed: a malformed chunked body (chunk size" in message, message


def test_a_chunk_size_of_minus_one_cannot_read_past_the_byte_cap(servers, bytes_read):
    """http.client reads a chunk of size -1 to the end of the connection, in one read, whatever the cap."""
    with pytest.raises(FetchError, match="malformed chunked body"):
        fetch_url(url(servers[0], "/chunked?size=-1&tail=3000000"), max_bytes=100_000)
    assert bytes_read["total"] < 100_000


@pytest.mark.parametrize("size", ["5", "05", "5;name=value", "5 "])
def test_a_well_formed_chunked_body_is_read(servers, size):
    assert fetch_url(url(servers[0], "/chunked?size=" + quote(size))).body == b"hello"


# --- redirects ----------------------------------------------------------------------------


def test_relative_redirects_are_followed_up_to_five(servers):
    page = fetch_url(url(servers[0], "/chain/5"))
    assert page.body == b"end of chain"
    assert page.final_url == url(servers[0], "/chain/0")
    assert len(servers[0].requests) == 6


def test_a_sixth_redirect_is_a_fetch_error(servers):
    with pytest.raises(FetchError, match="too many redirects"):
        fetch_url(url(servers[0], "/chain/6"))
    assert len(servers[0].requests) == 6


def test_max_redirects_zero_follows_none(servers):
    with pytest.raises(FetchError, match="too many redirects"):
        fetch_url(url(servers[0], "/chain/1"), max_redirects=0)


@pytest.mark.parametrize("status", [301, 302, 303, 307, 308])
def test_a_redirect_into_a_private_host_is_refused_and_says_so(servers, status):
    public, private = servers
    target = url(public, f"/redirect?status={status}&to={url(private, '/page', 'private.test')}")
    with pytest.raises(UrlRefused, match=r"'private\.test': the fetch was redirected there"):
        fetch_url(target)
    assert private.requests == []


@pytest.mark.parametrize(
    "location",
    ["http://169.254.169.254/latest/meta-data/", "http://[::ffff:10.0.0.1]/", "http://2852039166/"],
)
def test_a_redirect_to_a_blocked_literal_address_is_refused(servers, location):
    with pytest.raises(UrlRefused, match="redirected there"):
        fetch_url(url(servers[0], f"/redirect?to={location}"))


def test_a_redirect_to_a_file_url_is_refused(servers):
    with pytest.raises(UrlRefused, match="redirected there.*'file' is not http or https"):
        fetch_url(url(servers[0], "/redirect?to=file:///etc/passwd"), allow_private=True)


def test_allow_private_also_lets_redirects_reach_private_hosts(servers):
    public, private = servers
    page = fetch_url(
        url(public, f"/redirect?to={url(private, '/page', 'private.test')}"), allow_private=True
    )
    assert page.body == PAGE
    assert len(private.requests) == 1


# --- DNS rebinding --------------------------------------------------------------------------


def test_a_rebinding_name_is_fetched_from_the_address_that_was_checked(servers, dns):
    public, private = servers
    answers = iter([["127.0.0.1"]])
    dns.table["rebind.test"] = lambda: next(answers, ["127.0.0.2"])
    page = fetch_url(url(public, "/page", "rebind.test"))
    assert page.body == PAGE
    assert dns.lookups == ["rebind.test"]
    assert [r["headers"]["Host"] for r in public.requests] == [f"rebind.test:{public.port}"]
    assert private.requests == []


def test_each_redirect_hop_is_resolved_once_and_connected_to_what_was_checked(servers, dns):
    public, private = servers
    answers = iter([["127.0.0.1"], ["127.0.0.1"]])
    dns.table["rebind.test"] = lambda: next(answers, ["127.0.0.2"])
    fetch_url(url(public, "/chain/1", "rebind.test"))
    assert dns.lookups == ["rebind.test", "rebind.test"]
    assert len(public.requests) == 2 and private.requests == []


@pytest.mark.parametrize("encoding", ["gzip", "x-gzip", "br", "deflate, gzip"])
def test_a_compressed_body_sent_though_identity_was_asked_is_one_clear_fetch_error(servers, encoding):
    with pytest.raises(FetchError, match=f"compressed .Content-Encoding: {encoding}.*not decoded"):
        fetch_url(url(servers[0], f"/encoded?encoding={quote(encoding)}"))


@pytest.mark.parametrize("encoding", ["identity", "none", "utf-8"])
def test_a_body_whose_content_encoding_is_not_a_compression_is_read_as_it_is(servers, encoding):
    assert fetch_url(url(servers[0], f"/encoded?encoding={encoding}")).body == PAGE


# --- size and time limits --------------------------------------------------------------------


@pytest.mark.parametrize("length", ["1", "0"])
def test_a_body_of_exactly_max_bytes_is_accepted(servers, length):
    page = fetch_url(url(servers[0], f"/big?n=1000&length={length}"), max_bytes=1000)
    assert len(page.body) == 1000


def test_an_oversized_content_length_is_refused_before_reading_the_body(servers, bytes_read):
    with pytest.raises(FetchError, match="larger than the 1000-byte limit"):
        fetch_url(url(servers[0], "/big?n=5000&length=1"), max_bytes=1000)
    assert bytes_read["total"] == 0


def test_an_oversized_body_without_content_length_stops_one_byte_past_the_limit(
    servers, bytes_read
):
    with pytest.raises(FetchError, match="larger than the 100000-byte limit"):
        fetch_url(url(servers[0], "/endless"), max_bytes=100_000)
    assert bytes_read["total"] == 100_001


@pytest.mark.slow  # waits on real timeouts or file events: about a second
def test_a_server_that_never_answers_times_out(servers):
    started = time.monotonic()
    with pytest.raises(FetchError, match="timed out"):
        fetch_url(url(servers[0], "/slow"), timeout=1)
    assert time.monotonic() - started < 2.5  # the server answers at 3 s: room for a loaded machine, not for it


@pytest.mark.slow  # waits on real timeouts or file events: about a second
def test_a_server_trickling_headers_is_cut_off_at_the_total_timeout(servers):
    started = time.monotonic()
    with pytest.raises(FetchError, match="timed out"):
        fetch_url(url(servers[0], "/trickle"), timeout=1)
    assert time.monotonic() - started < 2.5  # the trickle lasts 4 s: each read's own timeout would wait it out


@pytest.mark.slow  # waits on real timeouts or file events: about a second
def test_the_timeout_covers_all_redirect_hops_together(servers):
    with pytest.raises(FetchError, match="timed out"):
        fetch_url(url(servers[0], "/chain/4?delay=0.3"), timeout=1)


def test_a_hanging_dns_lookup_times_out(dns, monkeypatch):
    dns.table["hang.test"] = lambda: time.sleep(3) or ["127.0.0.1"]
    started = time.monotonic()
    with pytest.raises(FetchError, match="timed out"):
        fetch_url("http://hang.test/", timeout=0.5)
    assert time.monotonic() - started < 2.5  # the lookup answers at 3 s


# --- https ---------------------------------------------------------------------------------------


@pytest.fixture
def tls_server(tmp_path, dns, public_loopback, monkeypatch):
    pytest.importorskip("cryptography")
    ca, cert, key = make_certificates(tmp_path, "secure.test")
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    names: list[str | None] = []
    context.sni_callback = lambda sock, name, ctx: names.append(name)
    server = Server("127.0.0.1", tls=context)
    server.sni = names
    monkeypatch.setattr(
        ssl, "create_default_context", functools.partial(ssl.create_default_context, cafile=str(ca))
    )
    dns.table.update({"secure.test": ["127.0.0.1"], "impostor.test": ["127.0.0.1"]})
    yield server
    server.stop()


def test_https_connects_to_the_pinned_address_with_sni_and_host_of_the_url(tls_server):
    page = fetch_url(url(tls_server, "/page", "secure.test", "https"))
    assert page.body == PAGE
    assert tls_server.sni == ["secure.test"]
    assert tls_server.requests[0]["headers"]["Host"] == f"secure.test:{tls_server.port}"


def test_https_verifies_the_certificate_against_the_url_host(tls_server):
    with pytest.raises(FetchError, match="certificate"):
        fetch_url(url(tls_server, "/page", "impostor.test", "https"))
    assert tls_server.requests == []


def test_ipv6_literals_keep_their_brackets_in_the_host_header():
    target = fetch._Target.parse("http://[2606:4700::1111]:8080/x", None)
    assert (target.host, target.port, target.host_header) == (
        "2606:4700::1111",
        8080,
        "[2606:4700::1111]:8080",
    )


def test_the_resolver_is_a_module_seam_tests_can_replace(servers, monkeypatch):
    monkeypatch.setattr(fetch, "_resolve", lambda host, port: ["127.0.0.1"])
    assert fetch_url(url(servers[0], "/page", "anything.test")).body == PAGE


def test_international_names_are_looked_up_and_sent_in_idna_form(servers, dns):
    dns.table["xn--bcher-kva.test"] = ["127.0.0.1"]
    fetch_url(url(servers[0], "/page", "bücher.test"))
    assert dns.lookups == ["xn--bcher-kva.test"]
    assert servers[0].requests[0]["headers"]["Host"] == f"xn--bcher-kva.test:{servers[0].port}"


def test_non_ascii_in_the_path_is_percent_encoded(servers):
    fetch_url(url(servers[0], "/page?q=é x"))
    assert servers[0].requests[0]["path"] == "/page?q=%C3%A9%20x"
