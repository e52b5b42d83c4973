"""The keyword side reads every language the model reads: words stemmed by their chunk's
language, CJK runs cut into bigrams, and an index written before follows on its next write open."""

from __future__ import annotations

import gzip
import logging
import shutil
import unicodedata
from pathlib import Path

import pytest
from conftest import FIXTURES, write
from helpers.encoders import CountingEncoder

from minirag import keywords, language
from minirag.ingest.sync import run_sync
from minirag.results import payload
from minirag.store import connection as db
from minirag.store import schema


@pytest.mark.parametrize(("text", "code"), [
    ("Open the print dialog and choose a printer", "en"),
    ("Öffnen Sie den Dialog Drucken und wählen Sie einen Drucker", "de"),
    ("Откройте диалог печати и выберите принтер", "ru"),
    ("打开打印对话框并选择打印机", "zh"),
    ("印刷ダイアログを開いてプリンターを選択します", "ja"),
    ("Ouvrez la boîte de dialogue et choisissez une imprimante", "fr"),
])
def test_a_short_text_is_identified_offline(text, code):
    assert language.identify(text) == code


def test_text_without_letters_or_with_a_lone_surrogate_is_handled():
    assert language.identify("1234 -- 5678") is None
    assert language.identify("otter \ud800 printer settings for the office") == "en"


def test_a_language_the_identifier_splits_among_its_kin_is_identified_and_stemmed():
    # lid.176 splits Croatian among sh, hr, sr and bs (0.35, 0.18, 0.09 ...), none of them alone
    # at 0.5: the text was unidentified and its words got the English stemmer.
    croatian = "Zanemarivanje uzastopnih pritiska iste tipke."
    assert language.identify(croatian) in {"sh", "hr", "sr", "bs"}
    assert keywords.terms("tipke", language.identify(croatian)) == ["tipk"]
    # One stemmer reads Serbian in both its alphabets, and Croatian and Bosnian.
    assert keywords.terms("рачунари", "sr") == keywords.terms("računari", "hr") == keywords.terms("računara", "bs")
    assert keywords.terms("pembacaan", "ms") == keywords.terms("pembacaan", "id")


def test_kin_languages_count_as_one_of_the_indexs_languages():
    import json
    import sqlite3

    from minirag.search.keyword import index_languages

    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT)")
    counts = {"hr": 50, "sh": 40, "sr": 30, "bs": 10, "en": 20, "de": 15, "fr": 12, "it": 300}
    conn.execute("INSERT INTO meta VALUES ('keyword_languages', ?)", (json.dumps(counts),))
    # Before, the four slots went to it, hr, sh and sr: three names for one stemmer.
    assert index_languages(conn) == ("it", "hr", "en", "de")


def test_words_are_stemmed_by_the_language_of_their_text_not_by_their_script():
    # Snowball German: "Häuser" and "Haus" share a stem; English does not.
    assert keywords.terms("Häuser", "de") == keywords.terms("Haus", "de") == ["haus"]
    assert keywords.terms("Häuser", "en") != keywords.terms("Haus", "en")
    # French keeps its accents to stem, then folds like FTS5: "créées" and "créée" are one term.
    assert keywords.terms("créées", "fr") == keywords.terms("créée", "fr") == ["cré".translate(keywords._FOLD)]
    # A word outside its text's script gets its script's stemmer: English inside Chinese, Russian inside German.
    assert keywords.terms("printers 打印", "zh")[0] == "printer"
    assert keywords.terms("принтеры", "de") == keywords.terms("принтеры", "ru")


def test_a_cjk_run_is_cut_into_overlapping_bigrams_and_its_characters_and_mixed_text_keeps_both():
    assert keywords.terms("飞书消息") == ["飞书", "书消", "消息", "飞", "书", "消", "息"]
    assert keywords.terms("使用Python的asyncio") == ["使用", "使", "用", "python", "的", "asyncio"]
    assert keywords.terms("한국어") == ["한국", "국어", "한", "국", "어"]
    # A query ranks the single characters last, so a long sentence keeps its bigrams under the term cap.
    assert keywords.query_terms("消息 书") == ["消息", "书", "消", "息"]
    sentence = "画面解像度が正しく設定されていない可能性がありますので設定を確認してください"
    assert [t for t in keywords.query_terms(sentence) if len(t) == 2][-1] == "さい"


