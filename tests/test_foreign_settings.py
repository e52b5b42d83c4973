"""Settings from the reference projects and typos: local-rag-mcp's RAG_CORPUS_DIR is read as BASE_DIR
with a notice, its RAG_STORE_DIR is refused with the name to use, and every unknown RAG_* / MINIRAG_*
variable is warned about once."""

from __future__ import annotations

import logging

import pytest

from minirag import config as config_module
from minirag.config import ConfigError, load_config


@pytest.fixture(autouse=True)
def fresh_notices(monkeypatch):
    monkeypatch.setattr(config_module, "_warned", set())


def _warnings(caplog) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == "minirag.config" and r.levelno == logging.WARNING]


def test_rag_corpus_dir_alone_is_the_root_with_a_notice_not_the_working_directory(tmp_path, caplog):
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    cwd = tmp_path / "client"
    cwd.mkdir()
    config = load_config(env={"RAG_CORPUS_DIR": str(corpus)}, cwd=cwd)
    assert config.roots == (corpus,)
    assert _warnings(caplog) == [f"RAG_CORPUS_DIR (local-rag-mcp's name) is read as BASE_DIR={corpus}; "
                                 "set BASE_DIR instead to silence this"]


def test_rag_corpus_dir_beside_base_dir_is_ignored_with_a_notice(tmp_path, caplog):
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir(), b.mkdir()
    assert load_config(env={"RAG_CORPUS_DIR": str(a), "BASE_DIR": str(b)}, cwd=tmp_path).roots == (b,)
    assert "RAG_CORPUS_DIR is local-rag-mcp's setting and is ignored" in _warnings(caplog)[0]


def test_rag_store_dir_is_refused_with_the_name_to_use_unless_db_path_is_set(tmp_path, caplog):
    env = {"BASE_DIR": str(tmp_path), "RAG_STORE_DIR": str(tmp_path / "store")}
    with pytest.raises(ConfigError, match="RAG_STORE_DIR .local-rag-mcp's Chroma store. is not read by minirag.*"
                                          "set DB_PATH"):
        load_config(env=env, cwd=tmp_path)
    config = load_config(env={**env, "DB_PATH": str(tmp_path / "i.db")}, cwd=tmp_path)
    assert config.db_path == tmp_path / "i.db"
    assert _warnings(caplog) == ["RAG_STORE_DIR is local-rag-mcp's setting and is ignored: DB_PATH names the index"]


def test_each_unknown_rag_or_minirag_variable_is_warned_about_once(tmp_path, caplog):
    env = {"BASE_DIR": str(tmp_path), "RAG_HYBRID_WIEGHT": "0.3", "MINIRAG_COLOUR": "1", "RAGTIME": "x"}
    load_config(env=env, cwd=tmp_path)
    load_config(env=env, cwd=tmp_path)
    assert _warnings(caplog) == [
        "MINIRAG_COLOUR is not a minirag setting and is ignored; docs/configuration.md lists the settings",
        "RAG_HYBRID_WIEGHT is not a minirag setting and is ignored (did you mean RAG_HYBRID_WEIGHT?)",
    ]


def test_the_cli_shows_the_refusal_as_one_line(tmp_path, run_cli):
    # run_cli sets logging up as a fresh process does, so what an earlier test left configured
    # in this worker cannot add a line.
    result = run_cli("list", "--base-dir", tmp_path, env={"RAG_STORE_DIR": str(tmp_path / "store")})
    assert result.returncode == 1
    assert result.stderr.startswith("minirag: configuration error: RAG_STORE_DIR (local-rag-mcp's Chroma store)")
    assert result.stderr.count("\n") == 1, result.stderr
