import pytest
from conftest import _load_script, write

from minirag.app import MAX_QUERY_CHARS, visible
from minirag.errors import IndexUnavailable, InvalidArgument
from minirag.ingest.sync import run_sync
from minirag.results import payload

HOSTILE_QUERIES = ['"', '"unbalanced', "*", "-", "-apple", "NEAR(", "NEAR(apple banana", "AND", "apple AND",
                   "OR", "NOT", "(", ")", "((apple", "apple)", "col:apple", "^apple", "a*b", "'", "{}", "+",
                   "title:x", "\x00", "😀", "   ", "NEAR(apple, 2)"]


@pytest.fixture
def indexed(app, docs):
    write(docs / "fruit.md", "# Fruit\n\nApples and bananas are fruit. An apple a day.")
    write(docs / "space.md", "# Rockets\n\nRocket engines burn liquid oxygen and kerosene.")
    write(docs / "proj" / "notes.md", "# Project notes\n\nThe project uses apples for testing.")
    write(docs / "project-secret" / "notes.md", "# Secret notes\n\nSecret apples in the project-secret folder.")
    run_sync(app.pipeline, list(app.config.roots))
    return app


@pytest.mark.parametrize("query", HOSTILE_QUERIES)
def test_fts_syntax_in_a_query_never_raises(indexed, query):
    result = payload(indexed.query(query)) if visible(query) else None  # invisible: refused as empty (below)
    assert result is None or isinstance(result["results"], list)


def test_hybrid_hits_carry_the_documented_fields(indexed, docs):
    result = payload(indexed.query("liquid oxygen rocket", top_k=3))
    top = result["results"][0]
    assert top["source"] == str(docs / "space.md")
    assert set(top) >= {"text", "source", "title", "chunkIndex", "score", "distance", "parentId"}
    assert result["parents"][top["parentId"]]


def test_a_keyword_only_hit_has_no_distance(make_app, indexed):
    keyword_app = make_app({"RAG_HYBRID_WEIGHT": "1.0"})
    hits = payload(keyword_app.query("kerosene"))["results"]
    assert hits and all(h["distance"] is None for h in hits)


def test_pure_vector_search_returns_distances(make_app, indexed):
    vector_app = make_app({"RAG_HYBRID_WEIGHT": "0"})
    hits = payload(vector_app.query("space travel propulsion"))["results"]
    assert hits and all(h["distance"] is not None for h in hits)


def test_a_query_on_an_empty_index_returns_nothing(app):
    app.sync()  # nothing to index: an empty index
    assert payload(app.query("anything at all"))["results"] == []


def test_reads_where_there_is_no_index_say_so_and_create_nothing(app, docs):
    """A mistyped DB_PATH must not answer "no results" and leave a new, empty index behind."""
    write(docs / "a.md", "# Alpha\n\nApples.")
    for read in (lambda: app.query("apples"), lambda: app.list_files(), lambda: app.read(str(docs / "a.md")),
                 lambda: app.neighbors(str(docs / "a.md"), 0), lambda: app.delete(str(docs / "a.md"))):
        with pytest.raises(IndexUnavailable, match="no index at"):
            read()
    status = payload(app.status())  # as status shows it
    assert "no index at" in status["indexError"] and isinstance(status["chunkTokenBudget"], int)
    assert not app.config.db_path.exists() and not app.config.db_path.parent.joinpath(".minirag").exists()


def test_scope_stops_at_the_separator(indexed, docs):
    hits = payload(indexed.query("apples", top_k=20, scope=str(docs / "proj")))["results"]
    assert hits and {h["source"] for h in hits} == {str(docs / "proj" / "notes.md")}


def test_scope_to_a_single_file_matches_exactly_that_file(indexed, docs):
    hits = payload(indexed.query("apples", top_k=20, scope=str(docs / "fruit.md")))["results"]
    assert {h["source"] for h in hits} == {str(docs / "fruit.md")}


@pytest.mark.parametrize("top_k", [0, -1])
def test_top_k_below_one_is_refused(indexed, top_k):
    with pytest.raises(InvalidArgument, match="at least 1"):
        indexed.query("apples", top_k=top_k)


def test_top_k_above_the_cap_is_clamped(indexed):
    assert len(payload(indexed.query("apples", top_k=10_000))["results"]) <= 100


@pytest.fixture
def coded(indexed, monkeypatch):
    """The indexed app as if its index were large: int8 codes in the file, used past 0 chunks,
    and a serving process's in-memory copy of them."""
    from minirag.search import vector as vectors
    from minirag.store import connection

    indexed.index.build_codes()
    monkeypatch.setattr(vectors, "MIN_CHUNKS", 0)
    indexed.matrices = vectors.MatrixCache(lambda: connection.connect(indexed.config.db_path, read_only=True))
    return indexed


QUERIES = [("liquid oxygen rocket engines", None), ("apples", "proj"), ("secret apples", None)]


def _ranked(app, docs):
    key = []
    for text, scope in QUERIES:
        hits = payload(app.query(text, top_k=5, scope=str(docs / scope) if scope else None))["results"]
        key.append([(h["source"], h["chunkIndex"], round(h["distance"] or -1, 5)) for h in hits])
    return key


def _same_hits_to(tolerance: float, got: list, expected: list) -> bool:
    """The same hits in the same order, each distance within `tolerance` of the expected one."""
    return all(len(g) == len(e) and all(a[:2] == b[:2] and abs(a[2] - b[2]) <= tolerance for a, b in zip(g, e, strict=True))
               for g, e in zip(got, expected, strict=True))


@pytest.mark.slow
def test_the_int8_codes_rescored_exactly_rank_like_the_vec0_scan_from_the_file_and_from_memory(indexed, docs,
                                                                                                request, monkeypatch):
    from minirag.search import vector as vectors

    exact = _ranked(indexed, docs)
    coded = request.getfixturevalue("coded")
    matrices, coded.matrices = coded.matrices, None
    assert _ranked(coded, docs) == exact  # the codes read block by block from the file
    coded.matrices = matrices
    monkeypatch.setattr(vectors, "ROWS_BYTES", 0)  # too large for rows in memory: the codes alone
    assert matrices.build_now().rows is None
    assert matrices.current(coded.index.generation(), 10) is not None
    assert _ranked(coded, docs) == exact  # the in-memory codes, re-scored from the file
    monkeypatch.setattr(vectors, "ROWS_BYTES", 1 << 30)  # a mid-size index: float16 rows in memory
    assert matrices.build_now().rows is not None
    in_memory = _ranked(coded, docs)
    assert _same_hits_to(1e-4, in_memory, exact)  # float16 rows: distances within 1e-4 of float32's


