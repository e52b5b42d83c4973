"""Every CLI command, driven through every ordinary mistake: bad option values, a NUL byte or a
5 KB path, an index folder that cannot be written, read-only mode, a missing backup folder, a
full disk. Each ends in exactly one line on stderr and a documented exit status (1 for a
failure, 2 for a usage error) — never a traceback."""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import resource
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT, write
from helpers.models import tiny_turned

from minirag import cli, cli_parser
from minirag.errors import InvalidArgument

# The smallest valid arguments of each command (files named here exist in the `docs` fixture).
VALID = {
    "serve": None,  # blocks on stdio: only its own bad value is tried, below
    "ingest": ["ingest", "{docs}/a.md"],
    "ingest-url": ["ingest-url", "http://127.0.0.1:9/x"],
    "ingest-data": ["ingest-data", "--source", "note-1"],
    "sync": ["sync"],
    "query": ["query", "otters"],
    "read": ["read", "{docs}/a.md"],
    "read-neighbors": ["read-neighbors", "--file-path", "{docs}/a.md", "--chunk-index", "0"],
    "list": ["list"],
    "collections": ["collections"],
    "status": ["status"],
    "doctor": ["doctor"],
    "delete": ["delete", "{docs}/a.md"],
    "backup": ["backup", "{tmp}/backup.db"],
    "watch": ["watch"],  # runs until stopped: only its failures are tried
}
WRITES = {"ingest", "ingest-url", "ingest-data", "sync", "delete", "watch"}
PATH_ARGUMENTS = {  # where a path goes, for each command that takes one
    "ingest": 1, "sync": 1, "read": 1, "delete": 1, "backup": 1, "read-neighbors": 2,
}
BAD_VALUES = [
    ("query", ["--top-k", "many"]), ("query", ["--top-k", "0"]), ("read-neighbors", ["--before", "-2"]),
    ("read-neighbors", ["--after", "x"]), ("read-neighbors", ["--chunk-index", "-1"]),
    ("ingest-data", ["--format", "pdf"]), ("read", ["--source", ""]), ("query", [""]),
    ("read", ["--offset", "-1"]), ("read", ["--max-chars", "0"]), ("query", ["--collection", "nope"]),
]


def commands() -> list[str]:
    parser = cli_parser.build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return sorted(sub.choices)


def test_every_command_has_a_row_in_this_sweep():
    assert set(commands()) == set(VALID), "add the new command to VALID (and its conditions) here"


@pytest.fixture
def world(cli_env, tmp_path, docs, monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.StringIO("# Note\n\nText from stdin.\n"))
    return {"docs": str(docs), "tmp": str(tmp_path)}


def run(argv: list[str], capsys) -> tuple[int, str]:
    try:
        code = cli.main(argv)
    except SystemExit as exc:  # argparse exits on usage errors
        code = exc.code
    return code, capsys.readouterr().err


def assert_one_line_failure(code: int, err: str, argv: list[str]) -> None:
    assert "Traceback" not in err, (argv, err)
    assert code in (1, 2), (argv, code, err)
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("minirag:"), (argv, err)


def fill(argv: list[str], world: dict) -> list[str]:
    return [a.format(**world) for a in argv]


@pytest.mark.parametrize(("command", "extra"), BAD_VALUES)
def test_a_bad_option_value_is_one_line(world, capsys, command, extra):
    argv = fill(VALID[command], world)
    argv = argv[:1] + extra if extra == [""] else argv + extra
    assert_one_line_failure(*run(argv, capsys), argv)


@pytest.mark.parametrize(("argv", "expected"), [
    (["query", "otters", "--scope", ""], "scope is empty"),
    (["query", "otters", "--scope", "notes/\x00"], "scope contains a NUL byte"),
    (["list", "--scope", " "], "scope is empty"),
    (["ingest-data", "--source", "note-1", "--title", "Forged\x1b[2J"], "holds control characters"),
    (["ingest-url", "http://127.0.0.1:9/x", "--title", "a\x00b"], "holds control characters"),
    (["query", "otters", "--top-k", "nan"], "argument --top-k: must be a whole number from 1 to 100, got 'nan'"),
    (["query", "otters", "--top-k", "99999999999999999999999"], "--top-k: must be a whole number from 1 to 100"),
    (["read", "{docs}/a.md", "--offset", "99999999999999999999999"], "past the end"),
    (["read-neighbors", "--file-path", "{docs}/a.md", "--chunk-index", "99999999999999999999999"], "has no chunk"),
    (["read-neighbors", "--file-path", "{docs}/a.md", "--chunk-index", "0", "--before", "99999999999999999999999"],
     "argument --before: must be a whole number from 0 to 20"),
    (["query", "x" * 20_000], "queries take at most 10,000"),
])
def test_a_hostile_flag_value_is_refused_for_what_it_is(world, capsys, argv, expected):
    """Against an index that holds the file, so that the refusal is the value's, not 'no index'."""
    assert cli.main(["sync"]) == 0
    capsys.readouterr()
    code, err = run(fill(argv, world), capsys)
    if expected is None:  # a huge count (of results, of neighbours) is cut to the most there are
        assert code == 0 and "Traceback" not in err, err
        return
    assert_one_line_failure(code, err, argv[:1])
    assert expected in err, err


@pytest.mark.parametrize(("argv", "expected"), [
    (["query", "otters", "--top-k", "0"], "argument --top-k: must be a whole number from 1 to 100, got '0'"),
    (["query", "otters", "--top-k", "101"], "argument --top-k: must be a whole number from 1 to 100, got '101'"),
    (["query", "otters", "--top-k", "\u0663"], "argument --top-k: must be a whole number from 1 to 100"),
    (["read", "{docs}/a.md", "--offset", "-1"], "argument --offset: must be a whole number, 0 or more, got '-1'"),
    (["read", "{docs}/a.md", "--max-chars", "0"], "argument --max-chars: must be a whole number, 1 or more, got '0'"),
    (["read-neighbors", "--file-path", "{docs}/a.md", "--chunk-index", "-1"],
     "argument --chunk-index: must be a whole number, 0 or more, got '-1'"),
    (["read-neighbors", "--file-path", "{docs}/a.md", "--chunk-index", "0", "--before", "-2"],
     "argument --before: must be a whole number from 0 to 20, got '-2'"),
    (["read-neighbors", "--file-path", "{docs}/a.md", "--chunk-index", "0", "--after", "x"],
     "argument --after: must be a whole number from 0 to 20, got 'x'"),
    (["read-neighbors", "--file-path", "{docs}/a.md", "--chunk-index", "0", "--after", "21"],
     "argument --after: must be a whole number from 0 to 20, got '21'"),
])
def test_a_number_out_of_its_range_is_a_usage_error_naming_the_cli_option(world, capsys, argv, expected):
    """`--top-k 0` said `topK must be at least 1` (the MCP parameter's name) and `--top-k 101` ran
    as 100 though --help says 1-100: each number is checked where it is parsed, named as typed."""
    code, err = run(fill(argv, world), capsys)
    assert_one_line_failure(code, err, argv)
    assert code == 2 and expected in err and f"(see `minirag {argv[0]} --help`)" in err, err


