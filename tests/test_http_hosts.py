"""DNS rebinding on any loopback address: `serve --http` without a token answers only requests
whose Host is the bound address (or localhost) at the bound port, and whose Origin, if any, is
that same http origin. A real server on 127.0.0.2 (the loopback range works on Linux) and on
[::1], attacked with the spellings a rebinding page or a cross-site request can produce."""

from __future__ import annotations

import http.client
import socket
import subprocess
import sys

import pytest
from test_http_token import INITIALIZE, server_env  # noqa: F401 - the fixture, shared
from test_server_stdio import TIMEOUT_S, _free_port

from minirag.http_hosts import HostCheck, LocalOnly

P = 8765

REFUSED_HOSTS = [
    "evil.example", f"evil.example:{P}", f"EVIL.EXAMPLE:{P}", f"127.0.0.2.evil.example:{P}",
    f"evil.example:{P}@127.0.0.2", f"127.0.0.2:{P}.evil.example", f"127.0.0.2:{P + 1}", "127.0.0.2",
    f"127.2:{P}", f"2130706434:{P}", f"0x7f.0.0.2:{P}", f"127.0.0.1:{P}", f"localhost.:{P}",
    f"localhost.evil.example:{P}", f"[::1]:{P}", f"127.0.0.2:+{P}", f"127.0.0.2:{P} ", f"127.0.0.2:0{P}x", "",
    f"127.0.0.2:{P}:{P}", f"[127.0.0.2]:{P}",
]
ACCEPTED_HOSTS = [f"127.0.0.2:{P}", f"localhost:{P}", f"LOCALHOST:{P}", f" 127.0.0.2:{P}"]
REFUSED_ORIGINS = [
    "http://evil.example", f"http://evil.example:{P}", "null", f"https://127.0.0.2:{P}", f"http://127.0.0.2:{P}/x",
    f"http://127.0.0.2.evil.example:{P}", f"http://user@127.0.0.2:{P}", f"http://127.0.0.2:{P + 1}",
    "http://127.0.0.2", f"file://127.0.0.2:{P}", f"http://[::1]:{P}", "",
]
ACCEPTED_ORIGINS = [None, f"http://127.0.0.2:{P}", f"http://localhost:{P}", f"HTTP://LOCALHOST:{P}"]


@pytest.mark.parametrize("host", REFUSED_HOSTS)
def test_a_host_that_is_not_the_bound_address_is_refused(host):
    assert not HostCheck("127.0.0.2", P).host_ok(host)


@pytest.mark.parametrize("host", ACCEPTED_HOSTS)
def test_the_bound_address_and_localhost_are_accepted(host):
    assert HostCheck("127.0.0.2", P).host_ok(host)


@pytest.mark.parametrize("origin", REFUSED_ORIGINS)
def test_another_sites_origin_is_refused(origin):
    assert not HostCheck("127.0.0.2", P).origin_ok(origin)


@pytest.mark.parametrize("origin", ACCEPTED_ORIGINS)
def test_no_origin_or_the_servers_own_is_accepted(origin):
    assert HostCheck("127.0.0.2", P).origin_ok(origin)


@pytest.mark.parametrize(("bound", "host", "ok"), [
    ("::1", f"[::1]:{P}", True), ("::1", f"[0:0:0:0:0:0:0:1]:{P}", True), ("::1", f"[::1]:{P + 1}", False),
    ("::1", f"::1:{P}", False), ("::1", f"[::ffff:127.0.0.1]:{P}", False), ("::1", f"evil.example:{P}", False),
    ("0:0::1", f"[::1]:{P}", True), ("127.0.1.1", f"127.0.1.1:{P}", True), ("127.0.1.1", f"evil:{P}", False),
    ("localhost", f"127.0.0.1:{P}", True), ("localhost", f"[::1]:{P}", True), ("localhost", f"evil:{P}", False),
])
def test_every_loopback_spelling_gets_the_same_check(bound, host, ok):
    assert HostCheck(bound, P).host_ok(host) is ok


def test_the_default_port_may_be_left_out_only_when_it_is_the_bound_one():
    assert HostCheck("127.0.0.2", 80).host_ok("127.0.0.2") and HostCheck("127.0.0.2", 80).origin_ok("http://127.0.0.2")
    assert not HostCheck("127.0.0.2", P).host_ok("127.0.0.2")


