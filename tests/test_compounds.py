"""A query's compound words are read as two words too, in languages that write compounds closed."""

from __future__ import annotations

from conftest import write

from minirag.ingest.sync import run_sync
from minirag.results import payload
from minirag.search.compounds import MAX_WORD_CHARS, MAX_WORDS, compound_parts


def found(app, query: str) -> list[str]:
    return [hit["source"].rsplit("/", 1)[-1] for hit in payload(app.query(query, top_k=10))["results"]]


def test_a_compound_in_a_query_finds_a_page_that_writes_its_words_apart(make_app, docs):
    write(docs / "apart.md", "# Dialog\n\nIm Dialog stehen die Einstellungen des Druckers.")
    write(docs / "other.md", "# Garten\n\nDer Hund schläft im Garten hinter dem Haus.")
    app = make_app({"RAG_HYBRID_WEIGHT": "1"})  # the keyword side alone
    run_sync(app.pipeline, list(app.config.roots))
    assert found(app, "Wo kann ich die Druckereinstellungen prüfen?") == ["apart.md"]


def held(*terms: str, count: int = 3):
    return lambda asked: {t: count for t in asked if t in terms}


def test_a_compound_is_split_where_both_parts_are_words_the_index_holds():
    assert compound_parts("Die Druckereinstellungen prüfen.", held("druck", "einstel")) == ["druck", "einstel"]
    # A linking s between the two words belongs to neither.
    assert compound_parts("Die Anmeldungsoptionen ändern.", held("anmeld", "option")) == ["anmeld", "option"]


def test_a_word_the_index_holds_is_left_whole_and_one_it_lacks_a_part_of_too():
    # `drucker` is the term of `druckereinstellungen` (its stem cut to seven characters).
    assert compound_parts("Die Druckereinstellungen prüfen.", held("drucker", "druck", "einstel")) == []
    assert compound_parts("Die Druckereinstellungen prüfen.", held("druck")) == []


def test_only_languages_that_write_compounds_closed_are_split():
    english = held("pass", "word")
    assert compound_parts("Where do I change the password of my account?", english) == []
    assert compound_parts("Modifier les paramètres de l'imprimante.", held("param", "imprim")) == []


def test_the_words_read_for_compounds_are_bounded_however_long_the_query():
    asked: list[list[str]] = []

    def counting(terms: list[str]) -> dict[str, int]:
        asked.append(terms)
        return {}

    query = "Die " + " ".join(["Druckereinstellungen", "Bildschirmschoner" * 3, "x" * 5000] * 200) + " prüfen."
    assert compound_parts(query, counting) == []
    assert len(asked) == 2  # the whole words, then the parts of those the index lacks
    assert len(asked[0]) <= MAX_WORDS and len(asked[1]) <= MAX_WORDS * 2 * MAX_WORD_CHARS