def test_a_word_keeps_its_vowel_signs_and_viramas():
    # Combining marks are part of a word: Python's \\w and FTS5's default tokenizer both split a
    # Devanagari or Tamil word at each one (हिन्दी into ह, न, द), and then काम (work) was कम (less).
    assert keywords.terms("हिन्दी भाषा", "hi") == ["हिन्द", "भाष"]
    assert keywords.terms("काम", "hi") != keywords.terms("कम", "hi")
    assert keywords.terms("தமிழ் மொழி", "ta") == ["தமிழ்", "மொழி"]
    assert keywords.terms("ગુજરાતી") == ["ગુજરાતી"]
    # A Latin combining accent still folds away, as FTS5 folds it.
    assert keywords.terms("cafe\u0301") == keywords.terms("cafe") == ["cafe"]


def test_thai_lao_myanmar_and_khmer_runs_are_cut_like_cjk_with_each_letter_and_its_marks_one_character():
    assert keywords.terms("ภาษาไทยที่") == ["ภา", "าษ", "ษา", "าไ", "ไท", "ทย", "ยที่",
                                            "ภ", "า", "ษ", "า", "ไ", "ท", "ย", "ที่"]
    assert keywords.query_terms("ไทย") == ["ไท", "ทย", "ไ", "ท", "ย"]
    assert "ខ្" in keywords.terms("ភាសាខ្មែរ")


@pytest.mark.parametrize(("written", "typed"), [
    ("Ｗｉｎｄｏｗｓ　１１", "Windows 11"),  # fullwidth letters and digits, as Japanese text writes them
    ("ﾌﾟﾘﾝﾀｰ", "プリンター"),  # halfwidth katakana
    ("ﻣﺮﺣﺒﺎ", "مرحبا"),  # Arabic presentation forms, as PDF text layers hold them
    ("Złota łódź", "zlota lodz"),  # letters with a stroke, typed without them
    ("cœur ŒUVRE", "coeur oeuvre"),
    ("Straße", "strasse"),
    ("הַגְדָּרוֹת", "הגדרות"),  # Hebrew points
    ("مُحَمَّد الـشـبـكة", "محمد الشبكة"),  # Arabic vowel marks and the tatweel
    ("كتاب يك", "کتاب یک"),  # the Arabic kaf and yeh, Persian's
    ("١٢٣ ۴۵ २०२४", "123 45 2024"),  # digits of other scripts
    ("⚠️Warning: ✔️passed", "Warning: passed"),  # an emoji's variation selector before a word
    ("inter\u200bnational Zeit\u2060schrift", "international Zeitschrift"),  # a zero-width space, a word joiner
    ("ශ්\u200dරී ලංකා", "ශ්රී ලංකා"),  # Sinhala writes Sri with a zero-width joiner, most typists without
    ("葛\U000e0100城", "葛城"),  # an ideographic variation selector
    ("\u202bשלום\u202c \u200fעולם\u200f", "שלום עולם"),  # bidi controls and marks
    ("#\ufe0f\u20e3hashtag 1\u20e3 Schritt", "# hashtag 1 Schritt"),  # a keycap, an enclosing mark
])
def test_a_word_is_one_term_however_its_letters_are_encoded_or_pointed(written, typed):
    for lang in (None, keywords.text_language(written)):
        assert keywords.terms(written, lang) == keywords.terms(typed, lang)
    assert set(keywords.terms(written)) <= set(keywords.query_terms(typed))