@pytest.mark.parametrize(("argv", "expected"), [
    (["delete"], "name what to delete: a PATH or --source ID"),
    (["delete", "{docs}/a.md", "--source", "note-1"], "give a PATH or --source, not both"),
    (["read"], "name what to read: a PATH or --source ID"),
    (["read-neighbors", "--chunk-index", "3"], "name what to read: a PATH (or --file-path) or --source ID"),
    (["read-neighbors", "--file-path", "{docs}/a.md", "--source", "note-1", "--chunk-index", "3"],
     "give a PATH (or --file-path) or --source, not both"),
])
def test_a_missing_or_doubled_source_names_the_cli_options_not_the_tools(world, capsys, argv, expected):
    """They said `provide exactly one of filePath or source`, the MCP tool's parameter names."""
    code, err = run(fill(argv, world), capsys)
    assert_one_line_failure(code, err, argv)
    assert code == 2 and expected in err and "filePath" not in err, err
    assert f"(see `minirag {argv[0]} --help`)" in err, err


@pytest.mark.parametrize(("argv", "expected"), [
    (["query", "otters", "--topk", "3"], "unrecognized arguments: --topk 3 (did you mean --top-k?)"),
    (["query", "otters", "--jsn", "--topk=3"], "unrecognized arguments: --jsn --topk=3 (did you mean --json, --top-k?)"),
    (["qurey", "otters"], "invalid choice: 'qurey' (choose from "),
    (["query", "otters", "stray"], "unrecognized arguments: stray (see `minirag query --help`)"),
    (["query", "otters", "--zzzzzz"], "unrecognized arguments: --zzzzzz (see `minirag query --help`)"),
])
def test_a_mistyped_option_or_command_is_named_with_the_one_meant(world, capsys, argv, expected):
    """`--topk` said only `unrecognized arguments`, as MCP's `top_k` says `did you mean 'topK'?`."""
    code, err = run(fill(argv, world), capsys)
    assert_one_line_failure(code, err, argv)
    assert code == 2 and expected in err, err
    if argv[0] == "qurey":
        assert err.rstrip().endswith("(did you mean 'query'?) (see `minirag --help`)"), err


def test_a_file_named_like_an_option_is_told_to_go_after_a_double_dash(world, capsys, monkeypatch, tmp_path):
    """`minirag ingest -dash.docx` said only `the following arguments are required: PATH`."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "-dash.md").write_text("Otters.")
    code, err = run(["ingest", "-dash.md"], capsys)
    assert_one_line_failure(code, err, ["ingest"])
    assert "; -dash.md names a file: put -- before it (`minirag ingest -- -dash.md`)" in err, err
    code, err = run(["query", "-otters"], capsys)  # no such file: argparse's words alone
    assert code == 2 and "names a file" not in err, err


@pytest.mark.parametrize("roots", [[""], ["{docs}", " "]])
def test_an_empty_base_dir_is_a_configuration_error_not_the_current_folder(world, capsys, monkeypatch, tmp_path,
                                                                           roots):
    """`--base-dir ""` named the current folder, past the check that refuses an unnamed home folder
    or filesystem root as a root: run from home, a sync would index all of it."""
    monkeypatch.chdir(tmp_path)
    flags = [arg for root in roots for arg in ("--base-dir", root.format(**world))]
    code, err = run(["sync", *flags], capsys)
    assert_one_line_failure(code, err, ["sync"])
    assert "--base-dir: an empty folder name" in err, err
    assert cli.main(["status", "--json", *flags]) == 0
    assert "--base-dir: an empty folder name" in json.loads(capsys.readouterr().out)["configError"]


@pytest.mark.parametrize(("variable", "value"), [
    ("BASE_DIRS", "[" * 50_000 + "]" * 50_000), ("MINIRAG_EXCLUDE", "[" * 50_000),
])
def test_a_setting_of_json_nested_past_the_parsers_stack_is_one_line(world, capsys, monkeypatch, variable, value):
    """Python's JSON parser raises RecursionError there, not the ValueError of any other bad JSON."""
    monkeypatch.setenv(variable, value)
    code, err = run(["sync"], capsys)
    assert_one_line_failure(code, err, ["sync"])
    assert f"{variable} must be" in err and "nested too deeply" in err, err


def test_a_meta_value_nested_past_the_parsers_stack_reads_as_damage():
    from minirag import json_text
    from minirag.store.connection import DatabaseError, json_counts, stored_value

    with pytest.raises(ValueError, match="nested too deeply"):
        json_text.loads("[" * 4000)
    with pytest.raises(DatabaseError, match="database corrupt: its meta value 'keyword_languages'"):
        stored_value("keyword_languages", "[" * 4000, json_counts)


@pytest.mark.parametrize("command", ["ingest", "sync", "backup"])
def test_an_empty_path_is_refused_not_read_as_the_current_folder(world, capsys, command, tmp_path, monkeypatch):
    """`minirag sync ""` synced the current folder (and `ingest ""` ingested it): "" resolved to it."""
    monkeypatch.chdir(world["docs"])
    code, err = run([command, ""], capsys)
    assert_one_line_failure(code, err, [command])
    assert "the path is empty" in err
    assert not (tmp_path / "index.db").exists() or command == "backup"


@pytest.mark.parametrize("address", ["somewhere:port", "", "a\x00b:8000", "\x1b[2J:8000", "evil\u202e:8000"])
def test_a_bad_http_address_is_one_line(world, capsys, address):
    """An empty one (`--http "$PORT"` with PORT unset) served stdio instead, waiting on a terminal; a
    host holding a NUL or an escape was refused as a host without a token, the byte written raw."""
    code, err = run(["serve", "--http", address], capsys)
    assert_one_line_failure(code, err, ["serve"])
    assert "--http must be HOST:PORT" in err and err.isprintable() is False and err[:-1].isprintable(), err


@pytest.mark.parametrize("command", sorted(PATH_ARGUMENTS))
@pytest.mark.parametrize("path", ["{docs}/a\x00b.md", "{docs}/" + "x" * 5000 + ".md", "{docs}/" + "y" * 300])
def test_a_nul_byte_or_an_overlong_path_is_one_line(world, capsys, command, path):
    argv = fill(VALID[command], world)
    position = PATH_ARGUMENTS[command]
    argv[position:position + 1] = [path.format(**world)]
    code, err = run(argv, capsys)
    if command == "sync" and "\x00" not in path and len(path) < 4096:
        # Syncing a path that is not there drops it from the index; with nothing indexed there it is
        # most likely a typo: a warning, and exit 1, as for a folder that could not be read.
        assert code == 1 and err.startswith("warn: ") and err.count("\n") == 1, err
        assert "no such file or folder, and nothing indexed under it" in err
        return
    assert_one_line_failure(code, err, argv[:2])


@pytest.mark.parametrize("flag", ["--base-dir", "--db-path", "--model-path", "--cache-dir"])
def test_a_nul_byte_or_an_overlong_path_in_a_configuration_flag_is_one_line(world, capsys, flag):
    for value in ("/tmp/a\x00b", "/tmp/" + "z" * 5000):
        argv = ["query", "otters", flag, value]
        code, err = run(argv, capsys)
        if flag == "--cache-dir" and code == 0:
            continue  # the cache is not needed while MODEL_PATH is set: nothing to fail
        assert_one_line_failure(code, err, [flag])


