"""Fetch one http(s) URL without letting it reach loopback, link-local or private networks.

Every hop (the URL given and each redirect) is resolved once, every address it
resolves to is checked, and the TCP connection goes to one of exactly those
checked addresses. Nothing resolves the name a second time, so a DNS answer that
changes between the check and the connection (DNS rebinding) cannot redirect the
fetch. ``Host``, SNI and certificate verification still use the name from the URL.

Behind a proxy (``HTTPS_PROXY`` / ``HTTP_PROXY``, less ``NO_PROXY``, as curl and
urllib read them) the connection goes to the proxy: an https URL through a CONNECT
tunnel (TLS end to end, the certificate checked against the URL's host), an http
URL as an absolute-form request. The proxy is the user's choice and is not checked;
the target still is: its name is resolved here and every address checked, and a
name that does not resolve here is refused (the proxy could take it anywhere)
unless private hosts are allowed. The proxy resolves the name again itself, so the
pinning above cannot hold through it.
"""

from __future__ import annotations

import contextlib
import http.client
import ipaddress
import re
import socket
import ssl
import threading
import time
import urllib.request
from base64 import b64encode
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from urllib.parse import quote, unquote, urljoin, urlsplit

from minirag import __version__, display
from minirag.errors import FetchError, UrlRefused
from minirag.ingest.this_machine import is_this_machine

__all__ = ["FetchError", "FetchedPage", "UrlRefused", "blocked_reason", "fetch_url", "named_url"]

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

_REDIRECTS = frozenset({301, 302, 303, 307, 308})
_CHUNK = 64 * 1024
_COMPRESSIONS = frozenset({"gzip", "x-gzip", "deflate", "br", "zstd", "compress", "x-compress"})
_SHARED_ADDRESS_SPACE = ipaddress.ip_network("100.64.0.0/10")  # carrier-grade NAT, RFC 6598
# RFC 6890 IETF protocol assignments (Oracle Cloud's metadata service is 192.0.0.192): Python before
# 3.13 calls all but 192.0.0.0/29 and 192.0.0.170/31 of it global.
_IETF_PROTOCOL_ASSIGNMENTS = ipaddress.ip_network("192.0.0.0/24")
_NAT64_WELL_KNOWN = ipaddress.ip_network("64:ff9b::/96")  # RFC 6052: low 32 bits are IPv4
_HOSTNAME = re.compile(r"[a-z0-9_-]+(\.[a-z0-9_-]+)*\.?")
_IPV4_PART = re.compile(r"0[xX][0-9a-fA-F]+|0[0-7]*|[1-9][0-9]*")
# The user:password@ of an address's authority (up to its last @ before the path, query or fragment),
# whatever comes before its // (the URL parser drops tabs and control characters a scheme may hold).
_USERINFO = re.compile(r"^([^/?#]*//)[^/?#]*@")
_SHOWN_CHARS = 200  # of an address or a server's words in a message: a URL, a Location may be any length


def named_url(url: str) -> str:
    """`url` quoted for a message: shortened, and any password it carries left out (a refused URL's
    credentials would reach the terminal, the server's log and an agent's transcript)."""
    return repr(display.shown(_USERINFO.sub(r"\1***@", url.strip()), _SHOWN_CHARS))


def _quoted(text: str) -> str:
    return repr(display.shown(text, _SHOWN_CHARS))


@dataclass(frozen=True)
class FetchedPage:
    """A fetched body. ``content_type`` is the bare lowercased mimetype, octet-stream if unsent."""

    final_url: str
    status: int
    content_type: str
    charset: str | None
    body: bytes


