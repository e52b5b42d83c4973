"""The semantics of each search control, pinned."""

import os
from pathlib import Path

import pytest

from minirag.config import ConfigError, load_config
from minirag.errors import InvalidArgument
from minirag.search import Hit, Scope
from minirag.search.filters import (
    MAX_ALSO_IN,
    apply_post_filters,
    group_by_gap,
    one_slot_per_passage,
)
from minirag.search.plan import clamp_top_k
from minirag.security import is_under


def hit(n, distance, source=None):
    return Hit(n, source or f"/d/{n}.md", "file", "", 0, f"text {n}", 1.0 / (n + 1), distance, n, None, None)


def test_similar_keeps_everything_before_the_first_big_gap():
    hits = [hit(0, 0.10), hit(1, 0.11), hit(2, 0.12), hit(3, 0.50), hit(4, 0.51)]
    assert [h.chunk_id for h in group_by_gap(hits, "similar")] == [0, 1, 2]


def test_related_keeps_two_groups():
    distances = [0.10, 0.11, 0.12, 0.13, 0.50, 0.51, 0.52, 0.90]
    hits = [hit(i, d) for i, d in enumerate(distances)]
    assert [h.chunk_id for h in group_by_gap(hits, "related")] == [0, 1, 2, 3, 4, 5, 6]
    assert [h.chunk_id for h in group_by_gap(hits, "similar")] == [0, 1, 2, 3]


def test_related_with_a_single_boundary_keeps_everything():
    hits = [hit(0, 0.10), hit(1, 0.11), hit(2, 0.40), hit(3, 0.41), hit(4, 0.90)]
    assert group_by_gap(hits, "related") == hits


def test_grouping_needs_at_least_three_distances():
    hits = [hit(0, 0.1), hit(1, 0.9)]
    assert group_by_gap(hits, "similar") == hits


def test_grouping_keeps_keyword_only_hits_and_the_fused_order():
    hits = [hit(3, 0.50), hit(0, 0.10), hit(9, None), hit(1, 0.11), hit(2, 0.12)]
    assert [h.chunk_id for h in group_by_gap(hits, "similar")] == [0, 9, 1, 2]


def test_no_gap_over_twice_the_mean_means_no_cut():
    hits = [hit(i, 0.1 * i) for i in range(5)]
    assert group_by_gap(hits, "similar") == hits


def test_max_distance_drops_far_hits_and_hits_without_a_distance():
    hits = [hit(0, 0.2), hit(1, None), hit(2, 0.8)]
    kept = apply_post_filters(hits, max_distance=0.5)
    assert [h.chunk_id for h in kept] == [0]


def test_max_files_keeps_the_first_sources_in_rank_order():
    hits = [hit(0, 0.1, "/a"), hit(1, 0.2, "/b"), hit(2, 0.3, "/a"), hit(3, 0.4, "/c")]
    assert [h.chunk_id for h in apply_post_filters(hits, max_files=2)] == [0, 1, 2]


@pytest.mark.parametrize("value, expected", [(1, 1), (10, 10), (100, 100), (101, 100), (10_000, 100)])
def test_top_k_is_clamped_not_refused_above_the_cap(value, expected):
    assert clamp_top_k(value) == expected


@pytest.mark.parametrize("value", [0, -5])
def test_top_k_below_one_is_refused(value):
    with pytest.raises(InvalidArgument, match="at least 1"):
        clamp_top_k(value)


@pytest.mark.parametrize("path, prefix, inside", [
    ("/docs/proj", "/docs/proj", True),
    ("/docs/proj/a.md", "/docs/proj", True),
    ("/docs/proj/a.md", "/docs/proj/", True),
    ("/docs/project-secret/a.md", "/docs/proj", False),
    ("/docs/proj-x", "/docs/proj", False),
    ("https://example.com/docs/page", "https://example.com/docs", True),
    ("https://example.com/docs-private", "https://example.com/docs", False),
])
def test_scope_matches_whole_segments_only(path, prefix, inside):
    assert is_under(path, prefix) is inside
    assert Scope.of(prefix).matches(path) is inside