@pytest.mark.slow
def test_a_stale_matrix_is_never_used(coded, monkeypatch, docs):
    from minirag.search import vector as vectors

    monkeypatch.setattr(vectors, "REBUILD_PAUSE_S", 3600)
    coded.matrices.build_now()
    write(docs / "new.md", "# Volcanoes\n\nMagma erupts from volcanoes as lava.")
    run_sync(coded.pipeline, list(coded.config.roots))
    assert coded.matrices.current(coded.index.generation(), 10) is None
    hits = payload(coded.query("volcano lava eruption", top_k=3))["results"]
    assert hits[0]["source"] == str(docs / "new.md") and hits[0]["distance"] is not None


def test_writes_keep_the_codes_in_step_with_the_chunks(coded, docs):
    from minirag.store import codes

    def coded_ids():
        return sorted(int(i) for b in codes.blocks(conn, codes.read_codebook(conn).code_dims) for i in b.ids)

    conn = coded.index.conn
    write(docs / "new.md", "# Volcanoes\n\nMagma erupts from volcanoes as lava.")
    (docs / "fruit.md").unlink()
    run_sync(coded.pipeline, list(coded.config.roots))
    assert coded_ids() == [r[0] for r in conn.execute("SELECT id FROM chunks ORDER BY id")]


@pytest.mark.parametrize("weight", ["0", "0.6", "1"])
def test_superseded_documents_never_take_a_result_slot(make_app, docs, weight):
    app = make_app({"RAG_HYBRID_WEIGHT": weight})
    write(docs / "old.md", "---\nlifecycle: superseded\n---\n# Old policy\n\nThe vacation policy allows 10 days.")
    write(docs / "new.md", "# New policy\n\nThe vacation policy allows 25 days.")
    run_sync(app.pipeline, list(app.config.roots))
    hits = payload(app.query("vacation policy days", top_k=10))["results"]
    assert hits and {h["source"] for h in hits} == {str(docs / "new.md")}


@pytest.mark.minilm  # an English-only model
def test_a_query_in_a_script_the_model_cannot_read_is_answered_by_keywords(make_app, docs):
    app = make_app()
    write(docs / "ru.md", "# Таблицы\n\nСервер базы данных хранит таблицы и индексы.")
    write(docs / "en.md", "# Tables\n\nThe database server stores tables and indexes.")
    run_sync(app.pipeline, list(app.config.roots))
    assert not app.encoder.reads("таблицы базы данных") and app.encoder.reads("database tables")
    hybrid = payload(app.query("таблицы базы данных"))["results"]
    assert hybrid and all(h["distance"] is None for h in hybrid)
    assert hybrid[0]["source"] == str(docs / "ru.md")
    english = payload(app.query("database tables"))["results"]
    assert any(h["distance"] is not None for h in english)
    vector_only = payload(make_app({"RAG_HYBRID_WEIGHT": "0"}).query("таблицы базы данных"))["results"]
    assert vector_only and all(h["distance"] is not None for h in vector_only)


def test_the_matrix_is_built_in_the_background_and_then_used(coded, monkeypatch):
    import time

    from minirag.search import vector as vectors

    monkeypatch.setattr(vectors, "REBUILD_PAUSE_S", 0)
    generation = coded.index.generation()
    assert coded.matrices.current(generation, 10) is None  # starts the build
    deadline = time.monotonic() + 30
    matrix = None
    while matrix is None and time.monotonic() < deadline:
        time.sleep(0.05)
        matrix = coded.matrices.current(generation, 10)
    assert matrix is not None and matrix.generation == generation
    assert len(matrix.ids) == coded.index.stats().chunk_count


def test_superseded_matches_that_fill_the_keyword_depth_leave_room_for_active_ones(make_app, docs):
    from minirag.search.plan import candidate_depth

    app = make_app({"RAG_HYBRID_WEIGHT": "1"})
    # More superseded chunks than the keyword side's depth, each a stronger BM25 match than the live one.
    for n in range(candidate_depth(10) + 5):
        write(docs / "old" / f"v{n}.md", f"---\nlifecycle: superseded\n---\n# Vacation policy {n}\n\n"
                                         "Vacation policy: vacation days. Vacation policy days.")
    write(docs / "new.md", "# Handbook\n\nAmong many other rules, the vacation policy grants 25 days a year.")
    run_sync(app.pipeline, list(app.config.roots))
    hits = payload(app.query("vacation policy days", top_k=10))["results"]
    assert [h["source"] for h in hits] == [str(docs / "new.md")]


def test_the_keyword_side_counts_inactive_chunks_only_when_its_best_matches_hold_some(indexed, docs):
    """The count of inactive sources' chunks scans the sources: a query whose best matches are
    all active runs one statement, and the superseded case above still leaves room."""
    from minirag.search.keyword import keyword_candidates

    conn, statements = indexed.index.conn, []
    conn.set_trace_callback(statements.append)
    try:
        hits = keyword_candidates(conn, ["appl"], 2, None, 100)
    finally:
        conn.set_trace_callback(None)
    assert len(hits) == 2
    assert not [s for s in statements if "lifecycle <> 'active'" in s]


def test_rare_terms_fill_the_row_budget_rarest_first():
    from minirag.search import keyword as keyword_search

    counts = {"common": 90, "rare": 5, "mid": 40}
    assert keyword_search.rare_terms(["common", "rare", "mid"], counts, 100) == ["rare", "mid"]
    assert keyword_search.rare_terms(["common"], {"common": 500}, 100) == ["common"]  # the rarest always
    # A term the vocabulary lacks neither counts nor stands in for the rarest one that occurs.
    assert keyword_search.rare_terms(["common", "typo"], {"common": 500}, 100) == ["typo", "common"]


def test_bm25_computed_in_python_equals_fts5s_own(indexed):
    from minirag import keywords
    from minirag.search import keyword as keyword_search

    conn = indexed.index.conn
    for text in ["apples project", "secret apple notes folder", "rocket oxygen kerosene fruit"]:
        terms = keywords.query_terms(text)
        fts5 = dict(conn.execute("SELECT rowid, bm25(chunks_fts, 1.0, ?) FROM chunks_fts WHERE chunks_fts MATCH ?",
                                 (keyword_search.TITLE_WEIGHT, keywords.match_expression(terms))).fetchall())
        ours = keyword_search.bm25_scores(conn, list(fts5), terms, keyword_search.document_counts(conn, terms))
        assert len(fts5) >= 2 and ours.keys() == fts5.keys()
        assert all(abs(ours[i] - fts5[i]) <= 1e-9 * max(1.0, abs(fts5[i])) for i in fts5), (ours, fts5)


@pytest.mark.slow
def test_the_keyword_texts_fold_is_exactly_what_the_fts5_in_use_does():
    # Regenerate with scripts/gen_fts_fold.py when an SQLite upgrade makes this fail.
    from minirag.fts_fold import FOLD

    assert _load_script("gen_fts_fold").probe() == FOLD