@pytest.mark.parametrize("command", sorted(c for c in VALID if VALID[c] and c not in ("status", "doctor", "collections")))
def test_an_index_folder_that_cannot_be_made_is_one_line(world, capsys, command, tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    argv = fill(VALID[command], world) + ["--db-path", str(blocker / "index.db")]
    code, err = run(argv, capsys)
    assert_one_line_failure(code, err, argv[:1])
    if command in ("sync", "ingest", "ingest-data", "watch"):  # it said "cannot create the sync lock ...: File exists"
        assert f"the index's folder {blocker} is a file" in err


@pytest.mark.parametrize("command", sorted(WRITES))
def test_every_write_command_is_refused_up_front_in_read_only_mode(world, capsys, command, tmp_path):
    assert cli.main(["sync"]) == 0  # an index to open read-only
    capsys.readouterr()
    lock = tmp_path / "index.db.sync.lock"
    lock.unlink(missing_ok=True)
    argv = fill(VALID[command], world) + ["--read-only"]
    code, err = run(argv, capsys)
    assert_one_line_failure(code, err, argv)
    assert "read-only" in err and not lock.exists()


@pytest.mark.parametrize("dest", ["no/such/folder/copy.db", "backups/"])  # a trailing slash names a folder
def test_a_backup_into_a_missing_folder_is_one_line_and_leaves_nothing(world, capsys, tmp_path, dest):
    assert cli.main(["sync"]) == 0
    capsys.readouterr()
    argv = ["backup", f"{tmp_path}/{dest}"]
    code, err = run(argv, capsys)
    assert_one_line_failure(code, err, argv)
    assert "does not exist" in err and not (tmp_path / dest.split("/")[0]).exists()


def _full_disk():
    """In the child: files may not grow past 64 kB, and the signal that would kill it is ignored."""
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (64 * 1024, 64 * 1024))


@pytest.mark.slow
@pytest.mark.parametrize("argv", [["sync"], ["backup", "{tmp}/copy.db"], ["ingest-data", "--source", "big"]])
def test_a_full_disk_is_one_line_and_the_index_stays_whole(world, capsys, tmp_path, argv):
    for n in range(40):
        write(tmp_path / "docs" / f"n{n}.md", f"# Note {n}\n\n" + "Words about otters and rivers. " * 80)
    if argv[0] == "backup":
        assert cli.main(["sync"]) == 0
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-m", "minirag", *fill(argv, world)], capture_output=True, text=True,
                          env=env, input="# Big\n\n" + "otters " * 40000, preexec_fn=_full_disk, timeout=300)
    assert_one_line_failure(done.returncode, done.stderr, argv)
    assert not [p.name for p in tmp_path.iterdir() if p.name.startswith("copy.db")]  # nor its -journal
    if argv[0] == "backup":  # the backup's disk is full, not the index's
        assert "write the backup" in done.stderr and "copy.db" in done.stderr
    from minirag.store import connection

    if (tmp_path / "index.db").exists():
        conn = connection.connect(tmp_path / "index.db", read_only=True)
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        conn.close()


@pytest.mark.parametrize("argv", [["query", "\udcff\udcfe"], ["query", "x", "--scope", "\udcff"],
                                  ["read", "--source", "\udcff"], ["read", "{docs}/\udcff.md"]])
def test_an_argument_that_is_not_utf8_is_one_line(world, capsys, argv):
    """Bytes a UTF-8 locale cannot decode reach sys.argv as lone surrogates."""
    code, err = run(fill(argv, world), capsys)
    assert_one_line_failure(code, err, argv)
    assert "not valid UTF-8" in err and "\\xff" in err and "\\\\xff" not in err  # as typed: one backslash


@pytest.mark.parametrize("where", ["DB_PATH", "BASE_DIR", "DB_PATH through a link", "working directory"])
def test_an_index_or_root_whose_path_is_not_utf8_is_one_line_and_makes_nothing(cli_env, run_cli, tmp_path, where):
    """A folder named in another encoding (bytes b'r\\xfeoot'), named in a setting, reached through a
    link, or the working directory: the index's path went into its meta table as lone surrogates
    ('internal error: UnicodeEncodeError'), after the index file and its lock were made there."""
    odd = tmp_path / "r\udcfeoot"
    write(odd / "a.md", "# Otters\n\nSea otters hold hands.\n")
    env: dict[str, str | None] = {}
    cwd = None
    if where == "DB_PATH":
        env["DB_PATH"] = str(odd / "index.db")
    elif where == "BASE_DIR":
        env["BASE_DIR"] = str(odd)
    elif where == "DB_PATH through a link":
        (tmp_path / "plain").symlink_to(odd)
        env["DB_PATH"] = str(tmp_path / "plain" / "index.db")
    else:
        env, cwd = {"BASE_DIR": None, "DB_PATH": None}, odd
    result = run_cli("sync", env=env, cwd=cwd)
    assert result.returncode == 1, result
    assert "not valid UTF-8" in result.stderr and "\\xfe" in result.stderr, result.stderr
    assert "internal error" not in result.stderr and len(result.stderr.strip().splitlines()) == 1
    assert sorted(path.name for path in odd.iterdir()) == ["a.md"]  # no index, lock or .minirag made there


def test_an_argument_that_is_not_utf8_is_refused_in_json_too(world, capsys):
    """The refusal came before --json was read: a program reading the JSON got empty input."""
    code = cli.main(["query", "\udcff", "--json"])
    captured = capsys.readouterr()
    assert code == 1 and json.loads(captured.out) == {"error": "the argument '\\xff' is not valid UTF-8"}


def without_permission_override() -> list[str]:
    """A command prefix under which mode bits bind, even for root: setpriv dropping the capabilities
    that let root read any file. Skips where setpriv is missing or cannot drop them."""
    import shutil

    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    prefix = [setpriv, "--bounding-set=-dac_override,-dac_read_search"] if setpriv else []
    if not prefix or subprocess.run([*prefix, "true"], capture_output=True).returncode != 0:
        pytest.skip("running as root without setpriv: mode bits cannot bind")
    return prefix


def query_and_status_locked_out(locked: Path, env: dict[str, str]) -> list[subprocess.CompletedProcess]:
    """`query` and `status --json` run where mode bits bind (without_permission_override), `locked`
    a folder of mode 0 meanwhile."""
    locked.chmod(0)
    try:
        return [subprocess.run([*without_permission_override(), sys.executable, "-m", "minirag", *argv],
                               capture_output=True, text=True, env=env, timeout=120)
                for argv in (["query", "otters"], ["status", "--json"])]
    finally:
        locked.chmod(0o700)


@pytest.mark.slow
def test_a_root_that_cannot_be_read_is_a_configuration_error_and_status_still_answers(world, tmp_path):
    locked = tmp_path / "locked"
    locked.mkdir()
    env = {**os.environ, "PYTHONPATH": str(ROOT), "BASE_DIR": str(locked)}
    env.pop("DB_PATH")  # the index would live inside the root
    query, status = query_and_status_locked_out(locked, env)
    assert_one_line_failure(query.returncode, query.stderr, ["query"])
    assert "configuration error" in query.stderr and "Permission denied" in query.stderr
    assert status.returncode == 0 and "Permission denied" in json.loads(status.stdout)["configError"]


@pytest.mark.slow
def test_a_model_cache_that_cannot_be_reached_is_a_configuration_error(world, tmp_path):
    """The default cache under a home this user may not enter (`sudo -u nobody` keeping HOME=/root)
    was 'internal error: PermissionError'."""
    locked = tmp_path / "locked"
    (locked / "cache").mkdir(parents=True)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "XDG_CACHE_HOME": str(locked / "cache")}
    env.pop("CACHE_DIR", None)
    query, status = query_and_status_locked_out(locked, env)
    assert_one_line_failure(query.returncode, query.stderr, ["query"])
    assert "model cache" in query.stderr and "Permission denied" in query.stderr and "CACHE_DIR" in query.stderr
    assert status.returncode == 0 and "model cache" in json.loads(status.stdout)["configError"]