def test_text_in_presentation_forms_is_identified_as_the_same_text_typed():
    # PDF text layers hold Persian and Arabic in presentation forms (one code point per letter
    # shape); the identifier only knows the letters, and its language picks the stemmer.
    typed = "این یک متن فارسی است که برای آزمایش شناسایی زبان نوشته شده است"
    isolated = {unicodedata.normalize("NFKC", chr(c)): chr(c) for c in (*range(0xFB50, 0xFBFF), *range(0xFE70, 0xFEFD))
                if unicodedata.name(chr(c), "").endswith("ISOLATED FORM")}
    shaped = "".join(isolated.get(c, c) for c in typed)
    assert shaped != typed and keywords.text_language(shaped) == keywords.text_language(typed) == "fa"


def test_vietnamese_d_with_a_stroke_stays_its_own_letter():
    # đ and d begin different common words (đi "go", di "move"); the tone marks still fold.
    assert keywords.terms("Cài đặt") == ["cai", "đat"] and keywords.terms("đi") != keywords.terms("di")


def test_digits_inside_a_thai_run_are_a_number_not_characters_to_pair():
    assert keywords.terms("ปี๒๕๖๗") == keywords.terms("ปี 2567") == ["ปี", "2567"]


def test_a_query_is_stemmed_for_its_own_language_and_the_indexs():
    terms = keywords.query_terms("Drucker einrichten", ("en",))
    assert {"druck", "drucker"} <= set(terms)  # German (its own) and English (the index's)


@pytest.mark.parametrize(("question", "asks"), [
    ("Why does my screen flicker when the laptop wakes up?", "why"),
    ("Warum flackert mein Bildschirm nach dem Aufwachen?", "warum"),
    ("Wozu dient die Super-Taste auf der Tastatur?", "wozu"),
    ("Pourquoi mon écran scintille-t-il au réveil ?", "pourquoi"),
    ("¿Dónde se guardan las capturas de pantalla del escritorio?", "donde"),
    ("Dove vengono salvate le schermate del desktop?", "dove"),
    ("Onde ficam salvas as capturas de tela da área de trabalho?", "onde"),
    ("Waarom knippert mijn beeldscherm na het ontwaken?", "waarom"),
])
def test_a_question_word_is_dropped_from_the_query_in_every_language_with_a_stop_list(question, asks):
    terms = keywords.query_terms(question)
    # `asks` folded; its stem is a prefix of it (cut to seven characters, or shorter)
    assert terms and not any(len(t) >= 3 and asks.startswith(t) for t in terms)


def test_a_stem_is_cut_to_its_first_seven_characters_so_forms_the_stemmer_leaves_apart_meet():
    # Finnish cases Snowball stems three ways (kirkkaud, kirkkaus, kirkkaut); German compounds of one head.
    assert keywords.terms("kirkkauden kirkkaus kirkkautta", "fi") == ["kirkkau"] * 3
    assert keywords.terms("Druckereinstellungen", "de") == keywords.terms("Druckertreiber", "de")
    # English too, at a length where unrelated words seldom meet; never words with digits,
    # identifiers, or scripts without a stemmer.
    assert keywords.terms("internal internet configuration", "en") == ["interna", "interne", "configu"]
    assert keywords.terms("persistente_ladung utf16le", "de") == ["persist", "ladung", "utf16le", "persistenteladung"]
    # A name in mixed case does not inflect, and two share long prefixes: assertIsNone is not assertIsInstance.
    assert keywords.terms("assertIsNone assertIsInstance", "en") == ["assertisnon", "assertisinst"]
    assert keywords.terms("assertisnone assertisinstance", "en") == ["asserti", "asserti"]  # written as words, they meet
    assert keywords.query_terms("assertIsInstance", ("en",))[0] == "assertisinst"
    assert keywords.terms("ქართული", None) == ["ქართული"]


