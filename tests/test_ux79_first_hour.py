"""A new user's first hour with the CLI: the rough edges met there, each a sentence (ux79)."""

from __future__ import annotations


def test_a_misspelt_base_dir_variable_is_warned_about_with_the_name_meant(tmp_path, docs, cli_env, run_cli):
    # BASE_DRI was ignored without a word, and the root silently became the working folder.
    result = run_cli("status", env={"BASE_DIR": None, "BASE_DRI": str(docs)}, cwd=tmp_path)
    assert "BASE_DRI is not a minirag setting and is ignored (did you mean BASE_DIR?)" in result.stderr


def test_variables_of_other_programs_are_not_taken_for_misspelt_settings(tmp_path, cli_env, run_cli):
    others = {"DATABASE_URL": "x", "XDG_CACHE_HOME": str(tmp_path), "TMPDIR": str(tmp_path),
              "MODEL": "x", "HF_HOME": str(tmp_path), "BASE": "x", "DIR": "x"}
    result = run_cli("status", env=others)
    assert "is not a minirag setting" not in result.stderr, result.stderr