@pytest.mark.parametrize("argv", [["sync"], ["ingest", "{docs}/a.md"], ["ingest-data", "--source", "note-1"]])
def test_a_model_that_cannot_load_leaves_no_empty_index_behind(world, capsys, tmp_path, monkeypatch, argv):
    """An empty index would answer every later query with 'no matches' instead of 'nothing indexed'."""
    not_a_model = tmp_path / "not-a-model"
    not_a_model.mkdir()
    monkeypatch.setenv("MODEL_PATH", str(not_a_model))
    code, err = run(fill(argv, world), capsys)
    assert_one_line_failure(code, err, argv)
    assert "model.onnx" in err and not (tmp_path / "index.db").exists()


@pytest.mark.parametrize("argv", [["sync"], ["ingest", "{docs}/a.md"], ["ingest-data", "--source", "note-1"]])
def test_a_chunk_budget_past_what_the_model_reads_leaves_no_empty_index_behind(world, capsys, tmp_path, monkeypatch,
                                                                              argv):
    """The budget was checked once the index was made: every later query said 'no results' of it."""
    monkeypatch.setenv("CHUNK_TOKEN_BUDGET", "8192")
    code, err = run(fill(argv, world), capsys)
    assert_one_line_failure(code, err, argv)
    assert "CHUNK_TOKEN_BUDGET must be in 16–" in err and not (tmp_path / "index.db").exists()


@pytest.mark.parametrize("settings", [
    '{"max_length": 8}', '{"model_id": 3}',
    # An empty id bound the index to no model (searches found nothing; another model's vectors mixed in).
    '{"model_id": ""}', '{"model_id": "  "}', '{"model_id": "local/a\\nb"}',
    '{"pooling": "bogus"}', '{"max_length": 1000000000}', '{"chunk_budget": 100000000}',
    '{"document_prefix": "%s"}' % ("x " * 1000),  # a prefix that leaves a chunk no room: word fragments
])
def test_a_minirag_model_json_a_model_cannot_run_with_is_one_line_before_the_index_is_made(
        world, capsys, tmp_path, monkeypatch, model_dir, settings):
    """max_length 8 logged a traceback per file (no chunk fits 8 tokens) into a new index of failed
    files; a model_id that is no string was 'internal error: AttributeError'."""
    folder = tmp_path / "model"
    folder.mkdir()
    for name in ("model.onnx", "tokenizer.json"):
        (folder / name).symlink_to(model_dir / name)
    (folder / "minirag-model.json").write_text(settings)
    monkeypatch.setenv("MODEL_PATH", str(folder))
    code, err = run(["sync"], capsys)
    assert_one_line_failure(code, err, ["sync"])
    assert "minirag-model.json" in err and not (tmp_path / "index.db").exists()


def _foreign_graph(path) -> None:
    """A valid ONNX model that is no sentence encoder: one input `x`, passed through."""
    from onnx import TensorProto, helper, save

    graph = helper.make_graph([helper.make_node("Identity", ["x"], ["y"])], "not-an-encoder",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [None, 4])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [None, 4])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    save(model, str(path))


def _tokenizer_past_the_table(path, model_dir) -> None:
    """The tiny model's tokenizer with every id moved past the model's 30,522 table rows (another
    model's tokenizer.json beside this model.onnx)."""
    tokenizer = json.loads((model_dir / "tokenizer.json").read_text())
    tokenizer["model"]["vocab"] = {piece: i + 40_000 for piece, i in tokenizer["model"]["vocab"].items()}
    for token in tokenizer.get("added_tokens", []):
        token["id"] += 40_000
    path.write_text(json.dumps(tokenizer))


@pytest.mark.parametrize("mismatch", ["graph", "tokenizer"])
def test_a_model_that_loads_but_cannot_embed_is_one_line_and_binds_no_index(world, capsys, tmp_path, monkeypatch,
                                                                            model_dir, mismatch):
    """It was 'internal error: ValueError: Required inputs ([x]) are missing' or 'IndexError: token id
    out of the table's rows', after an index was made and bound to that model: the next sync with
    the right model was then refused as 'built with local:model'."""
    folder = tmp_path / "model"
    folder.mkdir()
    if mismatch == "graph":
        _foreign_graph(folder / "model.onnx")
        (folder / "tokenizer.json").symlink_to(model_dir / "tokenizer.json")
    else:
        (folder / "model.onnx").symlink_to(model_dir / "model.onnx")
        _tokenizer_past_the_table(folder / "tokenizer.json", model_dir)
    monkeypatch.setenv("MODEL_PATH", str(folder))
    code, err = run(["sync"], capsys)
    assert_one_line_failure(code, err, ["sync"])
    assert "cannot embed a text" in err and not (tmp_path / "index.db").exists()


@pytest.mark.parametrize(("text", "said"), [('{"a": [1, 2]}', "it is JSON, but not a tokenizer's"),
                                            ("{not json", "cannot load the tokenizer")])
def test_a_tokenizer_json_of_another_shape_is_called_so_not_bad_syntax(world, capsys, tmp_path, monkeypatch,
                                                                      model_dir, text, said):
    """Valid JSON that is no tokenizer read 'expected `,` or `}` at line 1 column 5'."""
    folder = tmp_path / "model"
    folder.mkdir()
    (folder / "model.onnx").symlink_to(model_dir / "model.onnx")
    (folder / "tokenizer.json").write_text(text)
    monkeypatch.setenv("MODEL_PATH", str(folder))
    code, err = run(["sync"], capsys)
    assert_one_line_failure(code, err, ["sync"])
    assert said in err and not (tmp_path / "index.db").exists(), err


@pytest.mark.parametrize(("turn", "said"), [("nan", "not numbers"), ("empty", "no coordinate")])
def test_a_model_whose_vectors_are_no_numbers_or_empty_is_one_line_and_binds_no_index(
        world, capsys, tmp_path, monkeypatch, model_dir, turn, said):
    """NaN vectors were written (doctor then called the index damaged: 'not unit length'); a model of
    0-d vectors failed as the index's fault (a vec0 'float[0]' error) after the index file was made."""
    folder = tmp_path / "model"
    folder.mkdir()
    tiny_turned(folder, model_dir, turn)
    monkeypatch.setenv("MODEL_PATH", str(folder))
    for argv in (["sync"], ["ingest-data", "--source", "note-1"]):
        code, err = run(argv, capsys)
        assert_one_line_failure(code, err, argv)
        assert said in err and "model.onnx" in err, err
        assert not (tmp_path / "index.db").exists()


