"""A query in a writing system the model does not read is matched by its words alone (search/plan.py).
When none of them is indexed, the answer said only `no results (is anything indexed?)` on the CLI and
nothing at all over MCP, of an index of a thousand chunks: it now says why."""

from __future__ import annotations

import pytest
from conftest import write

from minirag import cli
from minirag.results import query_result

pytestmark = pytest.mark.minilm


@pytest.fixture
def indexed(app, docs):
    write(docs / "harbour.md", "# Harbour\n\nThe pilot boat met the ships at the buoy.\n")
    app.sync()
    return app


def test_e2e82_an_unread_query_that_finds_nothing_says_it_was_matched_by_its_words_alone(indexed):
    result = query_result(indexed.query("квантовая хромодинамика"))
    assert result["results"] == []
    model = indexed.encoder.model_id
    assert result["note"] == (f"{model} does not read cyrillic text: this query was matched by its exact words "
                              "alone, and no indexed passage holds them; ask in a language the model reads")


def test_e2e82_a_query_the_model_reads_or_one_that_finds_words_gets_no_note(indexed):
    assert "note" not in query_result(indexed.query("ship at the buoy"))
    assert "note" not in query_result(indexed.query("квантовая Harbour хромодинамика pilot buoy"))


def test_e2e82_the_cli_says_why_an_unread_query_found_nothing(indexed, cli_env, capsys):
    code = cli.main(["query", "квантовая хромодинамика"])
    out = capsys.readouterr().out
    assert code == 0 and out.startswith("no results: ") and "does not read cyrillic text" in out, out
