"""A model folder someone else wrote (MODEL_PATH, --model-path): its files are read before any
document is, so each must be refused in one line, never block, never eat the memory."""
import os
import queue
import re
import resource
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from conftest import in_this_process

SETTINGS_FILES = ["minirag-model.json", "1_Pooling/config.json", "sentence_bert_config.json", "tokenizer_config.json"]

# Resolves the folder given as argv[1] and prints the one line a user would read.
RESOLVE = """
import sys
from pathlib import Path
from minirag.errors import ModelUnavailable
from minirag.models import resolve
try:
    files = resolve("x", Path(sys.argv[1]), Path(sys.argv[2]))
except ModelUnavailable as exc:
    print("refused:", exc)
else:
    print("resolved:", files.spec.model_id, files.spec.max_length)
"""


def _limited() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))


def resolved(folder: Path, tmp_path: Path) -> str:
    """What resolving `folder` prints, in a child held to 2 GiB and 60 s: the old code blocked on
    a FIFO for ever, or read /dev/zero until the memory ran out."""
    try:
        done = subprocess.run([sys.executable, "-c", RESOLVE, str(folder), str(tmp_path / "cache")],
                              capture_output=True, text=True, timeout=60, preexec_fn=_limited)
    except subprocess.TimeoutExpired:
        pytest.fail(f"resolving {folder} blocked")
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout.strip()


@pytest.fixture
def folder(tmp_path, tiny_model_dir) -> Path:
    made = tmp_path / "model"
    made.mkdir()
    for name in ("model.onnx", "tokenizer.json", "minirag-model.json"):
        shutil.copy(tiny_model_dir / name, made / name)
    return made


@pytest.mark.parametrize("kind", ["fifo", "device"])
@pytest.mark.parametrize("name", SETTINGS_FILES)
def test_a_settings_file_that_is_no_regular_file_never_blocks_nor_fills_the_memory(folder, tmp_path, name, kind):
    target = folder / name
    target.parent.mkdir(exist_ok=True)
    target.unlink(missing_ok=True)
    if kind == "fifo":
        os.mkfifo(target)
    else:
        target.symlink_to("/dev/zero")
    said = resolved(folder, tmp_path)
    if name == "minirag-model.json":  # the user's own settings: never dropped in silence
        assert said == f"refused: cannot read {target}: not a regular file"
    else:  # another tool's file only refines the defaults, as when it is absent or not JSON
        assert said.startswith("resolved: ")


def test_a_settings_file_past_its_size_is_refused_unread(folder, tmp_path):
    target = folder / "minirag-model.json"
    with open(target, "wb") as f:
        f.truncate(3 << 30)  # sparse: 3 GiB to read, none on the disk
    said = resolved(folder, tmp_path)
    assert said == f"refused: cannot read {target}: 3,221,225,472 bytes, more than a settings file's 1,048,576"


def _external(folder: Path, location: str) -> None:
    """The folder's model.onnx, its last weight stored "outside the graph" at `location`."""
    import onnx

    model = onnx.load(str(folder / "model.onnx"))
    weight = model.graph.initializer[-1]
    size = len(weight.raw_data)
    weight.ClearField("raw_data")
    weight.data_location = onnx.TensorProto.EXTERNAL
    for key, value in (("location", location), ("offset", "0"), ("length", str(size))):
        entry = weight.external_data.add()
        entry.key, entry.value = key, value
    onnx.save(model, str(folder / "model.onnx"))


@pytest.mark.parametrize("where", ["absolute", "parent", "link out"])
def test_a_model_whose_weights_are_named_outside_its_folder_is_refused_unread(folder, tmp_path, where):
    """External data (a weight kept in another file the graph names) outside the model folder was read
    into the weights by onnxruntime before 1.24 (measured with 1.20.1 and 1.23.2: a file of the user's
    became part of every vector). minirag requires an onnxruntime that refuses it, as it does here."""
    from minirag.encoder import Encoder
    from minirag.errors import ModelUnavailable
    from minirag.models import resolve

    secret = tmp_path / "secret.bin"
    secret.write_bytes(os.urandom(1 << 20))
    location = {"absolute": str(secret), "parent": "../secret.bin", "link out": "weights.bin"}[where]
    if where == "link out":
        (folder / "weights.bin").symlink_to(secret)
    _external(folder, location)
    with pytest.raises(ModelUnavailable, match="cannot load ONNX model .*(Absolute path|escapes model directory)"):
        Encoder(resolve("x", folder, tmp_path / "cache"), cache_dir=tmp_path / "cache")


