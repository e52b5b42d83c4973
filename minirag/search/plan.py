"""The plan of a query: which sides run, with what, then fusion and the post filters.

query -> keyword side (FTS5 BM25, keyword.py) and vector side (vec0 or the
in-memory matrix, vector.py), each ranking its candidates with the scope and
lifecycle filters applied before ranking -> both scores completed for every candidate -> convex combination in SQL (fusion.py)
-> files served, distance cap, one slot per passage, grouping, file cap (filters.py).
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable
from concurrent.futures import Executor
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from minirag import interruptible, keywords
from minirag.config import DEFAULT_TOP_K, MAX_TOP_K
from minirag.errors import InvalidArgument
from minirag.search.compounds import compound_parts
from minirag.search.filters import (
    apply_post_filters,
    one_slot_per_passage,
    served_only,
    within_distance,
)
from minirag.search.fusion import Hit, fuse
from minirag.search.keyword import (
    CountCache,
    TermCounts,
    index_languages,
    keyword_candidates,
    keyword_scores,
    unreadable_chunks,
    whole_query_score,
)
from minirag.search.query_form import default_hybrid_weight
from minirag.search.scope import Scopes
from minirag.store.index import META_GENERATION
from minirag.store.schema import HAS_VECTOR_TABLE
from minirag.writing import main_script

if TYPE_CHECKING:  # the vector side (numpy) is imported where it runs: a keyword-only query compares no vectors
    import numpy as np

    from minirag.search.vector import MatrixCache

# Each side fetches this many candidates per requested result, within bounds:
# deeper lists let fusion promote a chunk both sides rank moderately.
CANDIDATES_PER_RESULT = 4
MIN_CANDIDATES = 40
MAX_CANDIDATES = 400


@dataclass(frozen=True)
class SearchOptions:
    top_k: int = DEFAULT_TOP_K
    hybrid_weight: float | None = None  # None: by the query's form (query_form.default_hybrid_weight)
    scope: tuple[str, ...] = ()  # a source under any of them; none: every source
    outside: tuple[str, ...] = ()  # and under none of these (a collection's nested collections)
    grouping: str | None = None
    max_distance: float | None = None
    max_files: int | None = None


@dataclass(frozen=True)
class IndexShape:
    """What one query needs to know of the index, read in one statement."""

    largest_chunk_id: int  # bounds the chunk count: the keyword budget and the matrix threshold use it
    generation: int  # moves on every write: a vector matrix of another generation is stale
    has_vectors: bool  # the vec0 table exists once a model is bound
    has_scripts: bool = False  # the FTS table holds each chunk's writing systems (keyword scheme 15 on)


SHAPE_SQL = f"""
SELECT COALESCE((SELECT MAX(id) FROM chunks), 0),
       COALESCE((SELECT CAST(value AS INTEGER) FROM meta WHERE key = ?), 0),
       {HAS_VECTOR_TABLE},
       EXISTS (SELECT 1 FROM pragma_table_info('chunks_fts') WHERE name = 'scripts')
