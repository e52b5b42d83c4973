"""Edge results found by trying minirag as a new user (issue 32, items 5 and 8): each was a wrong
answer, a misleading message or a leftover, and each is pinned here on a real index."""

from __future__ import annotations

import json
import shutil

from conftest import write

from minirag.cli import main
from minirag.doctor import Check, DoctorReport, format_checks
from minirag.results import hit_dict, payload
from minirag.search.fusion import Hit

OTTERS = "# Otters\n\nSea otters hold hands while they sleep so they do not drift apart."


def _flags(docs, tmp_path, model_path):
    return ["--base-dir", str(docs), "--db-path", str(tmp_path / "i.db"), "--model-path", model_path]


def test_keyword_only_search_under_a_distance_cap_keeps_the_hits_within_it(make_app, docs):
    write(docs / "otters.md", OTTERS)
    app = make_app({"RAG_HYBRID_WEIGHT": "1", "RAG_MAX_DISTANCE": "2"})
    app.sync()
    hits = payload(app.query("otters sleep"))["results"]
    assert hits and all(h["distance"] is not None and h["distance"] <= 2 for h in hits)


def test_no_results_under_a_distance_cap_names_the_cap_not_an_empty_index(docs, tmp_path, model_path, capsys,
                                                                           monkeypatch):
    write(docs / "otters.md", OTTERS)
    assert main(["sync", *_flags(docs, tmp_path, model_path)]) == 0
    monkeypatch.setenv("RAG_MAX_DISTANCE", "0")
    capsys.readouterr()
    assert main(["query", "volcanic geology of the moon", *_flags(docs, tmp_path, model_path)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("no results within RAG_MAX_DISTANCE=0 (a cosine distance, 0 to 2)")
    assert "is anything indexed" not in out


def test_global_flags_before_the_command_are_the_commands_flags(docs, tmp_path, model_path, capsys):
    write(docs / "otters.md", OTTERS)
    assert main([*_flags(docs, tmp_path, model_path), "sync"]) == 0
    assert main(["--json", *_flags(docs, tmp_path, model_path), "list"]) == 0
    out = capsys.readouterr().out
    assert json.loads(out[out.index("{"):])["files"][0]["source"] == str(docs / "otters.md")


def test_ingesting_a_path_that_does_not_exist_says_so(docs, tmp_path, model_path, capsys):
    nope = tmp_path / "nope"  # outside the root, and absent: absence is what matters
    assert main(["ingest", str(nope), *_flags(docs, tmp_path, model_path)]) == 1
    assert capsys.readouterr().err == f"minirag: error: no such file or directory: {nope}\n"


def test_ingesting_a_url_names_the_command_that_fetches_one(docs, tmp_path, model_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(["ingest", "https://example.com/page", *_flags(docs, tmp_path, model_path)]) == 1
    assert capsys.readouterr().err == (f"minirag: error: no such file or directory: {tmp_path}/https:/example.com/page"
                                       " (to fetch a URL: minirag ingest-url URL)\n")


def test_a_sync_that_fails_for_lack_of_a_model_leaves_no_index_folder(docs, tmp_path, capsys):
    empty = tmp_path / "no-model"
    empty.mkdir()
    write(docs / "otters.md", OTTERS)
    assert main(["sync", "--base-dir", str(docs), "--model-path", str(empty)]) == 1
    assert "minirag: error:" in capsys.readouterr().err
    assert not (docs / ".minirag").exists()


def test_another_model_path_is_named_as_a_folder_not_as_a_model_that_was_named(docs, tmp_path, model_path,
                                                                                 model_dir, capsys):
    write(docs / "otters.md", OTTERS)
    assert main(["sync", *_flags(docs, tmp_path, model_path)]) == 0
    other = tmp_path / "other-model"
    shutil.copytree(model_dir, other)
    (other / "minirag-model.json").write_text(json.dumps({"model_id": "local:other-model", "max_length": 256}))
    capsys.readouterr()
    flags = ["--base-dir", str(docs), "--db-path", str(tmp_path / "i.db"), "--model-path", str(other)]
    assert main(["query", "otters", *flags]) == 1
    err = capsys.readouterr().err
    assert f"but MODEL_PATH {other} holds local:other-model;" in err and "was named" not in err


def test_a_distance_that_rounds_to_zero_is_never_negative_zero():
    hit = Hit(1, "/d/a.md", "file", "A", 0, "text", 1.0, -1e-9, 1, None, None)
    assert str(hit_dict(hit)["distance"]) == "0.0"


def test_data_without_a_title_has_a_null_title(app):
    assert payload(app.ingest_data("just some words without a heading", "notes/plain"))["title"] is None


def test_one_failed_check_is_one_check():
    result = DoctorReport(False, "x", "3", (Check("model", False, "missing", "build it"),))
    assert format_checks(result).endswith("\n1 check failed")


def test_a_read_only_server_on_an_explicit_index_needs_no_root_even_started_from_slash(
        docs, tmp_path, model_path, capsys, monkeypatch):
    write(docs / "otters.md", OTTERS)
    db = str(tmp_path / "i.db")
    assert main(["sync", *_flags(docs, tmp_path, model_path)]) == 0
    monkeypatch.chdir("/")  # as systemd starts it; cron starts in the home folder, refused the same way
    for name in ("BASE_DIR", "BASE_DIRS"):
        monkeypatch.delenv(name, raising=False)
    capsys.readouterr()
    ro = ["--read-only", "--db-path", db, "--model-path", model_path, "--json"]
    assert main(["query", "otters sleeping", *ro]) == 0
    assert json.loads(capsys.readouterr().out)["results"][0]["source"] == str(docs / "otters.md")
    assert main(["read", str(docs / "otters.md"), *ro]) == 0
    assert "hold hands" in json.loads(capsys.readouterr().out)["text"]
    assert main(["list", *ro]) == 0
    assert [f["state"] for f in json.loads(capsys.readouterr().out)["files"]] == ["indexed"]
    assert main(["status", *ro]) == 0
    assert json.loads(capsys.readouterr().out)["roots"] == []
    assert main(["query", "otters", "--db-path", db, "--model-path", model_path]) == 1  # writable: a root is needed
    assert "no document root was set" in capsys.readouterr().err


def test_the_replica_and_backup_recipes_run_as_written_on_a_stock_system():
    from conftest import ROOT

    for page in ("docs/scale.md", "docs/backups.md"):
        text = (ROOT / page).read_text()
        assert "minirag[litestream]" not in text  # an extra of a package that is not on PyPI yet
        # Stock Debian has python3 and no `python`: commands say python3, or run through uv.
        assert not [line for line in text.splitlines() if "python " in line.replace("uv run python ", "")
                    .replace("python3 ", "")], page


def test_list_has_a_header_and_names_what_it_leaves_out_for_its_type(docs, tmp_path, model_path, capsys):
    write(docs / "otters.md", OTTERS)
    write(docs / "data.gz", "not text")
    write(docs / "notes.pages", "Notes\n=====\n")
    assert main(["sync", *_flags(docs, tmp_path, model_path)]) == 0
    capsys.readouterr()
    assert main(["list", *_flags(docs, tmp_path, model_path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "STATE         CHUNKS  SOURCE"
    assert lines[1].split() == ["indexed", "1", str(docs / "otters.md")]
    assert lines[2] == "left out, not a supported type: 1 .gz, 1 .pages"


def test_the_default_model_without_a_hub_is_one_command_named_by_the_error_and_doctor(make_config, tmp_path,
                                                                                        monkeypatch):
    import pytest
    from conftest import ROOT

    from minirag.config import DEFAULT_MODEL
    from minirag.doctor import run_checks
    from minirag.errors import ModelUnavailable
    from minirag.models import DEFAULT_MODEL_BUILD, resolve

    assert (ROOT / DEFAULT_MODEL_BUILD).is_file()
    assert f"    {DEFAULT_MODEL_BUILD} [OUT_DIR]" in (ROOT / "scripts/e5_small/README.md").read_text()
    assert "minirag-test-models" not in (ROOT / DEFAULT_MODEL_BUILD).read_text()
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(ModelUnavailable, match=f"hub is unreachable.*run `{DEFAULT_MODEL_BUILD}` in minirag's source"):
        resolve(DEFAULT_MODEL, None, tmp_path / "empty-cache")
    config = make_config({"CACHE_DIR": str(tmp_path / "empty-cache")}, model_path=None)
    model = next(c for c in run_checks(config).checks if c.name == "model")
    assert not model.ok and DEFAULT_MODEL_BUILD in model.fix
