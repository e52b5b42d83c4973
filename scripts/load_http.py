"""Many MCP clients querying one `minirag serve --http` at once: latency, errors, server RSS.

    python scripts/load_http.py [--clients 20] [--seconds 60] [--db-path INDEX] [--json]

Starts the real server (`python -m minirag serve --http 127.0.0.1:PORT`, with a
bearer token) on loopback, then runs --clients MCP clients (the SDK's
streamable-HTTP client, one session each) in this process, each calling
`query_documents` back to back for --seconds. From a third of the way in, a
writer runs against the same index file: `minirag sync` over new documents
copied into the root (or, with --db-path, `minirag ingest` of them, which
never drops the synthetic sources of a bench index). Reported: calls, errors,
latency percentiles overall and while the writer ran, and the server's RSS
(start, end, peak), sampled from /proc every 0.5 s.

Without --db-path, the index is built first from --docs (default: the
test fixtures) in a temp dir. Queries come from --queries-file (BEIR
queries.jsonl). Numbers from a shared machine are noisy: the load average
is part of the output. Clients and server share this machine's cores.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))

DEFAULT_QUERIES = ROOT.parent / "shared" / "eval-data" / "gnome-help-desc-C" / "queries.jsonl"
DEFAULT_DOCS = ROOT / "tests" / "fixtures" / "docs"
DEFAULT_WRITER_DOCS = ROOT / "data" / "corpus" / "python3.11-html" / "library"
CONFIG_VARS = ("BASE_DIR", "BASE_DIRS", "DB_PATH", "MODEL_NAME", "MODEL_PATH", "MINIRAG_READ_ONLY",
               "MINIRAG_HTTP_TOKEN", "MINIRAG_LITESTREAM_CONFIG")


def log(message: str) -> None:
    sys.stderr.write(message + "\n")
    sys.stderr.flush()


def percentile(values: list[float], q: float) -> float | None:
    ordered = sorted(values)
    if not ordered:
        return None
    pos = (len(ordered) - 1) * q / 100
    low = int(pos)
    high = min(low + 1, len(ordered) - 1)
    return round(ordered[low] + (ordered[high] - ordered[low]) * (pos - low), 1)


def summary(latencies: list[float]) -> dict:
    return {"calls": len(latencies), "p50_ms": percentile(latencies, 50), "p95_ms": percentile(latencies, 95),
            "p99_ms": percentile(latencies, 99), "max_ms": round(max(latencies), 1) if latencies else None}


def rss_mb(pid: int) -> float | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return round(int(line.split()[1]) / 1024, 1)
    except OSError:
        return None
    return None


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_for_port(port: int, proc: subprocess.Popen, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"the server exited: {proc.stderr.read() if proc.stderr else ''}")
        with socket.socket() as sock:
            if sock.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.1)
    raise SystemExit(f"nothing listening on {port}")


def read_queries(path: Path) -> list[str]:
    with path.open(encoding="utf-8") as handle:
        return [json.loads(line)["text"] for line in handle if line.strip()]


async def client_loop(url: str, token: str, queries: list[str], first: int, stride: int,
                      window: Callable[[], Awaitable[float]], samples: list[tuple[float, float]],
                      errors: list[str]) -> None:
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    headers = {"Authorization": f"Bearer {token}"}
    async with httpx2.AsyncClient(headers=headers, timeout=120) as http, \
            Client(streamable_http_client(url, http_client=http)) as client:
        n = first
        stop_at = await window()
        while True:  # every client asks at least once, however late the window found it
            started = time.perf_counter()
            try:
                result = await client.call_tool("query_documents", {"query": queries[n % len(queries)],
                                                                    "topK": 10})
                if result.is_error:
                    errors.append(result.content[0].text if result.content else "tool error")
            except Exception as exc:  # noqa: BLE001 - every failure is counted, none stops the run
                errors.append(f"{type(exc).__name__}: {exc}")
            samples.append((time.monotonic(), (time.perf_counter() - started) * 1000))
            n += stride
            if time.monotonic() >= stop_at:
                break


async def run_clients(url: str, token: str, queries: list[str], clients: int, seconds: float,
                      samples: list, errors: list, started: threading.Event | None = None) -> None:
    """`clients` clients querying for `seconds`, from the moment all are connected (`started` is set
    then): on a loaded machine a client's connection alone took longer than the window, which had
    begun before it, and it asked nothing."""
    connected = asyncio.Barrier(clients)
    stop_at: list[float] = []

    async def window() -> float:
        await connected.wait()
        if not stop_at:
            stop_at.append(time.monotonic() + seconds)
            if started is not None:
                started.set()
        return stop_at[0]

    await asyncio.gather(*(client_loop(url, token, queries, i, clients, window, samples, errors)
                           for i in range(clients)))


def base_env(model_path: str, root: Path, db_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in CONFIG_VARS}
    return env | {"MODEL_PATH": model_path, "BASE_DIR": str(root), "DB_PATH": str(db_path)}


def run(args: argparse.Namespace, work: Path) -> dict:
    model_path = os.environ.get("MODEL_PATH") or args.model_path
    if not model_path:
        from test_model import assemble

        model_path = str(assemble())
    root = work / "docs"
    root.mkdir(parents=True, exist_ok=True)
    db_path = args.db_path.resolve() if args.db_path else work / "index.db"
    env = base_env(model_path, root, db_path)
    if not args.db_path:
        for src in sorted(args.docs.iterdir()):
            if src.is_file():
                shutil.copy(src, root / src.name)
        log(f"load: indexing {args.docs} ...")
        subprocess.run([sys.executable, "-m", "minirag", "sync"], env=env, check=True, cwd=ROOT,
                       stdout=subprocess.DEVNULL)
    writer_docs = sorted(p for p in args.writer_docs.glob("*.html"))[: args.writer_files] if args.writer_docs else []

    token = secrets.token_urlsafe(24)
    port = free_port()
    server = subprocess.Popen([sys.executable, "-m", "minirag", "serve", "--http", f"127.0.0.1:{port}"],
                              env=env | {"MINIRAG_HTTP_TOKEN": token}, cwd=ROOT, stdin=subprocess.DEVNULL,
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    rss: list[float] = []
    done = threading.Event()

    def sample_rss() -> None:
        while not done.wait(0.5):
            value = rss_mb(server.pid)
            if value is not None:
                rss.append(value)

    samples: list[tuple[float, float]] = []
    errors: list[str] = []
    writer_window: list[float] = []
    writer_result: dict = {}

    clients_started = threading.Event()

    def writer() -> None:
        clients_started.wait()
        time.sleep(args.seconds / 3)
        if not writer_docs:
            return
        if args.db_path:
            command = ["ingest", *map(str, writer_docs)]
        else:
            target = root / "added"
            target.mkdir()
            for src in writer_docs:
                shutil.copy(src, target / src.name)
            command = ["sync"]
        writer_window.append(time.monotonic())
        proc = subprocess.run([sys.executable, "-m", "minirag", *command, "--json"], env=env, cwd=ROOT,
                              capture_output=True, text=True, check=False)
        writer_window.append(time.monotonic())
        writer_result.update(json.loads(proc.stdout) if proc.returncode == 0 else {"error": proc.stderr[-500:]})
        writer_result["command"] = f"minirag {command[0]} ({len(writer_docs)} files)"

    try:
        wait_for_port(port, server)
        url = f"http://127.0.0.1:{port}/mcp"
        queries = read_queries(args.queries_file)
        log(f"load: warming up the server on {url} ...")
        asyncio.run(run_clients(url, token, queries, 1, args.warmup, [], []))  # model, page cache, vector codes
        rss_start = rss_mb(server.pid)
        threading.Thread(target=sample_rss, daemon=True).start()
        writing = threading.Thread(target=writer, daemon=True)
        writing.start()
        log(f"load: {args.clients} clients for {args.seconds} s, a writer from {args.seconds / 3:.0f} s ...")
        asyncio.run(run_clients(url, token, queries, args.clients, args.seconds, samples, errors, clients_started))
        writing.join()
    finally:
        done.set()
        server.terminate()
        try:
            server.wait(60)
        except subprocess.TimeoutExpired:
            server.kill()
    latencies = [ms for _t, ms in samples]
    during = [ms for t, ms in samples if len(writer_window) == 2 and writer_window[0] <= t <= writer_window[1]]
    return {
        "machine": {"cores": os.cpu_count(), "load_avg_end": list(os.getloadavg())},
        "index": str(db_path),
        "clients": args.clients,
        "seconds": args.seconds,
        "errors": len(errors),
        "error_examples": errors[:5],
        "queries_per_s": round(len(latencies) / args.seconds, 1),
        "latency": summary(latencies),
        "latency_while_writing": summary(during),
        "writer": {**writer_result,
                   "seconds": round(writer_window[1] - writer_window[0], 1) if len(writer_window) == 2 else None},
        "server_rss_mb": {"start": rss_start, "end": rss[-1] if rss else None, "peak": max(rss, default=None)},
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--warmup", type=float, default=5.0, help="seconds of one client before the load")
    parser.add_argument("--db-path", type=Path, help="serve this existing index (default: build one from --docs)")
    parser.add_argument("--docs", type=Path, default=DEFAULT_DOCS, help="documents of the built index")
    parser.add_argument("--writer-docs", type=Path, default=DEFAULT_WRITER_DOCS,
                        help="folder whose .html files the writer adds (default: %(default)s); '' for none")
    parser.add_argument("--writer-files", type=int, default=20)
    parser.add_argument("--queries-file", type=Path, default=DEFAULT_QUERIES)
    parser.add_argument("--model-path", help="local model directory (default: MODEL_PATH, else the test model)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    if args.writer_docs is not None and str(args.writer_docs) in ("", "."):
        args.writer_docs = None
    with tempfile.TemporaryDirectory(prefix="minirag-load-") as tmp:
        result = run(args, Path(tmp))
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        lat, during, mem = result["latency"], result["latency_while_writing"], result["server_rss_mb"]
        print(f"{result['clients']} clients x {result['seconds']:.0f} s on {result['index']}: "
              f"{lat['calls']} queries ({result['queries_per_s']}/s), {result['errors']} errors")
        print(f"  latency ms: p50 {lat['p50_ms']}, p95 {lat['p95_ms']}, p99 {lat['p99_ms']}, max {lat['max_ms']}")
        print(f"  while the writer ran ({result['writer'].get('command')}, {result['writer'].get('seconds')} s): "
              f"{during['calls']} queries, p50 {during['p50_ms']}, p95 {during['p95_ms']}, max {during['max_ms']}")
        print(f"  server RSS MiB: start {mem['start']}, end {mem['end']}, peak {mem['peak']}; "
              f"load average at end {result['machine']['load_avg_end'][0]:.2f}")
    return 1 if result["errors"] else 0


if __name__ == "__main__":
    raise SystemExit(main())