def blocked_reason(ip: IPAddress) -> str | None:
    """Why fetching from ``ip`` is refused, as a phrase ("a loopback address"), or None."""
    if isinstance(ip, ipaddress.IPv6Address):
        embedded = _embedded_ipv4(ip)
        if embedded is not None:
            inner = blocked_reason(embedded)
            if inner is not None:
                return f"an IPv6 address embedding {embedded}, {inner}"
            if ip.ipv4_mapped is not None or ip in _NAT64_WELL_KNOWN:
                return None  # these prefixes only ever carry the IPv4 address they embed
    if ip.is_unspecified:
        return "the unspecified address"
    if ip.is_loopback:
        return "a loopback address"
    if ip.is_link_local:
        return "a link-local address"
    if ip.is_multicast:
        return "a multicast address"
    if isinstance(ip, ipaddress.IPv4Address) and ip in _SHARED_ADDRESS_SPACE:
        return "a carrier-grade NAT address"
    if isinstance(ip, ipaddress.IPv4Address) and ip in _IETF_PROTOCOL_ASSIGNMENTS:
        return "a special-purpose address"
    if ip.is_reserved:
        return "a reserved address"
    if ip.is_private:
        return "a private address"
    if isinstance(ip, ipaddress.IPv6Address) and ip.is_site_local:
        return "a site-local address"
    if not ip.is_global:
        return "not a globally routable address"
    return None


def _embedded_ipv4(ip: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    if ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    if ip.sixtofour is not None:
        return ip.sixtofour
    if ip in _NAT64_WELL_KNOWN:
        return ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
    return None


def _system_resolve(host: str, port: int) -> list[str]:
    return [str(info[4][0]) for info in socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)]


# Test seams: looked up at call time, so tests can monkeypatch them.
_resolve: Callable[[str, int], Iterable[str | IPAddress]] = _system_resolve
_policy: Callable[[IPAddress], str | None] = blocked_reason
_this_machine: Callable[[IPAddress], bool] = is_this_machine
THIS_MACHINE = "an address of this machine"


def _refusal_reason(ip: IPAddress) -> str | None:
    """Why `ip` is refused: its range, or (whatever its range) that it is one of this machine's own
    addresses, which reaches every service bound to 0.0.0.0 here."""
    reason = _policy(ip)
    if reason is None and _this_machine(ip):
        return THIS_MACHINE
    return reason


def fetch_url(
    url: str,
    *,
    allow_private: bool = False,
    max_bytes: int = 20 * 1024 * 1024,
    timeout: float = 30.0,
    max_redirects: int = 5,
) -> FetchedPage:
    """GET ``url``, following at most ``max_redirects`` redirects, within ``timeout`` seconds in all.

    Raises UrlRefused for a non-http(s) scheme, credentials in the URL, or a host (given or
    redirected to) that is or resolves to a blocked address; ``allow_private`` lifts only
    the address check. Raises FetchError for everything else that stops the fetch.
    """
    deadline = _Deadline(timeout, url)
    current, came_from = url, None
    for _ in range(max_redirects + 1):
        target = _Target.parse(current, came_from)
        proxy = _proxy_for(target)
        try:
            addresses = _addresses(target, deadline)
        except FetchError as exc:
            if proxy is None:
                raise
            if not allow_private:  # the proxy could resolve it to anything, its own loopback included
                raise UrlRefused(f"refused host {_quoted(target.written_host)}: it does not resolve here ({exc}), so "
                                 f"where the proxy {proxy.shown} would take it cannot be checked; "
                                 "ALLOW_PRIVATE_URLS=1 lets the proxy resolve it") from None
            addresses = []
        if not allow_private:
            for ip in addresses:
                if (reason := _refusal_reason(ip)) is not None:
                    raise UrlRefused(target.refusal(ip, reason))
        result = _get(target, addresses, deadline, max_bytes, proxy)
        if isinstance(result, FetchedPage):
            return result
        try:
            current, came_from = urljoin(current, result), current
        except ValueError as exc:  # a Location no URL parser reads ('http://[oops]/')
            raise FetchError(f"{named_url(current)} redirected to {named_url(result)}, which is no URL: "
                             f"{display.shown(str(exc), _SHOWN_CHARS)}") from None
    raise FetchError(f"too many redirects fetching {named_url(url)}: more than {max_redirects}")


@dataclass(frozen=True)
class _Proxy:
    host: str
    port: int
    authorization: str | None  # the Proxy-Authorization value, from credentials in the proxy URL
    shown: str  # for messages: the proxy's URL without credentials


