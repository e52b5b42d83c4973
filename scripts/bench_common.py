"""What the benchmark scripts share: running a phase in a fresh process, and counting embeddings
(CountingEncoder, the one the tests use: tests/helpers/encoders.py).
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from helpers.encoders import CountingEncoder  # noqa: E402 - tests/ is on sys.path above

__all__ = ["CountingEncoder", "run_phase"]


def run_phase(script: Path, label: str, name: str, spec: dict, log) -> dict:
    """Run `script --phase name` in its own process (a clean RSS and CPU account); its last
    stdout line is the phase's JSON result."""
    started = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, str(script), "--phase", name, "--phase-spec", json.dumps(spec)],
        stdout=subprocess.PIPE, text=True, check=False,
    )
    if proc.returncode != 0:
        raise SystemExit(f"{label} phase {name} failed (exit {proc.returncode})")
    log(f"[{name}] done in {time.perf_counter() - started:.0f} s")
    return json.loads(proc.stdout.strip().splitlines()[-1])
