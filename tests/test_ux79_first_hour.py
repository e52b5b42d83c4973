"""A new user's first hour with the CLI: the rough edges met there, each a sentence (ux79)."""

from __future__ import annotations

import json
import os
import re

from conftest import write


def test_a_misspelt_base_dir_variable_is_warned_about_with_the_name_meant(tmp_path, docs, cli_env, run_cli):
    # BASE_DRI was ignored without a word, and the root silently became the working folder.
    result = run_cli("status", env={"BASE_DIR": None, "BASE_DRI": str(docs)}, cwd=tmp_path)
    assert "BASE_DRI is not a minirag setting and is ignored (did you mean BASE_DIR?)" in result.stderr


def test_variables_of_other_programs_are_not_taken_for_misspelt_settings(tmp_path, cli_env, run_cli):
    others = {"DATABASE_URL": "x", "XDG_CACHE_HOME": str(tmp_path), "TMPDIR": str(tmp_path),
              "MODEL": "x", "HF_HOME": str(tmp_path), "BASE": "x", "DIR": "x"}
    result = run_cli("status", env=others)
    assert "is not a minirag setting" not in result.stderr, result.stderr


def test_ctrl_c_in_a_sync_says_what_stays_indexed_and_how_to_finish(docs, cli_env, run_cli, monkeypatch):
    # It said only "minirag: interrupted": nothing of whether the files done so far were kept.
    from minirag.cli_output import ProgressLine

    write(docs / "b.md", "# Kettles\n\nA kettle whistles when the water boils.\n")
    write(docs / "c.md", "# Owls\n\nOwls turn their heads far round.\n")

    def ctrl_c_after_the_first_file(self, progress):
        if progress.done:
            raise KeyboardInterrupt

    with monkeypatch.context() as patch:
        patch.setattr(ProgressLine, "__call__", ctrl_c_after_the_first_file)
        result = run_cli("sync")
    assert result.returncode == 130
    # One batch may write more than one file before the stop: how many is said, and a sync skips those.
    said = re.fullmatch(r"minirag: interrupted; ([123]) files? indexed before the stop (?:stays|stay) indexed: "
                        r"run `minirag sync` again for the rest", result.stderr.splitlines()[-1])
    assert said is not None, result.stderr
    kept = int(said.group(1))
    again = run_cli("sync")
    assert again.returncode == 0
    assert again.stdout.startswith(f"3 files: {3 - kept} ingested, {kept} unchanged"), again.stdout


def test_read_neighbors_takes_the_file_as_read_does_without_file_path(docs, cli_env, run_cli):
    # `minirag read PATH` but `minirag read-neighbors PATH ...` was "unrecognized arguments: PATH".
    assert run_cli("sync").returncode == 0
    result = run_cli("read-neighbors", docs / "a.md", "--chunk-index", "0")
    assert (result.returncode, result.stderr) == (0, "")
    assert result.stdout.startswith("--- #0 (hit)\n")
    assert run_cli("read-neighbors", "--file-path", docs / "a.md", "--chunk-index", "0").stdout == result.stdout
    both = run_cli("read-neighbors", docs / "a.md", "--file-path", docs / "a.md", "--chunk-index", "0")
    assert both.returncode == 2
    assert both.stderr.startswith("minirag: error: give a PATH (or --file-path) or --source, not both")
    neither = run_cli("read-neighbors", "--chunk-index", "0")
    assert neither.stderr.startswith("minirag: error: name what to read: a PATH (or --file-path) or --source ID")


def test_collections_line_their_columns_up(tmp_path, cli_env, run_cli):
    # `sysdocs  19 files, 215 chunks, ...` above `mixed  7 files, 132 chunks, ...`: no column lined up.
    short, long = tmp_path / "a", tmp_path / "handbooks"
    write(short / "one.md", "# One\n\nA short note about otters.\n")
    for n in range(10):
        write(long / f"n{n}.md", f"# Note {n}\n\nKettles whistle when the water boils, note {n}.\n")
    env = {"BASE_DIR": None, "BASE_DIRS": f'["{short}", "{long}"]'}
    assert run_cli("sync", env=env).returncode == 0
    lines = run_cli("collections", env=env).stdout.splitlines()
    assert [line.split()[0] for line in lines] == ["a", "handbooks"]
    for mark in ("file", "chunk", "last sync", "/"):
        assert len({line.index(mark) for line in lines}) == 1, (mark, lines)