def _greedy_graph(path) -> None:
    """A graph of a sentence encoder's inputs and output whose run asks for a ~400 TB tensor: ONNX
    Runtime's allocator fails, as it does on a machine out of memory."""
    from onnx import TensorProto, helper, save

    shape = helper.make_tensor("shape", TensorProto.INT64, [3], [1, 1 << 38, 384])
    one = helper.make_tensor("one", TensorProto.FLOAT, [1, 1, 1], [1.0])
    nodes = [helper.make_node("Constant", [], ["shape"], value=shape), helper.make_node("Constant", [], ["one"], value=one),
             helper.make_node("Expand", ["one", "shape"], ["last_hidden_state"])]
    inputs = [helper.make_tensor_value_info(name, TensorProto.INT64, [None, None])
              for name in ("input_ids", "attention_mask")]
    graph = helper.make_graph(nodes, "greedy", inputs, [
        helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT, [None, None, 384])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    save(model, str(path))


def test_a_model_the_runtime_fails_to_run_says_the_runtimes_reason_in_one_line(world, tmp_path, model_dir):
    """Any ONNX Runtime error at the load-time probe read 'cannot embed a text (...); its model.onnx and
    tokenizer.json must be one sentence encoder's', wrong for an allocation failure, with the runtime's
    own multi-line message (source file, C++ signature) inside and its log line on stderr before it."""
    folder = tmp_path / "model"
    folder.mkdir()
    _greedy_graph(folder / "model.onnx")
    (folder / "tokenizer.json").symlink_to(model_dir / "tokenizer.json")
    done = _minirag(["sync", "--model-path", str(folder)], capture_output=True, text=True, stdin=subprocess.DEVNULL)
    assert_one_line_failure(done.returncode, done.stderr, ["sync"])
    assert "ONNX Runtime could not run" in done.stderr and "Failed to allocate memory for requested buffer of size " \
        "422212465065984" in done.stderr, done.stderr
    assert "sentence encoder" not in done.stderr and "bfc_arena" not in done.stderr, done.stderr
    assert not (tmp_path / "index.db").exists()


def test_a_sync_job_that_fails_for_a_reason_logs_one_line_not_a_traceback(world, tmp_path, monkeypatch, caplog):
    from minirag.app import App
    from minirag.config import load_config

    not_a_model = tmp_path / "not-a-model"
    not_a_model.mkdir()
    monkeypatch.setenv("MODEL_PATH", str(not_a_model))
    app = App(load_config())
    try:
        job = app.start_sync()
        assert job.wait(60)
    finally:
        app.close()
    assert job.state == "failed" and "model.onnx" in job.error
    failures = [r for r in caplog.records if "failed" in r.getMessage()]
    assert len(failures) == 1 and failures[0].exc_info is None and "model.onnx" in failures[0].getMessage()


def test_a_model_path_that_holds_no_model_says_so_on_an_existing_index_too(world, capsys, tmp_path, monkeypatch):
    """It was taken for another model: 're-index with local:not-a-model'."""
    assert cli.main(["sync"]) == 0
    capsys.readouterr()
    not_a_model = tmp_path / "not-a-model"
    not_a_model.mkdir()
    monkeypatch.setenv("MODEL_PATH", str(not_a_model))
    code, err = run(["query", "otters"], capsys)
    assert_one_line_failure(code, err, ["query"])
    assert "must hold model.onnx" in err and "re-index" not in err


@pytest.fixture
def full_disk(tmp_path):
    """A real 4 MB tmpfs (needs root and mount privileges; skipped elsewhere) and a function that
    fills what is left of it."""
    import tempfile
    from pathlib import Path

    mount = Path(tempfile.mkdtemp(prefix="minirag-full-"))
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", str(mount)], capture_output=True)
    if done.returncode != 0:
        mount.rmdir()
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.decode().strip()}")

    def fill_up() -> None:
        fd = os.open(mount / "filler", os.O_WRONLY | os.O_CREAT)
        try:
            while True:
                os.write(fd, b"x" * 4096)
        except OSError:
            pass
        finally:
            os.close(fd)

    try:
        yield mount, fill_up
    finally:
        subprocess.run(["umount", str(mount)], check=False)
        mount.rmdir()


@pytest.mark.parametrize("command", ["sync", "query"])
def test_a_disk_full_before_the_index_opens_says_no_room_not_disk_io_error(world, capsys, full_disk, command):
    """SQLite reports the -shm it cannot grow on a full disk as a bare "disk I/O error"."""
    mount, fill_up = full_disk
    db = str(mount / "index.db")
    assert cli.main(["sync", "--db-path", db]) == 0
    fill_up()
    for side in ("-wal", "-shm"):  # as a clean close leaves it: the next open must make them
        if os.path.exists(db + side):
            os.remove(db + side)
    code, err = run(fill([*VALID[command], "--db-path", db], world), capsys)
    assert_one_line_failure(code, err, [command])
    assert f"no room to write the index {db}" in err, err
    os.remove(mount / "filler")
    assert cli.main(["query", "otters", "--db-path", db]) == 0


@pytest.mark.parametrize("said", ["Internal sqlite-vec error: could not write vector blob on "
                                  "main.chunks_vec_vector_chunks00.2", "Could not insert a new vector chunk"])
def test_sqlite_vecs_write_failures_on_a_full_disk_say_no_room(full_disk, said):
    """A disk that filled as sqlite-vec wrote a vector read 'the index … failed: OperationalError:
    Internal sqlite-vec error: could not write vector blob …' (its SQLite code says only "error")."""
    import sqlite3

    from minirag.store.connection import explain

    mount, fill_up = full_disk
    (mount / "index.db").write_bytes(b"")
    fill_up()
    assert explain(sqlite3.OperationalError(said), mount / "index.db").startswith(
        f"no room to write the index {mount / 'index.db'}")


def test_a_disk_full_while_upgrading_the_index_says_no_room_not_cannot_rollback(world, capsys, full_disk):
    """SQLite has already rolled the upgrade back when the disk is full: a second ROLLBACK hid why."""
    from minirag.store import connection

    mount, fill_up = full_disk
    db = str(mount / "index.db")
    assert cli.main(["sync", "--db-path", db]) == 0
    conn = connection.connect(db)
    conn.execute("DELETE FROM migrations WHERE id = (SELECT MAX(id) FROM migrations)")  # one step behind
    fill_up()
    code, err = run(["query", "otters", "--db-path", db], capsys)
    conn.close()
    assert_one_line_failure(code, err, ["query"])
    assert f"no room to write the index {db}" in err, err
    os.remove(mount / "filler")
    assert cli.main(["query", "otters", "--db-path", db]) == 0


def _closing(*fds: int):
    """In the child, before minirag starts: close these standard descriptors (`>&-`, `<&-`, `2>&-`)."""
    def close() -> None:
        for fd in fds:
            os.close(fd)
    return close


def _minirag(argv: list[str], timeout: float = 120, env_extra: dict | None = None,
             **options) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT), **(env_extra or {})}
    return subprocess.run([sys.executable, "-m", "minirag", *argv], env=env, timeout=timeout, **options)


def _file_size_limit(limit: int):
    def limited() -> None:  # Python ignores SIGXFSZ: a write past the limit is cut short, then fails
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    return limited


@pytest.mark.parametrize(("argv", "long"), [(["read", "{docs}/long.md"], True),
                                            (["read", "{docs}/long.md", "--json"], True),
                                            (["query", "otters", "--json"], False)])
def test_output_cut_short_by_a_full_disk_fails_in_one_line(world, tmp_path, argv, long):
    """stdout into a file whose disk filled: the first write took part of the bytes, and CPython's text
    layer dropped the rest without a word: a cut-off file (invalid JSON), exit 0, nothing said."""
    write(Path(world["docs"]) / "long.md", "# Otters\n\n" + "Otters hold hands while they sleep. " * 3000)
    assert cli.main(["sync"]) == 0  # the index to read: only the reads below need a process of their own
    argv = fill(argv, world)
    if long:  # past the limit (over the 32 KiB SQLite's -shm file takes), as on a disk that fills
        with open(tmp_path / "out.txt", "wb") as out:
            done = _minirag(argv, stdout=out, stderr=subprocess.PIPE, text=True,
                            preexec_fn=_file_size_limit(48 * 1024))
        assert_one_line_failure(done.returncode, done.stderr, argv)
        assert "cannot write the output (File too large)" in done.stderr, done.stderr
    with open("/dev/full", "wb") as full:
        done = _minirag(argv, stdout=full, stderr=subprocess.PIPE, text=True)
    assert_one_line_failure(done.returncode, done.stderr, argv)
    assert "cannot write the output (No space left on device)" in done.stderr, done.stderr