def test_the_onnxruntime_minirag_requires_is_one_that_keeps_a_models_weights_inside_its_folder():
    import re
    import tomllib

    from packaging.version import Version

    project = tomllib.loads((Path(__file__).parent.parent / "pyproject.toml").read_text())["project"]
    floor = next(re.fullmatch(r"onnxruntime>=([\d.]+)", d) for d in project["dependencies"] if d.startswith("onnxruntime"))
    assert floor is not None and Version(floor[1]) >= Version("1.24.1")


def _endless(folder: Path) -> None:
    """The folder's model.onnx, its last weight passed through a Loop of 10**15 turns first: a graph
    that never ends, as a hostile or broken export may be."""
    import numpy as np
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    model = onnx.load(str(folder / "model.onnx"))
    graph = model.graph
    body = helper.make_graph(
        [helper.make_node("Identity", ["cond_in"], ["cond_out"]), helper.make_node("Identity", ["v_in"], ["v_out"])],
        "turn", [helper.make_tensor_value_info("i", TensorProto.INT64, []),
                 helper.make_tensor_value_info("cond_in", TensorProto.BOOL, []),
                 helper.make_tensor_value_info("v_in", TensorProto.FLOAT, None)],
        [helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []),
         helper.make_tensor_value_info("v_out", TensorProto.FLOAT, None)])
    graph.initializer.extend([numpy_helper.from_array(np.array(10**15, np.int64), "turns"),
                              numpy_helper.from_array(np.array(True), "go_on")])
    last = graph.node[-1]
    graph.node.insert(len(graph.node) - 1, helper.make_node("Loop", ["turns", "go_on", last.input[1]], ["looped"],
                                                             body=body))
    last.input[1] = "looped"
    onnx.save(model, str(folder / "model.onnx"))


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_a_model_whose_graph_never_ends_is_stopped_by_ctrl_c_or_sigterm(folder, tmp_path, signum):
    """Python runs a signal's handler between bytecodes of the main thread: while it waited inside
    ONNX Runtime, under a graph that never ends, Ctrl-C and SIGTERM did nothing and only SIGKILL
    ended `minirag sync` (measured: 10 minutes, still loading the model)."""
    _endless(folder)
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_text("# Otters\n\nOtters eat fish.\n")
    db = tmp_path / "index.db"
    proc = subprocess.Popen([sys.executable, "-m", "minirag", "sync", "--base-dir", str(docs), "--db-path", str(db),
                             "--model-path", str(folder), "--cache-dir", str(tmp_path / "cache")],
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONPATH": str(Path(__file__).parent.parent)})
    try:
        _wait_until_it_runs_the_endless_graph(proc)
        proc.send_signal(signum)
        _, err = proc.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        pytest.fail(f"{signal.Signals(signum).name} did not stop a sync running a graph that never ends")
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == (130 if signum == signal.SIGINT else 143), err
    said = "interrupted" if signum == signal.SIGINT else "stopped by SIGTERM"
    # Past PROGRESS_INTERVAL_S of loading (a loaded machine), a progress line comes first: not an error's.
    lines = [line for line in err.strip().splitlines() if not re.match(r"minirag: \d\d:\d\d:\d\d ", line)]
    assert said in err and len(lines) == 1, err


def _wait_until_it_runs_the_endless_graph(proc: subprocess.Popen, began: Path | None = None) -> None:
    """Once `began` exists (a script run with MARK_MODEL_RUNS and TEST_MODEL_RUN_BEGAN), a model run has
    begun: 0.3 s of the process's CPU after, its thread spins inside ONNX Runtime. Without it: a whole
    sync with the real tiny model takes under 0.5 s of CPU, so 2 s past what the process had used when
    asked (a server's start alone takes 2-3 s of CPU, importing the MCP SDK), it runs the endless graph."""
    deadline = time.monotonic() + 120
    if began is not None:
        while not began.exists():
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < deadline, "the graph that never ends never ran"
            time.sleep(0.05)
    used = _cpu_seconds(proc.pid)
    while _cpu_seconds(proc.pid) < used + (2.0 if began is None else 0.3):
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "the graph that never ends never ran"
        time.sleep(0.05)


def _cpu_seconds(pid: int) -> float:
    """The CPU time (user and system, all threads) the process `pid` has used so far."""
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


# `minirag sync`, whose model run is one that does not heed its stop (as one long kernel does not):
# ONNX Runtime running a graph that never ends, its terminate flag never set.
UNHEEDED = """
import sys
import onnxruntime as ort
from minirag import cli, interruptible
from minirag.encoder import Encoder

endless = ort.InferenceSession(sys.argv[1])

def run():
    print("running the endless graph", file=sys.stderr, flush=True)
    return endless.run(None, {})

def unheeded(self, sequences):
    return interruptible.call(run, lambda: print("asked to stop", file=sys.stderr, flush=True))

Encoder._run_model = unheeded
sys.argv = ["minirag", *sys.argv[2:]]
raise SystemExit(cli.main())
"""


def _endless_graph(path: Path) -> None:
    """A graph of one Loop of 10**15 turns and nothing else."""
    import numpy as np
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    body = helper.make_graph(
        [helper.make_node("Identity", ["cond_in"], ["cond_out"]), helper.make_node("Identity", ["v_in"], ["v_out"])],
        "turn", [helper.make_tensor_value_info("i", TensorProto.INT64, []),
                 helper.make_tensor_value_info("cond_in", TensorProto.BOOL, []),
                 helper.make_tensor_value_info("v_in", TensorProto.FLOAT, [1])],
        [helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []),
         helper.make_tensor_value_info("v_out", TensorProto.FLOAT, [1])])
    graph = helper.make_graph(
        [helper.make_node("Loop", ["turns", "go_on", "v"], ["looped"], body=body)], "endless", [],
        [helper.make_tensor_value_info("looped", TensorProto.FLOAT, [1])],
        [numpy_helper.from_array(np.array(10**15, np.int64), "turns"), numpy_helper.from_array(np.array(True), "go_on"),
         numpy_helper.from_array(np.zeros(1, np.float32), "v")])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), str(path))


