"""What a user waits for at every spawn: wall and CPU seconds of fresh minirag processes.

    python scripts/startup_bench.py [--runs N] [--e5 DIR] [--workdir DIR] [--tree DIR ...] [--importtime-top K]

Builds (once, in --workdir) a small index of a few fixture documents for each model: MiniLM (the
model installed with minirag, `--model-name all-MiniLM-L6-v2`) and, with --e5 naming its built
folder, the default model (multilingual-e5-small, as MODEL_PATH). Then, N times each, in turn:

- `minirag --version`
- `minirag status` (MiniLM's index)
- `minirag query "..."` (first result only, `--top-k 1`), once per model
- the stdio server: spawn -> `initialize` answered -> `tools/list` answered -> first
  `query_documents` answered, then stdin closed and the exit awaited, once per model; and once
  without the query (a session that never searches)

and prints the median wall seconds of each step and the median CPU seconds (user + system) of the
process and its children, to its exit; for the server also its own CPU at the first answer (from
/proc). Then the `python -X importtime` top K cumulative imports of one run of each. No asserts:
other processes share the CPU, so read the CPU seconds beside the wall ones. To compare source
trees (a checkout of main, a branch) give each with --tree: its folder goes first on PYTHONPATH of
the processes measured (which run in --workdir, so `-m` finds no minirag in the current folder), and
the trees take turns within each step's runs, so both meet the same load; each tree's minirag is
compiled first.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures" / "docs"
DOCUMENTS = ("md_debug_readme.md", "rst_python_email_architecture.rst", "txt_python_tutorial_appetite_en.txt",
             "txt_tzdata_news_excerpt.txt", "html_python_tomllib_en.html")
QUESTION = "how do I load a TOML file"
MINILM = {"MODEL_NAME": "all-MiniLM-L6-v2"}


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _proc_cpu(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class Bench:
    def __init__(self, python: str, workdir: Path, runs: int, trees: list[Path]):
        self.python, self.workdir, self.runs = python, workdir, runs
        self.trees: list[Path | None] = list(trees) or [None]
        self.rows: list[tuple[str, dict[str, list[float]]]] = []

    def env(self, name: str, model: dict[str, str], tree: Path | None = None) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if k not in ("MODEL_PATH", "MODEL_NAME", "BASE_DIRS")}
        env.update(model, BASE_DIR=str(self.workdir / "docs"), DB_PATH=str(self.workdir / f"{name}.db"))
        if tree is not None:
            env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(tree), env.get("PYTHONPATH")]))
        return env

    def label(self, label: str, tree: Path | None) -> str:
        return label if tree is None else f"{label} [{tree.name}]"

    def build(self, name: str, model: dict[str, str]) -> None:
        docs = self.workdir / "docs"
        docs.mkdir(parents=True, exist_ok=True)
        for document in DOCUMENTS:
            if not (docs / document).exists():
                shutil.copy(FIXTURES / document, docs / document)
        done = subprocess.run([self.python, "-m", "minirag", "sync"], env=self.env(name, model), cwd=self.workdir,
                              capture_output=True, text=True, check=False)
        if done.returncode != 0:
            sys.exit(f"startup_bench: the {name} index could not be built: {done.stderr.strip()}")

    def command(self, label: str, args: list[str], name: str, model: dict[str, str]) -> None:
        times = {tree: {"exit": [], "CPU": []} for tree in self.trees}
        for _ in range(self.runs):
            for tree in self.trees:
                cpu, wall = _children_cpu(), time.perf_counter()
                done = subprocess.run([self.python, "-m", "minirag", *args], env=self.env(name, model, tree),
                                      cwd=self.workdir, capture_output=True, check=False)
                times[tree]["exit"].append(time.perf_counter() - wall)
                times[tree]["CPU"].append(_children_cpu() - cpu)
                if done.returncode != 0:
                    sys.exit(f"startup_bench: {label} failed: {done.stderr.decode(errors='replace').strip()}")
        self.rows.extend((self.label(label, tree), times[tree]) for tree in self.trees)

    def server(self, label: str, name: str, model: dict[str, str], query: bool = True) -> None:
        steps = ("initialize", "tools/list", "query", "exit", "CPU@query", "CPU") if query else (
            "initialize", "tools/list", "exit", "CPU")
        times: dict = {tree: {step: [] for step in steps} for tree in self.trees}
        for _ in range(self.runs):
            for tree in self.trees:
                cpu, wall = _children_cpu(), time.perf_counter()
                argv = [self.python, "-m", "minirag", "serve"]
                for step, seconds in serve_once(argv, self.env(name, model, tree), wall, query=query).items():
                    times[tree][step].append(seconds)
                times[tree]["CPU"].append(_children_cpu() - cpu)
        self.rows.extend((self.label(label, tree), times[tree]) for tree in self.trees)

    def report(self) -> None:
        print(f"\nmedians of {self.runs} runs, seconds (wall to each step; CPU = user+sys of the process "
              "and its children, to its exit)")
        for label, times in self.rows:
            print(f"  {label:<40} " + "  ".join(f"{k} {statistics.median(v):6.3f}" for k, v in times.items()))


def serve_once(argv: list[str], env: dict[str, str], started: float, stderr=subprocess.DEVNULL,
               query: bool = True) -> dict[str, float]:
    """One stdio session: wall seconds from `started` to each answer, the server's CPU at the query's
    (without `query`, the session a client opens and never searches in: initialize, tools/list, exit)."""
    proc = subprocess.Popen(argv, env=env, cwd=Path(env["DB_PATH"]).parent, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=stderr)
    assert proc.stdin is not None and proc.stdout is not None

    def ask(ident: int, method: str, params: dict) -> dict:
        proc.stdin.write(json.dumps({"jsonrpc": "2.0", "id": ident, "method": method, "params": params}).encode()
                         + b"\n")
        proc.stdin.flush()
        while True:
            line = proc.stdout.readline()
            if not line:
                sys.exit(f"startup_bench: the server ended before answering {method}")
            message = json.loads(line)
            if message.get("id") == ident:
                if "error" in message or message.get("result", {}).get("isError"):
                    sys.exit(f"startup_bench: {method} failed: {message}")
                return message

    steps = {}
    ask(1, "initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                          "clientInfo": {"name": "startup_bench", "version": "1"}})
    steps["initialize"] = time.perf_counter() - started
    proc.stdin.write(b'{"jsonrpc": "2.0", "method": "notifications/initialized"}\n')
    ask(2, "tools/list", {})
    steps["tools/list"] = time.perf_counter() - started
    if query:
        ask(3, "tools/call", {"name": "query_documents", "arguments": {"query": QUESTION, "topK": 1}})
        steps["query"] = time.perf_counter() - started
        steps["CPU@query"] = _proc_cpu(proc.pid)
    proc.stdin.close()
    proc.wait(timeout=60)
    steps["exit"] = time.perf_counter() - started
    return steps


def importtime(python: str, label: str, args: list[str] | None, env: dict[str, str], top: int) -> None:
    """The top `top` imports by cumulative time of one process run with -X importtime."""
    log = Path(env["DB_PATH"]).with_suffix(".importtime")
    with log.open("wb") as sink:
        argv = [python, "-X", "importtime", "-m", "minirag", *(args or ["serve"])]
        if args is None:
            serve_once(argv, env, time.perf_counter(), stderr=sink)
        else:
            subprocess.run(argv, env=env, cwd=log.parent, stdout=subprocess.DEVNULL, stderr=sink, check=False)
    rows = []
    for line in log.read_text(errors="replace").splitlines():
        if line.startswith("import time:") and "cumulative" not in line:
            _, cumulative, name = line[len("import time:"):].split("|")
            rows.append((int(cumulative), name.rstrip()))
    print(f"\n-X importtime, {label}: {len(rows)} modules; top {top} cumulative (ms; nesting kept)")
    for cumulative, name in sorted(rows, reverse=True)[:top]:
        print(f"  {cumulative / 1000:8.1f}  {name}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--e5", type=Path, help="the built multilingual-e5-small folder (MODEL_PATH)")
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/minirag-startup-bench"))
    parser.add_argument("--python", default=sys.executable, help="the interpreter whose minirag is measured")
    parser.add_argument("--tree", type=Path, action="append", default=[],
                        help="a source tree to measure (its minirag package's parent folder); repeatable")
    parser.add_argument("--importtime-top", type=int, default=15)
    args = parser.parse_args()
    trees = [tree.resolve() for tree in args.tree]
    models = {"MiniLM": MINILM}
    if args.e5:
        models["e5-small"] = {"MODEL_PATH": str(args.e5.resolve())}
    bench = Bench(args.python, args.workdir, args.runs, trees)
    for tree in trees:  # with PYTHONDONTWRITEBYTECODE set, a tree never compiled is compiled at every start
        subprocess.run([args.python, "-m", "compileall", "-q", str(tree / "minirag")], check=True)
    for name, model in models.items():
        bench.build(name, model)
    load = os.getloadavg()
    bench.command("--version", ["--version"], "MiniLM", MINILM)
    bench.command("status", ["status"], "MiniLM", MINILM)
    for name, model in models.items():
        bench.command(f"query ({name})", ["query", "--top-k", "1", QUESTION], name, model)
    bench.server("stdio server, no query (MiniLM)", "MiniLM", MINILM, query=False)
    for name, model in models.items():
        bench.server(f"stdio server ({name})", name, model)
    print(f"python {args.python}; load average before {load[0]:.2f}, after {os.getloadavg()[0]:.2f}")
    bench.report()
    for tree in bench.trees:
        env = bench.env("MiniLM", MINILM, tree)
        top, named = args.importtime_top, "" if tree is None else f" [{tree.name}]"
        importtime(args.python, f"status{named}", ["status"], env, top)
        importtime(args.python, f"query (MiniLM){named}", ["query", "--top-k", "1", QUESTION], env, top)
        importtime(args.python, f"stdio server to its first answer (MiniLM){named}", None, env, top)


if __name__ == "__main__":
    main()
