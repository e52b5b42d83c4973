"""minirag started under limits it did not set (`ulimit -v`, `ulimit -t`: shells on shared hosts
and batch schedulers set both the soft and the hard limit). The conversion worker lowers its soft
limits for each document; it must never ask for more than the hard limit it inherited."""
import json
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


# Runs the CLI with argv[1:] under an address-space limit 40 MiB above what it has mapped once
# loaded, as `ulimit -v` set too tight would.
TIGHT = """
import resource, sys
import numpy, onnxruntime, minirag.app, minirag.encoder  # noqa: F401 - loaded before the limit
from minirag import cli
with open("/proc/self/status") as status:
    mapped = next(int(line.split()[1]) for line in status if line.startswith("VmSize")) * 1024
resource.setrlimit(resource.RLIMIT_AS, (mapped + (40 << 20), resource.RLIM_INFINITY))
sys.exit(cli.main(sys.argv[1:]))
"""


def test_memory_running_out_is_said_as_such_not_as_an_internal_error(tmp_path, model_path):
    """100 MB of text into `ingest-data` (or a sync loading the default model under `ulimit -v 600000`)
    said 'internal error: MemoryError: MemoryError ... please report it'."""
    big = tmp_path / "big.txt"
    big.write_text("otter river fish\n" * 6_000_000)
    with open(big, "rb") as stdin:
        done = subprocess.run([sys.executable, "-c", TIGHT, "ingest-data", "--source", "notes", "--base-dir",
                               str(tmp_path), "--db-path", str(tmp_path / "index.db"), "--model-path", model_path],
                              stdin=stdin, capture_output=True, text=True, timeout=120)
    assert done.returncode == 1 and done.stderr.startswith("minirag: error: out of memory"), done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and "internal error" not in done.stderr


def test_a_tool_that_runs_out_of_memory_says_so_over_mcp_as_the_cli_does():
    """Over MCP a MemoryError was 'internal error: MemoryError: ...', logged with its traceback as a bug."""
    from minirag.server import _as_tool_error

    said = str(_as_tool_error("query", MemoryError("Unable to allocate 91.6 MiB for an array")))
    assert said == ("out of memory (Unable to allocate 91.6 MiB for an array); free some, or raise the limit "
                    "minirag runs under (`ulimit -v`), and run it again")


def test_too_few_file_descriptors_are_said_as_such_not_as_a_bug_per_file(tmp_path, model_path):
    """Under `ulimit -n 14` each file failed as 'unexpected error: OSError: [Errno 24] Too many open
    files (... please report it)': the limit minirag runs under, not a bug."""
    docs = tmp_path / "docs"
    docs.mkdir()
    for number in range(3):
        (docs / f"n{number}.md").write_text(f"# Note {number}\n\nOtters {number}.\n")

    def few() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (14, 14))

    done = subprocess.run([sys.executable, "-m", "minirag", "sync", "--base-dir", str(docs), "--db-path",
                           str(tmp_path / "index.db"), "--model-path", model_path],
                          capture_output=True, text=True, timeout=120, preexec_fn=few)
    warnings = [line for line in done.stderr.splitlines() if line.startswith("warn: ")]
    assert warnings, done.stderr
    assert all("too many open files" in line and "ulimit -n" in line and "report" not in line for line in warnings), \
        done.stderr


def test_a_tool_that_runs_out_of_file_descriptors_says_so_over_mcp_as_the_cli_does():
    import errno

    from minirag.server import _as_tool_error

    said = str(_as_tool_error("sync_start", OSError(errno.EMFILE, "Too many open files")))
    assert said.startswith("too many open files") and "`ulimit -n`" in said and "internal error" not in said


# Runs the CLI with argv[2:] under an address-space limit argv[1] MiB above what it has mapped with
# numpy loaded and ONNX Runtime not yet: the runtime's library, its threads or its model then fail to
# get memory, each in its own way as the room shrinks.
LOADING_TIGHT = """
import json, resource, sys
import numpy  # noqa: F401
from minirag import cli
with open("/proc/self/status") as status:
    mapped = next(int(line.split()[1]) for line in status if line.startswith("VmSize")) * 1024
resource.setrlimit(resource.RLIMIT_AS, (mapped + (int(sys.argv[1]) << 20), resource.RLIM_INFINITY))
sys.exit(cli.main(sys.argv[2:]))
"""


# 32 MiB: room for what the sync needs before ONNX Runtime, not for its library (20-48 MiB all gave
# the same failure here). Tighter or looser rooms fail elsewhere, in ways that vary with the machine
# (its cores set how many threads the runtime starts): 64 MiB gave the pthread_create failure below.
@pytest.mark.parametrize("room_mb", [32])
def test_memory_running_out_while_the_model_loads_is_said_as_such_and_stdout_stays_json(tmp_path, model_path, room_mb):
    """Under `ulimit -v` a little too tight, `minirag ingest-data --json` said 'internal error: ImportError:
    ...onnxruntime_pybind11_state...so: failed to map segment from shared object (... please report it)',
    or 'cannot load ONNX model ...: /onnxruntime_src/.../env.cc:327 onnxruntime::{anonymous}::PosixThread::
    PosixThread(const char*, ...) pthread_create failed, error code: 12', after ONNX Runtime had printed
    its 'EP Error' notices, eight lines, on stdout, before the JSON; or 'ONNX Runtime could not run the
    model ...: can't start new thread', Python's own words for a thread it could not start."""
    done = subprocess.run([sys.executable, "-c", LOADING_TIGHT, str(room_mb), "ingest-data", "--json", "--source",
                           "notes", "--base-dir", str(tmp_path), "--db-path", str(tmp_path / "index.db"),
                           "--model-path", model_path], input="otters eat fish", capture_output=True, text=True,
                          timeout=120)
    said = ("out of memory", "cannot start a thread (out of memory")  # which, the room decides
    assert done.returncode == 1 and done.stderr.startswith(tuple(f"minirag: error: {s}" for s in said)), done.stderr
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert json.loads(done.stdout)["error"].startswith(said), done.stdout


def test_a_native_library_that_ran_out_of_memory_as_it_loaded_is_said_as_such():
    """ONNX Runtime's module, its library mapped, can still fail to start for want of memory: pybind11
    raises ImportError('Exception caught: std::bad_alloc') (seen at 56 MiB of room above), which was
    'internal error: ImportError ... please report it'."""
    from minirag.errors import exhausted

    said = exhausted(ImportError("Exception caught: std::bad_alloc"))
    assert said is not None and said.startswith("out of memory (loading a native library: std::bad_alloc)"), said
    assert exhausted(ImportError("No module named 'onnxruntime'")) is None
