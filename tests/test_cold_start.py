"""What a new process loads before it answers (issue 31): a query's imports leave out what only
writes need, and the version is read only when shown. Checked in a fresh interpreter, by module
names rather than by time."""

from __future__ import annotations

import json
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
