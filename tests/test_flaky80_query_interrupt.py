"""Ctrl-C during `minirag query`, whose embedding runs on the query pool's thread (search/plan.py)
while the main thread runs the keyword side."""

import signal
import subprocess
import sys

import pytest
from test_hostile_model_folder import (
    MARK_MODEL_RUNS,
    _began,
    _endless_graph,
    _indexed_then_endless,
    _wait_until_it_runs_the_endless_graph,
    stopped_by_two_ctrl_cs,
)

# `minirag query` as the program runs it, its model loaded without the short run that measures its
# vectors' width: the first run of the model is then the query's own, on the query pool's thread.
QUERY = MARK_MODEL_RUNS + """
import sys
from minirag.cli import main
Encoder._probe = lambda self: 384  # the tiny model's width (tests/helpers/models.py)
sys.argv = ["minirag", *sys.argv[1:]]
sys.exit(main())
"""

# The same, its model run one that does not heed its stop (as one long kernel does not): ONNX Runtime
# running a graph that never ends, its terminate flag never set.
UNHEEDED_QUERY = """
import sys
import onnxruntime as ort
from minirag import interruptible
from minirag.cli import main
from minirag.encoder import Encoder

endless = ort.InferenceSession(sys.argv.pop(1))

def run():
    print("running the endless graph", file=sys.stderr, flush=True)
    return endless.run(None, {})

Encoder._probe = lambda self: 384
Encoder._run_model = lambda self, sequences: interruptible.call(
    run, lambda: print("asked to stop", file=sys.stderr, flush=True))
sys.argv = ["minirag", *sys.argv[1:]]
sys.exit(main())
"""


def _ended(proc: subprocess.Popen, what: str) -> tuple[str, str]:
    try:
        return proc.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        pytest.fail(what)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()


@pytest.mark.slow
@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT to a child process")
def test_ctrl_c_stops_a_query_whose_model_run_on_the_query_pool_never_ends(folder, tmp_path):
    """The query's embedding ran on the pool's thread with nothing to stop it: Ctrl-C raised in the
    main thread, whose `finally` then closed the App, which joined the pool's thread with no time
    limit, for ever under a graph that never ends. The first Ctrl-C did nothing visible; the second
    ended the process in SIGABRT ("terminate called without an active exception")."""
    env = _indexed_then_endless(folder, tmp_path)
    proc = subprocess.Popen([sys.executable, "-c", QUERY, "query", "what do otters eat"], env=env,
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    _wait_until_it_runs_the_endless_graph(proc, _began(env))
    proc.send_signal(signal.SIGINT)
    _, err = _ended(proc, "Ctrl-C did not stop a query whose model run never ends")
    assert (proc.returncode, err) == (130, "minirag: interrupted\n")


@pytest.mark.slow
@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT to a child process")
def test_a_second_ctrl_c_leaving_a_query_pools_model_run_ends_the_process_in_one_line(folder, tmp_path):
    """The first Ctrl-C asks the query pool's model run to stop; one that does not heed it is left by
    the second, and the process ends at once, in one line, not held by the pool's thread, nor
    aborted by the interpreter's teardown destroying ONNX Runtime under that run."""
    env = _indexed_then_endless(folder, tmp_path)
    _endless_graph(tmp_path / "endless.onnx")
    proc = subprocess.Popen([sys.executable, "-c", UNHEEDED_QUERY, str(tmp_path / "endless.onnx"), "query",
                             "what do otters eat"], env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    rest = stopped_by_two_ctrl_cs(proc, "the process did not end after a second Ctrl-C")
    assert (proc.returncode, rest) == (130, "minirag: interrupted\n")


@pytest.fixture
def folder(tmp_path, tiny_model_dir):
    import shutil

    made = tmp_path / "model"
    made.mkdir()
    for name in ("model.onnx", "tokenizer.json", "minirag-model.json"):
        shutil.copy(tiny_model_dir / name, made / name)
    return made

