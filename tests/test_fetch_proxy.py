"""ingest_url behind a proxy: HTTPS_PROXY / HTTP_PROXY / NO_PROXY, through a small real proxy on
loopback written here (CONNECT tunnels and absolute-form requests), with the address checks still
made on the target. Names resolve through the fake resolver of test_fetch; nothing leaves the machine."""

from __future__ import annotations

import base64
import contextlib
import select
import socket
import socketserver
import threading
import time

import pytest
from fetch_helpers import PAGE
from test_fetch import dns, public_loopback, servers, tls_server, url  # noqa: F401 - fixtures

from minirag.ingest.fetch import FetchError, UrlRefused, fetch_url


class _ProxyHandler(socketserver.StreamRequestHandler):
    server: Proxy

    def handle(self) -> None:
        head = b""
        while b"\r\n\r\n" not in head:
            data = self.connection.recv(4096)
            if not data:
                return
            head += data
        head, _, rest = head.partition(b"\r\n\r\n")
        request_line, *header_lines = head.decode("latin-1").split("\r\n")
        headers = dict(line.split(": ", 1) for line in header_lines)
        method, target, _ = request_line.split(" ")
        self.server.seen.append((method, target, headers.get("Proxy-Authorization")))
        if self.server.refuse:
            self.connection.sendall(b"HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n")
            return
        if method == "CONNECT" and self.server.trickle:  # each byte quick, the whole answer not
            self.connection.sendall(b"HTTP/1.1 200 Connection established\r\nX-Drip: ")
            for _ in range(40):
                self.connection.sendall(b"a")
                time.sleep(0.1)
            return
        if method == "CONNECT":
            upstream = self.server.open(target)
            self.connection.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
            self._pipe(upstream, rest)
        else:  # absolute-form: http://host:port/path
            authority, _, path = target.removeprefix("http://").partition("/")
            upstream = self.server.open(authority)
            upstream.sendall(f"{method} /{path} HTTP/1.1\r\n".encode() + "".join(
                f"{k}: {v}\r\n" for k, v in headers.items() if k != "Proxy-Authorization").encode()
                + b"\r\n" + rest)
            self._pipe(upstream, b"")

    def _pipe(self, upstream: socket.socket, pending: bytes) -> None:
        if pending:
            upstream.sendall(pending)
        with upstream:
            sockets = [self.connection, upstream]
            while True:
                readable, _, _ = select.select(sockets, [], [], 5)
                if not readable:
                    return
                for sock in readable:
                    data = sock.recv(65536)
                    if not data:
                        return
                    (upstream if sock is self.connection else self.connection).sendall(data)


