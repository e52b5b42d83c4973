"""watchfiles against watchdog, as minirag would use them: start time, RSS added, idle CPU,
event latency, and what each does at the OS limit on watches.

    uv run --with watchdog python scripts/compare_watch_libraries.py [--files 10000] [--idle-seconds 30]

Each library runs in its own subprocess on the same tree (`--files` tiny Markdown files,
100 per folder). The limit check (Linux, needs user namespaces: `unshare -Ur`) lowers
the inotify watch limit to 50 for one process and watches 100 folders. Results are what
docs/watch.md quotes for the choice of library.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

PROBE = r"""
import json, os, statistics, sys, threading, time
from pathlib import Path

lib, root, idle_s = sys.argv[1], Path(sys.argv[2]), float(sys.argv[3])

def rss():
    for line in open("/proc/self/status"):
        if line.startswith("VmRSS"):
            return int(line.split()[1]) / 1024

def cpu():
    t = os.times()
    return t.user + t.system

seen, cond, stop = {}, threading.Condition(), threading.Event()

def saw(path):
    with cond:
        seen.setdefault(path, time.perf_counter())
        cond.notify_all()

base = rss()
started = time.perf_counter()
if lib == "watchfiles":
    import watchfiles

    def loop():
        for changes in watchfiles.watch(root, stop_event=stop, watch_filter=None):
            for _change, path in changes:
                saw(path)

    threading.Thread(target=loop, daemon=True).start()
else:
    from watchdog.events import FileSystemEventHandler
    from watchdog.observers import Observer

    class Handler(FileSystemEventHandler):
        def on_any_event(self, event):
            saw(event.src_path)

    observer = Observer()
    observer.schedule(Handler(), str(root), recursive=True)
    observer.start()
start_ms = (time.perf_counter() - started) * 1000
time.sleep(2)
added_rss = rss() - base
c0, w0 = cpu(), time.perf_counter()
time.sleep(idle_s)
idle = (cpu() - c0) / (time.perf_counter() - w0) * 100
latency = []
for i in range(20):
    path = str(root / "d000" / f"probe{i}.md")
    written = time.perf_counter()
    Path(path).write_text("x")
    with cond:
        cond.wait_for(lambda: path in seen, timeout=5)
    latency.append((seen.get(path, written + 99) - written) * 1000)
    time.sleep(0.1)
stop.set()
print(json.dumps({"start_ms": round(start_ms), "rss_added_mb": round(added_rss, 1),
                  "idle_cpu_percent": round(idle, 3), "latency_p50_ms": round(statistics.median(latency), 1),
                  "latency_max_ms": round(max(latency), 1)}))
"""

LIMIT_PROBE = r"""
import sys, time
from pathlib import Path

lib, root = sys.argv[1], Path(sys.argv[2])
folders = sorted(p for p in root.iterdir() if p.is_dir())
try:
    if lib == "watchfiles":
        import threading, watchfiles
        stop = threading.Event()
        threading.Timer(1.0, stop.set).start()
        for _ in watchfiles.watch(root, stop_event=stop):
            pass
    else:
        from watchdog.events import FileSystemEventHandler
        from watchdog.observers import Observer
        hits = set()

        class Handler(FileSystemEventHandler):
            def on_created(self, event):
                hits.add(Path(event.src_path).parent.name)

        observer = Observer()
        observer.schedule(Handler(), str(root), recursive=True)
        observer.start()
        time.sleep(1)
        for folder in folders:
            (folder / "limit-probe.md").write_text("x")
        time.sleep(2)
        observer.stop()
        for folder in folders:
            (folder / "limit-probe.md").unlink()
        print(f"no error; events seen from {len(hits)} of {len(folders)} folders")
        sys.exit(0)
    print("no error")
except Exception as exc:
    print(f"{type(exc).__name__}: {str(exc)[:90]}")
"""


def make_tree(root: Path, files: int) -> None:
    for i in range(files):
        folder = root / f"d{i // 100:03d}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"n{i:05d}.md").write_text(f"# Note {i}\n\ntext\n")


def site_size_kb(package: str) -> int:
    from importlib.metadata import distribution

    dist = distribution(package)
    return round(sum(dist.locate_file(f).stat().st_size for f in dist.files or []
                      if dist.locate_file(f).exists()) / 1024)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--idle-seconds", type=float, default=30.0)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="minirag-watchlibs-"))
    try:
        make_tree(work / "tree", args.files)
        results = {}
        for lib in ("watchfiles", "watchdog"):
            done = subprocess.run([sys.executable, "-c", PROBE, lib, str(work / "tree"), str(args.idle_seconds)],
                                  capture_output=True, text=True, check=True)
            results[lib] = json.loads(done.stdout) | {"installed_kb": site_size_kb(lib)}
            if shutil.which("unshare"):
                limited = subprocess.run(
                    ["unshare", "-Ur", "sh", "-c", 'echo 50 > /proc/sys/user/max_inotify_watches && exec "$0" "$@"',
                     sys.executable, "-c", LIMIT_PROBE, lib, str(work / "tree")],
                    capture_output=True, text=True)
                results[lib]["at_limit"] = (limited.stdout.strip() or limited.stderr.strip()[-200:])
        for lib, r in results.items():
            print(f"{lib}: {r['installed_kb']} KiB installed, start {r['start_ms']} ms, +{r['rss_added_mb']} MiB RSS, "
                  f"idle {r['idle_cpu_percent']}% of a core over {args.idle_seconds:g} s, event latency p50 "
                  f"{r['latency_p50_ms']} ms (max {r['latency_max_ms']}); at a limit of 50 watches for "
                  f"{args.files // 100} folders: {r.get('at_limit', 'not measured')}")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