@pytest.mark.parametrize(("written", "typed"), [
    ("Install PostgreSQL before you start", "postgresql"),  # a name found however its case is typed
    ("Install PostgreSQL before you start", "POSTGRESQL"),
    ("Write the script in JavaScript", "javascript"),
    ("Het IJsselmeer is een meer in Nederland", "ijsselmeer"),
    ("install postgresql before you start", "PostgreSQL"),  # and a word written in one case by the name
    ("the asyncresult object", "AsyncResult"),
])
def test_a_name_in_mixed_case_and_the_same_word_in_one_case_find_each_other(written, typed):
    lang = keywords.text_language(written)
    languages = (lang,) if lang else ()
    indexed = set(keywords.terms(written, lang))
    assert not indexed & set(keywords.query_terms(typed, languages))  # as typed, the word is another term
    assert indexed & {other for _, other in keywords.other_case_terms(typed, languages)}


def test_a_word_the_index_lacks_as_typed_is_found_in_the_other_case_and_one_it_holds_only_as_typed(
        make_app, docs):
    write(docs / "postgres.md", "# Databases\n\nInstall PostgreSQL before you start the server.")
    write(docs / "supertab.md", "# Keys\n\nPress SuperTab to switch between the open windows.")
    write(docs / "plugin.md", "# Editor\n\nEnable the supertabs plugin in the editor.")
    app = make_app({"RAG_HYBRID_WEIGHT": "1"})
    run_sync(app.pipeline, list(app.config.roots))
    assert sources(app, "postgresql") == ["postgres.md"]
    # `supertab` is held as typed, so `superta` (the cut stem `supertabs` gives) is not asked.
    assert sources(app, "SuperTab") == ["supertab.md"]


@pytest.mark.parametrize(("word", "lang"), [("έως", "el"), ("εις", "el"), ("छन्", "ne"), ("छदै", "ne")])
def test_a_word_its_stemmer_leaves_nothing_of_is_kept_whole(word, lang):
    # Greek `έως` (until) and Nepali `छन्` (are) are common words; an empty term was no token to FTS5.
    term = keywords.terms(f"x {word} y", lang)[1]
    assert term and term in keywords.query_terms(word, (lang,))


@pytest.fixture
def multilingual(make_app, docs):
    write(docs / "feishu.md", "# 飞书集成\n\n在飞书消息中接收构建通知。使用 Python 的 asyncio 发送飞书消息。")
    write(docs / "drucker.md", "# Drucker\n\nDie Druckereinstellungen ändern Sie im Dialog Drucken: wählen Sie "
                               "dort die Papiergröße und den Drucker. Printing works the same everywhere.")
    write(docs / "japanese.md", "# 印刷\n\n印刷ダイアログで用紙サイズとプリンターを選択します。")
    write(docs / "printing.md", "# Printing\n\nTo print a document, open the print dialog and choose a printer.")
    write(docs / "kaam.md", "# काम\n\nयह काम आज पूरा करना है। प्रिंटर की सेटिंग बदलें।")
    write(docs / "kam.md", "# कम\n\nस्क्रीन की चमक कम करें।")
    write(docs / "thai.md", "# เครื่องพิมพ์\n\nการตั้งค่าเครื่องพิมพ์ในหน้าต่างพิมพ์")
    app = make_app({"RAG_HYBRID_WEIGHT": "1"})
    run_sync(app.pipeline, list(app.config.roots))
    return app


def sources(app, query: str) -> list[str]:
    return [hit["source"].rsplit("/", 1)[-1] for hit in payload(app.query(query, top_k=10))["results"]]


def test_a_word_inside_a_cjk_run_is_found(multilingual):
    assert sources(multilingual, "消息") == ["feishu.md"]
    assert sources(multilingual, "asyncio 飞书") == ["feishu.md"]
    assert sources(multilingual, "用紙")[0] == "japanese.md"  # before feishu.md, which holds 使用
    assert sources(multilingual, "纸") == [] and sources(multilingual, "紙") == ["japanese.md"]  # one character


def test_a_german_word_is_found_in_another_inflection_and_an_english_one_inside_german_text(multilingual):
    assert sources(multilingual, "Druckereinstellung") == ["drucker.md"]
    assert "drucker.md" in sources(multilingual, "printing")


def test_a_word_with_vowel_signs_finds_only_itself_and_a_thai_word_is_found_inside_a_run(multilingual):
    assert sources(multilingual, "काम") == ["kaam.md"]
    assert sources(multilingual, "कम") == ["kam.md"]
    assert sources(multilingual, "ตั้งค่า") == ["thai.md"]