class Proxy(socketserver.ThreadingTCPServer):
    """An http proxy on 127.0.0.1 that sends every host to 127.0.0.1 (the test servers' address)."""

    daemon_threads = True
    allow_reuse_address = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _ProxyHandler)
        self.seen: list[tuple[str, str, str | None]] = []
        self.refuse = False
        self.trickle = False
        threading.Thread(target=self.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()

    @property
    def port(self) -> int:
        return self.server_address[1]

    def open(self, authority: str) -> socket.socket:
        port = int(authority.rsplit(":", 1)[1])
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.connect(("127.0.0.1", port))
        return sock

    def stop(self) -> None:
        self.shutdown()
        self.server_close()


@pytest.fixture
def proxy(monkeypatch, dns):  # noqa: F811
    server = Proxy()
    dns.table["proxy.test"] = ["127.0.0.1"]
    for name in ("HTTPS_PROXY", "HTTP_PROXY", "NO_PROXY", "https_proxy", "http_proxy", "no_proxy",
                 "ALL_PROXY", "all_proxy", "REQUEST_METHOD"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HTTPS_PROXY", f"http://proxy.test:{server.port}")
    monkeypatch.setenv("HTTP_PROXY", f"http://user:p%40ss@proxy.test:{server.port}")
    yield server
    with contextlib.suppress(OSError):
        server.stop()


def test_an_https_url_goes_through_a_connect_tunnel_with_tls_to_the_target(proxy, tls_server):  # noqa: F811
    page = fetch_url(url(tls_server, "/page", "secure.test", "https"))
    assert page.body == PAGE
    assert proxy.seen == [("CONNECT", f"secure.test:{tls_server.port}", None)]
    assert tls_server.sni == ["secure.test"]  # TLS end to end: the proxy sees no plain text


def test_an_http_url_is_asked_of_the_proxy_in_absolute_form_with_its_credentials(proxy, servers):  # noqa: F811
    public, _ = servers
    page = fetch_url(url(public, "/page"))
    assert page.body == PAGE
    credentials = "Basic " + base64.b64encode(b"user:p@ss").decode()
    assert proxy.seen == [("GET", f"http://public.test:{public.port}/page", credentials)]
    assert public.requests[0]["headers"]["Host"] == f"public.test:{public.port}"


def test_no_proxy_hosts_are_fetched_directly(proxy, servers, monkeypatch):  # noqa: F811
    public, _ = servers
    monkeypatch.setenv("NO_PROXY", "example.org,public.test")
    assert fetch_url(url(public, "/page")).body == PAGE
    assert proxy.seen == []


def test_the_target_is_still_checked_through_a_proxy(proxy, servers):  # noqa: F811
    _, private = servers
    with pytest.raises(UrlRefused, match="private.test.*127.0.0.2, a loopback address"):
        fetch_url(url(private, "/page", "private.test"))
    with pytest.raises(UrlRefused, match="169.254.169.254 is a link-local address"):
        fetch_url("http://169.254.169.254/latest/meta-data/")
    assert proxy.seen == []  # nothing was asked of the proxy


def test_a_name_only_the_proxy_could_resolve_is_refused_unless_private_hosts_are_allowed(proxy, servers):  # noqa: F811
    public, _ = servers
    target = url(public, "/page", "intranet.corp")
    with pytest.raises(UrlRefused, match="does not resolve here.*ALLOW_PRIVATE_URLS=1"):
        fetch_url(target)
    assert proxy.seen == []
    assert fetch_url(target, allow_private=True).body == PAGE  # the proxy resolves it
    assert proxy.seen == [("GET", f"http://intranet.corp:{public.port}/page", proxy.seen[0][2])]


def test_a_proxy_that_refuses_the_tunnel_is_one_clear_error(proxy, tls_server):  # noqa: F811
    proxy.refuse = True
    with pytest.raises(FetchError, match=r"the proxy http://proxy.test:\d+ refused a tunnel to secure.test:\d+: "
                                         "HTTP 403 Forbidden"):
        fetch_url(url(tls_server, "/page", "secure.test", "https"))


@pytest.mark.slow  # waits on a real timeout: about a second
def test_a_proxy_trickling_its_tunnel_answer_is_cut_off_at_the_total_timeout(proxy, tls_server):  # noqa: F811
    proxy.trickle = True
    started = time.monotonic()
    with pytest.raises(FetchError, match="timed out"):
        fetch_url(url(tls_server, "/page", "secure.test", "https"), timeout=1)
    assert time.monotonic() - started < 2.5


@pytest.mark.parametrize("proxy_url", ["http://{long}:8080", "socks5://{long}:1080", "http://proxy.test:{long}"])
def test_a_proxy_variable_of_any_length_is_named_in_a_short_line(monkeypatch, proxy_url):
    """A 100,000-character HTTPS_PROXY came back whole inside the error: a 100 KB line."""
    long = "p" * 100_000
    monkeypatch.setenv("HTTPS_PROXY", proxy_url.format(long=long))
    with pytest.raises((UrlRefused, FetchError)) as refused:
        fetch_url("https://intranet.corp/page")
    assert len(str(refused.value)) < 600 and "(100" in str(refused.value), str(refused.value)[:300]