def _proxy_for(target: _Target) -> _Proxy | None:
    """The proxy the environment names for `target` (HTTPS_PROXY or HTTP_PROXY by its scheme, unless
    NO_PROXY covers its host), or None to connect directly."""
    proxies = urllib.request.getproxies_environment()
    raw = proxies.get("https" if target.tls else "http", "").strip()
    bypass = urllib.request.proxy_bypass_environment  # type: ignore[attr-defined]  # undocumented: typeshed omits it
    if not raw or bypass(f"{target.host}:{target.port}", proxies):
        return None
    try:
        parts = urlsplit(raw if "://" in raw else f"http://{raw}")
        port = parts.port or 80
    except ValueError as exc:
        raise FetchError(f"bad proxy URL in the environment: {display.shown(str(exc))}") from None
    shown = display.shown(f"{parts.scheme}://{parts.hostname}:{port}", 120)  # a 100,000-character variable
    if parts.scheme != "http" or not parts.hostname:
        raise FetchError(f"unsupported proxy {shown}: minirag speaks to http:// proxies (HTTPS_PROXY / HTTP_PROXY)")
    authorization = None
    if parts.username is not None:
        credentials = f"{unquote(parts.username)}:{unquote(parts.password or '')}".encode()
        authorization = "Basic " + b64encode(credentials).decode("ascii")
    return _Proxy(parts.hostname, port, authorization, shown)


def _to_proxy(proxy: _Proxy, deadline: _Deadline) -> socket.socket:
    try:
        return socket.create_connection((proxy.host, proxy.port), timeout=deadline.remaining())
    except OSError as exc:
        deadline.remaining()
        raise FetchError(f"cannot connect to the proxy {proxy.shown}: {exc}") from exc


def _open_tunnel(sock: socket.socket, proxy: _Proxy, target: _Target, deadline: _Deadline) -> None:
    """CONNECT through the proxy on `sock` to the target's host and port."""
    literal = target.literal
    authority = (f"[{literal.compressed}]:{target.port}" if literal is not None and literal.version == 6
                 else f"{target.host}:{target.port}")
    request = f"CONNECT {authority} HTTP/1.1\r\nHost: {authority}\r\n"
    if proxy.authorization:
        request += f"Proxy-Authorization: {proxy.authorization}\r\n"
    try:
        sock.sendall((request + "\r\n").encode("ascii"))
        response = http.client.HTTPResponse(sock, method="CONNECT")
        response.begin()
    except (OSError, http.client.HTTPException) as exc:
        sock.close()
        deadline.remaining()
        raise FetchError(f"the proxy {proxy.shown} failed to open a tunnel to {display.shown(authority, _SHOWN_CHARS)}: "
                         f"{display.shown(repr(exc), _SHOWN_CHARS)}") from exc
    if response.status != 200:
        sock.close()
        raise FetchError(f"the proxy {proxy.shown} refused a tunnel to {display.shown(authority, _SHOWN_CHARS)}: "
                         f"HTTP {response.status} {display.shown(response.reason, _SHOWN_CHARS)}")


class _Deadline:
    def __init__(self, seconds: float, url: str) -> None:
        self._end = time.monotonic() + seconds
        self._message = f"timed out fetching {named_url(url)}: over the {seconds:g}s limit"

    def remaining(self) -> float:
        left = self._end - time.monotonic()
        if left <= 0:
            raise FetchError(self._message)
        return left


