"""A process whose locale is not UTF-8 (LC_ALL=C with PYTHONUTF8=0, or a Latin-1 or EUC-JP locale)
hands every file name over in that encoding: `café.md`'s UTF-8 bytes are lone surrogates under
ASCII. A sync run there took each non-ASCII name for one that is not UTF-8, skipped it and
removed it from the index. The command starts itself again in Python's UTF-8 mode, so it reads the
names as every other process did; where it cannot, the configuration refuses in one line."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from conftest import in_this_process

pytestmark = pytest.mark.slow  # each test runs minirag in processes of its own

NOT_UTF8_LOCALE = {"LC_ALL": "C", "LANG": "C", "PYTHONUTF8": "0", "PYTHONCOERCECLOCALE": "0"}


def _minirag(env: dict[str, str], *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "minirag", *args], env=env, capture_output=True, timeout=120)


@pytest.fixture
def synced(tmp_path, model_path, encoder) -> dict[str, str]:
    """The environment of an index synced with both names, made in this process as `minirag sync` makes it
    where names are UTF-8 (a process of its own cost ~1 s of CPU): only the commands under the locale
    are what the tests look at."""
    from minirag.app import App
    from minirag.config import load_config

    assert sys.getfilesystemencoding() == "utf-8"  # this process reads the names as the index should hold them
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "café.md").write_text("# Café\n\nThe espresso machine hisses at dawn.\n", encoding="utf-8")
    (docs / "plain.md").write_text("# Plain\n\nAn ASCII name.\n", encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k not in ("LC_ALL", "LC_CTYPE", "LANG", "PYTHONUTF8")}
    env |= {"MODEL_PATH": model_path, "BASE_DIR": str(docs), "DB_PATH": str(tmp_path / "index.db")}
    app = App(load_config(env=env, cwd=tmp_path), encoder=encoder)
    try:
        assert app.sync().done == 2
    finally:
        app.close()
    return env


def _sources(run_cli, env: dict[str, str]) -> set[str]:
    """The names the index holds, as `minirag list --json` gives them where names are UTF-8 (in this process)."""
    listed = run_cli("list", "--json", env=in_this_process(env))
    assert listed.returncode == 0, listed.stderr
    return {os.path.basename(row["source"]) for row in json.loads(listed.stdout)["files"]
            if row["state"] == "indexed"}


def test_a_sync_under_a_non_utf8_locale_reads_the_names_as_utf8_and_drops_nothing(synced, run_cli):
    assert _sources(run_cli, synced) == {"café.md", "plain.md"}
    done = _minirag(synced | NOT_UTF8_LOCALE, "sync", "--json")
    assert done.returncode == 0, done.stderr
    counts = json.loads(done.stdout)
    assert counts["deleted"] == 0 and counts["failed"] == 0 and counts["warnings"] == [], counts
    found = _minirag(synced | NOT_UTF8_LOCALE, "query", "espresso", "--json")
    assert found.returncode == 0, found.stderr
    assert os.path.basename(json.loads(found.stdout)["results"][0]["source"]) == "café.md"
    assert _sources(run_cli, synced) == {"café.md", "plain.md"}


def test_a_configuration_read_where_names_are_not_utf8_refuses_in_one_line(monkeypatch, tmp_path):
    from minirag.config import load_config
    from minirag.errors import ConfigError

    monkeypatch.setattr(sys, "getfilesystemencoding", lambda: "ascii")
    with pytest.raises(ConfigError, match="PYTHONUTF8=1") as refused:
        load_config(env={"BASE_DIR": str(tmp_path)}, cwd=tmp_path)
    assert "\n" not in str(refused.value)


def test_a_stdio_server_under_a_non_utf8_locale_syncs_without_dropping_a_name(synced, run_cli):
    lines = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "sync_start", "arguments": {"wait": True}}},
        {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "status", "arguments": {}}},
    ]
    served = subprocess.run([sys.executable, "-m", "minirag"], env=synced | NOT_UTF8_LOCALE, capture_output=True,
                            timeout=120, input=b"".join(json.dumps(line).encode() + b"\n" for line in lines))
    replies = {r["id"]: r for r in map(json.loads, served.stdout.splitlines()) if "id" in r}
    sync = replies[2]["result"]
    assert sync["isError"] is False and sync["structuredContent"]["state"] == "succeeded", sync
    assert sync["structuredContent"]["deleted"] == 0, sync
    assert "PYTHONUTF8" not in replies[3]["result"]["content"][0]["text"]
    assert b"Traceback" not in served.stderr
    assert _sources(run_cli, synced) == {"café.md", "plain.md"}


def test_a_python_told_x_utf8_0_is_told_that_option_is_what_to_drop(synced):
    # PYTHONUTF8=1 is set and overridden by the option: the refusal's usual advice would not help.
    done = subprocess.run([sys.executable, "-X", "utf8=0", "-m", "minirag", "sync"], capture_output=True,
                          timeout=120, env=synced | NOT_UTF8_LOCALE | {"PYTHONUTF8": "1"})
    err = done.stderr.decode("ascii", "replace")
    assert done.returncode == 1 and len(err.strip().splitlines()) == 1, err
    assert "-X utf8=0" in err, err