def test_a_query_given_exclude_or_include_says_they_choose_what_a_sync_indexes(docs, cli_env, run_cli):
    # `minirag query otters --exclude a.md` answered from a.md as if the flag were not there.
    assert run_cli("sync").returncode == 0
    result = run_cli("query", "otters", "--exclude", "a.md")
    assert result.returncode == 0 and "a.md" in result.stdout
    assert result.stderr == ("minirag: note: --exclude chooses what a sync indexes, not what a query answers from: "
                             "narrow a query with --scope or --collection\n")
    assert run_cli("query", "otters").stderr == ""


def test_a_model_named_on_the_command_line_wins_over_a_model_path_from_the_environment(tmp_path, cli_env, run_cli):
    # With MODEL_PATH exported, `minirag sync --model-name all-MiniLM-L6-v2` built the index with
    # MODEL_PATH's model, and the same flag was then refused as a mismatch: flags override the environment.
    named = run_cli("status", "--model-name", "all-MiniLM-L6-v2").stdout
    assert "model: all-MiniLM-L6-v2\n" in named, named
    assert "(MODEL_PATH)" in run_cli("status").stdout
    both = run_cli("status", "--model-name", "all-MiniLM-L6-v2", "--model-path", os.environ["MODEL_PATH"]).stdout
    assert "(MODEL_PATH)" in both


def test_deleting_a_file_still_on_disk_says_the_next_sync_indexes_it_again(docs, cli_env, run_cli):
    # "deleted .../a.md (1 chunk)", and the next sync (or a watching server) put it back without a word.
    assert run_cli("sync").returncode == 0
    result = run_cli("delete", docs / "a.md")
    assert result.stdout.startswith(f"deleted {docs / 'a.md'} (")
    assert result.stderr == ("minirag: note: the file is still there, so the next sync indexes it again; to keep it "
                             "out, name it in a .minignore at its root (docs/documents.md, ignore rules)\n")
    assert run_cli("sync").stdout.startswith("1 file: 1 ingested")
    assert run_cli("ingest-data", "--source", "note-1", stdin="Kettles whistle.").returncode == 0
    assert run_cli("delete", "--source", "note-1").stderr == ""


def test_a_query_of_an_index_holding_nothing_says_so_and_what_to_do(tmp_path, cli_env, run_cli):
    # A sync of a folder with no document made an empty index; a query then asked "is anything indexed?".
    empty = tmp_path / "empty"
    write(empty / "x.bin", "binary")
    env = {"BASE_DIR": str(empty)}
    assert run_cli("sync", env=env).returncode == 0
    result = run_cli("query", "otters", env=env)
    assert (result.returncode, result.stderr) == (0, "")
    assert result.stdout == (f"no results: nothing is indexed under {empty} (`minirag list` shows each file and "
                             "why it was left out; `minirag sync` indexes what is there)\n")


def test_the_offline_model_hint_names_the_variable_an_mcp_configuration_sets(tmp_path, monkeypatch):
    # A server's failed sync said only `--model-name all-MiniLM-L6-v2`: a client's config has no flags.
    import pytest

    from minirag import models
    from minirag.errors import ModelUnavailable

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    if models.packaged_minilm() is None:
        pytest.skip("the offline-model extra is not installed")
    with pytest.raises(ModelUnavailable) as refused:
        models.resolve("intfloat/multilingual-e5-small", None, tmp_path / "cache")
    assert str(refused.value).endswith("no download needed: --model-name all-MiniLM-L6-v2 (for a server, "
                                       "MODEL_NAME=all-MiniLM-L6-v2 in its env)")


def test_reading_a_file_from_another_folder_points_at_the_index_above_the_file(tmp_path, docs, cli_env, run_cli):
    # From the folder above an indexed one, `minirag read docs/a.md` said "no index at ./.minirag/index.db;
    # run `minirag sync`": a sync there would index everything again into a second index.
    bare = {"BASE_DIR": None, "DB_PATH": None}
    assert run_cli("sync", "--base-dir", docs, env=bare).returncode == 0
    hint = f"; an index above this file is {docs}'s: give --base-dir {docs} (or run the command there)"
    above = run_cli("read", "docs/a.md", env=bare, cwd=tmp_path)
    assert above.returncode == 1
    assert above.stderr.startswith(f"minirag: error: no index at {tmp_path}/.minirag/index.db")
    assert above.stderr.endswith(hint + "\n"), above.stderr
    (tmp_path / "elsewhere").mkdir()
    aside = run_cli("read-neighbors", docs / "a.md", "--chunk-index", "0", env=bare, cwd=tmp_path / "elsewhere")
    assert aside.stderr.startswith("minirag: error: path outside configured document roots")
    assert aside.stderr.endswith(hint + "\n"), aside.stderr
    assert run_cli("read", "docs/a.md", "--base-dir", docs, env=bare, cwd=tmp_path).returncode == 0
    named = run_cli("read", "docs/a.md", cwd=tmp_path)  # DB_PATH named: the index it names is the one meant
    assert named.returncode == 1 and "an index above" not in named.stderr, named.stderr


