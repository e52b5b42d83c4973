"""`minirag doctor`: all green on a good configuration; a failing check that says what broke
and how to fix it otherwise; never raises, never writes."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from helpers.models import tiny_turned

from minirag.config import ConfigError, load_config
from minirag.doctor import Check, DoctorReport, config_failure, format_checks, run_checks
from minirag.results import payload

CHECK_NAMES = ["sqlite", "model", "roots", "index", "room", "model-match", "replica"]


def by_name(result: DoctorReport) -> dict[str, Check]:
    return {c.name: c for c in result.checks}


def test_a_good_configuration_passes_every_check_without_creating_the_index(make_config):
    config = make_config()
    result = run_checks(config)
    assert [c.name for c in result.checks] == CHECK_NAMES
    assert result.ok, format_checks(result)
    assert all(c.ok and c.fix is None for c in result.checks)
    assert "sqlite-vec" in by_name(result)["sqlite"].detail and "FTS5" in by_name(result)["sqlite"].detail
    assert "MODEL_PATH" in by_name(result)["model"].detail
    assert not config.db_path.exists(), "doctor must not create the index"
    assert format_checks(result).endswith("all checks passed")


def test_an_existing_index_built_with_the_configured_model_passes(app, docs):
    (docs / "a.md").write_text("# Title\n\nSome words about lanterns.\n", encoding="utf-8")
    app.ingest_paths([str(docs)])
    result = run_checks(app.config)
    assert result.ok, format_checks(result)
    checks = by_name(result)
    assert "1 source, " in checks["index"].detail
    assert app.encoder.model_id in checks["model-match"].detail


def test_a_model_path_without_model_files_fails_with_a_fix(make_config, tmp_path):
    empty = tmp_path / "not-a-model"
    empty.mkdir()
    result = run_checks(make_config(model_path=str(empty)))
    assert not result.ok
    model = by_name(result)["model"]
    assert not model.ok
    assert "model.onnx" in model.detail and str(empty) in model.detail
    assert "MODEL_PATH" in model.fix
    assert "fix: " in format_checks(result) and "1 check failed" in format_checks(result)


def test_an_index_location_that_cannot_be_created_fails_with_a_fix(make_config, tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    result = run_checks(make_config(db_path=str(blocker / "sub" / "index.db")))
    index = by_name(result)["index"]
    assert not result.ok and not index.ok
    assert "not writable" in index.detail and "DB_PATH" in index.fix
    assert not (blocker / "sub").exists()


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="root can write anywhere")
def test_an_unwritable_index_folder_fails_with_a_fix(make_config, tmp_path):
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o555)
    try:
        index = by_name(run_checks(make_config(db_path=str(locked / "index.db"))))["index"]
    finally:
        locked.chmod(0o755)
    assert not index.ok and "not writable" in index.detail and "DB_PATH" in index.fix


def test_read_only_mode_without_an_index_fails_and_creates_nothing(make_config, tmp_path):
    result = run_checks(make_config(read_only=True))
    index = by_name(result)["index"]
    assert not index.ok and "read-only" in index.detail and "minirag sync" in index.fix
    assert not (tmp_path / "index.db").exists()


def test_a_file_that_is_not_an_index_is_reported_not_raised(make_config, tmp_path):
    (tmp_path / "index.db").write_bytes(b"this is not a database" * 100)
    index = by_name(run_checks(make_config()))["index"]
    assert not index.ok and "not a SQLite database" in index.detail and "backup" in index.fix
    assert "DB_PATH" in index.fix and "move it aside" not in index.fix  # maybe a document: never "delete it"


def test_an_index_built_with_another_model_is_a_failing_check(app, docs, make_config):
    (docs / "a.md").write_text("# Title\n\nSome words.\n", encoding="utf-8")
    app.ingest_paths([str(docs)])
    app.close()
    other = make_config(model_path=None, model_name="intfloat/multilingual-e5-small")
    match = by_name(run_checks(other))["model-match"]
    assert not match.ok
    assert app.encoder.model_id in match.detail and "multilingual-e5-small" in match.detail
    assert "DB_PATH" in match.fix


def test_model_files_giving_vectors_of_another_width_under_the_same_name_fail_the_match(app, docs, make_config,
                                                                                        model_dir, tmp_path):
    """Every command refused such a model ('384-d … 128-d'), and doctor passed it."""
    (docs / "a.md").write_text("# Title\n\nSome words.\n", encoding="utf-8")
    app.ingest_paths([str(docs)])
    app.close()
    folder = tmp_path / "narrow"
    folder.mkdir()
    tiny_turned(folder, model_dir, "narrow")
    checks = by_name(run_checks(make_config(model_path=str(folder))))
    assert checks["model"].ok and "128-d" in checks["model"].detail
    match = checks["model-match"]
    assert not match.ok and "128-d" in match.detail and f"{app.encoder.dimension}-d" in match.detail, match


def test_a_broken_minirag_model_json_is_one_failing_check_with_its_own_fix(make_config, model_dir, tmp_path):
    """It failed twice: the model check (fix: 'point MODEL_PATH at a directory holding model.onnx and
    tokenizer.json', which it did), then model-match as 'unexpected error … report this'."""
    folder = tmp_path / "model"
    folder.mkdir()
    for name in ("model.onnx", "tokenizer.json"):
        (folder / name).symlink_to(model_dir / name)
    (folder / "minirag-model.json").write_text('{"max_length": 512,')
    report = run_checks(make_config(model_path=str(folder)))
    failed = [c for c in report.checks if not c.ok]
    assert [c.name for c in failed] == ["model"], failed
    assert "minirag-model.json" in failed[0].fix and "holding model.onnx" not in failed[0].fix


def test_an_uncached_hub_model_fails_fast_with_offline_advice(make_config, tmp_path, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    config = make_config(model_path=None, model_name="intfloat/multilingual-e5-small", cache_dir=str(tmp_path / "c"))
    model = by_name(run_checks(config))["model"]
    assert not model.ok and "not in the model cache" in model.detail and "MODEL_PATH" in model.fix
    assert not (tmp_path / "c").exists(), "doctor must not download (or create a cache)"
    # The finding says what is wrong and the fix what to do, each once: the finding repeated the
    # fix's remedies, and the fix lacked the installed English model the finding offered.
    assert "MODEL_PATH" not in model.detail and "scripts/e5_small/build.sh" not in model.detail
    assert model.fix.count("scripts/e5_small/build.sh") == 1 and "--model-name all-MiniLM-L6-v2" in model.fix


def test_a_configuration_error_has_the_same_shape(tmp_path):
    with pytest.raises(ConfigError) as caught:
        load_config(env={"BASE_DIRS": "not json"}, cwd=tmp_path)
    result = config_failure(caught.value)
    assert not result.ok and result.checks[0].name == "config"
    assert "BASE_DIRS" in format_checks(result)


def test_the_result_is_json_serializable(make_config):
    json.dumps(payload(run_checks(make_config())))


def _cli_has_doctor() -> bool:
    from minirag.cli_parser import build_parser

    return "doctor" in build_parser().format_help()


@pytest.mark.skipif(not _cli_has_doctor(), reason="`minirag doctor` is not wired into cli_parser.py yet")
def test_the_cli_exits_0_when_healthy_and_1_when_not(run_cli, tmp_path, docs, model_dir):
    env = dict.fromkeys(("DB_PATH", "BASE_DIR", "BASE_DIRS", "MODEL_PATH"))
    base = ["doctor", "--base-dir", str(docs), "--db-path", str(tmp_path / "i.db")]
    good = run_cli(*base, "--model-path", str(model_dir), "--json", env=env, cwd=tmp_path)
    assert good.returncode == 0, good.stdout + good.stderr
    assert json.loads(good.stdout)["ok"] is True
    (tmp_path / "empty").mkdir()
    bad = run_cli(*base, "--model-path", str(tmp_path / "empty"), env=env, cwd=tmp_path)
    assert bad.returncode == 1 and "[FAIL] model" in bad.stdout and "fix:" in bad.stdout


@pytest.mark.parametrize(("onnx", "tokenizer"), [(b"garbage", None), (None, b"{broken")])
def test_model_files_that_exist_but_do_not_load_fail_the_model_check(make_config, tmp_path, model_dir, onnx,
                                                                       tokenizer):
    broken = tmp_path / "broken-model"
    shutil.copytree(model_dir, broken)
    if onnx is not None:
        (broken / "model.onnx").write_bytes(onnx)
    if tokenizer is not None:
        (broken / "tokenizer.json").write_bytes(tokenizer)
    model = by_name(run_checks(make_config(model_path=str(broken))))["model"]
    assert not model.ok and "does not load" in model.detail and "download again" in model.fix


def test_an_index_of_an_older_schema_is_matched_against_the_model_it_records(make_config, tmp_path):
    """An index from an older minirag is upgraded when next opened, and doctor, which only reads,
    had said 'no model recorded' and passed, whatever model was configured; the upgrade then
    refused the configured model."""
    import gzip

    path = tmp_path / "index.db"
    with gzip.open(Path(__file__).parent / "fixtures/index_keyword_scheme5.db.gz") as packed, \
            path.open("wb") as out:
        shutil.copyfileobj(packed, out)  # schema 5, written with the tiny test encoder
    same = by_name(run_checks(make_config(db_path=str(path))))
    assert same["index"].ok and "schema 5" in same["index"].detail
    assert same["model-match"].ok and "minirag/tiny-test-encoder (384-d)" in same["model-match"].detail
    other = make_config(db_path=str(path), model_path=None, model_name="intfloat/multilingual-e5-small")
    match = by_name(run_checks(other))["model-match"]
    assert not match.ok and "minirag/tiny-test-encoder" in match.detail and "multilingual-e5-small" in match.detail


def test_an_older_schema_with_a_broken_meta_or_a_file_of_no_schema_is_a_finding_not_an_internal_error(
        make_config, tmp_path):
    import gzip
    import sqlite3

    path = tmp_path / "index.db"
    with gzip.open(Path(__file__).parent / "fixtures/index_keyword_scheme5.db.gz") as packed, \
            path.open("wb") as out:
        shutil.copyfileobj(packed, out)
    with sqlite3.connect(path) as conn:  # a plain table: no extension needed to change it
        conn.execute("UPDATE meta SET value = 'abc' WHERE key = 'dimension'")
    checks = by_name(run_checks(make_config(db_path=str(path))))
    assert not checks["index"].ok and "dimension" in checks["index"].detail, checks["index"]
    assert "report" not in (checks["index"].fix or "") and "unexpected" not in checks["index"].detail
    assert "unexpected" not in checks["model-match"].detail
    empty = tmp_path / "empty.db"
    empty.write_bytes(b"")
    report = run_checks(make_config(db_path=str(empty)))
    assert not any("unexpected" in check.detail for check in report.checks), report.checks


def test_another_programs_sqlite_database_fails_the_index_check_as_every_command_refuses_it(make_config, tmp_path):
    """doctor had passed it ('schema 0; upgraded to 7 when next opened') while sync and query refused it."""
    import sqlite3

    path = tmp_path / "places.sqlite"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE bookmarks (id INTEGER PRIMARY KEY, url TEXT)")
    before = path.read_bytes()
    index = by_name(run_checks(make_config(db_path=str(path))))["index"]
    assert not index.ok and "not a minirag index (it holds bookmarks)" in index.detail, index
    assert "DB_PATH" in index.fix and path.read_bytes() == before


def test_a_document_named_as_the_index_gets_no_lock_beside_it_and_doctor_minds_what_it_is(make_app, make_config,
                                                                                          tmp_path):
    """The MCP sync_start took the sync lock before the index was opened, and left notes.md.sync.lock
    beside the document; doctor, for a document it could not write, said to fix its permissions."""
    from minirag.errors import IndexUnavailable

    notes = tmp_path / "notes.md"
    notes.write_text("# Notes\n\nMine.\n", encoding="utf-8")
    app = make_app(db_path=str(notes))
    with pytest.raises(IndexUnavailable, match="not a SQLite database"):
        app.start_sync()
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("notes")) == ["notes.md"]
    notes.chmod(0o444)
    try:
        index = by_name(run_checks(make_config(db_path=str(notes))))["index"]
    finally:
        notes.chmod(0o644)
    assert not index.ok and "not a SQLite database" in index.detail, index


def test_an_index_cut_inside_its_header_is_damaged_not_another_file(make_config, tmp_path):
    path = tmp_path / "index.db"
    path.write_bytes(b"SQLite for")
    index = by_name(run_checks(make_config(db_path=str(path))))["index"]
    assert not index.ok and "not a SQLite database" not in index.detail, index


def test_a_full_disk_beside_the_index_or_under_sqlites_temporary_files_fails_the_room_check(make_config, monkeypatch):
    # Creating a file still works on a full disk, so the index check said "writable" and every
    # sync then failed for want of room.
    from helpers.mounts import full_tmpfs

    monkeypatch.delenv("SQLITE_TMPDIR", raising=False)
    with full_tmpfs() as full:
        beside = by_name(run_checks(make_config(db_path=str(full / "index.db"))))["room"]
        assert not beside.ok and str(full) in beside.detail and "DB_PATH" in beside.fix, beside
        monkeypatch.setenv("TMPDIR", str(full))
        temporary = by_name(run_checks(make_config()))["room"]
        assert not temporary.ok and str(full) in temporary.detail and "TMPDIR" in temporary.fix, temporary
    monkeypatch.delenv("TMPDIR")
    assert by_name(run_checks(make_config()))["room"].ok


def test_a_file_no_sync_finished_building_is_said_to_hold_no_index_not_an_old_schema(make_config, tmp_path):
    """A first sync that failed before its schema (its disk full) leaves a file of no tables. doctor
    called it 'schema 0; upgraded to 11 when next opened' and, read-only, told the user to open it once
    to upgrade it: there is nothing to upgrade, as the commands themselves now say (store/index.py)."""
    import sqlite3

    path = tmp_path / "index.db"
    sqlite3.connect(path).close()  # a file of no tables, as such a sync leaves it
    writable = by_name(run_checks(make_config(db_path=str(path))))["index"]
    assert writable.ok and "no index yet" in writable.detail and "upgrade" not in writable.detail, writable
    read_only = by_name(run_checks(make_config(db_path=str(path), read_only=True)))["index"]
    assert not read_only.ok and "no index yet" in read_only.detail, read_only
    assert "upgrade" not in (read_only.fix or "") and "without --read-only" in (read_only.fix or ""), read_only