def test_a_second_ctrl_c_leaving_a_model_run_ends_the_process_in_one_line(folder, tmp_path):
    """Ctrl-C twice while a model run that does not heed its stop runs: the second leaves it. The
    interpreter's exit then joined the helper thread running it, and waited for ever (a run left
    running must not hold the process); with that thread left running, the interpreter's teardown
    destroyed ONNX Runtime under the run: "terminate called without an active exception", SIGABRT."""
    _endless_graph(tmp_path / "endless.onnx")
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_text("# Otters\n\nOtters eat fish.\n")
    proc = subprocess.Popen([sys.executable, "-c", UNHEEDED, str(tmp_path / "endless.onnx"), "sync", "--base-dir",
                             str(docs), "--db-path", str(tmp_path / "index.db"), "--model-path", str(folder),
                             "--cache-dir", str(tmp_path / "cache")],
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONPATH": str(Path(__file__).parent.parent)})
    rest = stopped_by_two_ctrl_cs(proc, "the process did not end: its exit waited for the run a second Ctrl-C left")
    assert (proc.returncode, rest.strip()) == (130, "minirag: interrupted; no file was indexed before the stop: "
                                                    "run `minirag sync` again for the rest")


def stopped_by_two_ctrl_cs(proc: subprocess.Popen, not_ended: str) -> str:
    """What `proc` writes on stderr after a first Ctrl-C asks its endless graph to stop and a second
    leaves it; a failure saying `not_ended` where the process does not end then. It says it runs the
    graph first: a wait on its CPU time sent the first Ctrl-C into a slow machine's imports, which it
    ends (one 'interrupted', no 'asked to stop')."""
    lines = _lines_of(proc.stderr)
    try:
        _line_comes(lines, "running the endless graph\n")
        proc.send_signal(signal.SIGINT)
        _line_comes(lines, "asked to stop\n")
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=60)
    except subprocess.TimeoutExpired:
        pytest.fail(not_ended)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    return "".join(iter(lambda: lines.get(timeout=60), None))


def _lines_of(stream) -> queue.Queue:
    """The lines of `stream` as they come, then None: read on a thread of their own, so that a wait
    for one has a deadline."""
    lines: queue.Queue = queue.Queue()

    def read() -> None:
        for line in stream:
            lines.put(line)
        lines.put(None)

    threading.Thread(target=read, daemon=True).start()
    return lines


def _line_comes(lines: queue.Queue, wanted: str, timeout_s: float = 120) -> None:
    """Wait for `wanted` among `lines` (a slow load's progress lines may come before it)."""
    deadline = time.monotonic() + timeout_s
    seen = []
    while (line := lines.get(timeout=max(deadline - time.monotonic(), 0.01))) != wanted:
        assert line is not None, f"the process ended before saying {wanted!r}: {''.join(seen)}"
        seen.append(line)


