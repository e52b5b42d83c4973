"""What the benchmark scripts share: running a phase in a fresh process, and counting embeddings.

Tests use CountingEncoder too (tests/conftest.py loads it from here).
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path


class CountingEncoder:
    """The real encoder, recording every passage it is asked to embed."""

    def __init__(self, real):
        self.real, self.embedded = real, []

    def __getattr__(self, name):
        return getattr(self.real, name)

    def embed_documents(self, texts):
        self.embedded.extend(texts)
        return self.real.embed_documents(texts)


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
