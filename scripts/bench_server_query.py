"""A query's latency through the stdio MCP server: the SDK's client, one server, --queries
query_documents calls after a warm-up, each timed; the server's CPU seconds per query too (a
measure that other load on the machine disturbs less than the wall time).

    python scripts/bench_server_query.py [--queries 200] [--tree PATH] "a question" ...

Uses the configuration in the environment (MODEL_PATH, DB_PATH, BASE_DIR, CACHE_DIR) on an existing
index. --tree runs the server from another checkout's `minirag` package (a before/after pair).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

from mcp_first_answer import _children, _usage


async def measure(questions: list[str], queries: int, tree: str | None) -> str:
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    env = dict(os.environ) | ({"PYTHONPATH": tree} if tree else {})
    params = StdioServerParameters(command=sys.executable, args=["-m", "minirag"], env=env,
                                   cwd=tree or str(Path(__file__).resolve().parent.parent))
    async with Client(params) as client:
        for question in questions:  # warm-up: the model loaded, the pages read
            await client.call_tool("query_documents", {"query": question})
        server = _children()[0]
        cpu_before = _usage(server)[1]
        times = []
        for i in range(queries):
            started = time.perf_counter()
            result = await client.call_tool("query_documents", {"query": questions[i % len(questions)]})
            times.append(time.perf_counter() - started)
            assert not result.is_error, result
        cpu = _usage(server)[1] - cpu_before
    times.sort()
    return (f"{queries} queries: median {statistics.median(times) * 1000:.2f} ms, p90 "
            f"{times[int(0.9 * len(times))] * 1000:.2f} ms, server CPU {cpu / queries * 1000:.2f} ms/query")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("questions", nargs="+")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--tree", help="a checkout whose minirag package serves (default: this one)")
    args = parser.parse_args()
    import anyio

    print(f"load average {os.getloadavg()[0]:.1f}; {anyio.run(measure, args.questions, args.queries, args.tree)}",
          flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
