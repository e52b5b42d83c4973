"""minirag started under limits it did not set (`ulimit -v`, `ulimit -t`: shells on shared hosts
and batch schedulers set both the soft and the hard limit). The conversion worker lowers its soft
limits for each document; it must never ask for more than the hard limit it inherited."""
import resource
import subprocess
import sys

import pytest

# Converts one small Markdown file in the isolated worker, then prints what came back.
CONVERT = """
import sys
from minirag.ingest import isolation
memory_mb = int(sys.argv[1])
for _ in range(2):  # the worker is reused: the second request meets the limits the first left
    done = isolation.POOL.run("document", (b"# Otters\\n\\nOtters eat fish.\\n", ".md", "a.md"), "a.md",
                              isolation.Limits(memory_mb, 60, 60))
    print(done.markdown.splitlines()[0])
isolation.POOL.close()
"""


@pytest.mark.parametrize(("limit", "memory_mb"), [
    ("RLIMIT_AS", 2048),  # the hard limit above the worker's: the soft one may go under it
    ("RLIMIT_AS", 16384),  # MINIRAG_CONVERT_MEMORY_MB above the hard limit: the hard limit holds
    ("RLIMIT_CPU", 2048),
])
def test_a_document_converts_under_hard_limits_the_process_inherited(limit, memory_mb):
    """Every file failed ('the converter crashed (SIGKILL)') under `ulimit -v 8000000`: the worker set
    its soft limits with an unlimited hard one, which takes a privilege it lacked (ValueError), then died."""
    which = getattr(resource, limit)
    value = 8 << 30 if limit == "RLIMIT_AS" else 3600

    def inherited() -> None:
        resource.setrlimit(which, (value, value))

    done = subprocess.run([sys.executable, "-c", CONVERT, str(memory_mb)], capture_output=True, text=True,
                          timeout=120, preexec_fn=inherited)
    assert (done.returncode, done.stdout) == (0, "# Otters\n# Otters\n"), done.stderr[-2000:]