def test_a_tokenizer_file_past_any_real_tokenizers_size_is_refused_unread(folder, tmp_path):
    """A tokenizer.json of 10 million words (218 MB) loaded in 36 s into 2.8 GB; the largest real
    ones are some 35 MB. Sparse here: 3 GiB to read, none on the disk."""
    from minirag.encoder import Encoder
    from minirag.errors import ModelUnavailable
    from minirag.models import resolve

    with open(folder / "tokenizer.json", "r+b") as f:
        f.truncate(3 << 30)
    with pytest.raises(ModelUnavailable) as refused:
        Encoder(resolve("x", folder, tmp_path / "cache"), cache_dir=tmp_path / "cache")
    assert str(refused.value) == (f"cannot load the tokenizer {folder / 'tokenizer.json'}: 3,221,225,472 bytes, "
                                  "more than any real tokenizer's (at most 67,108,864 are read)")


LOAD = """
import sys
from pathlib import Path
from minirag.encoder import Encoder
from minirag.errors import ModelUnavailable
from minirag.models import resolve
try:
    Encoder(resolve("x", Path(sys.argv[1]), Path(sys.argv[2])), cache_dir=Path(sys.argv[2]))
except ModelUnavailable as exc:
    print("refused:", exc)
"""


def test_a_model_file_larger_than_onnx_allows_is_refused_unread(folder, tmp_path):
    """A sparse 20 GiB model.onnx (no disk used) was read whole to split its word table out:
    'internal error: MemoryError' under an 8 GB `ulimit -v`, the machine's memory without one.
    One protobuf message holds at most 2 GiB, so no ONNX file is larger."""
    with open(folder / "model.onnx", "r+b") as f:
        f.truncate(20 << 30)

    def limited() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (6 << 30, 6 << 30))

    done = subprocess.run([sys.executable, "-c", LOAD, str(folder), str(tmp_path / "cache")], capture_output=True,
                          text=True, timeout=120, preexec_fn=limited)
    assert done.stdout.strip() == (f"refused: cannot load ONNX model {folder / 'model.onnx'}: 21,474,836,480 bytes, "
                                   "more than one ONNX file holds (2 GiB; a larger model keeps its weights in "
                                   "external data files beside it)"), done.stderr[-2000:]


def test_vectors_that_are_not_numbers_from_a_damaged_prepared_copy_name_that_copy(folder, tmp_path):
    """The word table split out into CACHE_DIR on first use, overwritten with NaN (a damaged disk, another
    program): the error blamed 'a damaged or wrongly exported model file', which was whole, and
    named no way out; the prepared copy is the damaged one, and deleting it makes it again."""
    import numpy as np

    from minirag.encoder import Encoder
    from minirag.errors import ModelUnavailable
    from minirag.models import resolve

    cache = tmp_path / "cache"
    Encoder(resolve("x", folder, cache), cache_dir=cache)  # prepares the copy
    [table] = (cache / "minirag-split").glob("*/table.npy")
    rows = np.load(table, mmap_mode="r+")
    rows[:] = np.nan
    rows.flush()
    del rows
    with pytest.raises(ModelUnavailable) as refused:
        Encoder(resolve("x", folder, cache), cache_dir=cache)
    assert f"or its copy prepared for use in {table.parent}: delete that folder" in str(refused.value)


def test_loading_a_model_whose_graph_never_ends_stops_at_its_time_limit_in_one_line(folder, monkeypatch):
    """A server loads its model on a thread of its own at start (App.load_model_early) and a query waits
    for it: the load's width probe ran the endless graph for ever, and every query waited with it."""
    from minirag import encoder as encoder_module
    from minirag.errors import ModelUnavailable
    from minirag.models import resolve

    _endless(folder)
    monkeypatch.setattr(encoder_module, "PROBE_LIMIT_S", 0.5)
    with pytest.raises(ModelUnavailable) as refused:
        encoder_module.Encoder(resolve("x", folder, folder.parent / "cache"))
    said = str(refused.value)
    assert str(folder / "model.onnx") in said and "was stopped" in said and "\n" not in said, said