ACCENTED = ["Le café_menu du Café de Flore: crème brûlée, naïve", "ΟΔΟΣ και οδός, ﬁnal ligature",
            "Ёлка и её ёж, İstanbul_Tarihi, cafe\u0301s décomposés", "Straße, ǅemal, µs",
            "Echo echo echo, echo: an echo's echoes",  # a term repeated next to itself
            "हिन्दी भाषा का काम कम है, தமிழ் மொழி, ภาษาไทยที่ดี",  # words with combining marks
            "Οι τιμές είναι από 1 έως 10 ευρώ για κάθε προϊόν",  # έως: the Greek stemmer leaves nothing of it
            "यी किताबहरू धेरै राम्रा छन् र सस्ता पनि छन्"]  # छन्: nor does the Nepali one


def test_bm25_computed_in_python_equals_fts5s_own_for_accented_and_folded_text(app, docs):
    from minirag import keywords
    from minirag.search import keyword as keyword_search

    for n, text in enumerate(ACCENTED):
        write(docs / f"accented{n}.md", f"# Page {n}\n\n{text}. {text.lower()}.")
    run_sync(app.pipeline, list(app.config.roots))
    conn = app.index.conn
    for query in ["café_menu", "CAFE MENU", "creme brulee", "οδος", "οδός", "ёж", "istanbul_tarihi", "cafés",
                  "straße", "µs", "ﬁnal", "echo", "हिन्दी काम", "தமிழ்", "ไทยที่", "έως", "ευρώ", "धेरै सस्ता"]:
        terms = keywords.query_terms(query, keyword_search.index_languages(conn))
        fts5 = dict(conn.execute("SELECT rowid, bm25(chunks_fts, 1.0, ?) FROM chunks_fts WHERE chunks_fts MATCH ?",
                                 (keyword_search.TITLE_WEIGHT, keywords.match_expression(terms))).fetchall())
        counts = keyword_search.document_counts(conn, terms)
        assert fts5 and counts, (query, terms, counts)
        for term in set(terms) - set(counts):  # a stem of another language: FTS5 does not find it either
            assert not conn.execute("SELECT 1 FROM chunks_fts WHERE chunks_fts MATCH ?",
                                    (keywords.match_expression([term]),)).fetchone(), (query, term)
        ours = keyword_search.bm25_scores(conn, list(fts5), terms, counts)
        assert all(abs(ours[i] - fts5[i]) <= 1e-9 * max(1.0, abs(fts5[i])) for i in fts5), (query, ours, fts5)


def write_kettles(docs) -> None:
    """A common term (kettle) in 4 notes, 10 notes without it, one note with both kettle and samovar."""
    for n in range(3):
        write(docs / f"common{n}.md", f"# Note {n}\n\nThe kettle is on the stove.")
    for n in range(10):
        write(docs / f"other{n}.md", f"# Other {n}\n\nNothing to see in note {n}.")
    write(docs / "both.md", "# Both\n\nThe kettle sits beside the samovar in the corner of the room.")


def test_past_the_row_budget_common_terms_still_rank_the_rare_terms_matches(make_app, docs, monkeypatch):
    from minirag.search import keyword as keyword_search

    app = make_app({"RAG_HYBRID_WEIGHT": "1"})
    write_kettles(docs)
    write(docs / "rare.md", "# Rare\n\nA samovar.")
    run_sync(app.pipeline, list(app.config.roots))
    exact = [h["source"] for h in payload(app.query("kettle samovar", top_k=10))["results"]]
    assert exact[:2] == [str(docs / "both.md"), str(docs / "rare.md")] and len(exact) == 5
    monkeypatch.setattr(keyword_search, "KEYWORD_ROW_BUDGET", 3)
    monkeypatch.setattr(keyword_search, "KEYWORD_ROW_SHARE", 0.0)
    narrowed = [h["source"] for h in payload(app.query("kettle samovar", top_k=10))["results"]]
    # Only chunks holding the rare term are candidates, ranked by both terms.
    assert narrowed == [str(docs / "both.md"), str(docs / "rare.md")]


def test_a_hybrid_query_past_the_row_budget_reads_its_terms_document_counts_once(make_app, docs, monkeypatch):
    """Narrowing the keyword side and scoring the vector side's chunks need the same counts: each
    read walks every term's posting list, so it is read once per query."""
    from minirag.search import keyword as keyword_search

    app = make_app({"RAG_HYBRID_WEIGHT": "0.5"})
    write_kettles(docs)
    run_sync(app.pipeline, list(app.config.roots))
    monkeypatch.setattr(keyword_search, "KEYWORD_ROW_BUDGET", 3)
    monkeypatch.setattr(keyword_search, "KEYWORD_ROW_SHARE", 0.0)
    conn, statements = app.index.conn, []
    conn.set_trace_callback(statements.append)
    try:
        hits = payload(app.query("kettle samovar", top_k=10))["results"]
    finally:
        conn.set_trace_callback(None)
    assert hits[0]["source"] == str(docs / "both.md")
    assert len([s for s in statements if "FROM temp.chunks_fts_terms" in s]) == 1


def test_the_vector_side_on_a_pool_ranks_exactly_like_inline(coded, docs):
    from concurrent.futures import ThreadPoolExecutor

    from minirag.search.plan import SearchOptions, hybrid_search

    matrix = coded.matrices.build_now()
    conn, encoder = coded.index.conn, coded.encoder
    with ThreadPoolExecutor(max_workers=1) as pool:
        for text, scope in [("liquid oxygen rocket engines", None), ("secret apples", None),
                            ("apples", str(docs / "proj"))]:
            def embed(text=text):
                return encoder.embed_queries([text])[0]
            for m in (None, matrix):
                options = SearchOptions(top_k=5, hybrid_weight=0.6, scope=scope)
                inline = hybrid_search(conn, text, options, embed=embed, matrix=m)
                pooled = hybrid_search(conn, text, options, embed=embed, matrix=m, pool=pool)
                assert inline and pooled == inline
                assert any(h.distance is not None for h in pooled)  # the vector side took part


def test_fusion_is_the_convex_combination_of_min_max_cosine_and_max_scaled_bm25(indexed):
    from minirag.search.fusion import fuse

    conn = indexed.index.conn
    ids = [r[0] for r in conn.execute("SELECT id FROM chunks ORDER BY id LIMIT 3")]
    a, b, c = ids
    nearest = [(a, 0.10), (b, 0.30), (c, 0.50)]
    keyword = [(a, 0.0), (b, 8.0), (c, 2.0)]
    expected = {a: 0.6 * 1.0 + 0.4 * 0.0, b: 0.6 * 0.5 + 0.4 * 1.0, c: 0.6 * 0.0 + 0.4 * 0.25}
    hits = fuse(conn, nearest, keyword, 0.4)
    assert [h.chunk_id for h in hits] == sorted(expected, key=expected.get, reverse=True)
    assert all(abs(h.score - expected[h.chunk_id]) < 1e-9 for h in hits)
    assert [h.chunk_id for h in fuse(conn, nearest, keyword, 0.0)] == [a, b, c]
    assert [h.chunk_id for h in fuse(conn, nearest, keyword, 1.0)][:2] == [b, c]


