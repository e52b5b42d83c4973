"""A full sync says which commit of each git root it indexed, as local-rag-mcp's ingest stamps the corpus
commit into its output ("uncommitted changes present" is a warning label of its own). The commit was kept
for `status` only (gitState); the sync's own output, the record a build log or CI keeps, said nothing of
it. Real CLI, real MCP server, a real git repository, the real test model."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import anyio
import pytest
from conftest import write
from mcp import Client

from minirag.app import App
from minirag.config import load_config
from minirag.server import ServerState, build_server

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def git(repo: Path, *args: str) -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    return subprocess.run(["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
                          check=True, capture_output=True, text=True,
                          env=env | {"GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull}).stdout.strip()


@pytest.fixture
def repo(docs) -> Path:
    write(docs / "otters.md", "# Otters\n\nSea otters hold hands while they sleep.")
    git(docs, "init", "-q")
    git(docs, "add", "otters.md")
    git(docs, "commit", "-q", "-m", "otters")
    return docs


@pytest.fixture
def run(run_cli, tmp_path, model_dir, repo):
    def run(*args):
        env = {"BASE_DIRS": None, "MODEL_NAME": None, "MODEL_PATH": str(model_dir), "BASE_DIR": str(repo),
               "DB_PATH": str(tmp_path / "i.db")}
        return run_cli(*args, env=env, cwd=repo)

    return run


def test_a_sync_names_the_commit_it_indexed_and_says_when_the_tree_was_dirty(run, repo):
    head = git(repo, "rev-parse", "HEAD")
    clean = run("sync", "--json")
    assert clean.returncode == 0, clean.stderr
    stamped = json.loads(clean.stdout)["gitState"]
    assert [(s["root"], s["commit"], s["dirty"]) for s in stamped] == [(str(repo), head, False)]
    assert stamped[0]["syncedAt"]

    write(repo / "seals.md", "# Seals\n\nHarbour seals haul out on rocks.")  # not committed
    text = run("sync")
    assert text.returncode == 0, text.stderr
    assert text.stdout.splitlines()[0].endswith(f" s; git {head[:12]}, uncommitted changes present")


def test_a_sync_of_one_path_or_of_roots_outside_git_stamps_nothing(run, repo, run_cli, tmp_path, model_dir):
    one = json.loads(run("sync", str(repo / "otters.md"), "--json").stdout)
    assert "gitState" not in one  # only a full sync reads the roots' state, as status has it
    plain = tmp_path / "plain"
    write(plain / "a.md", "# A\n\nNo repository here.")
    done = run_cli("sync", "--json", env={"BASE_DIRS": None, "MODEL_NAME": None, "MODEL_PATH": str(model_dir),
                                          "BASE_DIR": str(plain), "DB_PATH": str(tmp_path / "p.db")}, cwd=plain)
    assert done.returncode == 0 and "gitState" not in json.loads(done.stdout)


def test_a_sync_job_carries_the_commit_over_mcp(tmp_path, repo, model_path, encoder):
    config = load_config(env={}, base_dirs=[str(repo)], db_path=str(tmp_path / "i.db"), model_path=model_path)

    async def sync() -> dict:
        state = ServerState.from_config(config, App(config, encoder=encoder))
        try:
            async with Client(build_server(state)) as client:
                result = await client.call_tool("sync_start", {"wait": True})
                assert not result.is_error, result.content[0].text
                return result.structured_content
        finally:
            state.close()

    job = anyio.run(sync)
    assert job["state"] == "succeeded"
    assert [(s["commit"], s["dirty"]) for s in job["gitState"]] == [(git(repo, "rev-parse", "HEAD"), False)]