@dataclass(frozen=True)
class _Target:
    url: str
    came_from: str | None
    tls: bool
    written_host: str  # as the URL spells it, for messages
    host: str  # ASCII name, or the canonical text of an IP literal
    literal: IPAddress | None
    port: int
    host_header: str
    request_target: str

    @classmethod
    def parse(cls, url: str, came_from: str | None) -> _Target:
        def refuse(what: str) -> UrlRefused:
            if came_from is None:
                return UrlRefused(f"refused {named_url(url)}: {what}")
            return UrlRefused(
                f"refused {named_url(url)}: the fetch was redirected there from {named_url(came_from)}; {what}"
            )

        try:
            parts = urlsplit(url)
            explicit_port = parts.port
        except ValueError as exc:
            raise FetchError(f"bad URL {named_url(url)}: {display.shown(str(exc), _SHOWN_CHARS)}") from None
        scheme = parts.scheme.lower()
        if scheme not in ("http", "https"):
            raise refuse(f"scheme {_quoted(scheme or '(none)')} is not http or https")
        # Never sent anyway; refusing beats silently fetching something other than what was asked.
        if "@" in parts.netloc:
            raise refuse("URLs with embedded credentials are not fetched")
        if not parts.hostname:
            raise FetchError(f"bad URL {named_url(url)}: no host")
        if explicit_port == 0:  # no server listens there; a connection would have gone to the default port
            raise FetchError(f"bad URL {named_url(url)}: port 0 is no port a server listens on")

        literal = _ip_literal(parts.hostname, url)
        if literal is not None:
            host = str(literal)
            authority = f"[{literal.compressed}]" if literal.version == 6 else host
        else:
            try:
                host = parts.hostname.encode("idna").decode("ascii")
            except UnicodeError as exc:
                raise FetchError(f"bad host in {named_url(url)}: {display.shown(str(exc), _SHOWN_CHARS)}") from None
            if not _HOSTNAME.fullmatch(host):
                raise FetchError(f"bad host in {named_url(url)}")
            authority = host
        if explicit_port is not None:
            authority += f":{explicit_port}"

        request_target = parts.path or "/"
        if parts.query:
            request_target += "?" + parts.query
        request_target = re.sub(r"[^\x21-\x7e]", lambda m: quote(m.group()), request_target)

        return cls(
            url=url,
            came_from=came_from,
            tls=scheme == "https",
            written_host=parts.hostname,
            host=host,
            literal=literal,
            port=explicit_port or (443 if scheme == "https" else 80),
            host_header=authority,
            request_target=request_target,
        )

    def refusal(self, ip: IPAddress, reason: str) -> str:
        where = (
            f"{ip} is {reason}" if self.literal is not None else f"it resolves to {ip}, {reason}"
        )
        if self.came_from is None:
            return f"refused host {_quoted(self.written_host)}: {where}"
        return (
            f"refused host {_quoted(self.written_host)}: the fetch was redirected there from "
            f"{named_url(self.came_from)}, and {where}"
        )


def _ip_literal(hostname: str, url: str) -> IPAddress | None:
    """The address a host spells literally, in any form resolvers accept (``127.1``, ``0x7f.0.0.1``)."""
    if ":" in hostname:
        try:
            return ipaddress.IPv6Address(hostname)
        except ValueError:
            raise FetchError(f"bad IPv6 address in {named_url(url)}") from None
    address = _parse_ipv4(hostname)
    if address is None and _IPV4_PART.fullmatch(hostname.rstrip(".").rpartition(".")[2]):
        # A numeric last label is never a DNS name (WHATWG URL rule); it is a malformed address.
        raise FetchError(f"bad IPv4 address in {named_url(url)}")
    return address


def _parse_ipv4(host: str) -> ipaddress.IPv4Address | None:
    """Parse inet_aton-style IPv4 (1-4 parts, each decimal, 0-octal or 0x-hex), else None."""
    parts = host.split(".")
    if len(parts) > 1 and parts[-1] == "":
        parts.pop()
    if not 1 <= len(parts) <= 4 or not all(_IPV4_PART.fullmatch(p) for p in parts):
        return None
    numbers = []
    for part in parts:
        if part[:2].lower() == "0x":
            numbers.append(int(part[2:], 16))
        elif len(part) > 1 and part[0] == "0":
            numbers.append(int(part, 8))
        else:
            numbers.append(int(part))
    *leading, last = numbers
    if any(n > 255 for n in leading) or last >= 256 ** (4 - len(leading)):
        return None
    value = last
    for index, n in enumerate(leading):
        value += n << (8 * (3 - index))
    return ipaddress.IPv4Address(value)