"""


def read_shape(conn) -> IndexShape:
    largest, generation, has_vectors, has_scripts = conn.execute(SHAPE_SQL, (META_GENERATION,)).fetchone()
    return IndexShape(largest, generation, bool(has_vectors), bool(has_scripts))


def clamp_top_k(top_k: int) -> int:
    """At least 1 (else refused); above MAX_TOP_K clamped, since asking for too much is not an error."""
    if isinstance(top_k, bool) or not isinstance(top_k, int):
        raise InvalidArgument(f"topK must be an integer, got {top_k!r}")
    if top_k < 1:
        raise InvalidArgument(f"topK must be at least 1, got {top_k}")
    return min(top_k, MAX_TOP_K)


def resolved_weight(options: SearchOptions, text: str, model_languages: tuple[str, ...] = ()) -> float:
    """The keyword side's share: the one set, else the default for the query's form and language."""
    if options.hybrid_weight is not None:
        return options.hybrid_weight
    return default_hybrid_weight(text, model_languages)


def candidate_depth(top_k: int) -> int:
    return max(MIN_CANDIDATES, min(MAX_CANDIDATES, top_k * CANDIDATES_PER_RESULT))


def search(conn, text: str, options: SearchOptions, *, encoder=None, matrices: MatrixCache | None = None,
           pool: Executor | None = None, pool_conn: Callable[[], Any] | None = None,
           served: Callable[[str], bool] | None = None) -> list[Hit]:
    """The whole plan for one query. `encoder` None (or weight 1) leaves the vector side out.

    A model that cannot read the query's script gets no vote in the fusion: on
    lo-help-index-ru with the English all-MiniLM-L6-v2, every vector weight hurt.
    """
    shape = read_shape(conn)
    languages = encoder.spec.languages if encoder is not None else ()
    weight, embed, matrix = resolved_weight(options, text, languages), None, None
    # A distance cap needs the query vector even when the keyword side alone ranks (weight 1).
    if (weight < 1.0 or options.max_distance is not None) and encoder is not None and shape.has_vectors:
        if weight > 0.0 and not encoder.reads(text):
            weight = 1.0
        else:
            def embed():
                return encoder.embed_queries([text])[0]
            if matrices is not None and weight < 1.0:
                matrix = matrices.current(shape.generation, shape.largest_chunk_id)
    return hybrid_search(conn, text, replace(options, hybrid_weight=weight), embed=embed, matrix=matrix,
                         pool=pool, pool_conn=pool_conn, shape=shape,
                         counts=matrices.counts if matrices is not None else None,
                         model_reads=encoder.reads_script if encoder is not None else None, served=served)


def hybrid_search(conn, query_text: str, options: SearchOptions, *, embed=None, matrix=None,
                  pool: Executor | None = None, pool_conn: Callable[[], Any] | None = None,
                  shape: IndexShape | None = None, exact: bool = False,
                  counts: CountCache | None = None,
                  model_reads: Callable[[str], bool] | None = None,
                  served: Callable[[str], bool] | None = None) -> list[Hit]:
    """Ranked hits: each side's candidates, both scores for each, fused in SQL, then the post filters.

    `embed` () -> the query vector; None leaves the vector side out. The vector
    side of an index of MIN_CHUNKS or more ranks its int8 codes, from `matrix`
    (a vector.VectorMatrix of the current index state) or else straight from the
    file, and re-scores the best exactly; a smaller one, or `exact`, runs the
    vec0 scan. With a `pool`, the embedding and the code product (both release
    the GIL) run there while this thread runs the keyword side (the gain: see
    docs/benchmarks.md). `model_reads` (writing system -> whether the model reads it): with it,
    chunks in another writing system than the query's are named to the fusion as ones the keyword
    side cannot read (fusion.py). With `pool_conn` (()
    -> a connection of the calling thread, e.g. Index.conn) the exact re-scoring
    of an in-memory coarse pass runs there too, on the pool thread's connection. `counts`: a
    serving process's document counts of the terms queried (keyword.CountCache). `served` (a file's
    source -> whether it may be shown): files it refuses are dropped before anything is counted.
    """
    top_k = clamp_top_k(options.top_k)
    weight = resolved_weight(options, query_text)
    shape = shape or read_shape(conn)
    scope = Scopes.of(options.scope, without=options.outside) if options.scope else None
    run_vector = weight < 1.0 and embed is not None and shape.has_vectors
    terms = query_terms(conn, query_text, shape.generation, counts) if weight > 0.0 else []
    if not run_vector and not terms:
        return []
    use_codes, allowed = False, None
    if embed is not None:
        from minirag.search import vector as vectors

        if run_vector and matrix is not None and scope is not None:
            allowed = vectors.scoped_chunk_ids(conn, scope)
        use_codes = not exact and shape.largest_chunk_id >= vectors.MIN_CHUNKS
        embed = functools.cache(embed)  # a deeper second pass embeds nothing again

    def ranked(depth: int) -> list[Hit]:
        """Both sides' best `depth` candidates, each with both scores, fused."""
        nonlocal allowed

        def vector_side(side_conn=None) -> tuple[np.ndarray, list[tuple[int, float]] | np.ndarray | None]:
            from minirag.search.vector import rescore, rescore_depth

            vector, want = embed(), rescore_depth(depth)
            if matrix is None or not use_codes:
                return vector, None
            if matrix.rows is not None:  # a mid-size index: re-scored from the rows in memory
                return vector, matrix.nearest(vector, depth, allowed)
            coarse = matrix.coarse(vector, want, allowed)
            # Re-scoring reads vec0 a vector at a time: off this thread when it has a connection of its own.
            return vector, (rescore(side_conn(), coarse, vector, depth) if side_conn is not None else coarse)

        with contextlib.ExitStack() as stack:
            pending = None
            if pool is not None and run_vector and terms:
                # Stopped, and waited for, where this thread leaves it (Ctrl-C during the keyword side).
                pending = stack.enter_context(interruptible.aside(pool, functools.partial(vector_side, pool_conn)))
            term_counts = TermCounts(conn, terms, counts, shape.generation)
            keyword = keyword_candidates(conn, terms, depth, scope, shape.largest_chunk_id, term_counts)
            if run_vector:
                vector, found = pending() if pending is not None else vector_side()
        nearest: list = []
        if run_vector:
            import numpy as np

            from minirag.search.vector import (
                rescore,
                rescore_depth,
                scoped_chunk_ids,
                streamed_coarse,
                vec0_candidates,
            )

            if found is None and use_codes:  # no fresh copy in memory: the codes in the file
                if allowed is None and scope is not None:
                    allowed = scoped_chunk_ids(conn, scope)
                found = streamed_coarse(conn, vector, rescore_depth(depth), allowed)
            if found is None:
                nearest = vec0_candidates(conn, vector, depth, scope)
            elif isinstance(found, np.ndarray):  # coarse candidates, not re-scored yet
                nearest = rescore(conn, found, vector, depth)
            else:
                nearest = found
            if terms:
                nearest, keyword = complete_scores(conn, nearest, keyword, vector, terms, small_index=not use_codes,
                                                   matrix=matrix, term_counts=term_counts)
        elif embed is not None and options.max_distance is not None and keyword:
            # Keyword-only ranking under a distance cap: each candidate's distance, for the cap alone.
            from minirag.search.vector import vector_distances

            nearest = list(vector_distances(conn, [c for c, _ in keyword], embed(), small_index=not use_codes).items())
        # The whole query's score weighs only against the other side: a keyword-only ranking keeps its order.
        whole = whole_query_score(conn, term_counts.get()) if run_vector and keyword else 0.0
        unreadable: frozenset[int] = frozenset()
        query_script = main_script(query_text) if run_vector and terms and shape.has_scripts else None
        if query_script is not None and model_reads is not None:
            unreadable = unreadable_chunks(conn, [c for c, _ in nearest], query_script, model_reads)
        return fuse(conn, nearest, keyword, weight, whole, unreadable)

    depth = candidate_depth(top_k)
    while True:
        fused = ranked(depth)
        served_hits = served_only(fused, served)
        # The cap before the folding: a copy past it is neither shown nor named.
        near = within_distance(served_hits, options.max_distance)
        shown = one_slot_per_passage(near)
        taken = len(fused) - len(served_hits) + len(near) - len(shown)
        # Copies of one passage, or files no longer served, took candidates' places: look deeper.
        if len(shown) >= top_k or not taken or depth >= MAX_CANDIDATES:
            break
        depth = min(MAX_CANDIDATES, depth * CANDIDATES_PER_RESULT)
    hits = apply_post_filters(shown, grouping=options.grouping, max_files=options.max_files)
    return hits[:top_k]