def test_verbose_says_which_commands_print_each_file(run_cli):
    # `minirag query -v` printed nothing more, though its help promised each file and each stage's time.
    help_text = " ".join(run_cli("query", "--help").stdout.split())
    assert ("-v, --verbose more on stderr: informational log lines and an internal error's details; for ingest, "
            "sync and watch, each file as it is ingested (or excluded) and the time each stage took") in help_text


def test_a_relative_scope_naming_nothing_says_so_instead_of_sending_to_list(tmp_path, docs, cli_env, run_cli):
    # `query --scope bash/nope` said "`minirag list --scope bash/nope` shows what is indexed there",
    # and that list said only "no files".
    assert run_cli("sync").returncode == 0
    said = (f"under notes/nope: no source id starts with it, and no file or folder notes/nope is in {docs} "
            "(a path scope is taken from the working folder)\n")
    query = run_cli("query", "otters", "--scope", "notes/nope", cwd=docs)
    assert (query.returncode, query.stdout) == (0, "no results " + said)
    listed = run_cli("list", "--scope", "notes/nope", cwd=docs)
    assert (listed.returncode, listed.stdout) == (0, "no files " + said)


def test_ingest_data_at_a_terminal_says_it_reads_the_text_there_and_how_to_end_it(tmp_path, docs, cli_env):
    # `minirag ingest-data --source n` typed at a terminal waited in silence, as if hung.
    import pty
    import subprocess
    import sys

    leader, follower = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "minirag", "ingest-data", "--source", "notes/n"], stdin=follower,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path)
    os.close(follower)
    try:
        os.write(leader, b"Kettles whistle when the water boils.\n\x04")
        out, err = proc.communicate(timeout=120)
    finally:
        os.close(leader)
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, err
    assert err.startswith("minirag: reading the text to index from the terminal; end it with Ctrl-D on a line "
                          "of its own\n"), err
    assert "source: notes/n" in out


def test_a_sync_that_drops_the_files_of_a_root_it_was_not_given_says_how_to_keep_them(tmp_path, cli_env, run_cli):
    # `sync --base-dir A` after `sync --base-dir A --base-dir B` dropped B's chunks with only
    # "(N outside the configured roots)" in the counts: nothing said how to keep them.
    a, b = tmp_path / "a", tmp_path / "b"
    write(a / "one.md", "# One\n\nOtters hold hands.\n")
    write(b / "two.md", "# Two\n\nKettles whistle.\n")
    env = {"BASE_DIR": None, "DB_PATH": str(tmp_path / "shared.db")}
    assert run_cli("sync", "--base-dir", a, "--base-dir", b, env=env).returncode == 0
    fewer = run_cli("sync", "--base-dir", a, env=env)
    assert "1 removed (1 outside the configured roots)" in fewer.stdout
    assert fewer.stderr == ("minirag: note: the files of roots this command was not given are dropped from the index; "
                            "give every root to every command (or set BASE_DIRS once) to keep them\n")


def test_a_query_of_an_empty_index_over_many_roots_names_a_few_of_them(tmp_path, cli_env, run_cli):
    # With a thousand collections the line named every root (24 KB); it names five and a count.
    roots = [tmp_path / f"root{n}" for n in range(7)]
    for root in roots:
        write(root / "x.bin", "binary")
    env = {"BASE_DIRS": json.dumps(list(map(str, roots)))}
    assert run_cli("sync", env=env).returncode == 0
    result = run_cli("query", "otters", env=env)
    assert result.stdout.startswith(f"no results: nothing is indexed under {', '.join(map(str, roots[:5]))} and "
                                    "2 more (7 roots) (`minirag list`")


def test_deleting_a_link_that_now_leads_out_of_the_roots_promises_no_sync_will_index_it_again(
        tmp_path, docs, cli_env, run_cli):
    # A link indexed while it led to a file of the root, then pointed elsewhere: a sync never follows
    # it out, so "the next sync indexes it again" was untrue.
    outside = tmp_path / "outside.md"
    outside.write_text("# Elsewhere\n\nKept out of every root.\n")
    link = docs / "linked.md"
    link.symlink_to(docs / "a.md")
    assert run_cli("sync").returncode == 0
    link.unlink()
    link.symlink_to(outside)
    result = run_cli("delete", link)
    assert result.stdout.startswith(f"deleted {link} ("), (result.stdout, result.stderr)
    assert result.stderr == ""
    assert run_cli("sync").stdout.startswith("1 file: 0 ingested, 1 unchanged")  # the link is not followed out