def test_a_fullwidth_word_and_a_pointed_one_are_found_by_the_word_as_typed(make_app, docs):
    write(docs / "setup.md", "# セットアップ\n\nＷｉｎｄｏｗｓ　１１ではﾌﾟﾘﾝﾀｰの設定を開きます。")
    write(docs / "hebrew.md", "# הַגְדָּרוֹת\n\nשִׁנּוּי הַגְדָּרוֹת הַמַּדְפֶּסֶת.")
    write(docs / "other.md", "# Other\n\nNothing about any of this.")
    app = make_app({"RAG_HYBRID_WEIGHT": "1"})
    run_sync(app.pipeline, list(app.config.roots))
    assert sources(app, "windows 11") == ["setup.md"]
    assert sources(app, "プリンター") == ["setup.md"]
    assert sources(app, "הגדרות") == ["hebrew.md"]


def test_a_chunk_the_identifier_is_unsure_of_is_stemmed_in_its_documents_language():
    german = "Sie können Drucker und Scanner in den Einstellungen hinzufügen oder wieder entfernen."
    listed = "Drucker, Scanner, Kameras"
    assert keywords.text_language(listed) is None
    made = keywords.keyword_texts([german, listed], "Geräte")
    assert [one.language for one in made] == ["de", "de"]
    assert made[1].body == keywords.normalize(listed, "de") == "druck scann kameras"
    alone = keywords.keyword_texts([listed], "Geräte")[0]  # nothing else to go by: its script's default
    assert alone.language is None and alone.body == "drucker scanner kamera"


def test_a_chunk_identified_as_a_kin_of_its_documents_language_is_stemmed_in_the_documents():
    # Serbian help pages in Cyrillic letters: lid.176 reads this paragraph as Macedonian (mk 0.54,
    # sr 0.26, bg 0.17). Macedonian has no stemmer (Russian's stands in, in Cyrillic letters) and
    # Serbian's writes Latin ones: stemmed apart, the page's paragraphs never shared a term.
    bluetooth = "Можете да укључите блутут да се повежете на друге блутут уређаје, или да га искључите."
    contrast = ("Можете да подесите контраст прозора и дугмади тако да буду лакши за гледање. Ово није исто као "
                "промена осветљења читавог екрана.")
    without_serbian_letters = bluetooth.replace("уређаје", "апарате")
    assert keywords.text_language(without_serbian_letters) == "mk" and keywords.text_language(contrast) == "sr"
    made = keywords.keyword_texts([contrast * 3, without_serbian_letters], "Блутут")
    assert [one.language for one in made] == ["sr", "sr"]
    assert "blutut" in made[1].body.split()
    # Alone, a text written with letters only Serbian's alphabet has (ђ, ћ) is Serbian.
    assert keywords.text_language(bluetooth) == "sr"
    assert keywords.keyword_texts([without_serbian_letters], "Блутут")[0].language == "mk"
    assert language.kin("mk", "sr") and language.kin("hr", "bg") and not language.kin("ru", "bg")
    assert not language.kin(None, "sr") and not language.kin("de", "de")


def test_a_short_russian_line_read_as_bulgarian_keeps_russian_stems():
    # The identifier reads short Russian lines of LibreOffice's help as Bulgarian or Macedonian:
    # their stems must stay the Russian ones the rest of the page and the queries have.
    line = "Стрелки\nградусам."
    assert keywords.text_language(line) in {"bg", "mk"}
    assert keywords.keyword_texts([line], "Стрелки")[0].body == keywords.normalize(line, "ru") == "стрелк градус"