@pytest.mark.parametrize("name, value, message", [
    ("RAG_HYBRID_WEIGHT", "1.5", "RAG_HYBRID_WEIGHT must be in 0.0–1.0"),
    ("RAG_HYBRID_WEIGHT", "abc", "RAG_HYBRID_WEIGHT must be a number"),
    ("RAG_GROUPING", "closest", "RAG_GROUPING must be one of similar, related"),
    ("RAG_MAX_DISTANCE", "-1", "RAG_MAX_DISTANCE must be at least 0.0"),
    ("RAG_MAX_FILES", "0", "RAG_MAX_FILES must be at least 1"),
    ("MAX_FILE_SIZE", "big", "MAX_FILE_SIZE must be an integer"),
    # Python's int() and float() read any script's digits and `_`: `٣` had set a 3-byte limit.
    ("MAX_FILE_SIZE", "\u0663", "MAX_FILE_SIZE must be an integer"),
    ("MAX_FILE_SIZE", "1_000", "MAX_FILE_SIZE must be an integer"),
    ("RAG_HYBRID_WEIGHT", "\u0660.\u0665", "RAG_HYBRID_WEIGHT must be a number"),
    ("CHUNK_TOKEN_BUDGET", "8", "CHUNK_TOKEN_BUDGET must be in 16"),
    ("ALLOW_PRIVATE_URLS", "maybe", "ALLOW_PRIVATE_URLS must be one of"),
    ("MINIRAG_READ_ONLY", "perhaps", "MINIRAG_READ_ONLY must be one of"),
    ("BASE_DIRS", "[1, 2]", "BASE_DIRS must be a JSON array"),
    ("BASE_DIRS", "{", "BASE_DIRS must be a JSON array"),
])
def test_invalid_settings_name_the_variable_and_the_range(tmp_path, name, value, message):
    with pytest.raises(ConfigError, match=message.replace("(", r"\(").replace(".", r"\.")):
        load_config(env={"BASE_DIR": str(tmp_path), name: value}, cwd=tmp_path)


@pytest.mark.parametrize("word", ["1", "true", "YES", "on"])
def test_boolean_words_turn_private_urls_on(tmp_path, word):
    assert load_config(env={"BASE_DIR": str(tmp_path), "ALLOW_PRIVATE_URLS": word}).allow_private_urls


def test_roots_come_from_flags_then_base_dirs_then_base_dir(tmp_path):
    a, b, c = (tmp_path / n for n in "abc")
    for d in (a, b, c):
        d.mkdir()
    env = {"BASE_DIR": str(a), "BASE_DIRS": f'["{b}"]'}
    assert load_config(env=env).roots == (b,)
    assert load_config(env=env, base_dirs=[str(c)]).roots == (c,)
    assert load_config(env={"BASE_DIR": str(a)}).roots == (a,)


def test_a_budget_above_the_model_maximum_is_a_configuration_error(make_app):
    app = make_app({"CHUNK_TOKEN_BUDGET": "4000"})
    with pytest.raises(ConfigError, match="CHUNK_TOKEN_BUDGET must be in 16–256 .*got 4000"):
        app.pipeline  # noqa: B018 - the model's maximum is known once the pipeline binds it


def test_the_budget_may_reach_the_model_maximum(make_app):
    assert make_app({"CHUNK_TOKEN_BUDGET": "256"}).pipeline.budget == 256


def test_the_cli_and_the_mcp_tool_share_one_top_k_default():
    import inspect

    from minirag import cli_parser, server
    from minirag.config import DEFAULT_TOP_K

    query = cli_parser.build_parser()._subparsers._group_actions[0].choices["query"]
    assert query.get_default("top_k") == DEFAULT_TOP_K
    assert inspect.signature(server.query_documents).parameters["topK"].default == DEFAULT_TOP_K == 10


@pytest.mark.parametrize("name", ["BASE_DIR", "DB_PATH", "CACHE_DIR", "MODEL_PATH", "MINIRAG_LITESTREAM_CONFIG"])
@pytest.mark.parametrize("value", ["~no-such-user-here/x", "a" * 5000])
def test_a_path_setting_no_path_can_be_made_of_is_a_configuration_error(tmp_path, name, value):
    from minirag.config import ConfigError, load_config

    with pytest.raises(ConfigError, match=name):
        load_config(env={name: value}, cwd=tmp_path)