def test_a_keyword_best_hit_holding_little_of_the_query_does_not_count_in_full(indexed):
    """BM25 is divided by the larger of the best candidate's and half the whole query's score."""
    from minirag.search.fusion import fuse

    conn = indexed.index.conn
    a, b, c = [r[0] for r in conn.execute("SELECT id FROM chunks ORDER BY id LIMIT 3")]
    nearest = [(a, 0.10), (b, 0.30), (c, 0.50)]
    keyword = [(a, 0.0), (b, 8.0), (c, 2.0)]
    held_well = {h.chunk_id: h.score for h in fuse(conn, nearest, keyword, 0.4, whole_query=10.0)}
    assert held_well == pytest.approx({a: 0.6, b: 0.6 * 0.5 + 0.4, c: 0.4 * 0.25})  # 8 holds over half of 10
    weak = fuse(conn, nearest, keyword, 0.4, whole_query=32.0)  # 8 is a quarter of what the query asks
    assert {h.chunk_id: h.score for h in weak} == pytest.approx({a: 0.6, b: 0.6 * 0.5 + 0.4 * 0.5,
                                                                c: 0.4 * 0.125})
    assert [h.chunk_id for h in weak] == [a, b, c]


def test_hybrid_search_weighs_the_keyword_side_by_the_whole_query_and_keyword_only_keeps_bm25_order(
        indexed, fusions):
    from minirag.search import plan
    from minirag.search.keyword import TermCounts, whole_query_score

    conn, encoder = indexed.index.conn, indexed.encoder
    text = "apples and liquid oxygen"
    for weight in (0.4, 1.0):
        options = plan.SearchOptions(top_k=5, hybrid_weight=weight)
        assert plan.hybrid_search(conn, text, options, embed=lambda: encoder.embed_queries([text])[0])
    terms = plan.query_terms(conn, text, 0)
    expected = whole_query_score(conn, TermCounts(conn, terms).get())
    assert expected > 0 and [whole for _, whole in fusions] == [pytest.approx(expected), 0.0]


def test_a_hybrid_hit_found_by_one_side_carries_the_other_sides_score_too(make_app, docs, monkeypatch):
    from minirag.search import plan

    app = make_app()
    write(docs / "kettle.md", "# Kettle\n\nThe samovar kettle whistles.\n")
    for n in range(60):
        write(docs / f"n{n}.md", f"# Note {n}\n\nUnrelated words about gardens and rivers, number {n}.\n")
    app.sync()
    seen = {}
    real = plan.complete_scores

    def spy(conn, nearest, keyword, vector, terms, **options):
        seen["before"] = (len(nearest), len(keyword))
        out = real(conn, nearest, keyword, vector, terms, **options)
        seen["after"] = (len(out[0]), len(out[1]))
        return out

    monkeypatch.setattr(plan, "complete_scores", spy)
    hits = payload(app.query("samovar", top_k=5))["results"]
    assert hits[0]["source"] == str(docs / "kettle.md")
    assert all(h["distance"] is not None for h in hits)  # every hybrid hit has a real distance
    union = seen["after"][0]
    assert seen["after"] == (union, union) and seen["before"] != seen["after"]


def test_the_code_product_ranks_the_codes_as_their_exact_product_with_the_query_does():
    """ONNX Runtime's 8-bit product (two 7-bit digits of the query's weights, uint8 rows) against the
    exact float64 product, extreme codes included: a 16-bit sum that saturated would rank them wrong."""
    import numpy as np

    from minirag.search.code_product import scores, to_rows
    from minirag.store import codes

    rng = np.random.default_rng(0)
    data = rng.normal(size=(2000, 48)).astype(np.float32)
    codebook = codes.fit(data)
    encoded = codebook.encode(data)
    encoded[:50] = 127 * np.sign(rng.normal(size=(50, 48))).astype(np.int8)  # every byte at its limit
    for _ in range(5):
        weights = codebook.query_weights(rng.normal(size=48).astype(np.float32))
        exact = encoded.astype(np.float64) @ weights.astype(np.float64)
        got = scores(to_rows(encoded), weights)
        assert np.corrcoef(got, exact)[0, 1] > 0.99999
        assert set(np.argsort(-got)[:20].tolist()) == set(np.argsort(-exact)[:20].tolist())


def test_the_codes_are_complete_and_ranked_on_every_dimension():
    """A code per dimension: the weakest principal directions still separate near neighbours."""
    import numpy as np

    from minirag.search import vector as vectors
    from minirag.search.code_product import to_rows
    from minirag.store import codes

    rng = np.random.default_rng(1)
    data = rng.normal(size=(500, 32)).astype(np.float32)
    codebook = codes.fit(data)
    assert codebook.complete and codebook.code_dims == 32
    ids, active = np.arange(1, 501, dtype=np.int64), np.ones(500, dtype=bool)
    matrix = vectors.VectorMatrix(1, codebook, ids, to_rows(codebook.encode(data)), active)
    query = rng.normal(size=32).astype(np.float32)
    best = ids[np.argsort(-(data @ query))[:5]]
    assert set(best.tolist()) <= set(matrix.coarse(query, 10).tolist())


@pytest.mark.parametrize(("text", "question"), [
    ("How do I delete a file", True), ("how do I delete a file?", True), ("What is a class?", True),
    ("Why must dictionary keys be immutable?", True), ("Как вставить таблицу в документ", True),
    ("Можно ли сохранить документ в PDF?", True), ("¿Dónde está el archivo？", True), ("where clause", False),
    ("how-to guides for logging", False), ("What If analysis", True), ("tables; inserting", False),
    ("Use larger fonts to make text easier to read.", False), ("connection timeout", False), ("?", True),
    ("", False), ("   ", False), ("  Why?  ", True), ("whatever happens next", False),
    ('"Is the backup complete?"', True), ("«Что такое драйвер?»", True), ("(why?)", True), ('"quoted"', False),
    ("Why?!", True), ("why?..", True), ("ما هذا؟\u200f", True), ("「これは何ですか？」", True), ("Hello.", False),
    ("Is it\u200b?\u202c", True), ("end of line.\u200f", False), ("What's a tuple", True),
    ("where’s my backup folder", True), ("what'sapp", False),
    # Yes/no questions: an auxiliary with a pronoun after it; Russian "ли" after the first word or two.
    ("can I undo a sync", True), ("is there a size limit for PDFs", True), ("does it follow symlinks", True),
    ("Should we back up the index", True), ("does not divide relation", False), ("can bus protocol", False),
    ("Have a delay between a key being pressed and that letter appearing on the screen.", False),
    ("is it", False), ("можно ли сохранить документ в PDF", True), ("есть ли ограничение на размер", True),
    ("Ли Бо стихи", False), ("сохранение документа в PDF", False), ("Can’t you emulate threads", True),
    ("don't I need a licence", True), ("isn't there a faster way", True), ("Can't stop music", False),
    ("do it yourself guide", False), ("have this ready by noon", False), ("is one of", False),
    ("Has one child policy", False), ("do they ship abroad", True), ("ли ли ли", False), ("Али баба ли", False),
])
def test_a_question_is_told_from_a_keyword_query_by_its_form(text, question):
    from minirag.search.query_form import is_question

    assert is_question(text) is question