def test_a_model_load_under_a_bound_of_no_limit_keeps_its_time_limit_and_heeds_that_bounds_stop(folder, monkeypatch):
    """A sync job's and an ingest call's model runs are under a bound of no limit that a cancel stops: the
    load's width probe under it ran for ever, where alone it stops at PROBE_LIMIT_S."""
    import threading

    from minirag import encoder as encoder_module
    from minirag import interruptible
    from minirag.errors import ModelUnavailable
    from minirag.models import resolve

    _endless(folder)
    monkeypatch.setattr(encoder_module, "PROBE_LIMIT_S", 0.5)
    with interruptible.bounded(interruptible.RunBound(None)), pytest.raises(ModelUnavailable) as refused:
        encoder_module.Encoder(resolve("x", folder, folder.parent / "cache"))
    assert "more than 0.5 s and was stopped" in str(refused.value), refused.value

    monkeypatch.setattr(encoder_module, "PROBE_LIMIT_S", 3600.0)
    cancelled = interruptible.RunBound(None)
    threading.Timer(1.0, cancelled.stop, ("was stopped: cancelled by sync_cancel",)).start()
    with interruptible.bounded(cancelled), pytest.raises(ModelUnavailable) as refused:
        encoder_module.Encoder(resolve("x", folder, folder.parent / "cache"))
    assert str(refused.value).endswith("was stopped: cancelled by sync_cancel"), refused.value


# Put first in the scripts below: each model run first makes the file TEST_MODEL_RUN_BEGAN names (where
# set), so that a test waits for a run of the endless graph to begin (_wait_until_it_runs_the_endless_graph),
# not for CPU seconds that, added up, cost each test more than the rest of its work.
MARK_MODEL_RUNS = """
import os
from minirag.encoder import Encoder
_run_model = Encoder._run_model
def _marked(self, sequences):
    if os.environ.get("TEST_MODEL_RUN_BEGAN"):
        open(os.environ["TEST_MODEL_RUN_BEGAN"], "a").close()
    return _run_model(self, sequences)
Encoder._run_model = _marked
"""

# The stdio server as `python -m minirag` runs it, its query's model runs bounded at argv[1] seconds
# and no model loaded at start (its first query loads it, under that bound).
SERVE = MARK_MODEL_RUNS + """
import sys
from minirag import server
from minirag.cli import main
from minirag.server_state import ServerState
server.QUERY_RUN_LIMIT_S = float(sys.argv.pop(1))
ServerState.load_model_early = lambda self: None
sys.exit(main())
"""


def _indexed_then_endless(folder: Path, tmp_path: Path) -> dict[str, str]:
    """The environment of a server whose index was made with `folder`'s model, whose graph then never ends;
    a script started with MARK_MODEL_RUNS makes `_began(env)` as a model run begins.
    (The index is made in this process, as `minirag sync` with that environment makes it: a process
    of its own took 1.5 s of CPU.)"""
    from minirag.app import App
    from minirag.config import load_config

    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_text("# Otters\n\nOtters eat fish.\n")
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parent.parent), "BASE_DIR": str(docs),
           "DB_PATH": str(tmp_path / "index.db"), "MODEL_PATH": str(folder), "CACHE_DIR": str(tmp_path / "cache"),
           "TEST_MODEL_RUN_BEGAN": str(tmp_path / "a-model-run-began")}
    app = App(load_config(env=env, cwd=tmp_path))
    try:
        assert app.sync().done == 1
    finally:
        app.close()
    _endless(folder)
    return env


@pytest.mark.slow
def test_a_query_whose_model_run_never_ends_is_answered_in_one_line_naming_the_model(folder, tmp_path):
    from test_server_stdio import RawServer

    env = _indexed_then_endless(folder, tmp_path)
    server = RawServer(env, "2", run=("-c", SERVE))
    try:
        server.initialize()
        answer = server.call("query_documents", query="what do otters eat")
        after = server.call("status")
        stderr = server.close().decode()
    finally:
        if server.proc.poll() is None:
            server.proc.kill()
            server.proc.wait()
    text = answer["content"][0]["text"]
    assert answer["isError"] and str(folder / "model.onnx") in text and "was stopped" in text, text
    assert "\n" not in text and not after["isError"] and server.proc.returncode == 0, stderr
    assert "Traceback" not in stderr, stderr


def _began(env: dict[str, str]) -> Path:
    return Path(env["TEST_MODEL_RUN_BEGAN"])


def _ended(server, what: str) -> str:
    """stdin closed: the server's stderr, once it ended (a failure naming `what` if it did not)."""
    from test_server_stdio import TIMEOUT_S

    server.proc.stdin.close()
    try:
        server.proc.wait(TIMEOUT_S)
    except subprocess.TimeoutExpired:
        pytest.fail(f"the server did not end: {what}")
    finally:
        if server.proc.poll() is None:
            server.proc.kill()
            server.proc.wait()
    return server.proc.stderr.read().decode()


