"""Slow bodies against a token-less `minirag serve --http`: can a real client still get in?

    MODEL_PATH=... python scripts/dribble_http.py [--connections 600] [--seconds 30]

Starts the real server on 127.0.0.1 (no token) over a one-file root in a temp
dir, opens --connections connections that each send full headers of a 100 KB
POST /mcp and then one body byte every 2 s, opening again each connection the
server closes (an attacker keeps the flood up). Every 2 s a real client sends
an MCP initialize (3 s timeout). Prints each try's outcome and how many
stderr lines the server wrote.
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

INITIALIZE = (b'{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", '
              b'"capabilities": {}, "clientInfo": {"name": "dribble", "version": "0"}}}')


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def open_dribbler(port: int, head: bytes) -> socket.socket | None:
    try:
        sock = socket.create_connection(("127.0.0.1", port), timeout=5)
        sock.sendall(head + b"{")
        return sock
    except OSError:
        return None


def still_open(sock: socket.socket | None) -> bool:
    if sock is None:
        return False
    try:
        sock.setblocking(False)
        try:
            if sock.recv(1) == b"":
                return False
        except BlockingIOError:
            pass
        sock.setblocking(True)
        sock.sendall(b" ")
        return True
    except OSError:
        return False


def real_client(port: int) -> str:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=3)
    try:
        conn.request("POST", "/mcp", body=INITIALIZE, headers={
            "Content-Type": "application/json", "Accept": "application/json, text/event-stream"})
        return str(conn.getresponse().status)
    except (OSError, http.client.HTTPException) as exc:
        return type(exc).__name__
    finally:
        conn.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--connections", type=int, default=600)
    parser.add_argument("--seconds", type=float, default=30.0)
    args = parser.parse_args()
    if not os.environ.get("MODEL_PATH"):
        parser.error("set MODEL_PATH to a local model folder")
    port = free_port()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp, "docs")
        root.mkdir()
        (root / "tides.md").write_text("# Tides\n\nThe moon raises two tides a day.\n")
        env = {k: v for k, v in os.environ.items() if k != "MINIRAG_HTTP_TOKEN"}
        env |= {"BASE_DIR": str(root), "DB_PATH": str(Path(tmp, "index.db"))}
        stderr_path = Path(tmp, "stderr.txt")
        with stderr_path.open("w") as stderr:
            server = subprocess.Popen([sys.executable, "-m", "minirag", "serve", "--http", f"127.0.0.1:{port}"],
                                      env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=stderr)
        try:
            for _ in range(300):
                with contextlib.suppress(OSError):
                    socket.create_connection(("127.0.0.1", port), timeout=1).close()
                    break
                time.sleep(0.1)
            head = (f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
                    "Accept: application/json, text/event-stream\r\nContent-Length: 100000\r\n\r\n").encode()
            flood = [open_dribbler(port, head) for _ in range(args.connections)]
            started = time.monotonic()
            while time.monotonic() - started < args.seconds:
                reopened = 0
                for i, sock in enumerate(flood):
                    if not still_open(sock):
                        if sock is not None:
                            sock.close()
                        flood[i] = open_dribbler(port, head)
                        reopened += 1
                tried = time.monotonic()
                outcome = real_client(port)
                print(f"{tried - started:5.1f} s  real client: {outcome:<22} ({time.monotonic() - tried:.1f} s; "
                      f"{reopened} dribblers reopened)", flush=True)
                time.sleep(max(0.0, 2 - (time.monotonic() - tried)))
            for sock in flood:
                if sock is not None:
                    sock.close()
        finally:
            server.terminate()
            server.wait(timeout=30)
        print(f"server stderr: {len(stderr_path.read_text().splitlines())} lines")
    return 0


if __name__ == "__main__":
    sys.exit(main())
