"""minirag against minirag-mcp (the peer) with the same ONNX model: cold ingest and cold CLI query.

    uv venv /work/peer-venv -p 3.11
    uv pip install --python /work/peer-venv minirag-mcp==0.2.0
    uv run python scripts/peer_bench.py make-corpus \\
        /work/shared/eval-data/gnome-help-desc-C/corpus.jsonl 150 /tmp/pb/gnome150
    uv run python scripts/peer_bench.py run /work/peer-venv \\
        /root/.cache/minirag/built/multilingual-e5-small /tmp/pb/gnome150

`run` alternates the two tools: 3 ingest rounds (a fresh, empty index each, pinned
`taskset -c 0 nice -n 10`), then 5 cold CLI query rounds (a new process answering one
query, `taskset -c 1`), each under `/usr/bin/time -v` for wall and CPU seconds and peak
RSS, with the 1-minute load average read beside each run; then 3 rounds of an MCP
client (the official SDK) spawning each tool's stdio server, pinned to core 1, and
timing spawn -> the first `query_documents` answer. It prints a table and writes
the raw runs as JSON (--json).

The peer downloads its model from the Hugging Face hub through fastembed. To make it
embed with the very model file minirag uses, this script is also the peer's entry
point: `<peer-venv>/bin/python scripts/peer_bench.py --shim DIR ARGS...` registers the
model with fastembed (`TextEmbedding.add_custom_model`, mean pooling, normalized, when
it is not a built-in one), loads it from DIR (`specific_model_path`, which skips the
download), adds the model's query/passage prefixes (minirag-model.json) that the peer
does not add itself, then runs `minirag-mcp ARGS...`. DIR is a folder this script
stages inside the peer venv: symlinks to the model's model.onnx, tokenizer.json and
config.json, plus the tokenizer_config.json and special_tokens_map.json fastembed
requires (max length from minirag-model.json, the pad token from the vocabulary).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MINIRAG = ROOT / ".venv" / "bin" / "minirag"
QUERIES = (
    "Ignore quickly-repeated key presses of the same key.",
    "How do I connect to a wireless network?",
    "Change the screen brightness",
    "Print a document on both sides of the paper",
    "Set up a second monitor",
)
INGEST_PIN = ("taskset", "-c", "0", "nice", "-n", "10")
QUERY_PIN = ("taskset", "-c", "1")


# ---------------------------------------------------------------- the peer's entry point


def shim(model_dir: Path, argv: list[str]) -> None:
    """Run minirag-mcp with fastembed loading the model from `model_dir` (peer venv only)."""
    from fastembed import TextEmbedding
    from fastembed.common.model_description import ModelSource, PoolingType

    spec = json.loads((model_dir / "minirag-model.json").read_text())
    model_id = spec["model_id"]
    known = {m["model"].lower() for m in TextEmbedding.list_supported_models()}
    if model_id.lower() not in known:
        TextEmbedding.add_custom_model(
            model=model_id,
            pooling=PoolingType.MEAN,
            normalization=True,
            sources=ModelSource(hf=model_id),
            dim=int(json.loads((model_dir / "config.json").read_text())["hidden_size"]),
            model_file="model.onnx",
        )

    import minirag_mcp.embedder as embedder

    class LocalTextEmbedding(TextEmbedding):
        def __init__(self, model_name: str, cache_dir: str | None = None, **kwargs: object):
            kwargs.setdefault("specific_model_path", str(model_dir))
            kwargs.setdefault("local_files_only", True)
            super().__init__(model_name, cache_dir=cache_dir, **kwargs)  # type: ignore[arg-type]

    embedder.TextEmbedding = LocalTextEmbedding  # type: ignore[misc]
    query_prefix = spec.get("query_prefix", "")
    passage_prefix = spec.get("document_prefix", "")
    if query_prefix or passage_prefix:
        documents, query = embedder.Embedder.embed_documents, embedder.Embedder.embed_query
        embedder.Embedder.embed_documents = lambda self, texts: documents(  # type: ignore[method-assign]
            self, [passage_prefix + t for t in texts]
        )
        embedder.Embedder.embed_query = lambda self, text: query(self, query_prefix + text)  # type: ignore[method-assign]
    os.environ["MODEL_NAME"] = model_id
    sys.argv = ["minirag-mcp", *argv]
    from minirag_mcp.__main__ import main

    main()


def stage_model(peer_venv: Path, model: Path) -> Path:
    """A fastembed-shaped folder in the peer venv holding (links to) minirag's model files."""
    spec = json.loads((model / "minirag-model.json").read_text())
    staged = peer_venv / "peer-bench-models" / model.name
    staged.mkdir(parents=True, exist_ok=True)
    for name in ("model.onnx", "tokenizer.json", "config.json", "minirag-model.json"):
        link = staged / name
        if link.is_symlink() or link.exists():
            link.unlink()
        if (model / name).exists():
            link.symlink_to((model / name).resolve())
    vocab = json.loads((model / "tokenizer.json").read_text())
    added = {t["content"] for t in vocab.get("added_tokens", [])}
    pad = "<pad>" if "<pad>" in added else "[PAD]"
    (staged / "tokenizer_config.json").write_text(
        json.dumps({"model_max_length": int(spec.get("max_length", 512)), "pad_token": pad})
    )
    (staged / "special_tokens_map.json").write_text(json.dumps({"pad_token": pad}))
    return staged


