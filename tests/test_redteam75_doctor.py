"""Red team 75: doctor's text report is one line per check (and one per fix). The `room` check names
SQLite's temporary folder as TMPDIR gives it, and the index's folder as DB_PATH does: a line break in
either forged a check line of its own (`[ok] ...` under a failure)."""

from __future__ import annotations

import pytest

from minirag.doctor import format_checks, run_checks


@pytest.mark.parametrize("variable", ["TMPDIR", "SQLITE_TMPDIR"])
def test_a_line_break_in_the_temporary_folder_forges_no_line_of_the_report(make_config, monkeypatch, tmp_path,
                                                                           variable):
    folder = tmp_path / "t\n[ok] forged: all fine\r[ok] again"
    folder.mkdir()
    monkeypatch.delenv("SQLITE_TMPDIR", raising=False)
    monkeypatch.setenv(variable, str(folder))
    report = run_checks(make_config())
    text = format_checks(report)
    lines = text.splitlines()
    assert not any("forged" in line and not line.startswith("[ok] room:") for line in lines), text
    assert len(lines) == len(report.checks) + 2 + sum(not c.ok for c in report.checks), text


def test_a_line_break_in_the_index_folder_forges_no_line_of_the_report(make_config, tmp_path):
    folder = tmp_path / "i\n[ok] forged: all fine"
    folder.mkdir()
    report = run_checks(make_config(db_path=str(folder / "index.db")))
    text = format_checks(report)
    assert not any(line.startswith("[ok] forged") for line in text.splitlines()), text