def test_a_language_without_a_stemmer_is_stemmed_by_its_nearest_kin():
    # Before, each took English's, the fallback for Latin letters: cousa, mape, subori, gebruik.
    assert keywords.terms("cousas arquivos", "gl") == keywords.terms("cousas arquivos", "pt") == ["cous", "arquiv"]
    assert keywords.terms("mape", "sl") == keywords.terms("mape", "hr") == ["map"]
    assert keywords.terms("súbory", "sk") == keywords.terms("súbory", "cs") == ["subor"]
    assert keywords.terms("gebruikers", "af") == keywords.terms("gebruikers", "nl") == ["bruiker"]


def test_a_document_is_stemmed_alike_when_ingested_and_when_retokenized(make_app, docs):
    paragraph = ("Sie können Drucker und Scanner in den Einstellungen hinzufügen oder wieder entfernen. "
                 "Ein neues Gerät wird meist von selbst erkannt und eingerichtet. ") * 6
    write(docs / "geraete.md", f"# Hardware\n\n{paragraph}\n\n## Scanner\n\nDrucker, Scanner, Kameras\n\n"
                               f"## Mehr\n\n{paragraph}")
    fts = "SELECT rowid, body, title FROM chunks_fts ORDER BY rowid"
    app = make_app()
    try:
        run_sync(app.pipeline, list(app.config.roots))
        ingested = app.index.conn.execute(fts).fetchall()
        app.index.set_meta("keyword_scheme", "0")
    finally:
        app.close()
    assert len(ingested) >= 3 and any(body.endswith(" druck scann kameras") for _, body, _ in ingested)
    app = make_app()
    try:
        assert app.index.conn.execute(fts).fetchall() == ingested
        assert app.index.meta("keyword_scheme") == str(keywords.KEYWORD_SCHEME)
    finally:
        app.close()


def test_an_index_written_before_is_retokenized_on_the_next_write_open_without_re_embedding(
        make_config, tmp_path, encoder, caplog):
    # Written by the code before per-language stemming and CJK bigrams (keyword scheme 5):
    # feishu.md, drucker.md and printing.md of the fixture above, with the tiny test encoder.
    path = tmp_path / "index.db"
    with gzip.open(FIXTURES / "index_keyword_scheme5.db.gz") as packed, path.open("wb") as out:
        shutil.copyfileobj(packed, out)
    old = db.connect(path)
    assert old.execute("SELECT value FROM meta WHERE key = 'keyword_scheme'").fetchone() == ("5",)
    assert not old.execute("SELECT 1 FROM chunks_fts WHERE chunks_fts MATCH '\"消息\"'").fetchall()
    fts_sql = "SELECT sql FROM sqlite_master WHERE name = 'chunks_fts'"
    assert "M*" not in old.execute(fts_sql).fetchone()[0]  # FTS5 split words at their combining marks
    vectors = old.execute("SELECT chunk_id, embedding FROM chunks_vec ORDER BY chunk_id").fetchall()
    old.close()

    counting = CountingEncoder(encoder)
    from minirag.app import App

    # The fixture's sources lie under this folder, and files outside the configured roots are not served.
    root = Path("/tmp/oldidx/docs")
    root.mkdir(parents=True, exist_ok=True)

    with caplog.at_level(logging.WARNING, logger="minirag.store.index"):
        app = App(make_config({"RAG_HYBRID_WEIGHT": "1"}, db_path=str(path), base_dirs=[str(root)]),
                  encoder=counting)
        found = [hit["source"].rsplit("/", 1)[-1] for hit in payload(app.query("消息", top_k=10))["results"]]
    try:
        assert found == ["feishu.md"]
        assert [hit["source"].rsplit("/", 1)[-1] for hit in payload(app.query("Druckereinstellung", top_k=10))["results"]] \
            == ["drucker.md"]
        # Keyword scheme 8 cuts German stems to seven characters: Druckertreiber meets Druckereinstellungen.
        assert [hit["source"].rsplit("/", 1)[-1] for hit in payload(app.query("Druckertreiber", top_k=10))["results"]] \
            == ["drucker.md"]
        assert counting.embedded == []
        conn = app.index.conn
        assert conn.execute("SELECT value FROM meta WHERE key = 'keyword_scheme'").fetchone() == (
            str(keywords.KEYWORD_SCHEME),)
        assert conn.execute("SELECT chunk_id, embedding FROM chunks_vec ORDER BY chunk_id").fetchall() == vectors
        assert schema.FTS_TOKENIZER in conn.execute(fts_sql).fetchone()[0]
        # Each chunk's writing systems (feishu.md mixes Chinese and Latin), which scheme 5 had no column for.
        assert sorted(row[0] for row in conn.execute("SELECT scripts FROM chunks_fts")) == ["cjk latin", "latin", "latin"]
    finally:
        app.close()
    messages = [r.getMessage() for r in caplog.records]
    assert any("re-tokenizing the keyword index" in m and "3 chunks" in m for m in messages), messages
    assert any("rebuilt the keyword index" in m for m in messages), messages