# ---------------------------------------------------------------- corpus


def make_corpus(jsonl: Path, count: int, out: Path) -> None:
    """The first `count` BEIR documents of `jsonl` as Markdown files: `# title`, then the text."""
    out.mkdir(parents=True, exist_ok=True)
    with jsonl.open() as lines:
        for n, line in enumerate(lines):
            if n >= count:
                break
            doc = json.loads(line)
            name = re.sub(r"[^A-Za-z0-9._-]+", "_", doc["_id"]).removesuffix(".page") + ".md"
            (out / name).write_text(f"# {doc.get('title', '')}\n\n{doc['text']}\n")
    print(f"{min(n + 1, count)} documents in {out}")


# ---------------------------------------------------------------- measuring


def load1() -> float:
    return float(Path("/proc/loadavg").read_text().split()[0])


def timed(cmd: list[str], env: dict[str, str], pin: tuple[str, ...]) -> dict[str, object]:
    """Run `cmd` under /usr/bin/time -v: wall and CPU (user + sys) seconds, peak RSS (MiB), load."""
    before = load1()
    proc = subprocess.run(
        ["/usr/bin/time", "-v", *pin, *cmd], env=env, capture_output=True, text=True, check=False
    )
    if proc.returncode != 0:
        sys.exit(
            f"peer_bench: error: {' '.join(cmd)} exited {proc.returncode}: {proc.stderr[-2000:]}"
        )
    wall = re.search(r"Elapsed \(wall clock\) time.*: (?:(\d+):)?(\d+):([\d.]+)", proc.stderr)
    rss = re.search(r"Maximum resident set size \(kbytes\): (\d+)", proc.stderr)
    user = re.search(r"User time \(seconds\): ([\d.]+)", proc.stderr)
    system = re.search(r"System time \(seconds\): ([\d.]+)", proc.stderr)
    assert wall and rss and user and system, proc.stderr[-2000:]
    hours, minutes, seconds = wall.groups()
    return {
        "wall_s": int(hours or 0) * 3600 + int(minutes) * 60 + float(seconds),
        "cpu_s": float(user.group(1)) + float(system.group(1)),
        "rss_mib": int(rss.group(1)) / 1024,
        "load1": before,
        "stdout": proc.stdout,
    }


class Tool:
    def __init__(self, name: str, cmd: list[str], env: dict[str, str], db_name: str):
        self.name, self.cmd, self.env, self.db_name = name, cmd, env, db_name

    def env_for(self, db: Path) -> dict[str, str]:
        return {**os.environ, **self.env, "DB_PATH": str(db)}


def tools(
    peer_venv: Path, model: Path, corpus: Path, cache: Path, extra: dict[str, str], minirag: Path
) -> list[Tool]:
    staged = stage_model(peer_venv, model)
    ours = Tool(
        "minirag",
        [str(minirag)],
        {"MODEL_PATH": str(model), "BASE_DIR": str(corpus), **extra},
        "index.db",
    )
    peer = Tool(
        "minirag-mcp",
        [str(peer_venv / "bin" / "python"), str(Path(__file__).resolve()), "--shim", str(staged)],
        {"BASE_DIR": str(corpus), "CACHE_DIR": str(cache)},
        "lancedb",
    )
    return [ours, peer]


async def _first_answer(cmd: list[str], env: dict[str, str], question: str) -> dict[str, object]:
    """Spawn the tool's stdio MCP server (pinned to core 1) and time its first answer."""
    import time

    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    params = StdioServerParameters(command="taskset", args=["-c", "1", *cmd], env=env)
    before = load1()
    started = time.perf_counter()
    async with Client(params) as client:
        ready = time.perf_counter() - started
        answer = await client.call_tool("query_documents", {"query": question})
        first = time.perf_counter() - started
        if getattr(answer, "is_error", False) or getattr(answer, "isError", False):
            sys.exit(f"peer_bench: error: {cmd[0]} answered with an error: {answer}")
    return {"ready_s": ready, "first_answer_s": first, "load1": before}


