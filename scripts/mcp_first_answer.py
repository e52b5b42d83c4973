"""An MCP client's view of a fresh stdio server: spawn -> first answer, and the server's memory.

    python scripts/mcp_first_answer.py [--queries N] [--rounds R] "a question" ...

Uses the configuration in the environment (MODEL_PATH, DB_PATH, BASE_DIR, CACHE_DIR ...) on an
existing index. Each round spawns `python -m minirag` through the official SDK's stdio client,
times spawn -> initialized and spawn -> the first `query_documents` answer, with the CPU seconds
the server and this client spent until then (on one idle core their sum is about the wall time:
a measure that load on the machine disturbs less), asks N more questions, and reads the
server's peak RSS (VmHWM) and CPU seconds from /proc before it closes. Prints one line per
round; the machine's load average is printed too.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path


def _children() -> list[int]:
    mine = str(os.getpid())
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if (entry / "stat").read_text().rsplit(")", 1)[1].split()[1] == mine:
                    found.append(int(entry.name))
            except (OSError, IndexError):
                pass
    return found


def _usage(pid: int) -> tuple[float, float]:
    """(peak RSS in MiB, user+sys CPU seconds) of a live process."""
    peak = next(int(line.split()[1]) for line in Path(f"/proc/{pid}/status").read_text().splitlines()
                if line.startswith("VmHWM:"))
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return peak / 1024, (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def one_round(questions: list[str], extra: int) -> str:
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    params = StdioServerParameters(command=sys.executable, args=["-m", "minirag"], env=dict(os.environ))
    started, client_cpu = time.perf_counter(), time.process_time()
    async with Client(params) as client:
        ready = time.perf_counter() - started
        await client.call_tool("query_documents", {"query": questions[0]})
        first = time.perf_counter() - started
        client_cpu = time.process_time() - client_cpu
        servers = _children()
        first_cpu = _usage(servers[0])[1] if servers else float("nan")
        for i in range(extra):
            await client.call_tool("query_documents", {"query": questions[(i + 1) % len(questions)]})
        peak, cpu = _usage(servers[0]) if servers else (float("nan"), float("nan"))
    return (f"initialized {ready:.2f} s, first answer {first:.2f} s (CPU to it: server {first_cpu:.2f} s + "
            f"client {client_cpu:.2f} s), after {extra + 1} queries: server peak RSS {peak:.0f} MiB, CPU {cpu:.2f} s")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("questions", nargs="+")
    parser.add_argument("--queries", type=int, default=20, help="queries after the first (default: %(default)s)")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    import anyio

    print(f"load average {os.getloadavg()[0]:.1f}", flush=True)
    for _ in range(args.rounds):
        print(anyio.run(one_round, args.questions, args.queries), flush=True)
    print(f"load average {os.getloadavg()[0]:.1f}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