def _addresses(target: _Target, deadline: _Deadline) -> list[IPAddress]:
    if target.literal is not None:
        return [target.literal]
    # getaddrinfo cannot be interrupted, so it runs aside and is abandoned at the deadline.
    box: list[list[IPAddress] | Exception] = []

    def lookup() -> None:
        try:
            box.append([ipaddress.ip_address(str(a)) for a in _resolve(target.host, target.port)])
        except Exception as exc:
            box.append(exc)

    thread = threading.Thread(target=lookup, name="minirag-fetch-resolve", daemon=True)
    thread.start()
    thread.join(deadline.remaining())
    if not box:
        deadline.remaining()
        raise FetchError(f"timed out resolving {_quoted(target.host)}")
    result = box[0]
    if isinstance(result, Exception) or not result:
        raise FetchError(f"cannot resolve host {_quoted(target.host)}: {result or 'no addresses'}")
    return list(dict.fromkeys(result))


class _Watchdog:
    """Shuts a socket down at the deadline, waking whatever read is blocked on it.

    Per-call socket timeouts alone would let a server that trickles bytes run forever.
    It holds its own duplicate descriptor so it never touches a closed-and-reused one.
    """

    def __init__(self, sock: socket.socket, seconds: float) -> None:
        self._handle: socket.socket | None = sock.dup()
        self._lock = threading.Lock()
        self.fired = False
        self._timer = threading.Timer(seconds, self._fire)
        self._timer.daemon = True
        self._timer.start()

    def _fire(self) -> None:
        with self._lock:
            if self._handle is None:
                return
            self.fired = True
            with contextlib.suppress(OSError):
                self._handle.shutdown(socket.SHUT_RDWR)

    def stop(self) -> None:
        self._timer.cancel()
        with self._lock:
            if self._handle is not None:
                self._handle.close()
                self._handle = None


class MalformedChunk(http.client.HTTPException):
    """A chunk size that is not plain hex digits (not a ValueError: http.client would turn that into
    a bare IncompleteRead)."""


_CHUNK_SIZE = re.compile(rb"[0-9A-Fa-f]{1,16}")
_MAXLINE: int = http.client._MAXLINE  # type: ignore[attr-defined]  # http.client's own line limit (private; typeshed omits it)


class _StrictChunkedResponse(http.client.HTTPResponse):
    """http.client's response, with a chunk size of plain hex digits only. It parses the size with
    int(line, 16), which takes '-1' (then reads the connection to its end, past any byte cap),
    '-5' (a ValueError from the read), '0x5', '+5' and '1_0'."""

    def _read_next_chunk_size(self) -> int:
        line = self.fp.readline(_MAXLINE + 1)
        if len(line) > _MAXLINE:
            raise http.client.LineTooLong("chunk size")
        size = line.split(b";", 1)[0].strip(b" \t\r\n")
        if not _CHUNK_SIZE.fullmatch(size):
            self._close_conn()  # type: ignore[attr-defined]  # http.client's own, which typeshed omits
            raise MalformedChunk(f"a malformed chunked body (chunk size {size[:20]!r})")
        return int(size, 16)


class _PinnedConnection(http.client.HTTPConnection):
    """An HTTP(S) connection to already-checked addresses that never resolves the host itself."""

    response_class = _StrictChunkedResponse

    def __init__(self, target: _Target, addresses: list[IPAddress], deadline: _Deadline,
                 proxy: _Proxy | None = None) -> None:
        super().__init__(target.host, target.port, timeout=deadline.remaining())
        self._target = target
        self._addresses = addresses
        self._deadline = deadline
        self._proxy = proxy
        self.watchdog: _Watchdog | None = None

    def connect(self) -> None:
        if self._proxy is not None:
            sock = _to_proxy(self._proxy, self._deadline)
        else:
            sock = _connect_any(self._addresses, self.port, self._deadline)
        self.watchdog = _Watchdog(sock, self._deadline.remaining())  # before a proxy's answer to CONNECT too
        if self._proxy is not None and self._target.tls:
            _open_tunnel(sock, self._proxy, self._target, self._deadline)
        if self._target.tls:
            context = ssl.create_default_context()
            sock = context.wrap_socket(sock, server_hostname=self._target.host)
        self.sock = sock


