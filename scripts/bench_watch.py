"""Watch-mode speed of minirag: save -> searchable latency, a 1,000-file checkout, idle cost.

    python scripts/bench_watch.py [--edits 20] [--burst 1000] [--idle-files 10000] [--idle-seconds 60] [--json]

(also run by `scripts/bench.py --watch`). Three phases, each in its own subprocess,
each an App watching its roots in a background thread exactly as `serve --watch`
does, with the default debounce:

- latency: one Markdown file among 200 is saved `--edits` times, each time with a
  new unique word; the clock runs from the save until App.query for that word
  returns the file. The embedding time of each re-index is reported beside it.
- burst: a git repository of `--burst` Markdown files in 20 folders is indexed on
  one branch, then `git checkout` switches to a branch where every file differs.
  Counted until the index holds every new content: sync passes, files ingested
  and chunk texts embedded (the encoder counts them), and how many were embedded twice.
- idle: `--idle-files` tiny files in 100 folders are synced, then watched; process
  CPU time over `--idle-seconds` of no change, by notifications and then by polling
  at the documented interval; the RSS the watcher adds to the App (model loaded,
  index open, as a server holds them); the inotify watches it holds.

Progress on stderr, results on stdout (a table, or JSON with --json). Model:
MODEL_PATH, else the test model (scripts/test_model.py). Timings from a shared
machine are noisy; the load average is part of the output.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

WORDS = ["harbour", "lantern", "copper", "meadow", "orbit", "ledger", "falcon", "quartz", "signal", "river", "mountain", "packet", "harvest", "window", "garden", "bridge", "engine", "market", "winter", "summer"]


def log(message: str) -> None:
    sys.stderr.write(message + "\n")
    sys.stderr.flush()


def rss_mb() -> float | None:
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return round(int(line.split()[1]) / 1024, 1)
    except OSError:
        pass
    return None


def cpu_seconds() -> float:
    times = os.times()
    return times.user + times.system


def inotify_watches() -> int | None:
    """Inotify watches this process holds (Linux), from /proc/self/fdinfo."""
    total, found = 0, False
    try:
        for fd in os.listdir("/proc/self/fd"):
            try:
                if os.readlink(f"/proc/self/fd/{fd}") != "anon_inode:inotify":
                    continue
                found = True
                total += Path(f"/proc/self/fdinfo/{fd}").read_text().count("inotify wd:")
            except OSError:
                continue
    except OSError:
        return None
    return total if found else None


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    pos = (len(ordered) - 1) * q / 100
    low = int(pos)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (pos - low)


def paragraph(rng: random.Random, words: int = 60) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(words)).capitalize() + "."


def markdown(rng: random.Random, title: str, extra: str = "") -> str:
    sections = [f"## Part {j}\n\n{paragraph(rng)}" for j in range(3)]
    return f"# {title}\n\n{paragraph(rng)} {extra}\n\n" + "\n\n".join(sections) + "\n"


from bench_common import CountingEncoder  # noqa: E402 - scripts/ is on sys.path above


def make_app(root: Path, db_path: Path, model_path: str, encoder):
    from minirag.app import App
    from minirag.config import load_config

    return App(load_config(env={}, base_dirs=[str(root)], db_path=str(db_path), model_path=model_path),
               encoder=encoder)


def load_encoder(model_path: str):
    from minirag.encoder import Encoder
    from minirag.models import resolve

    encoder = Encoder(resolve("unused", Path(model_path), Path("/nonexistent-cache")))
    encoder.embed_documents(["warm up the session"])
    return encoder


def wait_for(predicate, timeout: float, interval: float = 0.05):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    raise SystemExit(f"timed out after {timeout} s")


def wait_idle(app, reports: list, quiet: float = 2.0, timeout: float = 600.0) -> None:
    """Until the watcher has had nothing queued or running, and no new pass, for `quiet` seconds."""
    end = time.monotonic() + timeout
    seen, since = len(reports), time.monotonic()
    while time.monotonic() < end:
        state = app.watch_state()
        if state.queued or state.running or len(reports) != seen:
            seen, since = len(reports), time.monotonic()
        elif time.monotonic() - since >= quiet:
            return
        time.sleep(0.05)
    raise SystemExit("the watcher never went idle")


# --- phase: save -> searchable ---------------------------------------------------------------


def phase_latency(spec: dict) -> dict:
    from minirag.ingest import watch

    work = Path(spec["workdir"])
    root = work / "latency"
    rng = random.Random(1)
    for i in range(200):
        path = root / f"topic{i % 10}" / f"note{i:03}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(markdown(rng, f"Note {i}"))
    target = root / "topic0" / "edited.md"
    target.write_text(markdown(rng, "Edited page"))
    encoder = load_encoder(spec["model_path"])
    app = make_app(root, work / "latency.db", spec["model_path"], encoder)
    app.sync()
    reports: list = []
    app.start_watching(on_pass=reports.append)
    wait_idle(app, reports)
    samples, embed_ms, chunks = [], [], []
    for edit in range(spec["edits"]):
        token = "zq" + "".join(rng.choice("bcdfghjklmnpqrstvwxz") for _ in range(8))
        before = len(reports)
        started = time.perf_counter()
        target.write_text(markdown(rng, "Edited page", extra=f"The marker word is {token}."))

        def searchable(token=token) -> bool:
            hits = app.query(token, top_k=1).hits
            return bool(hits) and hits[0].source == str(target) and token in hits[0].text

        wait_for(searchable, timeout=60, interval=0.02)
        samples.append((time.perf_counter() - started) * 1000)
        # The query can see the new text a moment before the pass's report is handed over.
        wait_for(lambda before=before: any(r.progress.done for r in reports[before:]), timeout=10)
        mine = [r for r in reports[before:] if r.progress.done]
        embed_ms.append(sum(r.progress.timings.get("embed", 0.0) for r in mine) * 1000)
        chunks.append(sum(r.progress.chunks_written for r in mine))
        log(f"[latency] edit {edit + 1}: {samples[-1]:.0f} ms (embedding {embed_ms[-1]:.0f} ms)")
        time.sleep(0.5)
    app.close()
    without = [s - e for s, e in zip(samples, embed_ms, strict=True)]
    return {
        "edits": len(samples),
        "p50_ms": round(percentile(samples, 50)),
        "p90_ms": round(percentile(samples, 90)),
        "max_ms": round(max(samples)),
        "embed_p50_ms": round(percentile(embed_ms, 50)),
        "p50_minus_embed_ms": round(percentile(without, 50)),
        "chunks_per_edit": round(sum(chunks) / len(chunks), 1),
        "debounce_s": watch.DEBOUNCE_S,
    }


# --- phase: a checkout of 1,000 files ----------------------------------------------------------


def git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True,
                   env={**os.environ, "GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "bench@example.invalid",
                        "GIT_COMMITTER_NAME": "bench", "GIT_COMMITTER_EMAIL": "bench@example.invalid"})


def phase_burst(spec: dict) -> dict:
    from minirag.ingest.pipeline import file_hash

    work, count = Path(spec["workdir"]), spec["count"]
    repo = work / "burst"
    repo.mkdir(parents=True, exist_ok=True)
    files = [repo / f"area{i % 20:02}" / f"page{i:04}.md" for i in range(count)]
    git(repo, "init", "-q", "-b", "before")
    rng = random.Random(2)
    for i, path in enumerate(files):  # one chunk each: the event storm matters here, not embedding speed
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"# Page {i}\n\n{paragraph(rng, 40)}\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "before")
    git(repo, "checkout", "-q", "-b", "after")
    for i, path in enumerate(files):
        path.write_text(f"# Page {i}\n\n{paragraph(rng, 40)} Revised on the other branch.\n")
    git(repo, "commit", "-q", "-am", "after")
    git(repo, "checkout", "-q", "before")

    encoder = CountingEncoder(load_encoder(spec["model_path"]))
    app = make_app(repo, work / "burst.db", spec["model_path"], encoder)
    log(f"[burst] indexing {count} files on the first branch ...")
    app.sync()
    reports: list = []
    app.start_watching(on_pass=reports.append)
    wait_idle(app, reports)
    first, embedded = len(reports), len(encoder.embedded)
    log("[burst] git checkout of the other branch ...")
    started = time.perf_counter()
    git(repo, "checkout", "-q", "after")
    checkout_s = time.perf_counter() - started

    def current() -> bool:
        stored = app.index.stored_states("file")
        return all(stored.get(str(p)) and stored[str(p)].content_hash == file_hash(p.read_bytes()) for p in files)

    wait_for(current, timeout=1800, interval=0.5)
    synced_s = time.perf_counter() - started
    wait_idle(app, reports, quiet=3.0)
    burst = reports[first:]
    texts = encoder.embedded[embedded:]
    app.close()
    return {
        "files": count,
        "checkout_seconds": round(checkout_s, 2),
        "synced_seconds": round(synced_s, 1),
        "passes": len(burst),
        "pass_kinds": [r.kind for r in burst],
        "files_per_pass": [r.progress.done for r in burst],
        "files_ingested": sum(r.progress.done for r in burst),
        "texts_embedded": len(texts),
        "texts_embedded_twice": len(texts) - len(set(texts)),
    }


# --- phase: idle with 10,000 files ----------------------------------------------------------------


def measure_idle(app, reports: list, seconds: float) -> dict:
    wait_idle(app, reports, quiet=3.0)
    passes = len(reports)
    cpu0, wall0 = cpu_seconds(), time.perf_counter()
    time.sleep(seconds)
    cpu = cpu_seconds() - cpu0
    wall = time.perf_counter() - wall0
    return {"seconds": round(wall, 1), "cpu_seconds": round(cpu, 3), "cpu_percent_of_one_core": round(cpu / wall * 100, 3),
            "passes_meanwhile": len(reports) - passes}


def phase_idle(spec: dict) -> dict:
    from minirag.ingest import watch

    work, count = Path(spec["workdir"]), spec["count"]
    root = work / "idle"
    for i in range(count):
        folder = root / f"d{i // 100:03d}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"note{i:05d}.md").write_text(f"# Note {i % 50}\n\nA tiny note about topic {i % 50}.\n")
    encoder = load_encoder(spec["model_path"])
    app = make_app(root, work / "idle.db", spec["model_path"], encoder)
    log(f"[idle] first sync of {count} files ...")
    app.sync()
    app.query("topic 7")  # a serving App: model loaded, index open, a query answered
    server_rss = rss_mb()
    reports: list = []
    app.start_watching(on_pass=reports.append)
    wait_for(lambda: reports, timeout=600)
    reconcile_s = reports[0].seconds
    log(f"[idle] watching by notifications, {spec['seconds']} s of no change ...")
    notify = measure_idle(app, reports, spec["seconds"])
    notify["inotify_watches"] = inotify_watches()
    watching_rss = rss_mb()
    app.stop_watching()
    reports.clear()
    app.start_watching(on_pass=reports.append, polling=True)
    wait_for(lambda: reports, timeout=600)
    log(f"[idle] watching by polling every {watch.POLL_INTERVAL_S:g} s, {spec['seconds']} s of no change ...")
    polling = measure_idle(app, reports, spec["seconds"])
    app.close()
    return {
        "files": count,
        "folders": count // 100,
        "notifications": notify,
        "polling": {**polling, "interval_s": watch.POLL_INTERVAL_S},
        "server_rss_mb": server_rss,
        "watching_rss_mb": watching_rss,
        "watcher_rss_mb": round(watching_rss - server_rss, 1) if server_rss and watching_rss else None,
        "reconcile_pass_seconds": round(reconcile_s, 2),
        "reconcile_every_s": watch.RECONCILE_S,
        "reconcile_cpu_percent_amortized": round(reconcile_s / watch.RECONCILE_S * 100, 3),
    }


PHASES = {"latency": phase_latency, "burst": phase_burst, "idle": phase_idle}


# --- orchestration ---------------------------------------------------------------------------------


def run_phase(name: str, spec: dict) -> dict:
    from bench_common import run_phase as run

    return run(Path(__file__).resolve(), "watch bench", name, spec, log)


def run_all(work: Path, *, model_path: str | None, edits: int, burst: int, idle_files: int,
            idle_seconds: float) -> dict:
    if not model_path:
        from test_model import assemble

        model_path = str(assemble())
    from importlib.metadata import version

    base = {"workdir": str(work), "model_path": model_path}
    out: dict = {"load_avg_start": list(os.getloadavg()), "cores": os.cpu_count(),
                 "watchfiles": version("watchfiles"), "model": model_path}
    if edits:
        out["latency"] = run_phase("latency", {**base, "edits": edits})
    if burst:
        if shutil.which("git") is None:
            log("[burst] skipped: git is not installed")
        else:
            out["burst"] = run_phase("burst", {**base, "count": burst})
    if idle_files:
        out["idle"] = run_phase("idle", {**base, "count": idle_files, "seconds": idle_seconds})
    out["load_avg_end"] = list(os.getloadavg())
    return out


def print_table(r: dict) -> None:
    print(f"watch mode (watchfiles {r['watchfiles']}, {r['cores']} cores, load avg {r['load_avg_start'][0]:.2f} "
          f"-> {r['load_avg_end'][0]:.2f}; model {r['model']})")
    if "latency" in r:
        x = r["latency"]
        print(f"  save -> searchable over {x['edits']} edits: p50 {x['p50_ms']} ms, p90 {x['p90_ms']} ms, "
              f"max {x['max_ms']} ms; embedding p50 {x['embed_p50_ms']} ms ({x['chunks_per_edit']} chunks), "
              f"so p50 without it {x['p50_minus_embed_ms']} ms (debounce {x['debounce_s']} s)")
    if "burst" in r:
        x = r["burst"]
        print(f"  git checkout of {x['files']} changed files ({x['checkout_seconds']} s): {x['passes']} sync passes "
              f"{x['files_per_pass']}, {x['files_ingested']} files ingested, {x['texts_embedded']} chunk texts "
              f"embedded, {x['texts_embedded_twice']} twice; index current after {x['synced_seconds']} s")
    if "idle" in r:
        x = r["idle"]
        n, p = x["notifications"], x["polling"]
        print(f"  idle, {x['files']} files in {x['folders']} folders ({n['inotify_watches']} inotify watches): "
              f"{n['cpu_percent_of_one_core']}% of one core over {n['seconds']} s by notifications "
              f"({n['passes_meanwhile']} passes); {p['cpu_percent_of_one_core']}% by polling every "
              f"{p['interval_s']:g} s")
        print(f"  RSS: App serving {x['server_rss_mb']} MiB, watching {x['watching_rss_mb']} MiB "
              f"(watcher +{x['watcher_rss_mb']} MiB); reconciliation pass {x['reconcile_pass_seconds']} s every "
              f"{x['reconcile_every_s']:g} s = {x['reconcile_cpu_percent_amortized']}% amortized")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--edits", type=int, default=20, help="saves timed to searchable (0 skips; default 20)")
    parser.add_argument("--burst", type=int, default=1000, help="files changed by the checkout (0 skips; default 1000)")
    parser.add_argument("--idle-files", type=int, default=10_000, help="files watched while idle (0 skips)")
    parser.add_argument("--idle-seconds", type=float, default=60.0, help="length of each idle measurement")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_arguments(parser)
    parser.add_argument("--model-path", help="local model directory (default: MODEL_PATH, else the test model)")
    parser.add_argument("--workdir", type=Path, help="where the trees and indexes go (default: a new temp dir)")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of the table")
    parser.add_argument("--phase", choices=sorted(PHASES), help=argparse.SUPPRESS)
    parser.add_argument("--phase-spec", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.phase:
        print(json.dumps(PHASES[args.phase](json.loads(args.phase_spec))))
        return 0
    work = args.workdir or Path(tempfile.mkdtemp(prefix="minirag-bench-watch-"))
    work.mkdir(parents=True, exist_ok=True)
    try:
        results = run_all(work.resolve(), model_path=os.environ.get("MODEL_PATH") or args.model_path,
                          edits=args.edits, burst=args.burst, idle_files=args.idle_files,
                          idle_seconds=args.idle_seconds)
    finally:
        if args.workdir is None:
            shutil.rmtree(work, ignore_errors=True)
    if args.json:
        print(json.dumps(results, indent=2))
    else:
        print_table(results)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