def _indexed(listing: str) -> set[str]:
    """The sources list_files says are indexed."""
    import json

    return {f["source"] for f in json.loads(listing)["files"] if f["state"] == "indexed"}


# SERVE, its model loaded without the short run that measures its vectors' width: the first run of the
# endless graph is then a sync's batch, in the middle of its files.
SERVE_UNPROBED = SERVE.replace("sys.exit(main())", """from minirag.encoder import Encoder
Encoder._probe = lambda self: 384  # the tiny model's width (tests/helpers/models.py)
sys.exit(main())""")


@pytest.mark.slow
def test_sync_cancel_stops_a_sync_job_whose_model_run_never_ends(folder, tmp_path, tiny_model_dir, run_cli):
    """sync_cancel stopped a job between encoder batches only: a job inside a run that never ends went
    on (`cancelling: true` after 10 s), and the server could not end when its client closed stdin."""
    import json

    from test_server_stdio import RawServer

    env = _indexed_then_endless(folder, tmp_path)
    (tmp_path / "docs" / "b.md").write_text("# Beavers\n\nBeavers build dams.\n")
    server = RawServer(env, "3600", run=("-c", SERVE_UNPROBED))
    try:
        server.initialize()
        started = json.loads(server.call("sync_start")["content"][0]["text"])
        _wait_until_it_runs_the_endless_graph(server.proc, _began(env))
        cancelled = json.loads(server.call("sync_cancel", jobId=started["jobId"])["content"][0]["text"])
        listed = server.call("list_files")["content"][0]["text"]
    finally:
        stderr = _ended(server, "the cancelled sync job's model run went on")
    assert cancelled["state"] == "cancelled" and cancelled["reason"] == "cancelled by sync_cancel", (cancelled, stderr)
    assert cancelled["seen"] == 2, cancelled  # stopped in the batch of b.md, not before it
    assert _indexed(listed) == {str(tmp_path / "docs" / "a.md")} and server.proc.returncode == 0, stderr
    assert "Traceback" not in stderr, stderr
    shutil.copy(tiny_model_dir / "model.onnx", folder / "model.onnx")  # a model that ends: the next sync does b.md
    # (In this process: the server has ended, and the lock it held is a file's, which this process takes too.)
    again = run_cli("sync", env=in_this_process(env))
    assert again.returncode == 0 and "2 files: 1 ingested, 1 unchanged" in again.stdout, (again.stdout, again.stderr)


@pytest.mark.slow
def test_a_client_that_cancels_a_query_or_an_ingest_whose_model_run_never_ends_stops_that_run(folder, tmp_path):
    """notifications/cancelled (Esc in Claude Code) did nothing to a query or an ingest call: the SDK's
    worker thread waited on the model run, which went on for ever, and the server could not end when
    its client closed stdin. query_documents (the server's first call, as a query whose run loads the
    model), then ingest_data, then ingest_file, each cancelled in its run, on one server (a start is
    ~2.5 s of CPU): a run a cancellation left going would keep the server from ending too."""
    from test_server_stdio import RawServer

    env = _indexed_then_endless(folder, tmp_path)
    (tmp_path / "docs" / "b.md").write_text("# Beavers\n\nBeavers build dams.\n")
    calls = {"query_documents": {"query": "what do otters eat"},
             "ingest_data": {"data": "# Beavers\n\nBeavers build dams.\n", "source": "notes/beavers"},
             "ingest_file": {"filePath": str(tmp_path / "docs" / "b.md")}}
    listings = {}
    server = RawServer(env, "3600", run=("-c", SERVE))
    try:
        server.initialize()
        for number, (tool, arguments) in enumerate(calls.items(), 9):
            _began(env).unlink(missing_ok=True)  # this call's run is the next to begin
            server.send({"id": number, "method": "tools/call", "params": {"name": tool, "arguments": arguments}})
            _wait_until_it_runs_the_endless_graph(server.proc, _began(env))
            server.send({"method": "notifications/cancelled", "params": {"requestId": number,
                                                                         "reason": "user pressed Esc"}})
            listings[tool] = server.call("list_files")
    finally:
        stderr = _ended(server, "a cancelled query's or ingest's model run went on")
    for tool, listed in listings.items():
        assert not listed["isError"] and _indexed(listed["content"][0]["text"]) == {str(tmp_path / "docs" / "a.md")}, \
            (tool, listed)
    assert server.proc.returncode == 0 and "Traceback" not in stderr, stderr