def _indexed_at_keyword_scheme_11(make_app, docs):
    """The path of an index of one note, whose keyword index reads as written by scheme 11."""
    write(docs / "notes.md", "# Notes\n\nPrinters and scanners are added in the settings.")
    app = make_app()
    try:
        run_sync(app.pipeline, list(app.config.roots))
        app.index.set_meta("keyword_scheme", "11")
    finally:
        app.close()
    return app.config.db_path


def test_a_re_tokenize_says_how_far_it_is_with_an_eta_as_notices_not_warnings(make_app, docs, caplog,
                                                                               monkeypatch):
    """Its lines read `minirag: WARNING:   keyword index: 1147/5236 chunks`: a progress line shown as a
    problem, without an ETA, every tenth of the index (50 s apart on a million chunks)."""
    from minirag.display import LogLine
    from minirag.store import index as index_module

    for n in range(4):
        write(docs / f"note{n}.md", f"# Note {n}\n\nPrinters and scanners of floor {n} are added in the settings.")
    path = _indexed_at_keyword_scheme_11(make_app, docs)
    monkeypatch.setattr(index_module, "REPORT_EVERY_S", 0.0)  # a line after each source
    with caplog.at_level(logging.WARNING, logger="minirag.store.index"):
        index_module.Index(path).close()
    lines = [LogLine().format(r) for r in caplog.records]
    assert lines[0] == f"minirag: re-tokenizing the keyword index of {path} (5 chunks, no re-embedding)", lines
    assert [line.split(", ETA")[0] for line in lines[1:-1]] == [
        f"minirag:   keyword index: {n}/5 chunks" for n in (1, 2, 3, 4)], lines
    assert all(", ETA " in line for line in lines[1:-1]) and lines[-1].startswith("minirag: rebuilt the keyword")


def test_a_read_only_open_of_an_index_with_an_older_keyword_scheme_says_so_and_writes_nothing(
        make_app, make_config, docs, caplog):
    # A read-only server cannot re-tokenize, so its queries' terms meet an older scheme's: it
    # searched on without a word. (An index at an older schema is refused outright: test_db.)
    path = _indexed_at_keyword_scheme_11(make_app, docs)
    before = path.read_bytes()
    from minirag.doctor import check_index

    with caplog.at_level(logging.WARNING, logger="minirag.store.index"):
        app = make_app(read_only=True)
        try:
            warning = app.status().scheme_warning
            assert [h["source"] for h in payload(app.query("printers", top_k=3))["results"]]
        finally:
            app.close()
    assert warning and "older minirag (keyword scheme 11" in warning and "without --read-only" in warning
    assert any("keyword scheme 11" in r.getMessage() for r in caplog.records)
    assert "keyword scheme 11" in check_index(make_config(read_only=True)).detail
    assert path.read_bytes() == before