def test_output_in_an_encoding_with_a_byte_order_mark_carries_one_at_most(world, tmp_path, capsys):
    """Each output call encoded apart gave UTF-16 output a byte order mark of its own (one into a
    pipe, where there had been none). The listing's text is made here; only output in each encoding,
    set as the process starts, needs a process of its own."""
    assert cli.main(["sync"]) == 0
    capsys.readouterr()
    assert cli.main(["list"]) == 0
    plain = capsys.readouterr().out
    (tmp_path / "plain.txt").write_text(plain)
    for encoding in ("utf-16", "utf-32", "utf-8-sig"):
        done = _minirag(["list"], capture_output=True, env_extra={"PYTHONIOENCODING": encoding})
        python = subprocess.run([sys.executable, "-c", "import sys; sys.stdout.write(open(sys.argv[1]).read())",
                                 str(tmp_path / "plain.txt")], capture_output=True,
                                env={**os.environ, "PYTHONIOENCODING": encoding})
        assert done.stdout == python.stdout, encoding  # as Python's own text layer writes it


@pytest.mark.parametrize(("argv", "closed"), [
    (["sync"], 1), (["query", "otters"], 1), (["--version"], 1), (["status"], 1),
    (["ingest-data", "--source", "note-1"], 0), ([], 0),
])
def test_a_closed_standard_stream_is_one_line_and_nothing_runs(world, tmp_path, argv, closed):
    done = _minirag(argv, stderr=subprocess.PIPE, text=True, preexec_fn=_closing(closed),
                    **({"stdin": subprocess.DEVNULL} if closed == 1 else {"stdout": subprocess.PIPE}))
    assert_one_line_failure(done.returncode, done.stderr, argv)
    assert ("standard output is closed" if closed == 1 else "standard input is closed") in done.stderr
    assert not (tmp_path / "index.db").exists()


def test_a_sync_with_stderr_closed_runs_to_the_end(world, tmp_path):
    """Nothing can be said on a closed stderr: its progress and warnings go nowhere, the sync goes on."""
    done = _minirag(["sync"], stdout=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True,
                    preexec_fn=_closing(2))
    assert done.returncode == 0 and "1 ingested" in done.stdout


