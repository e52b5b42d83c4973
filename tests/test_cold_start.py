"""What a new process loads before it answers (issue 31): a query's imports leave out what only
writes need, and the version is read only when shown. Checked in a fresh interpreter, by module
names rather than by time."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

PROBE = """
import json, sys
import minirag.app, minirag.cli
print(json.dumps(sorted(sys.modules)))
"""


def _loaded(code: str) -> set[str]:
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    return set(json.loads(done.stdout))


def test_a_query_process_loads_neither_the_ingest_pipeline_and_converters_nor_package_metadata():
    loaded = _loaded(PROBE)
    assert "minirag.app" in loaded
    assert "minirag.ingest.pipeline" not in loaded  # chunking, embedding batches: only for writes
    assert "minirag.ingest.convert" not in loaded  # the converters, and the OCR engine's languages asked of it
    assert "importlib.metadata" not in loaded  # the version, read when --version or status shows it
    assert "pathspec" not in loaded  # ignore patterns: compiled only by a walk over the roots


AFTER = """
import json, sys
from minirag.cli import main
code = main(sys.argv[1:])
print(json.dumps([code, sorted(sys.modules)]))
"""


@pytest.mark.parametrize("argv", [["sync"], ["list"], ["ingest", "a.md"]])
def test_a_sync_an_ingest_and_a_list_load_no_converter(cli_env, run_cli, argv):
    """The converters run in their worker processes (ingest/isolation.py): the process that syncs,
    ingests or lists, the server's too, imports none of them (a quarter of a second of CPU each
    start) nor the parsers they bring (openpyxl, pdfminer)."""
    if argv == ["list"]:
        assert run_cli("sync").returncode == 0
    done = subprocess.run([sys.executable, "-c", AFTER, *argv], capture_output=True, text=True, timeout=120,
                          cwd=cli_env.parent / "docs", check=True)
    code, loaded = json.loads(done.stdout.splitlines()[-1])
    assert code == 0, done.stderr
    assert "minirag.ingest.convert" not in loaded
    assert not {name.partition(".")[0] for name in loaded} & {"openpyxl", "pdfminer", "markitdown"}


def test_the_version_is_read_when_asked():
    from importlib.metadata import version

    import minirag

    assert minirag.__version__ == version("minirag")
    with pytest.raises(AttributeError):
        minirag.no_such_attribute  # noqa: B018 - the module's __getattr__ answers only __version__


def test_only_a_cli_query_makes_a_one_shot_encoder(cli_env, run_cli, monkeypatch):
    """`minirag query` embeds one text and exits: its encoder session is the quick one; a sync keeps
    the optimized session its many batches run on."""
    from minirag import encoder

    made: list[bool] = []
    original = encoder.Encoder.__init__

    def recording(self, *args, **kwargs):
        made.append(kwargs.get("one_shot", False))
        original(self, *args, **kwargs)

    monkeypatch.setattr(encoder.Encoder, "__init__", recording)
    assert run_cli("sync").returncode == 0
    assert run_cli("query", "otters").returncode == 0
    assert made == [False, True]


AS_THE_PROGRAM = """
import atexit, sys
atexit.register(lambda: sys.stderr.write("interpreter teardown\\n"))
sys.argv = ["minirag", *sys.argv[1:]]
from minirag.cli import main
raise SystemExit(main())
"""


def test_a_query_run_as_the_program_ends_its_process_without_the_interpreter_teardown(cli_env, run_cli, tmp_path):
    """The query's output is whole and its exit status kept; the interpreter's teardown (atexit,
    freeing every module) is skipped. Called from other code, main returns as always."""
    assert run_cli("sync").returncode == 0
    env = {**os.environ, "CACHE_DIR": str(tmp_path / "cache"), "PYTHONIOENCODING": "utf-8"}
    done = subprocess.run([sys.executable, "-c", AS_THE_PROGRAM, "query", "otters", "--json"], capture_output=True,
                          text=True, timeout=120, env=env, check=False)
    assert done.returncode == 0, done.stderr
    assert "Sea otters hold hands" in json.loads(done.stdout)["results"][0]["text"]
    assert "interpreter teardown" not in done.stderr
    refused = subprocess.run([sys.executable, "-c", AS_THE_PROGRAM, "query", " "], capture_output=True, text=True,
                             timeout=120, env=env, check=False)
    assert refused.returncode == 1 and "minirag: error: query must not be empty" in refused.stderr
    status = subprocess.run([sys.executable, "-c", AS_THE_PROGRAM, "status"], capture_output=True, text=True,
                            timeout=120, env=env, check=False)
    assert status.returncode == 0 and "interpreter teardown" in status.stderr  # other commands end as before
