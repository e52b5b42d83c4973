"""What an installed minirag promises, checked fast (nothing is built here; the full wheel
and zipapp installs are scripts/smoke_test.sh): version, entry points, lazy heavy imports."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from importlib.metadata import distribution, version
from pathlib import Path

import pytest

import minirag

ROOT = Path(__file__).resolve().parent.parent


def run(*args: str, **kwargs) -> subprocess.CompletedProcess:
    kwargs.setdefault("cwd", ROOT.parent)  # outside the tree: the installed package answers
    return subprocess.run(args, capture_output=True, text=True, timeout=60, check=False, **kwargs)


def test_the_version_flag_matches_the_installed_metadata():
    expected = f"minirag {version('minirag')}"
    assert minirag.__version__ == version("minirag")
    done = run(sys.executable, "-m", "minirag", "--version")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == expected


def test_the_console_script_is_installed_and_reports_the_same_version():
    script = shutil.which("minirag", path=os.path.dirname(sys.executable))
    if script is None:
        pytest.skip("no minirag console script beside this interpreter (not an installed environment)")
    done = run(script, "--version")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"minirag {version('minirag')}"


def test_the_entry_point_and_offline_extra_are_declared():
    dist = distribution("minirag")
    scripts = {ep.name: ep.value for ep in dist.entry_points if ep.group == "console_scripts"}
    assert scripts == {"minirag": "minirag.cli:main", "minirag-mcp": "minirag.cli:main"}
    assert "offline-model" in (dist.metadata.get_all("Provides-Extra") or [])


def test_importing_the_cli_does_not_import_the_model_runtime_or_converters():
    done = run(sys.executable, "-c",
               "import minirag.cli, sys; print('onnxruntime' in sys.modules, 'markitdown' in sys.modules)")
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["False", "False"], f"(onnxruntime, markitdown) imported: {done.stdout}"


def test_python_dash_m_minirag_help_lists_the_commands():
    done = run(sys.executable, "-m", "minirag", "--help")
    assert done.returncode == 0, done.stderr
    for command in ("serve", "ingest", "sync", "query", "status", "backup"):
        assert command in done.stdout


def test_the_packaging_scripts_are_runnable():
    done = run(sys.executable, str(ROOT / "scripts" / "build_zipapp.py"), "--help")
    assert done.returncode == 0 and "--offline-model" in done.stdout, done.stderr
    if shutil.which("bash"):
        syntax = run("bash", "-n", str(ROOT / "scripts" / "smoke_test.sh"))
        assert syntax.returncode == 0, syntax.stderr