def test_an_unnamed_root_is_the_working_directory_but_not_the_filesystem_root_or_home(tmp_path, monkeypatch):
    """A client app may start the server in / or ~; its first sync would index all of it."""
    home = tmp_path / "home"
    (home / "project").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    assert load_config(env={}, cwd=home / "project").roots == (home / "project",)
    for cwd, said in ((home, "your home folder"), (Path(tmp_path.anchor), "the filesystem root")):
        with pytest.raises(ConfigError, match=f"no document root was set .* {said}"):
            load_config(env={}, cwd=cwd)
        assert load_config(env={"BASE_DIR": str(cwd)}, cwd=cwd).roots == (cwd,)  # named, it is allowed
        assert load_config(env={}, base_dirs=[str(cwd)], cwd=cwd).roots == (cwd,)


def test_the_accounts_own_home_is_refused_as_an_unnamed_root_whatever_home_says(tmp_path, monkeypatch):
    import pwd

    from minirag.config import ConfigError, load_config

    real_home = Path(pwd.getpwuid(os.getuid()).pw_dir)
    if not real_home.is_dir():
        pytest.skip("this account's home folder does not exist")
    monkeypatch.setenv("HOME", str(tmp_path))  # sudo -E, a service's HOME
    with pytest.raises(ConfigError, match="your home folder"):
        load_config(env={}, cwd=real_home)


def test_a_db_path_with_a_trailing_slash_is_a_folder_even_before_it_exists(tmp_path):
    config = load_config(env={"BASE_DIR": str(tmp_path), "DB_PATH": f"{tmp_path}/indexes/"}, cwd=tmp_path)
    assert config.db_path == tmp_path / "indexes" / "index.db"


def passage(n, text, source, distance=0.1):
    return Hit(n, source, "file", "", 0, text, 1.0 / (n + 1), distance, n, None, None)


def test_a_passage_held_by_several_files_takes_one_slot_naming_the_others():
    hits = [passage(0, "same words", "/a.md"), passage(1, "other words", "/b.md"),
            passage(2, "same words", "/copy/a.md"), passage(3, "same words", "/old/a.md"),
            passage(4, "same words", "/a.md")]  # the same passage twice in one file: shown once
    kept = one_slot_per_passage(hits)
    assert [(h.chunk_id, h.also_in) for h in kept] == [(0, ("/copy/a.md", "/old/a.md")), (1, ())]


def test_a_section_is_the_same_under_each_documents_own_title_and_a_title_alone_is_context():
    def titled(n, title, text):
        return Hit(n, f"/{n}.md", "file", title, 0, text, 1.0 / (n + 1), 0.1, n, None, None)

    hits = [titled(0, "Manual", "Manual > Boot\nPress F2."), titled(1, "Handbuch", "Handbuch > Boot\nPress F2."),
            titled(2, "Manual", "Manual\nPress F2."), titled(3, "Manuel", "Manuel\nPress F2."),  # the title alone
            titled(4, "Man", "Manual > Boot\nPress F2."),  # the title only begins the breadcrumb's first part
            titled(5, "Handbuch", "Handbuch > Start\nPress F2."),  # another section
            titled(6, "Manual", "Manual\n## Boot\nPress F2."), titled(7, "Handbuch", "Handbuch\n## Boot\nPress F2.")]
    assert [(h.chunk_id, h.also_in) for h in one_slot_per_passage(hits)] == [
        (0, ("/1.md",)), (2, ()), (3, ()), (4, ()), (5, ()), (6, ("/7.md",))]


def test_a_passage_in_a_hundred_files_names_a_few_and_counts_the_rest():
    kept, = one_slot_per_passage([passage(n, "same", f"/copy{n}/a.md") for n in range(100)])
    assert kept.also_in == tuple(f"/copy{n}/a.md" for n in range(1, MAX_ALSO_IN + 1))
    assert kept.also_in_more == 99 - MAX_ALSO_IN