def _connect_any(addresses: list[IPAddress], port: int, deadline: _Deadline) -> socket.socket:
    error: OSError | None = None
    for ip in addresses:
        family = socket.AF_INET6 if ip.version == 6 else socket.AF_INET
        sock = socket.socket(family, socket.SOCK_STREAM)
        try:
            sock.settimeout(deadline.remaining())
            sock.connect((str(ip), port))
            return sock
        except OSError as exc:
            sock.close()
            error = exc
    raise error or OSError("no address to connect to")


def _get(
    target: _Target, addresses: list[IPAddress], deadline: _Deadline, max_bytes: int,
    proxy: _Proxy | None = None,
) -> FetchedPage | str:
    """One request: the page, or the Location of a redirect."""
    conn = _PinnedConnection(target, addresses, deadline, proxy)
    plain_proxy = proxy if not target.tls else None  # an http URL is asked of the proxy in full
    try:
        request_target = f"http://{target.host_header}{target.request_target}" if plain_proxy else (
            target.request_target)
        conn.putrequest("GET", request_target, skip_host=True, skip_accept_encoding=True)
        conn.putheader("Host", target.host_header)
        if plain_proxy and plain_proxy.authorization:
            conn.putheader("Proxy-Authorization", plain_proxy.authorization)
        conn.putheader("User-Agent", f"minirag/{__version__}")
        conn.putheader("Accept", "*/*")
        conn.putheader("Accept-Encoding", "identity")
        conn.putheader("Connection", "close")
        conn.endheaders()
        response = conn.getresponse()
        deadline.remaining()
        location = response.getheader("Location")
        if response.status in _REDIRECTS and location:
            response.close()
            return location
        if response.status >= 400:
            raise FetchError(f"HTTP {response.status} {display.shown(response.reason, _SHOWN_CHARS)} from "
                             f"{named_url(target.url)}")
        _refuse_compressed(response, target.url)
        body = _read_capped(response, max_bytes, target.url)
        if conn.watchdog is not None and conn.watchdog.fired:
            deadline.remaining()  # raises: the watchdog only fires at the deadline
        if response.length:  # http.client reports a short Content-Length body as a clean EOF
            raise FetchError(f"{named_url(target.url)} closed the connection {response.length} bytes early")
        return FetchedPage(
            final_url=target.url,
            status=response.status,
            content_type=_mimetype(response.getheader("Content-Type")),
            charset=response.headers.get_content_charset(),
            body=body,
        )
    except (OSError, http.client.HTTPException) as exc:
        deadline.remaining()
        why = str(exc) if isinstance(exc, MalformedChunk) else repr(exc)  # a status line http.client refused: any length
        raise FetchError(f"fetching {named_url(target.url)} failed: {display.shown(why, _SHOWN_CHARS)}") from exc
    finally:
        conn.close()
        if conn.watchdog is not None:
            conn.watchdog.stop()


def _refuse_compressed(response: http.client.HTTPResponse, url: str) -> None:
    """A compressed body is not decoded (it could be a bomb), so it is an error here rather than
    binary bytes the converter cannot name. Other values (`none`, `utf-8`) are taken as identity."""
    sent = (response.getheader("Content-Encoding") or "").strip()
    if any(coding.strip().lower() in _COMPRESSIONS for coding in sent.split(",")):
        raise FetchError(f"{named_url(url)} sent its body compressed (Content-Encoding: {sent}) though minirag asks for it "
                         "uncompressed (Accept-Encoding: identity); not decoded")


def _read_capped(response: http.client.HTTPResponse, max_bytes: int, url: str) -> bytes:
    too_big = f"response from {named_url(url)} is larger than the {max_bytes}-byte limit"
    declared = (response.getheader("Content-Length") or "").strip()
    if declared.isdigit() and int(declared) > max_bytes:
        raise FetchError(too_big)
    chunks: list[bytes] = []
    total = 0
    while chunk := response.read(min(_CHUNK, max_bytes + 1 - total)):
        total += len(chunk)
        if total > max_bytes:
            raise FetchError(too_big)
        chunks.append(chunk)
    return b"".join(chunks)


def _mimetype(header: str | None) -> str:
    value = (header or "").split(";", 1)[0].strip().lower()
    return value if "/" in value else "application/octet-stream"
