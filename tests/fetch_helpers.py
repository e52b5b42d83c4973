"""Loopback HTTP(S) servers and a fake resolver for tests/test_fetch.py."""

from __future__ import annotations

import contextlib
import datetime
import gzip
import http.server
import ipaddress
import socket
import ssl
import threading
import time
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

PAGE = b"<p>caf\xe9</p>"


class Handler(http.server.BaseHTTPRequestHandler):
    """Routes by path; every request is recorded on the server before it is answered."""

    server: Server

    def log_message(self, format, *args):  # noqa: A002 - keep test output clean
        pass

    def do_GET(self):
        url = urlsplit(self.path)
        query = {k: v[0] for k, v in parse_qs(url.query).items()}
        self.server.requests.append({"path": self.path, "headers": dict(self.headers)})
        saved = self.server.pages.get(url.path)
        if saved is not None:
            self._reply(*saved)
            return
        route = getattr(self, "route_" + url.path.strip("/").split("/")[0], None)
        with contextlib.suppress(ConnectionError):
            if route is None:
                self.send_error(404)
            else:
                route(url.path, query)

    def _reply(self, body: bytes, content_type: str | None = "text/plain", length: bool = True):
        self.send_response(200)
        if content_type is not None:
            self.send_header("Content-Type", content_type)
        if length:
            self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def route_page(self, path, query):
        self._reply(PAGE, "Text/HTML; Charset=ISO-8859-1")

    def route_untyped(self, path, query):
        self._reply(b"?", None)

    def route_redirect(self, path, query):
        self.send_response(int(query.get("status", 302)))
        self.send_header("Location", query["to"])
        self.send_header("Content-Length", "0")
        self.end_headers()

    def route_chain(self, path, query):
        """/chain/N redirects N times, by relative Location, then answers."""
        time.sleep(float(query.get("delay", 0)))
        left = int(path.rsplit("/", 1)[1])
        if left == 0:
            self._reply(b"end of chain")
            return
        self.send_response(302)
        query_string = urlsplit(self.path).query
        self.send_header(
            "Location", f"{left - 1}?{query_string}" if query_string else str(left - 1)
        )
        self.send_header("Content-Length", "0")
        self.end_headers()

    def route_big(self, path, query):
        self._reply(b"x" * int(query["n"]), length=query.get("length") == "1")

    def route_endless(self, path, query):
        """A body with no Content-Length that never ends (until the client hangs up)."""
        self.send_response(200)
        self.end_headers()
        chunk = b"y" * 65536
        for _ in range(2000):
            self.wfile.write(chunk)

    def route_encoded(self, path, query):
        """A body sent with Content-Encoding `encoding` (gzip-compressed when it says gzip), whatever was asked."""
        body = gzip.compress(PAGE) if "gzip" in query["encoding"] else PAGE
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Encoding", query["encoding"])
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def route_short(self, path, query):
        self.send_response(200)
        self.send_header("Content-Length", "100")
        self.end_headers()
        self.wfile.write(b"only ten b")

    def route_chunked(self, path, query):
        """A chunked body whose one chunk declares the size `size` (raw text, e.g. -5 or zz), then `tail` bytes."""
        self.wfile.write(b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n"
                         + query["size"].encode() + b"\r\nhello\r\n0\r\n\r\n" + b"z" * int(query.get("tail", 0)))
        self.close_connection = True

    def route_slow(self, path, query):
        time.sleep(3)
        self._reply(b"late")

    def route_trickle(self, path, query):
        """Headers one byte at a time: each read is quick, the whole is not."""
        self.wfile.write(b"HTTP/1.0 200 OK\r\nX-Drip: ")
        for _ in range(40):
            self.wfile.write(b"a")
            self.wfile.flush()
            time.sleep(0.1)
        self.wfile.write(b"\r\n\r\ndone")


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, host: str, port: int = 0, tls: ssl.SSLContext | None = None) -> None:
        super().__init__((host, port), Handler)
        self.requests: list[dict] = []
        self.pages: dict[str, tuple[bytes, str]] = {}  # path -> (body, Content-Type), e.g. saved pages
        if tls is not None:
            self.socket = tls.wrap_socket(self.socket, server_side=True)
        self._thread = threading.Thread(
            target=self.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()

    @property
    def port(self) -> int:
        return self.server_address[1]

    def stop(self) -> None:
        self.shutdown()
        self.server_close()


def server_pair() -> tuple[Server, Server]:
    """Servers on 127.0.0.1 and 127.0.0.2 sharing one port, so a name can point at either."""
    for _ in range(20):
        first = Server("127.0.0.1")
        try:
            return first, Server("127.0.0.2", first.port)
        except OSError:
            first.stop()
    raise RuntimeError("no port free on both 127.0.0.1 and 127.0.0.2")


class FakeDns:
    """Stands in for socket.getaddrinfo: names map to address lists, or to a callable giving one."""

    def __init__(self) -> None:
        self.table: dict = {}
        self.lookups: list[str] = []

    def __call__(self, host, port, family=0, type=0, proto=0, flags=0):  # noqa: A002
        self.lookups.append(host)
        answers = self.table.get(host)
        if answers is None:
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        if callable(answers):
            answers = answers()
        result = []
        for address in answers:
            if ipaddress.ip_address(address).version == 6:
                result.append((socket.AF_INET6, socket.SOCK_STREAM, 6, "", (address, port, 0, 0)))
            else:
                result.append((socket.AF_INET, socket.SOCK_STREAM, 6, "", (address, port)))
        return result


def make_certificates(directory: Path, hostname: str) -> tuple[Path, Path, Path]:
    """A CA and a leaf certificate for ``hostname`` it signed: (ca, leaf cert, leaf key)."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    now = datetime.datetime.now(datetime.UTC)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "minirag test CA")])
    ca = (
        x509.CertificateBuilder()
        .subject_name(ca_name)
        .issuer_name(ca_name)
        .public_key(ca_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(hours=1))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .add_extension(
            x509.KeyUsage(False, False, False, False, False, True, True, False, False),
            critical=True,
        )
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(ca_key.public_key()), False)
        .sign(ca_key, hashes.SHA256())
    )
    key = ec.generate_private_key(ec.SECP256R1())
    leaf = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, hostname)]))
        .issuer_name(ca_name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(hours=1))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.SubjectAlternativeName([x509.DNSName(hostname)]), critical=False)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(
            x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), False
        )
        .sign(ca_key, hashes.SHA256())
    )
    paths = directory / "ca.pem", directory / "leaf.pem", directory / "leaf.key"
    paths[0].write_bytes(ca.public_bytes(serialization.Encoding.PEM))
    paths[1].write_bytes(leaf.public_bytes(serialization.Encoding.PEM))
    paths[2].write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return paths