def test_names_in_log_lines_cannot_act_on_the_terminal_nor_forge_a_line(world, tmp_path, run_cli):
    """A folder's or a file's name reached stderr raw in two log lines (an ignore file's bad line,
    `sync -v`'s `ingested NAME`): an escape sequence cleared the screen, a line break forged a line."""
    folder = tmp_path / "docs" / "x\x1b]0;PWNED\x07\x1b[2Jy"
    write(folder / ".minignore", "[z-a]\n")
    write(tmp_path / "docs" / "f\x1b[2J\rnl\nminirag: forged line.md", "# T\n\nHello.\n")
    done = run_cli("sync", "-v")
    assert done.returncode == 0, done.stderr
    lines = done.stderr.splitlines()
    assert not any("\x1b" in line or "\r" in line or "\x07" in line for line in lines), lines
    assert not any(line.startswith("minirag: forged") for line in lines), lines
    assert any(line.startswith("minirag: WARNING: ") and "x\\x1b]0;PWNED\\x07\\x1b[2Jy/.minignore, line 1" in line
               for line in lines), lines
    assert any(line.startswith("minirag: INFO: ingested ") and line.endswith("f\\x1b[2J\\rnl\\nminirag: forged line.md (1 chunk)")
               for line in lines), lines


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP])
def test_sigterm_or_sighup_stops_a_command_as_ctrl_c_does_with_one_line_and_the_index_closed(world, tmp_path,
                                                                                         signum):
    """A service manager's SIGTERM or a closed terminal's SIGHUP ended the process where it stood:
    no line, a backup's partial copy left behind, the index's -wal beside it. Now they unwind as
    Ctrl-C does (every `finally` runs) and exit 128 + the signal's number."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, "-m", "minirag", "watch"], env=env, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        while not (line := proc.stderr.readline()).startswith("minirag: watching"):
            assert line, "minirag watch ended before watching"
        proc.send_signal(signum)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 128 + signum, err
    assert err.strip().splitlines() == [f"minirag: stopped by {signal.Signals(signum).name}"]
    assert (tmp_path / "index.db").exists() and not (tmp_path / "index.db-wal").exists()


def test_ingest_data_reads_stdin_bytes_as_a_file_is_read(world, tmp_path, capsys):
    """Bytes that are not UTF-8 reached the index as lone surrogates ('internal error:
    UnicodeEncodeError'); binary data was not refused as it is in a file. The bytes reach a process's
    stdin; what the index then holds is read in this one."""
    latin1 = _minirag(["ingest-data", "--source", "note-1"], input="# Café\n\nCafé crème\n".encode("latin-1"),
                      capture_output=True)
    assert latin1.returncode == 0, latin1.stderr
    assert b"not UTF-8" in latin1.stdout and b"decoded as" in latin1.stdout
    capsys.readouterr()
    assert cli.main(["read", "--source", "note-1"]) == 0
    assert "Café crème" in capsys.readouterr().out
    binary = _minirag(["ingest-data", "--source", "note-2"], input=bytes(range(256)) * 8, capture_output=True,
                      text=False)
    assert_one_line_failure(binary.returncode, binary.stderr.decode(), ["ingest-data"])
    assert b"looks like a binary file" in binary.stderr
    assert cli.main(["list"]) == 0
    listed = capsys.readouterr().out
    assert "note-1" in listed and "note-2" not in listed


def test_a_backup_into_a_folder_that_cannot_be_written_names_the_backup_not_the_index(world, tmp_path):
    """It said 'cannot open the index ...: check that its folder exists', of an index that was fine."""
    assert cli.main(["sync"]) == 0
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o555)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([*without_permission_override(), sys.executable, "-m", "minirag", "backup", str(locked)],
                          capture_output=True, text=True, env=env, timeout=120)
    assert_one_line_failure(done.returncode, done.stderr, ["backup"])
    assert f"cannot write the backup {locked}/index.db" in done.stderr and "the index" not in done.stderr
    assert list(locked.iterdir()) == []


@pytest.mark.parametrize("encoding", ["ascii", "latin-1"])
def test_output_in_an_encoding_that_lacks_a_documents_characters_is_escaped_not_an_internal_error(
        world, tmp_path, encoding):
    """A document's title or text went through stdout's encoding (PYTHONIOENCODING, a Latin-1
    locale, a Windows code page when redirected): 'internal error: UnicodeEncodeError'."""
    write(tmp_path / "docs" / "b.md", "# Ça va, 日本\n\nÉmilie parle de café.\n")
    assert cli.main(["sync"]) == 0
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONIOENCODING": encoding}
    argv = [sys.executable, "-m", "minirag", "read", str(tmp_path / "docs" / "b.md")]
    text = subprocess.run(argv, capture_output=True, env=env, timeout=120)
    assert text.returncode == 0 and text.stderr == b"", text.stderr
    assert "\\u65e5\\u672c" in text.stdout.decode(encoding)
    shaped = subprocess.run([*argv, "--json"], capture_output=True, env=env, timeout=120)
    assert shaped.returncode == 0, shaped.stderr
    assert json.loads(shaped.stdout.decode(encoding))["text"].startswith("# Ça va, 日本")


@pytest.mark.parametrize(("argv", "says"), [
    (["read", "--source", ""], "source must be a non-empty id"),
    (["delete", "--source", " "], "source must be a non-empty id"),
    (["read-neighbors", "--source", "", "--chunk-index", "0"], "source must be a non-empty id"),
    (["ingest-url", ""], "url is empty; give an http or https URL"),
])
def test_an_empty_source_or_url_is_named_as_such(world, capsys, argv, says):
    """They said 'not indexed:' with nothing after it, and an empty URL 'source must be a non-empty id'."""
    assert cli.main(["sync"]) == 0
    capsys.readouterr()
    code, err = run(argv, capsys)
    assert_one_line_failure(code, err, argv)
    assert err.strip() == f"minirag: error: {says}"


@pytest.mark.parametrize(("key", "value"), [("dimension", "abc"), ("keyword_languages", "x"),
                                            ("keyword_languages", '{"en": "many"}')])
def test_a_meta_value_changed_outside_minirag_is_called_damage_in_one_line(world, capsys, tmp_path, key, value):
    """A hand-edited meta table ('internal error: ValueError: invalid literal for int()' or
    'JSONDecodeError', 'please report it') is damage: restore a backup or rebuild."""
    assert cli.main(["sync"]) == 0
    import sqlite3

    with contextlib.closing(sqlite3.connect(tmp_path / "index.db")) as conn, conn:
        conn.execute("UPDATE meta SET value = ? WHERE key = ?", (value, key))
    capsys.readouterr()
    code, err = run(["query", "otters"], capsys)
    assert_one_line_failure(code, err, ["query"])
    assert "is damaged" in err and f"meta value {key!r}" in err and "internal error" not in err
    assert cli.main(["status"]) == 0  # status still answers, and says so where it reads the value


@pytest.mark.parametrize("argv", [["backup", "{tmp}/copy.db"], ["sync"]])
def test_a_db_path_that_is_a_named_pipe_or_a_device_is_a_configuration_error(world, tmp_path, monkeypatch, capsys,
                                                                             argv):
    """`backup` of a named pipe waited forever inside SQLite's open (for a writer that never came), and
    `sync` on /dev/null failed as 'the index /dev/null failed: OperationalError: disk I/O error'."""
    pipe = tmp_path / "pipe.db"
    os.mkfifo(pipe)
    monkeypatch.setenv("DB_PATH", str(pipe))
    # In a process of its own, with a timeout: opened as a file, the pipe would hang this worker.
    done = _minirag(fill(argv, world), capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=30)
    assert_one_line_failure(done.returncode, done.stderr, argv)
    assert f"DB_PATH: {pipe} is a " in done.stderr and "not a file" in done.stderr
    monkeypatch.setenv("DB_PATH", "/dev/null")
    code, err = run(fill(argv, world), capsys)
    assert_one_line_failure(code, err, argv)
    assert "DB_PATH: /dev/null is a " in err and "not a file" in err
    assert cli.main(["status", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["configError"]


@pytest.mark.parametrize("edited", [True, False])
def test_watch_json_whose_reader_goes_away_stops_with_one_line(world, tmp_path, edited):
    """`minirag watch --json | head -1`: the next pass met the closed pipe and ended the watch as
    'minirag: error: cannot use: Broken pipe'; on a quiet folder no pass came, and it ran on."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, "-m", "minirag", "watch", "--json"], env=env, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert json.loads(proc.stdout.readline())["kind"] == "initial"
        proc.stdout.close()
        if edited:
            write(tmp_path / "docs" / "b.md", "# Beavers\n\nBeavers build dams.\n")
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, err
    assert err.strip().splitlines()[-1] == "minirag: stdout's reader went away; stopped watching (what was synced stays)"
    assert "error" not in err


@pytest.mark.parametrize(("signum", "code", "said"), [
    (signal.SIGINT, 130, "interrupted; stopped watching (what was synced stays)"),
    (signal.SIGTERM, 143, "stopped by SIGTERM"),
])
def test_an_interrupted_watch_json_ends_its_output_with_one_error_object(world, tmp_path, signum, code, said):
    """Under --json, Ctrl-C or SIGTERM left stdout as it was: a program reading the JSON could not
    tell an interrupted run from a finished one without the exit status."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, "-m", "minirag", "watch", "--json"], env=env, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert json.loads(proc.stdout.readline())["kind"] == "initial"
        proc.send_signal(signum)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == code, err
    assert [json.loads(line) for line in out.splitlines()] == [{"error": said}]
    assert err.strip().splitlines()[-1] == f"minirag: {said}" and "Traceback" not in err


@pytest.mark.parametrize(("raised", "code", "said"), [
    (KeyboardInterrupt(), 130, "interrupted"),
    (cli._Terminated(signal.SIGTERM), 143, "stopped by SIGTERM"),
    (InvalidArgument("no such thing"), 1, "error: no such thing"),
    (RuntimeError("disk on fire"), 1, "internal error: RuntimeError: disk on fire"),
])
def test_a_json_command_that_fails_or_is_interrupted_prints_one_error_object(world, capsys, monkeypatch, raised,
                                                                             code, said):
    """stdout stayed empty: a program reading the JSON got no input at all. It gets the stderr line's
    message as `error`, the key a failed sync job's JSON carries it under, and the exit status stays."""
    from minirag.app import App

    def stopped(*_args, **_kwargs):
        raise raised

    monkeypatch.setattr(App, "query", stopped)
    assert cli.main(["query", "otters", "--json"]) == code
    out, err = capsys.readouterr()
    assert json.loads(out) == {"error": said.removeprefix("error: ")}
    assert err.splitlines()[0].startswith(f"minirag: {said}")
    assert cli.main(["query", "otters"]) == code
    assert capsys.readouterr().out == ""


def test_serve_json_that_fails_writes_nothing_to_stdout_the_protocols_stream(world, capsys, monkeypatch):
    """stdout is the MCP protocol's when serving stdio: an error object there is no JSON-RPC message."""
    from minirag import server_state

    def broken(_args):
        raise InvalidArgument("no such thing")

    monkeypatch.setattr(server_state, "load_state", broken)
    code = cli.main(["serve", "--json"])
    out, err = capsys.readouterr()
    assert code == 1 and err == "minirag: error: no such thing\n"
    assert out == ""


HOSTILE_FLAG_VALUES = ["", " ", "\x00", "nan", "-1", "1e308", "x" * 5000, "a\udcff", "\x1b[2J"]
SWEPT = {  # the command with its valid arguments, and the options swept through HOSTILE_FLAG_VALUES
    "query": (["query", "otters"], ["QUERY", "--top-k", "--scope", "--collection", "--db-path", "--model-path",
                                    "--model-name", "--cache-dir", "--include", "--exclude", "--base-dir"]),
    "status": (["status"], ["--base-dir", "--db-path", "--model-path", "--model-name", "--cache-dir", "--include",
                            "--exclude", "--litestream-config"]),
    "sync": (["sync"], ["PATH", "--progress-interval", "--model-path", "--model-name", "--include", "--exclude"]),
    "ingest": (["ingest", "{docs}/a.md"], ["PATH", "--progress-interval", "--model-path", "--include"]),
    "serve": (["serve", "--http", "127.0.0.1:9"], ["--http"]),  # never a valid address: nothing is served
}


@pytest.mark.parametrize("command", sorted(SWEPT))
def test_every_swept_option_given_hostile_values_ends_in_output_or_one_line(world, capsys, command, tmp_path,
                                                                            monkeypatch):
    """The CLI's half of the sweep: an empty or blank value, a NUL, nan, -1, 1e308, 5,000 characters,
    bytes that are no UTF-8 and a terminal escape, into each option (or the positional argument) of
    query, status, sync, ingest and serve, the rest valid and an index present. Each run ends in its
    output or one line on stderr, never a traceback, and the index still answers a query after."""
    monkeypatch.chdir(tmp_path)  # a relative value (`--cache-dir nan`) makes its folder here
    assert cli.main(["sync"]) == 0
    capsys.readouterr()
    argv, options = SWEPT[command]
    for option in options:
        for value in HOSTILE_FLAG_VALUES:
            if command == "serve" and value in ("", " ", "nan", "-1", "1e308"):
                continue  # a port alone (`--http 9`) or none would serve: serve's own test tries those
            args = fill(argv, world)
            args = [args[0], value, *args[2:]] if option in ("QUERY", "PATH") else [*args, option, value]
            code, err = run(args, capsys)
            assert "Traceback" not in err and "internal error" not in err, (args[:4], err[:300])
            if not value.strip() and option in ("QUERY", "PATH", "--scope", "--base-dir") and command != "status":
                assert code != 0, (args[:4], "an empty one named the current folder, or everything")
            if code != 0:
                assert_one_line_failure(code, err, [command, option, value[:20]])
    assert cli.main(["query", "otters"]) == 0


@pytest.mark.parametrize("flag", ["--db-path", "--cache-dir", "--model-path", "--litestream-config"])
def test_a_blank_path_setting_is_a_configuration_error_not_a_file_named_blank(world, capsys, monkeypatch, tmp_path,
                                                                              flag):
    """`--db-path " "` wrote the index to a file named ' ' in the current folder (and ' .sync.lock'
    beside it): a blank value names no path, as an empty one names none."""
    monkeypatch.chdir(tmp_path)
    code, err = run(["sync", flag, " "], capsys)
    assert_one_line_failure(code, err, [flag])
    assert "a blank value names no path" in err, err
    assert not any(path.name.strip() == "" or path.name.startswith(" ") for path in tmp_path.iterdir())


def test_a_cache_dir_that_is_a_file_is_a_configuration_error(world, capsys, tmp_path):
    """It was taken silently: the model's prepared files could not be made there, so `query` ran the
    plain graph instead of the one the index was built with (distances off by 0.002)."""
    (tmp_path / "not-a-folder").write_text("x")
    said = f"CACHE_DIR must be a folder (made if missing), got a file: {tmp_path}/not-a-folder"
    for argv in (["query", "otters"], ["sync"]):
        code, err = run([*argv, "--cache-dir", str(tmp_path / "not-a-folder")], capsys)
        assert_one_line_failure(code, err, argv)
        assert said in err, (argv, err)
    assert cli.main(["doctor", "--cache-dir", str(tmp_path / "not-a-folder")]) == 1
    assert f"[FAIL] config: {said}" in capsys.readouterr().out


def test_sigterm_landing_while_the_model_runtime_is_imported_is_a_stop_not_an_internal_error(world, capsys,
                                                                                               monkeypatch):
    """onnxruntime's initialization swallowed the stop SIGTERM raised and raised ImportError
    ('initialization failed'): 'internal error', exit 1, where a stop is 'stopped by SIGTERM', 143."""
    import signal

    from minirag import app as app_module

    def stopped_import(*_args, **_kwargs):
        try:
            cli._raise_terminated(signal.SIGTERM, None)  # the handler `minirag` installs
        except KeyboardInterrupt:
            raise ImportError("initialization failed") from None

    monkeypatch.setattr(app_module, "App", stopped_import)
    code, err = run(["query", "tides"], capsys)
    assert (code, err) == (143, "minirag: stopped by SIGTERM\n")


def test_ctrl_c_landing_while_the_model_runtime_is_imported_is_an_interrupt_not_an_internal_error(
        world, capsys, monkeypatch):
    """A C extension initializing when Ctrl-C lands (onnxruntime importing numpy) raises ImportError
    ("import numpy failed") and the KeyboardInterrupt is lost: it read as an internal error."""
    import signal

    from minirag import app as app_module

    def interrupted_import(*_args, **_kwargs):
        try:
            cli._note_ctrl_c(signal.SIGINT, None)  # the handler `minirag` installs, run as Ctrl-C runs it
        except KeyboardInterrupt:
            raise ImportError("import numpy failed") from None

    monkeypatch.setattr(app_module, "App", interrupted_import)
    code, err = run(["query", "tides"], capsys)
    assert (code, err) == (130, "minirag: interrupted\n")


def test_empty_standard_input_leaves_the_source_it_names_as_it_was(world, tmp_path, capsys, monkeypatch):
    """`cat missing.md | minirag ingest-data --source notes`: the pipe's failure replaced `notes`
    with nothing (0 chunks, exit 0), and on a new index made one to hold nothing."""
    code, err = run(["ingest-data", "--source", "notes"], capsys)  # the fixture's stdin: a note
    assert code == 0, err
    for empty in ("", " \n\t\n"):
        monkeypatch.setattr(sys, "stdin", io.StringIO(empty))
        code, err = run(["ingest-data", "--source", "notes", "--json"], capsys)
        assert_one_line_failure(code, err, ["ingest-data"])
        assert "standard input was empty or only white space: nothing to index" in err
    assert cli.main(["read", "--source", "notes"]) == 0 and "Text from stdin." in capsys.readouterr().out
    fresh = tmp_path / "fresh" / "index.db"
    code, err = run(["ingest-data", "--source", "notes", "--db-path", str(fresh)], capsys)
    assert code == 1 and not fresh.parent.exists(), err



@pytest.mark.parametrize("words", ["# Notes\n\nMy own words, not an index.\n", ""])
@pytest.mark.parametrize("command", [["query", "otters"], ["sync"], ["status"]])
def test_a_db_path_naming_a_document_is_not_called_a_damaged_index_to_delete(world, capsys, monkeypatch, docs,
                                                                             command, words):
    """DB_PATH set to a document by mistake: 'the index … is damaged (file is not a database); … or
    delete it and run `minirag sync`' told the user to delete their own document. An empty one
    became the index: SQLite makes its database in an empty file."""
    notes = docs / "notes.md"
    notes.write_text(words, encoding="utf-8")
    monkeypatch.setenv("DB_PATH", str(notes))
    code = cli.main(command)
    out, err = capsys.readouterr()
    said = err + out  # status answers (exit 0) and says it where it reads the index
    assert "delete" not in said and "damaged" not in said, said
    assert "not a SQLite database" in said and "DB_PATH" in said, said
    if command != ["status"]:
        assert_one_line_failure(code, err, command)
    assert notes.read_text(encoding="utf-8") == words
    from minirag.config import load_config
    from minirag.doctor import run_checks

    checks = {c.name: c for c in run_checks(load_config()).checks}
    assert not checks["index"].ok and "not a SQLite database" in checks["index"].detail
    assert "move it aside" not in (checks["index"].fix or "") and "DB_PATH" in (checks["index"].fix or "")


def test_an_empty_file_named_as_the_index_becomes_the_index(world, capsys, monkeypatch, tmp_path):
    made = tmp_path / "made-ready.db"  # `touch index.db` first: not a document's name
    made.touch()
    monkeypatch.setenv("DB_PATH", str(made))
    assert cli.main(["sync"]) == 0 and made.read_bytes().startswith(b"SQLite format 3\x00")