def chunk_count(tool: Tool, db: Path) -> int:
    env = tool.env_for(db)
    if tool.name == "minirag":
        out = subprocess.run(
            [*tool.cmd, "status"], env=env, capture_output=True, text=True, check=True
        )
        return int(re.search(r"^chunkCount: (\d+)", out.stdout, re.M).group(1))  # type: ignore[union-attr]
    out = subprocess.run(
        [*tool.cmd, "status", "--json"], env=env, capture_output=True, text=True, check=True
    )
    status = json.loads(out.stdout)
    for key in ("chunkCount", "chunk_count", "chunks", "totalChunks"):
        if key in status:
            return int(status[key])
    raise SystemExit(f"peer_bench: error: no chunk count in the peer's status: {out.stdout[:500]}")


def bench(
    peer_venv: Path,
    model: Path,
    corpus: Path,
    ingest_rounds: int,
    query_rounds: int,
    mcp_rounds: int,
    work: Path,
    extra: dict[str, str],
    minirag: Path,
) -> dict[str, object]:
    docs = sum(1 for p in corpus.rglob("*") if p.is_file())
    both = tools(peer_venv, model, corpus, work / "peer-cache", extra, minirag)
    runs: dict[str, dict[str, list[dict[str, object]]]] = {
        t.name: {"ingest": [], "query": []} for t in both
    }
    kept: dict[str, Path] = {}
    for r in range(ingest_rounds):
        order = both if r % 2 == 0 else both[::-1]
        for tool in order:
            db = work / f"{tool.name}-{r}" / tool.db_name
            db.parent.mkdir(parents=True)
            run = timed([*tool.cmd, "sync"], tool.env_for(db), INGEST_PIN)
            runs[tool.name]["ingest"].append(run)
            print(
                f"  ingest {tool.name:12} round {r + 1}: {run['wall_s']:.1f} s, load {run['load1']}",
                file=sys.stderr,
            )
            if tool.name in kept:
                shutil.rmtree(kept[tool.name].parent)
            kept[tool.name] = db
    chunks = {t.name: chunk_count(t, kept[t.name]) for t in both}
    for r in range(query_rounds):
        text = QUERIES[r % len(QUERIES)]
        order = both if r % 2 == 0 else both[::-1]
        for tool in order:
            run = timed([*tool.cmd, "query", text], tool.env_for(kept[tool.name]), QUERY_PIN)
            runs[tool.name]["query"].append(run)
            print(
                f"  query  {tool.name:12} round {r + 1}: {run['wall_s']:.2f} s, load {run['load1']}",
                file=sys.stderr,
            )
    if mcp_rounds:
        import anyio

        for r in range(mcp_rounds):
            text = QUERIES[r % len(QUERIES)]
            order = both if r % 2 == 0 else both[::-1]
            for tool in order:
                env = tool.env_for(kept[tool.name])
                run = anyio.run(_first_answer, tool.cmd, env, text)
                runs[tool.name].setdefault("mcp", []).append(run)
                print(
                    f"  mcp    {tool.name:12} round {r + 1}: first answer "
                    f"{run['first_answer_s']:.2f} s, load {run['load1']}",
                    file=sys.stderr,
                )
    return {"model": str(model), "minirag_env": extra, "docs": docs, "chunks": chunks, "runs": runs}


