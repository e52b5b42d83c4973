"""A chunk written in none of the query's writing system: the keyword side cannot read it, so its
BM25 of 0 is no evidence against it (writing.py, search/fusion.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import write

from minirag.ingest.sync import run_sync
from minirag.results import payload
from minirag.search import fusion
from minirag.search.keyword import unreadable_chunks
from minirag.store.schema import FTS_TOKENIZER
from minirag.writing import main_script, scripts_of


@pytest.mark.parametrize(("text", "expected"), [
    ("Turn on bounce keys", ("latin",)),
    ("使用 Python 的 asyncio", ("latin", "cjk")),  # by letters: 13 Latin, 3 CJK
    ("キーボードの設定を変更します", ("cjk",)),  # kanji, both kana and the long-vowel mark are one system
    ("ｷｰﾎﾞｰﾄﾞ", ("cjk",)),  # half-width katakana
    ("Привет, мир", ("cyrillic",)),
    ("한국어 키보드 설정", ("hangul",)),
    ("Ünïcödé straße", ("latin",)),
    ("2026-12-04 12:00", ()),
])
def test_the_writing_systems_of_a_text(text, expected):
    assert scripts_of(text) == expected
    assert main_script(text) == (expected[0] if expected else None)


def test_a_few_words_in_another_writing_system_do_not_make_it_one_of_the_texts():
    japanese = "キーボードの設定を変更するには設定パネルを開きます。" * 4
    assert scripts_of(japanese + " GNOME") == ("cjk",)  # 5 Latin letters among ~100
    assert scripts_of(japanese + " GNOME Settings Keyboard panel") == ("cjk", "latin")


def _chunk_ids(app) -> dict[str, int]:
    rows = app.index.conn.execute(
        "SELECT s.source, c.id FROM chunks c JOIN sources s ON s.id = c.source_id").fetchall()
    assert len(rows) == len({source for source, _ in rows}), rows  # one chunk per document
    return {Path(source).stem: chunk_id for source, chunk_id in rows}


@pytest.fixture
def three(app, docs):
    write(docs / "english.md", "# Keyboard\n\nChange the keyboard layout in the settings.")
    write(docs / "russian.md", "# Клавиатура\n\nРаскладка клавиатуры меняется в настройках.")
    write(docs / "other.md", "# Printers\n\nAdd a printer in the settings.")
    run_sync(app.pipeline, list(app.config.roots))
    return _chunk_ids(app)


def test_a_chunk_the_keyword_side_cannot_read_takes_half_its_vector_score_as_its_keyword_score(app, three):
    en, ru, other = three["english"], three["russian"], three["other"]
    nearest = [(en, 0.2), (ru, 0.4), (other, 0.6)]  # v: 1, 0.5, 0
    keyword = [(en, 3.0), (ru, 0.0), (other, 0.0)]  # k: 1, 0, 0

    def scores(unreadable):
        hits = fusion.fuse(app.index.conn, nearest, keyword, 0.4, 0.0, frozenset(unreadable))
        return {hit.chunk_id: round(hit.score, 6) for hit in hits}

    assert scores(()) == {en: 1.0, ru: 0.3, other: 0.0}
    assert scores({ru}) == {en: 1.0, ru: round(0.6 * 0.5 + 0.4 * fusion.UNREADABLE_SHARE * 0.5, 6), other: 0.0}
    # A real match counts in full: its k is above half its v.
    assert scores({en, ru})[en] == 1.0
    # A chunk named unreadable that neither side found is no candidate.
    assert set(scores({ru, other + 1000})) == {en, ru, other}


def test_only_chunks_in_a_writing_system_the_model_reads_and_the_query_is_not_in_are_unreadable(app, three, encoder):
    conn, ids = app.index.conn, list(three.values())
    reads_all = lambda script: True  # noqa: E731
    assert unreadable_chunks(conn, ids, "latin", reads_all) == {three["russian"]}
    assert unreadable_chunks(conn, ids, "cyrillic", reads_all) == {three["english"], three["other"]}
    assert unreadable_chunks(conn, ids, "cjk", reads_all) == set(ids)
    # The test model spells Cyrillic letter by letter: its cosine of a Russian chunk says nothing either.
    assert not encoder.reads_script("cyrillic")
    assert unreadable_chunks(conn, ids, "latin", encoder.reads_script) == frozenset()
    assert unreadable_chunks(conn, ids, "cyrillic", encoder.reads_script) == {three["english"], three["other"]}


def test_the_plan_names_the_unreadable_candidates_of_a_hybrid_query_only(app, make_app, three, encoder, monkeypatch):
    from minirag.search import plan

    seen: list[frozenset[int]] = []
    real = plan.fuse

    def spy(conn, nearest, keyword, keyword_weight, whole_query=0.0, unreadable=frozenset()):
        seen.append(unreadable)
        return real(conn, nearest, keyword, keyword_weight, whole_query, unreadable)

    monkeypatch.setattr(plan, "fuse", spy)
    monkeypatch.setattr(type(encoder), "reads_script", lambda self, script: True)  # a model reading both
    app.query("keyboard layout", top_k=3)
    make_app({"RAG_HYBRID_WEIGHT": "1"}).query("keyboard layout", top_k=3)  # keyword only: no vector side
    assert seen == [frozenset({three["russian"]}), frozenset()]


def test_an_index_from_before_writing_systems_were_kept_is_searched_read_only_without_them(
        make_app, docs, tmp_path):
    # Keyword scheme 14 and before: the FTS table has no `scripts` column, and a read-only open
    # cannot re-tokenize to add one.
    write(docs / "notes.md", "# Notes\n\nPrinters are added in the settings.")
    app = make_app()
    try:
        run_sync(app.pipeline, list(app.config.roots))
        conn = app.index.conn
        rows = conn.execute("SELECT rowid, body, title FROM chunks_fts").fetchall()
        conn.execute("DROP TABLE chunks_fts")
        # As keyword schemes 9 to 14 made it (0d1c75e): any other declaration is a damaged index.
        conn.execute(f"""CREATE VIRTUAL TABLE chunks_fts USING fts5(body, title, tokenize = "{FTS_TOKENIZER}")""")
        conn.executemany("INSERT INTO chunks_fts (rowid, body, title) VALUES (?, ?, ?)", rows)
        conn.commit()
        app.index.set_meta("keyword_scheme", "14")
    finally:
        app.close()
    path = tmp_path / "index.db"
    before = path.read_bytes()
    app = make_app(read_only=True)
    try:
        assert [Path(hit["source"]).name for hit in payload(app.query("printers", top_k=3))["results"]] == ["notes.md"]
    finally:
        app.close()
    assert path.read_bytes() == before


def test_a_rebuilt_keyword_index_holds_each_chunks_writing_systems(app, docs):
    write(docs / "feishu.md", "# 飞书\n\n飞书消息会同步到所有设备。")
    write(docs / "notes.md", "# Notes\n\nPrinters are added in the settings.")
    run_sync(app.pipeline, list(app.config.roots))
    sql = ("SELECT s.source, f.scripts FROM chunks_fts f JOIN chunks c ON c.id = f.rowid "
           "JOIN sources s ON s.id = c.source_id")
    written = {Path(source).stem: scripts for source, scripts in app.index.conn.execute(sql)}
    assert written == {"feishu": "cjk", "notes": "latin"}
    app.index.set_meta("keyword_scheme", "14")
    app.index.conn.execute("UPDATE chunks_fts SET scripts = ''")
    app.index._refresh_keywords()
    assert {Path(source).stem: scripts for source, scripts in app.index.conn.execute(sql)} == written
