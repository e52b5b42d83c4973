"""Host and Origin checks for `serve --http` without a token (loopback only).

With no token, anything that can send this server a request can read and change
the index. A web page in the user's browser can, two ways: a cross-site request
(its Origin says so), and DNS rebinding, where the page's own name is made to
resolve to the loopback address the server listens on, so the browser sends
the request as same-origin with `Host: attacker.example`. Neither may pass: a
request is served only when its Host names the address the server is bound to
(or `localhost`) at the bound port, and its Origin, when it has one, is
`http://` that same host and port. The MCP SDK checks this only for the three
hosts 127.0.0.1, localhost and ::1; this applies to whatever loopback address
is bound (127.0.0.2, Debian's 127.0.1.1, any spelling of ::1).

A name can only come from DNS, which the attacker controls, so only address
literals and `localhost` are accepted, compared in their canonical form.
"""

from __future__ import annotations

import ipaddress
from urllib.parse import urlsplit

LOCALHOST = "localhost"
DEFAULT_HTTP_PORT = 80


def canonical_host(host: str) -> str | None:
    """`host` as compared: an IP literal in its canonical form (IPv6 without brackets), `localhost`
    lowercased; None for any other name (it may resolve anywhere)."""
    host = host.strip().lower()
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
        try:
            return str(ipaddress.IPv6Address(host))
        except ValueError:
            return None
    if host == LOCALHOST:
        return host
    try:
        return str(ipaddress.IPv4Address(host))  # dotted decimal only: no 127.1, no 0x7f.0.0.1
    except ValueError:
        return None


def allowed_hosts(bind_host: str) -> frozenset[str]:
    """The canonical hosts a request to a server bound at `bind_host` may name."""
    bound = bind_host.strip().lower()
    if bound == LOCALHOST:
        return frozenset({LOCALHOST, "127.0.0.1", "::1"})
    try:
        address = str(ipaddress.ip_address(bound.strip("[]")))
    except ValueError:
        return frozenset({LOCALHOST})
    return frozenset({LOCALHOST, address})


def _split_host_port(value: str) -> tuple[str, int | None] | None:
    """HOST[:PORT] or [V6][:PORT] as a Host header or an origin's netloc writes it; None if malformed."""
    if value.startswith("["):
        end = value.find("]")
        if end < 0:
            return None
        host, rest = value[:end + 1], value[end + 1:]
    else:
        host, sep, port = value.rpartition(":")
        if not sep:
            host, rest = value, ""
        else:
            rest = ":" + port
    if not rest:
        return host, None
    port_text = rest[1:]
    if not rest.startswith(":") or not port_text.isascii() or not port_text.isdigit() or len(port_text) > 5:
        return None
    return host, int(port_text)


class HostCheck:
    """What a request's Host and Origin must say to reach a server bound at (bind_host, port)."""

    def __init__(self, bind_host: str, port: int):
        self.hosts = allowed_hosts(bind_host)
        self.port = port

    def _ours(self, host_port: str, default_port: int) -> bool:
        split = _split_host_port(host_port)
        if split is None:
            return False
        host, port = split
        return canonical_host(host) in self.hosts and (port if port is not None else default_port) == self.port

    def host_ok(self, host: str | None) -> bool:
        return host is not None and host != "" and self._ours(host, DEFAULT_HTTP_PORT)

    def origin_ok(self, origin: str | None) -> bool:
        """No Origin (not a browser, or a same-origin GET) passes; `null` and every other site do not."""
        if origin is None:
            return True
        try:
            parts = urlsplit(origin.strip())
        except ValueError:
            return False
        if parts.scheme.lower() != "http" or parts.path or parts.query or parts.fragment or "@" in parts.netloc:
            return False
        return self._ours(parts.netloc, DEFAULT_HTTP_PORT)


class LocalOnly:
    """ASGI middleware: a request whose Host is not this server's address gets 421, one whose
    Origin is another site gets 403; the connection closes after the refusal."""

    def __init__(self, app, bind_host: str, port: int):
        self.app = app
        self.check = HostCheck(bind_host, port)

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] == "websocket" and self.refusal(scope) is not None:
            await send({"type": "websocket.close", "code": 1008})
            return
        if scope["type"] == "http":
            refusal = self.refusal(scope)
            if refusal is not None:
                status, message = refusal
                await send({"type": "http.response.start", "status": status, "headers": [
                    (b"content-type", b"application/json"), (b"connection", b"close")]})
                await send({"type": "http.response.body", "body": b'{"error": "%s"}' % message})
                return
        await self.app(scope, receive, send)

    def refusal(self, scope) -> tuple[int, bytes] | None:
        hosts, origins = [], []
        for name, value in scope.get("headers", ()):
            name = name.lower()
            if name == b"host":
                hosts.append(value.decode("latin-1"))
            elif name == b"origin":
                origins.append(value.decode("latin-1"))
        if len(hosts) != 1 or not self.check.host_ok(hosts[0]):
            return 421, b"this server answers only requests addressed to its own loopback address"
        if len(origins) > 1 or not self.check.origin_ok(origins[0] if origins else None):
            return 403, b"requests from web pages of other sites are refused"
        return None