def summary(result: dict[str, object]) -> str:
    runs = result["runs"]  # type: ignore[index]
    docs = result["docs"]  # type: ignore[index]

    def med(tool: str, kind: str, key: str) -> float:
        return statistics.median(float(r[key]) for r in runs[tool][kind])  # type: ignore[index]

    def rng(tool: str, kind: str, key: str, fmt: str) -> str:
        vals = [float(r[key]) for r in runs[tool][kind]]  # type: ignore[index]
        return f"{min(vals):{fmt}}–{max(vals):{fmt}}"

    extra = " ".join(f"{k}={v}" for k, v in result.get("minirag_env", {}).items())  # type: ignore[attr-defined]
    lines = [
        f"model {result['model']}, {docs} documents" + (f", minirag with {extra}" if extra else ""),
        "| tool | chunks | ingest s (median, range) | docs/s | ingest CPU s | ingest RSS MiB "
        "| cold query s (median, range) | query CPU s | query RSS MiB | load 1-min |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for tool in runs:  # type: ignore[union-attr]
        loads = [float(r["load1"]) for kind in ("ingest", "query") for r in runs[tool][kind]]  # type: ignore[index]
        lines.append(
            f"| {tool} | {result['chunks'][tool]} "  # type: ignore[index]
            f"| {med(tool, 'ingest', 'wall_s'):.1f} ({rng(tool, 'ingest', 'wall_s', '.1f')}) "
            f"| {docs / med(tool, 'ingest', 'wall_s'):.1f} "  # type: ignore[operator]
            f"| {med(tool, 'ingest', 'cpu_s'):.1f} "
            f"| {med(tool, 'ingest', 'rss_mib'):.0f} "
            f"| {med(tool, 'query', 'wall_s'):.2f} ({rng(tool, 'query', 'wall_s', '.2f')}) "
            f"| {med(tool, 'query', 'cpu_s'):.2f} "
            f"| {med(tool, 'query', 'rss_mib'):.0f} "
            f"| {min(loads):.1f}–{max(loads):.1f} |"
        )
    for key, what in (("wall_s", "wall"), ("cpu_s", "CPU")):
        ingest = med("minirag-mcp", "ingest", key) / med("minirag", "ingest", key)
        query = med("minirag-mcp", "query", key) / med("minirag", "query", key)
        lines.append(
            f"{what} seconds, medians: minirag {ingest:.1f}x faster ingest, "
            f"{query:.1f}x faster cold CLI query"
        )
    if all("mcp" in runs[tool] for tool in runs):  # type: ignore[operator]
        firsts = {
            tool: statistics.median(float(r["first_answer_s"]) for r in runs[tool]["mcp"])  # type: ignore[index]
            for tool in runs  # type: ignore[union-attr]
        }
        ranges = {
            tool: rng(tool, "mcp", "first_answer_s", ".2f")
            for tool in runs  # type: ignore[union-attr]
        }
        lines.append(
            "MCP stdio server spawn -> first answer, median (range): "
            + ", ".join(f"{tool} {firsts[tool]:.2f} s ({ranges[tool]})" for tool in firsts)
            + f"; ratio {firsts['minirag-mcp'] / firsts['minirag']:.1f}x"
        )
    return "\n".join(lines)


def main() -> None:
    if len(sys.argv) > 2 and sys.argv[1] == "--shim":
        shim(Path(sys.argv[2]), sys.argv[3:])
        return
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    corpus = sub.add_parser("make-corpus", help="write BEIR documents as Markdown files")
    corpus.add_argument("jsonl", type=Path)
    corpus.add_argument("count", type=int)
    corpus.add_argument("out", type=Path)
    run = sub.add_parser("run", help="measure both tools")
    run.add_argument("peer_venv", type=Path, help="the venv minirag-mcp is installed in")
    run.add_argument("model", type=Path, help="a minirag model folder (model.onnx, tokenizer.json)")
    run.add_argument("corpus", type=Path, help="a folder of documents")
    run.add_argument("--ingest-rounds", type=int, default=3)
    run.add_argument("--query-rounds", type=int, default=5)
    run.add_argument("--mcp-rounds", type=int, default=3, help="stdio server spawn -> first answer")
    run.add_argument(
        "--minirag-env",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a setting for minirag only, e.g. CHUNK_TOKEN_BUDGET=110 (repeatable)",
    )
    run.add_argument(
        "--minirag",
        type=Path,
        default=MINIRAG,
        help="minirag's entry point (default: this checkout's .venv/bin/minirag)",
    )
    run.add_argument("--json", type=Path, help="write the raw runs here")
    args = parser.parse_args()
    if args.command == "make-corpus":
        make_corpus(args.jsonl, args.count, args.out)
        return
    if not (args.peer_venv / "bin" / "minirag-mcp").exists():
        sys.exit(f"peer_bench: error: no minirag-mcp in {args.peer_venv}/bin")
    with tempfile.TemporaryDirectory(prefix="peer-bench-") as tmp:
        result = bench(
            args.peer_venv.resolve(),
            args.model.resolve(),
            args.corpus.resolve(),
            args.ingest_rounds,
            args.query_rounds,
            args.mcp_rounds,
            Path(tmp),
            dict(pair.split("=", 1) for pair in args.minirag_env),
            args.minirag,
        )
    if args.json:
        for tool in result["runs"].values():  # type: ignore[attr-defined]
            for kind in tool.values():
                for r in kind:
                    r.pop("stdout", None)
        args.json.write_text(json.dumps(result, indent=1))
    print(summary(result))


if __name__ == "__main__":
    main()