@pytest.mark.parametrize(("text", "sentence"), [
    ("Use the Orca screen reader with a refreshable Braille display.", True), ("Hello.", False),
    ("Ignore quickly-repeated key presses of the same key.\u200f", True), ("“Use the reader.”", True),
    ("アカウントを追加します。", True), ("使用 Python 的 asyncio。", True), ("设置。", False),
    ("Удалите файл из индекса.", True), ("Lösche die Datei aus dem Index．", True),
    ("e.g.", False), ("Wi-Fi.", False), ("To be continued...", False), ("See the docs…", False),
    ("Configure the network", False), ("Use it now!", False), ("What is a class?", False), ("", False),
])
def test_a_sentence_is_a_statement_that_ends_with_a_full_stop(text, sentence):
    from minirag.search.query_form import is_sentence

    assert is_sentence(text) is sentence


@pytest.fixture
def fusions(monkeypatch) -> list[tuple[float, float]]:
    """(keyword share, whole query's keyword score) each query of the test was fused with, in order."""
    from minirag.search import plan

    calls: list[tuple[float, float]] = []
    real = plan.fuse

    def spy(conn, nearest, keyword, keyword_weight, whole_query=0.0, unreadable=frozenset()):
        calls.append((keyword_weight, whole_query))
        return real(conn, nearest, keyword, keyword_weight, whole_query, unreadable)

    monkeypatch.setattr(plan, "fuse", spy)
    return calls


@pytest.mark.parametrize(("env", "keyword_query", "sentence", "question", "name"), [
    ({}, 0.4, 0.3, 0.2, 0.7), ({"RAG_HYBRID_WEIGHT": "0.4"}, 0.4, 0.4, 0.4, 0.4),
    ({"RAG_HYBRID_WEIGHT": "0.1"}, 0.1, 0.1, 0.1, 0.1),
])
def test_an_unset_weight_follows_the_querys_form_and_a_set_one_holds_for_every_query(
        make_app, docs, fusions, env, keyword_query, sentence, question, name):
    app = make_app(env)
    write(docs / "fruit.md", "# Fruit\n\nApples and bananas are fruit. An apple a day. Cultivar GoldRush-7.")
    app.sync()
    app.query("apple bananas")
    app.query("An apple a day keeps the doctor away.")
    app.query("Which fruit keeps the doctor away?")
    app.query("GoldRush-7")
    assert [weight for weight, _ in fusions] == [keyword_query, sentence, question, name]
    status = payload(app.status())  # as status shows it
    assert status["hybridWeight"] == keyword_query
    assert ("hybridWeightForQuestions" in status) is ("hybridWeightForSentences" in status) is (not env)
    assert ("hybridWeightForNames" in status) is (not env)


@pytest.mark.parametrize(("text", "name"), [
    ("ColorMunki", True), ("GTIFF", True), ("Dana-Farber", True), ("get_stack", False), ("3945ABG", True),
    ('"Dana-Farber"', True), ("os.path.Join", False), ("18.04", True), ("PDF", True), ("os.path.join", False),
    ("std::vector", False), ("src/main", False), ("v1.2.3", True), ("KMnO_4", True),
    ("ColorMunki 3945ABG", True), ("EC1260?", True),
    ("Printing", False), ("Pdf", False), ("removeprefix", False), ("GTIFF driver", False), ("a-", False),
    ("how to print", False), ("打印", False), ("-", False), ("", False), ("ColorMunki EC1260 GTIFF", False),
])
def test_a_name_or_a_code_is_told_by_how_its_words_are_written(text, name):
    from minirag.search.query_form import is_name

    assert is_name(text) is name


def test_a_query_in_a_language_the_model_was_not_trained_on_leans_on_the_keyword_side(make_config, model_dir,
                                                                                       tmp_path, docs, fusions):
    """A model folder naming its languages (minirag-model.json), as the catalogue does for all-MiniLM-L6-v2:
    a German query gets the foreign-language share, an English one the share of its form; a set weight holds."""
    import json
    import shutil

    from minirag.app import App
    from minirag.config import FOREIGN_HYBRID_WEIGHT
    from minirag.models import KNOWN_MODELS, MINILM

    assert KNOWN_MODELS[MINILM].languages == ("en",)
    english = tmp_path / "english-model"
    shutil.copytree(model_dir, english)
    settings = json.loads((english / "minirag-model.json").read_text())
    (english / "minirag-model.json").write_text(json.dumps({**settings, "languages": ["EN"]}))
    write(docs / "obst.md", "# Obst\n\nÄpfel und Bananen sind Obst. Ein Apfel am Tag.")
    for env in ({}, {"RAG_HYBRID_WEIGHT": "0.5"}):
        app = App(make_config(env, model_path=str(english)))
        try:
            app.sync()
            app.query("Welche Früchte essen wir jeden Tag zum Frühstück")
            app.query("which fruit do we eat every day at breakfast")
        finally:
            app.close()
    assert [weight for weight, _ in fusions] == [FOREIGN_HYBRID_WEIGHT, 0.2, 0.5, 0.5]


@pytest.mark.parametrize("text", ["", "   ", "\u200b\u200b", "\u202e\u200f", "\x00", "\ufeff \t"])
def test_a_query_with_nothing_visible_is_refused_as_empty(app, docs, text):
    write(docs / "a.md", "# Alpha\n\nSome words to match.")
    app.sync()
    with pytest.raises(InvalidArgument, match="must not be empty"):
        app.query(text)


