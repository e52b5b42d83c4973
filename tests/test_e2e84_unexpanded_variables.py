"""An MCP client that passes its `env` values as written (Codex's TOML, Cursor's JSON) hands minirag
`DB_PATH=${HOME}/notes.db` or `BASE_DIR=$HOME/docs` untouched: the index was made in a folder named
`${HOME}` under whatever folder the client started the server in. A setting holding a $VARIABLE
that nothing expanded is refused in one line giving the path written out; a folder whose name
really holds a `$` is taken as it is."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from minirag.config import ConfigError, load_config


@pytest.mark.parametrize(("name", "written"), [
    ("DB_PATH", "${HOME}/notes.db"), ("DB_PATH", "$HOME/notes.db"), ("BASE_DIR", "$HOME/docs"),
    ("CACHE_DIR", "${XDG_CACHE_HOME}/minirag"), ("MODEL_PATH", "$HOME/models/e5"),
])
def test_e2e84_a_setting_holding_an_unexpanded_variable_is_refused_with_the_path_written_out(
        tmp_path, monkeypatch, name, written):
    home = tmp_path / "home"
    (home / "docs").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CACHE_HOME", str(home / ".cache"))
    env = {"BASE_DIR": str(home / "docs"), name: written}
    with pytest.raises(ConfigError) as refused:
        load_config(env=env, cwd=tmp_path)
    expanded = os.path.expandvars(written)
    assert str(refused.value) == (
        f"{name}: {written!r} holds a $VARIABLE that nothing expanded (an MCP client passes its env values as "
        f"written): write the path out, as {expanded!r}"), refused.value
    assert sorted(p.name for p in tmp_path.iterdir()) == ["home"]  # no folder named ${HOME} made


def test_e2e84_a_folder_whose_name_holds_a_dollar_is_taken_as_it_is(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    folder = tmp_path / "$HOME"
    folder.mkdir()
    config = load_config(env={"BASE_DIR": str(folder), "DB_PATH": "price$5/index.db"}, cwd=tmp_path)
    assert config.roots == (folder,) and config.db_path == Path(tmp_path / "price$5" / "index.db")