def test_words_stemmed_on_several_threads_at_once_are_stemmed_as_on_one():
    """A sync identifies and stems each chunk in its conversion threads while queries stem theirs:
    a Snowball stemmer keeps its word in its own fields, so threads must not share one."""
    import sys
    import threading

    import snowballstemmer

    from minirag import language

    words = [f"{stem}{suffix}" for stem in ("connect", "nation", "generous", "relat", "happi", "organiz")
             for suffix in ("ing", "ions", "ational", "fulness", "ively", "ization", "ed", "s")] * 3
    words = [f"{w}{'x' * n}ing" for n, w in enumerate(words)]  # every word distinct: none from the cache
    language.stem.cache_clear()
    expected = [snowballstemmer.stemmer("english").stemWord(w) for w in words]
    language.stem.cache_clear()
    results: dict[int, list[str]] = {}

    def work(n: int) -> None:
        results[n] = [language.stem(w, "en") for w in (words if n % 2 else words[::-1])]

    previous = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # threads switch inside a stemmer's work
    try:
        for _ in range(20):
            language.stem.cache_clear()
            threads = [threading.Thread(target=work, args=(n,)) for n in range(4)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            for n, got in results.items():
                assert got == (expected if n % 2 else expected[::-1])
    finally:
        sys.setswitchinterval(previous)


def test_two_processes_opening_an_older_index_at_once_re_tokenize_it_once(make_app, docs, caplog):
    """A server and a sync started together on an index of an older keyword scheme each saw it stale,
    and the one that waited for the other's write lock re-tokenized every chunk again (measured on a
    5,732-chunk index of 2026-12-02: both printed 're-tokenizing'). The other writer is a connection
    of its own holding the lock, and records the scheme while this open waits for it."""
    import threading

    from minirag.store.index import Index

    path = _indexed_at_keyword_scheme_11(make_app, docs)
    other = db.connect(path)
    other.execute("BEGIN IMMEDIATE")
    opened: list[Index] = []
    with caplog.at_level(logging.WARNING, logger="minirag.store.index"):
        opening = threading.Thread(target=lambda: opened.append(Index(path)))
        opening.start()
        opening.join(1.0)  # it has read the scheme as stale, and waits for the write lock
        other.execute("UPDATE meta SET value = ? WHERE key = 'keyword_scheme'", (str(keywords.KEYWORD_SCHEME),))
        other.execute("COMMIT")
        other.close()
        opening.join(30)
    assert len(opened) == 1
    opened[0].close()
    assert not [r.getMessage() for r in caplog.records if "re-tokenizing" in r.getMessage()]


def test_an_open_that_must_upgrade_waits_for_another_upgrade_as_long_as_the_index_size_asks(
        make_app, docs, caplog, monkeypatch):
    """Another process upgrading the same index (a re-tokenize at about 3,000 chunks/s) holds its
    write lock for as long as the index takes: an opener gave up after its eight plain tries (about
    80 s), so a server started beside the upgrade of a 250,000-chunk index failed to start. Here the
    busy timeout and the wait per chunk are scaled down, and the lock is held past the plain tries."""
    import threading
    import time

    from minirag.store.index import Index

    path = _indexed_at_keyword_scheme_11(make_app, docs)
    monkeypatch.setattr(db, "BUSY_TIMEOUT_MS", 20)
    monkeypatch.setattr(db, "WRITE_ATTEMPTS", 3)  # the plain tries then end after about 0.2 s
    monkeypatch.setattr(db, "MIN_UPGRADE_WAIT_S", 1.0)
    monkeypatch.setattr(db, "UPGRADE_WAIT_S_PER_CHUNK", 20.0)  # this index's one chunk: wait 20 s
    other = db.connect(path)
    other.execute("BEGIN IMMEDIATE")
    opened: list[Index] = []
    failed: list[BaseException] = []

    def open_index() -> None:
        try:
            opened.append(Index(path))
        except BaseException as exc:  # noqa: BLE001 - the test reports it
            failed.append(exc)

    with caplog.at_level(logging.WARNING, logger="minirag.store"):
        opening = threading.Thread(target=open_index)
        opening.start()
        time.sleep(1.0)
        other.execute("COMMIT")
        other.close()
        opening.join(30)
    assert not failed, failed
    assert len(opened) == 1
    opened[0].close()
    messages = [r.getMessage() for r in caplog.records]
    assert any("waiting for another process" in m and "upgrade" in m for m in messages), messages
    assert any("re-tokenizing" in m for m in messages), messages