def test_a_query_longer_than_any_model_reads_is_refused_in_one_line(app, docs):
    # Unicode's normal forms reorder a run of combining marks in quadratic time: a query of
    # 100,000 Hebrew points would hold a server thread for minutes.
    write(docs / "a.md", "# Alpha\n\nSome words to match.")
    app.sync()
    assert app.query("words " * (MAX_QUERY_CHARS // 6)).hits
    with pytest.raises(InvalidArgument, match=f"query is 100,001 characters; queries take at most {MAX_QUERY_CHARS:,}"):
        app.query("a" + "\u0591\u05b0" * 50_000)


def test_an_absolute_scope_finds_the_same_sources_however_it_is_spelled(app, docs, tmp_path):
    write(docs / "sub" / "a.md", "# Alpha\n\nApples grow in the orchard.")
    write(docs / "b.md", "# Beta\n\nApples and pears.")
    app.sync()
    (tmp_path / "docslink").symlink_to(docs)
    expected = {str(docs / "sub" / "a.md")}
    for scope in (str(docs / "sub"), f"{docs}/../docs/sub", f"{docs}/sub/.", f"{docs}/sub/", f"{docs}/./sub",
                  str(tmp_path / "docslink" / "sub")):
        assert {h["source"] for h in payload(app.query("apples", scope=scope))["results"]} == expected, scope
        assert {f.source for f in app.list_files(scope).files} == expected, scope


def test_a_scope_longer_than_any_path_is_one_clear_error_not_minutes_of_resolving(app, docs):
    # realpath of "/a/" * 400,000 took 115 s: its cost grows with the square of the length.
    write(docs / "a.md", "# Alpha\n\nApples.")
    app.sync()
    for scope in ("notes/" * 1000, "/a/" * 400_000):
        with pytest.raises(InvalidArgument, match="scope is .* characters long"):
            app.query("apples", scope=scope)
        with pytest.raises(InvalidArgument, match="scope is .* characters long"):
            app.list_files(scope)


@pytest.mark.parametrize(("text", "expected"), [
    ("os.path.join", ["ospathjoin", "pathjoin"]),
    ("call persistent_load() first", ["persistentload"]),
    ("decimal.MIN_EMIN", ["decimalminemin", "minemin"]),
    ("std::vector and README.md", ["stdvector", "readmemd"]),
    ("e.g. the U.S. in Python 3.11, 1.5 GB, 192.168.0.1", []),  # abbreviations and numbers
    ("plain words, a sentence. Another one", []),
    ("2.5mg, 3.5mm, v1.10, v1.1.0 and Python 3.11", []),  # decimal points join no name
    ("Путь_к_файлу", ["путькфайлу"]),
    ("a.b.c.d.e.f.g.h.i and " + "x_" * 60 + "y", []),  # nine segments; over 100 characters
])
def test_an_identifier_is_a_term_of_its_own_and_so_are_its_qualified_tails(text, expected):
    from minirag import keywords

    assert keywords.compounds(text) == expected
    assert all(term in keywords.normalize(text).split() for term in expected)


def test_a_hostile_run_of_joined_segments_adds_terms_in_proportion_to_its_length():
    from minirag import keywords

    # Every tail of n segments would be n²/2 bytes of terms: 12 MB from these 20 KB.
    text = "a." * 5_000 + "a " + "ab_" * 2_000 + "c"
    assert keywords.compounds(text) == []
    assert len(keywords.normalize(text)) <= 2 * len(text)


def test_a_query_naming_an_identifier_ranks_the_chunk_that_spells_it_first(make_app, docs):
    app = make_app({"RAG_HYBRID_WEIGHT": "1"})
    write(docs / "exact.md", "# Paths\n\nBuild the file name with os.path.join(base, name) before opening it.")
    # Every part of the identifier, more often and in a shorter chunk, but never the identifier itself.
    write(docs / "parts.md", "# OS\n\nThe os module: path, join, path join os path.")
    write(docs / "loader.md", "# Pickling\n\nA persistent store will load objects; load and persistent ids.")
    write(docs / "hook.md", "# Unpickler\n\nOverride persistent_load(pid) to resolve ids from a long external table.")
    write(docs / "constant.md", "# Context\n\nThe lowest exponent is decimal.MIN_EMIN, which a context may not go below.")
    write(docs / "mentions.md", "# Limits\n\nMin and emin limits: the min emin of a min context.")
    run_sync(app.pipeline, list(app.config.roots))

    def first(query):
        return payload(app.query(query, top_k=3))["results"][0]["source"]

    assert first("os.path.join") == str(docs / "exact.md")
    assert first("path.join") == str(docs / "exact.md")  # a qualified tail finds the full name
    assert first("persistent_load") == str(docs / "hook.md")
    assert first("MIN_EMIN") == str(docs / "constant.md")


@pytest.mark.parametrize(("given", "expected"), [(None, "1"), ("4", "4")])
def test_numpys_blas_runs_on_one_thread_in_a_minirag_process_unless_the_user_sets_it(given, expected):
    """OpenBLAS's worker threads busy-wait between products, taking the core a query's keyword
    side runs on while its vector side multiplies (docs/benchmarks.md); the variable is read when
    numpy loads the library, so minirag sets it on import, before numpy."""
    import os
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    if given is not None:
        env["OPENBLAS_NUM_THREADS"] = given
    code = "import os, minirag, numpy; print(os.environ.get('OPENBLAS_NUM_THREADS'))"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60)
    assert out.stdout.strip() == expected, out.stderr


def test_the_tests_own_process_runs_numpys_blas_as_a_minirag_process_does():
    """The suite imported numpy (tests/helpers) before minirag could set OPENBLAS_NUM_THREADS: its
    workers ran OpenBLAS on every core, whose threads busy-wait, and on the suite's busy cores a
    codebook's eigendecomposition (store/codes.py) took 1.2 s of CPU instead of 0.01 s."""
    import ctypes
    import glob
    import os

    import numpy as np

    libraries = glob.glob(os.path.join(os.path.dirname(np.__file__) + ".libs", "libscipy_openblas*"))
    if not libraries:
        pytest.skip("numpy is not built on scipy-openblas here")
    assert ctypes.CDLL(libraries[0]).scipy_openblas_get_num_threads64_() == 1


@pytest.mark.slow
def test_a_mid_size_index_keeps_its_vectors_in_memory_as_float16_beside_the_codes(coded, monkeypatch):
    """Half the bytes of float32 rows: with the codes (a quarter) a serving process holds less than
    the float32 matrix it held before, and re-scores without reading the file."""
    import numpy as np

    from minirag.search import vector as vectors

    monkeypatch.setattr(vectors, "ROWS_BYTES", 1 << 30)
    matrix = coded.matrices.build_now()
    assert matrix.rows is not None and len(matrix.ids) > 0
    assert matrix.rows.dtype == np.float16 and matrix.rows.shape == (len(matrix.ids), coded.encoder.dimension)
    assert matrix.rows.nbytes + matrix.codes.nbytes < len(matrix.ids) * coded.encoder.dimension * 4

def test_a_serving_process_reads_a_terms_document_count_once_per_index_generation(make_app, docs, monkeypatch):
    """Each read of the counts walks the terms' posting lists; a serving process keeps them across
    queries until a write moves the index's generation, with the same rankings."""
    from minirag.search import keyword as keyword_search
    from minirag.search import vector as vectors
    from minirag.store import connection

    app = make_app({"RAG_HYBRID_WEIGHT": "0.5"})
    write_kettles(docs)
    run_sync(app.pipeline, list(app.config.roots))
    monkeypatch.setattr(keyword_search, "KEYWORD_ROW_BUDGET", 3)
    monkeypatch.setattr(keyword_search, "KEYWORD_ROW_SHARE", 0.0)
    one_shot = [payload(app.query(text, top_k=10))["results"] for text in ("kettle samovar", "samovar corner")]
    app.matrices = vectors.MatrixCache(lambda: connection.connect(app.config.db_path, read_only=True))
    conn, statements = app.index.conn, []
    conn.set_trace_callback(statements.append)

    def counts_read() -> list[str]:
        return [s for s in statements if "FROM temp.chunks_fts_terms" in s]

    try:
        assert payload(app.query("kettle samovar", top_k=10))["results"] == one_shot[0]
        assert len(counts_read()) == 1
        assert payload(app.query("kettle samovar", top_k=10))["results"] == one_shot[0]
        assert len(counts_read()) == 1  # both terms kept
        assert payload(app.query("samovar corner", top_k=10))["results"] == one_shot[1]
        assert len(counts_read()) == 2 and "'corner'" in counts_read()[-1] and "'samovar'" not in counts_read()[-1]
        write(docs / "more.md", "# More\n\nA second samovar, and a kettle.")
        run_sync(app.pipeline, list(app.config.roots))
        statements.clear()
        hits = payload(app.query("kettle samovar", top_k=10))["results"]
        assert len(counts_read()) == 1 and str(docs / "more.md") in [h["source"] for h in hits]
    finally:
        conn.set_trace_callback(None)


def test_a_manual_installed_twice_gives_each_passage_once_with_the_other_copy_named(app, docs):
    page = "# Backups\n\nRun the backup tool every night and keep three copies on another disk."
    write(docs / "v1" / "backups.md", page)
    write(docs / "v2" / "backups.md", page)
    write(docs / "other.md", "# Restores\n\nA restore reads the newest copy back from the other disk.")
    run_sync(app.pipeline, list(app.config.roots))
    result = payload(app.query("backup tool every night", top_k=5))
    shown = [(h["source"], h.get("alsoIn")) for h in result["results"]]
    assert shown[0] == (str(docs / "v1" / "backups.md"), [str(docs / "v2" / "backups.md")])
    assert [s for s, _ in shown] == [str(docs / "v1" / "backups.md"), str(docs / "other.md")]
    assert "alsoIn" not in result["results"][1]


def test_a_passage_left_untranslated_in_translations_titled_each_their_own_way_takes_one_slot(app, docs):
    # Debian's live-manual EPUBs: most translations keep the English text under their own title, and
    # 4 of the top 5 hits were one paragraph, each opening with another book's title.
    body = "## Persistence\n\nThe volume label must be `persistence`, with a persistence.conf file in its root."
    for lang, title in [("de", "Live Systems Handbuch"), ("ro", "Manualul Live Systems"), ("en", "Live Systems Manual")]:
        write(docs / f"manual.{lang}.md", f"---\ntitle: {title}\n---\n\n{body}\n")
    write(docs / "other.md", "---\ntitle: Live Systems Handbuch\n---\n\n## Boot\n\nThe volume boots from a persistence partition.\n")
    run_sync(app.pipeline, list(app.config.roots))
    hits = app.query("persistence.conf volume label", top_k=5).hits
    assert len(hits) == 2 and str(docs / "other.md") in {h.source for h in hits}, [h.source for h in hits]
    copy = next(h for h in hits if "manual." in h.source)
    assert {copy.source, *copy.also_in} == {str(docs / f"manual.{lang}.md") for lang in ("de", "ro", "en")}


def test_copies_of_one_page_leave_the_results_full_and_the_file_cap_counts_the_file_shown(make_app, docs):
    # Sixty copies took every one of the 40 candidates a side fetches for ten results: folded into one,
    # they left one result where ten were asked for. The search looks deeper instead.
    page = "# Backups\n\nRun the backup tool every night and keep three copies on another disk."
    for n in range(60):
        write(docs / f"copy{n:02}" / "backups.md", page)
    for n in range(12):
        write(docs / f"other{n}.md", f"# Disk {n}\n\nDisk number {n} keeps a backup copy of the night's work.")
    app = make_app()
    run_sync(app.pipeline, list(app.config.roots))
    hits = app.query("backup tool every night", top_k=10).hits
    assert len(hits) == 10 and len({h.text for h in hits}) == 10
    copy = next(h for h in hits if h.source.endswith("backups.md"))
    assert len(copy.also_in) + copy.also_in_more == 59
    capped = make_app(env={"RAG_MAX_FILES": "2"}).query("backup tool every night", top_k=10).hits
    assert len({h.source for h in capped}) == 2


def test_a_page_copied_under_another_name_takes_one_slot_though_its_title_is_its_name(app, docs):
    # A page with no title of its own is titled by its file name, which opens each chunk's text: a
    # download kept twice (`notes (1).md`) or a copy renamed for its version differed by that name alone.
    page = "Run the backup tool every night and keep three copies on another disk.\n"
    copies = [write(docs / name, page) for name in ("notes.md", "notes (1).md", "old" + "/nightly_notes.txt")]
    write(docs / "other.md", "# Restores\n\nA restore reads the newest copy back from the other disk.")
    run_sync(app.pipeline, list(app.config.roots))
    hits = app.query("backup tool every night", top_k=5).hits
    assert len(hits) == 2, [h.source for h in hits]
    copy = next(h for h in hits if h.source != str(docs / "other.md"))
    assert {copy.source, *copy.also_in} == {str(path) for path in copies}


def test_a_page_titled_by_its_name_and_a_page_whose_heading_says_that_name_stay_one_passage(app, docs):
    # Their texts are the same words (`notes` and the line under it): one passage, as before titles read
    # off a file's name were set aside.
    write(docs / "notes.md", "Keep three copies on another disk.\n")
    write(docs / "copy.md", "# notes\n\nKeep three copies on another disk.\n")
    write(docs / "notes-old.md", "Keep three copies on another disk.\n")
    run_sync(app.pipeline, list(app.config.roots))
    hit, = app.query("three copies on another disk", top_k=5).hits
    assert {hit.source, *hit.also_in} == {str(docs / name) for name in ("notes.md", "copy.md", "notes-old.md")}


def test_a_book_as_one_page_and_as_a_page_per_chapter_gives_each_section_once(app, docs):
    # Sphinx's single-page build beside its chapters (Debian's developers-reference ships both): each
    # section under `Reference > 5. Packages > 5.11. NMUs` in one and `5. Packages > 5.11. NMUs` in the
    # other took two of the ten results.
    words = "Upload the signed changes file with dput to ftp-master, then wait for the queue to accept it."
    write(docs / "book.md", f"# Guide\n\n## Packages\n\n### Uploads\n\n{words}\n")
    write(docs / "packages.md", f"# Packages\n\n## Uploads\n\n{words}\n")
    write(docs / "other.md", "# Keys\n\n## Signing\n\nSign the changes file with your key before the upload.\n")
    run_sync(app.pipeline, list(app.config.roots))
    hits = app.query("upload the changes file with dput", top_k=5).hits
    assert len(hits) == 2, [h.text for h in hits]
    copy = next(h for h in hits if h.source != str(docs / "other.md"))
    assert {copy.source, *copy.also_in} == {str(docs / "book.md"), str(docs / "packages.md")}


def test_one_files_sections_of_the_same_heading_and_words_stay_each_their_own(app, docs):
    # `Reader > close()` and `Writer > close()` say the same words of two things in one reference.
    write(docs / "api.md", "# API\n\n## Reader\n\nReads a stream.\n\n### close()\n\nCloses the stream and frees "
          "its buffer at once.\n\n## Writer\n\nWrites a stream.\n\n### close()\n\nCloses the stream and frees its "
          "buffer at once.\n")
    run_sync(app.pipeline, list(app.config.roots))
    hits = app.query("close the stream and free its buffer", top_k=2).hits
    assert sorted(h.text.partition("\n")[0] for h in hits) == ["API > Reader > close()", "API > Writer > close()"]


def test_a_copy_past_the_distance_cap_is_neither_shown_nor_named(make_app, docs):
    # Two translations holding one section under each their own title are one passage, at two distances:
    # the cap applies to each copy before they are folded, so the nearer is shown and the farther unnamed.
    body = "## Persistence\n\nThe volume label must be `persistence`, with a persistence.conf file in its root."
    near, far = docs / "manual.en.md", docs / "manual.de.md"
    write(near, f"---\ntitle: Live Systems Manual\n---\n\n{body}\n")
    write(far, f"---\ntitle: Ein ganz anderes Handbuch mit Bildern\n---\n\n{body}\n")
    app = make_app()
    run_sync(app.pipeline, list(app.config.roots))
    query = "persistence.conf volume label"
    distance = {path: app.query(query, top_k=1, scope=str(path)).hits[0].distance for path in (near, far)}
    if distance[near] > distance[far]:
        near, far = far, near
    assert distance[far] - distance[near] > 1e-3, distance
    capped = make_app(env={"RAG_MAX_DISTANCE": str((distance[near] + distance[far]) / 2)})
    assert [(h.source, h.also_in) for h in capped.query(query, top_k=5).hits] == [(str(near), ())]


def test_a_copy_outside_the_scope_is_neither_shown_nor_named(app, docs):
    page = "# Backups\n\nRun the backup tool every night and keep three copies on another disk."
    write(docs / "v1" / "backups.md", page)
    write(docs / "v2" / "backups.md", page)
    run_sync(app.pipeline, list(app.config.roots))
    for version in ("v1", "v2"):
        hits = app.query("backup tool every night", top_k=5, scope=str(docs / version)).hits
        assert [(h.source, h.also_in) for h in hits] == [(str(docs / version / "backups.md"), ())]


def test_a_root_no_longer_configured_is_neither_shown_nor_named_and_takes_no_place(make_app, docs, tmp_path):
    page = "# Backups\n\nRun the backup tool every night and keep three copies on another disk."
    other_root = tmp_path / "old-root"
    write(docs / "backups.md", page)
    write(other_root / "backups.md", page)
    both = make_app(base_dirs=[str(other_root), str(docs)])
    run_sync(both.pipeline, list(both.config.roots))
    for kept, dropped in ((docs, other_root), (other_root, docs)):
        hits = make_app(base_dirs=[str(kept)]).query("backup tool every night", top_k=3).hits
        assert [(h.source, h.also_in) for h in hits] == [(str(kept / "backups.md"), ())], dropped


def test_a_links_address_is_no_words_of_the_passage():
    """Chunks keep links to other pages (`[listen_addresses](runtime-config-connection.html#GUC-LISTEN-ADDRESSES)`):
    their addresses' words (`listen`, `addresses`, `guc`, `runtime`, `config`, `connection`, `html`)
    counted as the passage's, so every page linking to a PostgreSQL parameter outranked its definition
    on the keyword side. The keyword text holds what a reader reads: each link's and picture's text."""
    from minirag import keywords

    linked = ("Set [listen_addresses](runtime-config-connection.html#GUC-LISTEN-ADDRESSES) or see "
              "![the WAL diagram](img/wal-flow.png 'WAL') at [the site](https://example.org/guc/docs).")
    read = "Set listen_addresses or see the WAL diagram at the site."
    assert keywords.keyword_texts([linked], "T")[0].body == keywords.keyword_texts([read], "T")[0].body
    code = "```\nhandlers[0](request)\n```"  # fenced code is code, whatever it looks like
    assert "request" in keywords.keyword_texts([code], "T")[0].body.split()


def test_a_page_is_not_found_by_the_words_of_the_address_it_links_to(make_app, docs):
    app = make_app({"RAG_HYBRID_WEIGHT": "1"})
    write(docs / "settings.md", "# Server\n\nThe connection settings say where the server listens.")
    write(docs / "options.md", "# Options\n\nPrefer [the -i option](runtime-config-connection-settings.html) "
                               "for old scripts.")
    run_sync(app.pipeline, list(app.config.roots))
    hits = payload(app.query("connection settings", top_k=5))["results"]
    assert [hit["source"] for hit in hits] == [str(docs / "settings.md")]


@pytest.mark.parametrize("weight", ["0", "0.6", "1"])
def test_a_generated_index_ranks_below_the_page_it_points_to(make_app, docs, weight):
    """A generated index names a term as often as the page that explains it, in fewer words: it
    had ranked first for the term, ahead of the page (docs/search.md)."""
    app = make_app({"RAG_HYBRID_WEIGHT": weight})
    write(docs / "genindex.md", "# Index – L\n\n- [limescale](kettle.md#limescale), [[1]](care.md#limescale)\n"
          "- [lid](kettle.md#lid)\n- [lever](kettle.md#lever)\n- [light](kettle.md#light)\n")
    write(docs / "kettle.md", "# Kettle\n\n## Limescale\n\nHard water leaves limescale on the heating element. Boil "
          "water and vinegar, leave it for an hour, then rinse twice.\n\n## Lid\n\nThe lid's hinge clicks shut.\n")
    run_sync(app.pipeline, list(app.config.roots))
    sources = [h["source"] for h in payload(app.query("limescale", top_k=5))["results"]]
    assert sources[0] == str(docs / "kettle.md") and str(docs / "genindex.md") in sources  # still found


@pytest.mark.parametrize("case", ["missing", "empty file", "read-only", "subfolder of an indexed folder"])
def test_status_reports_a_missing_index_in_the_words_a_read_refuses_with(make_app, docs, case):
    """status said `no index at X; run `minirag sync` first` where a read said how to build it
    (`a writer must build it first (this one is read-only)` in read-only mode, where a sync is
    refused) and named the index of a folder above: one question, answered in two wordings."""
    flags: dict = {}
    if case == "empty file":
        (docs.parent / "index.db").touch()
    elif case == "read-only":
        flags["read_only"] = True
    elif case == "subfolder of an indexed folder":
        (docs / ".minirag").mkdir()
        (docs / ".minirag" / "index.db").write_bytes(b"x")  # only its size is looked at
        (docs / "sub").mkdir()
        flags.update(base_dirs=[str(docs / "sub")], db_path=None)
    app = make_app(**flags)
    with pytest.raises(IndexUnavailable) as raised:
        app.query("apples")
    assert app.status().index_error == str(raised.value)
    assert ("a writer must build it first" in str(raised.value)) == (case == "read-only")
    assert ("a folder above" in str(raised.value)) == (case == "subfolder of an indexed folder")
