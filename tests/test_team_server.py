"""A shared server under load (scripts/load_http.py, bounded): several MCP clients over
streamable HTTP with a bearer token query one `minirag serve --http` while a `minirag sync`
writes new documents into the same index; every query is answered, none fails."""

from __future__ import annotations

import argparse
import json
import shutil

import pytest
from conftest import FIXTURES, _load_script

pytestmark = pytest.mark.slow


def test_clients_querying_through_a_concurrent_sync_all_get_answers(tmp_path, model_path, monkeypatch):
    load = _load_script("load_http")
    writer_docs = tmp_path / "new"
    writer_docs.mkdir()
    for name in ("html_python_tomllib_en.html", "html_libreoffice_footnotes_en.html"):
        shutil.copy(FIXTURES / "docs" / name, writer_docs / name)
    docs = tmp_path / "docs"
    docs.mkdir()
    for name in ("txt_python_tutorial_appetite_en.txt", "md_debug_readme.md"):
        shutil.copy(FIXTURES / "docs" / name, docs / name)
    queries = tmp_path / "queries.jsonl"
    queries.write_text("".join(json.dumps({"_id": str(i), "text": text}) + "\n" for i, text in enumerate(
        ["how do I read a TOML file", "python debugger breakpoints", "why use python", "footnotes"])))
    monkeypatch.setenv("MODEL_PATH", model_path)
    args = argparse.Namespace(clients=4, seconds=3.0, warmup=1.0, db_path=None, docs=docs, writer_docs=writer_docs,
                              writer_files=2, queries_file=queries, model_path=model_path)
    work = tmp_path / "work"
    work.mkdir()
    result = load.run(args, work)
    assert result["errors"] == 0, result["error_examples"]
    assert result["latency"]["calls"] >= args.clients
    assert result["writer"].get("ingested") == 2, result["writer"]
    assert result["latency_while_writing"]["calls"] > 0  # queries kept being answered while it wrote
    assert result["server_rss_mb"]["peak"] is not None
