"""A converter worker waits for its next file under no file's limits. The CPU limit a file was given
stayed set in its worker after the answer, so the next file's work before its own limits (reading its
request, its parser's first import) ran under what the last file had left: a file converted near its
MINIRAG_CONVERT_CPU_SECONDS left the next one, whatever it was, to die of SIGXCPU, blamed on its own
limit, and a sync to leave it out."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from minirag.ingest import isolation


def _cpu_limits(pid: int) -> tuple[str, str]:
    """The process's soft and hard CPU-time limits, as /proc writes them ("Max cpu time  4  unlimited  seconds")."""
    line = next(line for line in Path(f"/proc/{pid}/limits").read_text().splitlines()
                if line.startswith("Max cpu time"))
    soft, hard = line.split()[3:5]
    return soft, hard


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads the worker's limits from /proc")
def test_flaky86_a_worker_between_files_is_under_no_files_cpu_limit():
    pool = isolation.ConverterPool(1)
    try:
        small = pool.run("document", (b"# Otters\n\nThey float.\n", ".md", "a.md"), "a.md", isolation.Limits(2048, 3, 60))
        assert small.markdown
        pid = json.loads(pool.run("probe", (), "probe", isolation.Limits(2048, 3, 60)).markdown)["pid"]
        soft, hard = _cpu_limits(pid)  # the worker idle, waiting for its next file
        assert soft == hard  # as it was started: unlimited, or minirag's own `ulimit -t`
    finally:
        pool.close()