def query_terms(conn, query_text: str, generation: int, counts: CountCache | None = None) -> list[str]:
    """The keyword terms of a query (keywords.query_terms, stemmed for the index's languages too),
    then, for its words the index does not hold as typed, their terms in the other case
    (keywords.other_case_terms) and the parts of its compounds (compounds.py), within
    keywords.MAX_QUERY_TERMS. A word the index holds as typed finds its chunks as typed; other
    forms would add the chunks of other words that share them."""
    languages = index_languages(conn)
    terms = keywords.query_terms(query_text, languages)

    def held(asked: list[str]) -> dict[str, int]:
        return TermCounts(conn, asked, counts, generation).get()

    pairs = keywords.other_case_terms(query_text, languages)
    typed = held(sorted({term for term, _ in pairs})) if pairs else {}
    others = [other for term, other in pairs if term not in typed]
    extra = [t for t in dict.fromkeys(others + compound_parts(query_text, held)) if t not in terms]
    return terms + extra[:max(0, keywords.MAX_QUERY_TERMS - len(terms))]


def complete_scores(conn, nearest: list[tuple[int, float]], keyword: list[tuple[int, float]], vector,
                    terms: list[str], *, small_index: bool = True, matrix=None,
                    term_counts: TermCounts | None = None) -> tuple[list, list]:
    """Both lists extended to every candidate of either: the distance of the chunks only the keyword
    side found, the BM25 of those only the vector side found (0 where they hold no query term).

    Done here, for those few rows, rather than inside the fusion SQL: a MATCH restricted to
    candidate rowids would still walk the full posting list of every query term.
    """
    from minirag.search.vector import vector_distances

    in_vector = {chunk_id for chunk_id, _ in nearest}
    in_keyword = {chunk_id for chunk_id, _ in keyword}
    missing = [c for c, _ in keyword if c not in in_vector]
    if matrix is not None and matrix.rows is not None:
        distances = matrix.distances(missing, vector)
    else:
        distances = vector_distances(conn, missing, vector, small_index=small_index)
    bm25 = keyword_scores(conn, [c for c, _ in nearest if c not in in_keyword], terms, term_counts)
    return [*nearest, *distances.items()], [*keyword, *bm25.items()]
