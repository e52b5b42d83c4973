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


@pytest.mark.slow
def test_the_version_flag_matches_the_installed_metadata():
    expected = f"minirag {version('minirag')}"
    assert minirag.__version__ == version("minirag")
    done = run(sys.executable, "-m", "minirag", "--version")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == expected


@pytest.mark.slow
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


@pytest.mark.slow
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


# --- ready to publish -------------------------------------------------------------------------


def _pyproject() -> dict:
    import tomllib

    return tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]


def test_the_metadata_has_what_pypi_shows_classifiers_urls_and_the_readme():
    project = _pyproject()
    assert {"Programming Language :: Python :: 3.11", "Programming Language :: Python :: 3.12",
            "Development Status :: 4 - Beta"} <= set(project["classifiers"])
    assert set(project["urls"]) >= {"Homepage", "Repository", "Documentation", "Issues"}
    assert all(url.startswith("https://") for url in project["urls"].values())
    assert project["readme"] == "README.md" and project["license"] == "MIT"


def test_server_json_is_valid_for_the_mcp_registry_and_agrees_with_the_package():
    import json
    from importlib.resources import files

    jsonschema = pytest.importorskip("jsonschema")
    pytest.importorskip("skillsaw")  # dev dependency: it bundles the registry's released schemas
    server = json.loads((ROOT / "server.json").read_text())
    schema_file = files("skillsaw") / "schemas" / "mcp_registry" / "v2025_12_11" / "server.schema.json"
    schema = json.loads(schema_file.read_text())
    assert server["$schema"] == schema["$id"]
    jsonschema.Draft7Validator(schema, format_checker=jsonschema.FormatChecker()).validate(server)
    project = _pyproject()
    package = server["packages"][0]
    assert (package["registryType"], package["identifier"]) == ("pypi", project["name"])
    assert server["version"] == package["version"] == project["version"]
    assert server["repository"]["url"] == project["urls"]["Repository"]
    owner = server["repository"]["url"].removeprefix("https://github.com/").split("/")[0]
    assert server["name"] == f"io.github.{owner}/{project['name']}"
    # The registry checks that the README on PyPI names the server, to know the package is its own.
    assert f"mcp-name: {server['name']}" in (ROOT / "README.md").read_text()


def test_the_release_workflow_builds_checks_and_publishes_by_trusted_publishing():
    yaml = pytest.importorskip("yaml")
    workflow = yaml.safe_load((ROOT / ".github" / "workflows" / "release.yml").read_text())
    assert workflow[True]["push"]["tags"] == ["v*"]  # YAML reads the key `on` as True
    jobs = workflow["jobs"]
    build = " ".join(step.get("run", "") for step in jobs["build"]["steps"])
    assert "uv build" in build and "twine check --strict dist/*" in build
    assert jobs["pypi"]["permissions"] == {"id-token": "write"}
    assert any(step.get("uses", "").startswith("pypa/gh-action-pypi-publish") for step in jobs["pypi"]["steps"])
    assert not any("password" in (step.get("with") or {}) for step in jobs["pypi"]["steps"])  # no token
    assert jobs["mcp-registry"]["needs"] == "pypi"


@pytest.mark.slow
def test_the_built_wheel_and_sdist_pass_twine_check(tmp_path):
    uv = shutil.which("uv")
    if uv is None or shutil.which("twine", path=os.path.dirname(sys.executable)) is None:
        pytest.skip("needs uv and twine (a dev dependency)")
    built = run(uv, "build", "--quiet", "--out-dir", str(tmp_path), str(ROOT), cwd=tmp_path)
    assert built.returncode == 0, built.stderr
    artifacts = sorted(str(p) for p in [*tmp_path.glob("*.whl"), *tmp_path.glob("*.tar.gz")])
    assert len(artifacts) == 2, artifacts
    checked = run(sys.executable, "-m", "twine", "check", "--strict", *artifacts)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert checked.stdout.count("PASSED") == 2


def test_uv_run_in_the_checkout_compiles_no_bytecode_on_every_command():
    """`compile-bytecode = true` under [tool.uv] made every `uv run minirag ...` of the README recompile
    all 7,103 files of the environment (uv compiles the whole site-packages whenever it syncs, astral-sh/uv
    issue 12202) and print `Bytecode compiled 7103 files in 594ms` on stderr: 0.2-0.25 s more a command
    (a cold `minirag query`, 1.15 s against 1.36 s on two busy cores). Python compiles a module once, on
    its first import, without it."""
    import tomllib

    settings = tomllib.loads((ROOT / "pyproject.toml").read_text()).get("tool", {}).get("uv", {})
    assert not settings.get("compile-bytecode", False)