def test_two_host_headers_or_two_origins_are_refused():
    guard = LocalOnly(app=None, bind_host="127.0.0.2", port=P)
    host = (b"host", f"127.0.0.2:{P}".encode())
    assert guard.refusal({"headers": [host]}) is None
    assert guard.refusal({"headers": [host, (b"host", b"evil.example")]})[0] == 421
    assert guard.refusal({"headers": [host, (b"origin", b"http://localhost:%d" % P), (b"origin", b"null")]})[0] == 403


# --- a real server on a loopback address other than 127.0.0.1 ------------------------------------------------


def _can_bind(address: str) -> bool:
    family = socket.AF_INET6 if ":" in address else socket.AF_INET
    try:
        with socket.socket(family) as probe:
            probe.bind((address, 0))
        return True
    except OSError:
        return False


def _wait_for(address: str, port: int, proc: subprocess.Popen) -> None:
    import time

    deadline = time.monotonic() + TIMEOUT_S
    while time.monotonic() < deadline:
        assert proc.poll() is None, proc.stderr.read().decode()
        try:
            socket.create_connection((address, port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.05)
    raise AssertionError("the server did not start")


def _status(address: str, port: int, headers: dict[str, str]) -> int:
    conn = http.client.HTTPConnection(address, port, timeout=TIMEOUT_S)
    try:
        conn.putrequest("POST", "/mcp", skip_host=True)
        for name, value in {"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
                            "Content-Length": str(len(INITIALIZE)), **headers}.items():
            conn.putheader(name, value)
        conn.endheaders(INITIALIZE)
        return conn.getresponse().status
    finally:
        conn.close()


# The MCP SDK's own Host check, on by default for 127.0.0.1 and ::1, compares spellings literally
# (it refused `LOCALHOST` and `[0:0:0:0:0:0:0:1]` there, in plain text): LocalOnly is the one gate.
@pytest.mark.slow
@pytest.mark.parametrize("address", ["127.0.0.1", "127.0.0.2", "::1"])
def test_a_tokenless_server_on_another_loopback_address_refuses_rebinding_and_other_sites(server_env, address):  # noqa: F811
    if not _can_bind(address):
        pytest.skip(f"{address} cannot be bound here")
    port = _free_port()
    shown = f"[{address}]" if ":" in address else address
    proc = subprocess.Popen([sys.executable, "-m", "minirag", "serve", "--http", f"{shown}:{port}"], env=server_env,
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        _wait_for(address, port, proc)
        own = f"[::1]:{port}" if ":" in address else f"{address}:{port}"  # as a client writes it
        attacks = {
            "rebound": {"Host": f"evil.example:{port}", "Origin": f"http://evil.example:{port}"},
            "rebound, no origin": {"Host": f"evil.example:{port}"},
            "rebound, upper case": {"Host": f"EVIL.EXAMPLE:{port}"},
            "rebound, no port": {"Host": "evil.example"},
            "rebound, address-like name": {"Host": f"{address.replace(':', '-')}.evil.example:{port}"},
            "cross-site": {"Host": own, "Origin": "http://evil.example"},
            "cross-site on our port": {"Host": own, "Origin": f"http://evil.example:{port}"},
            "sandboxed page": {"Host": own, "Origin": "null"},
        }
        refused = {name: _status(address, port, headers) for name, headers in attacks.items()}
        served = {name: _status(address, port, headers) for name, headers in {
            "own address": {"Host": own},
            "localhost": {"Host": f"localhost:{port}"},
            "localhost, upper case": {"Host": f"LOCALHOST:{port}", "Origin": f"http://LOCALHOST:{port}"},
            "own origin": {"Host": own, "Origin": f"http://{own}"},
            **({"own address in full": {"Host": f"[0:0:0:0:0:0:0:1]:{port}"}} if ":" in address else {}),
        }.items()}
    finally:
        proc.terminate()
        proc.communicate(timeout=TIMEOUT_S)
    assert all(status in (403, 421) for status in refused.values()), refused
    assert all(status < 400 for status in served.values()), served
