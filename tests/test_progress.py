"""Progress of long runs: the count moves inside one large file, the line has a rate and an ETA,
it shows at once on a terminal and every few seconds when stderr is a pipe, -v names each file,
and --strict fails a sync whose only failures are files that failed before."""

from __future__ import annotations

import io
import json
import sys
import time
from collections import Counter

import pytest
from conftest import write
from test_watch import eventually

from minirag import cli_output
from minirag.cli import main
from minirag.display import display_width
from minirag.ingest.progress import Progress, duration
from minirag.results import payload


def _long_document(paragraphs: int) -> str:
    return "# Chapter\n\n" + "\n\n".join(
        f"Paragraph {i} tells of lighthouse keeper number {i}, the storms of year {1800 + i} and the "
        f"ships that passed the rocks at night, each with its own cargo and crew of {i % 17 + 3}."
        for i in range(paragraphs))


def test_the_count_moves_per_encoder_batch_inside_one_large_file(app, docs):
    write(docs / "chapter.md", _long_document(300))
    seen = []
    progress = app.ingest_paths([str(docs / "chapter.md")],
                                on_change=lambda p: seen.append((p.done, p.chunks_embedded, p.bytes_partial)))
    inside = [embedded for done, embedded, partial in seen if done == 0 and embedded and partial]
    assert len(set(inside)) >= 2, seen  # it moved more than once before the file was done
    assert progress.chunks_embedded == progress.chunks_written > 64
    line = progress.live_line()
    assert line.startswith(f"[1/1 file] {progress.chunks_embedded} chunks embedded, ") and "chunks/s" in line
    status = payload(progress)
    assert status["chunksEmbedded"] == progress.chunks_embedded and status["chunksPerSecond"] > 0


def test_the_eta_comes_from_the_share_of_bytes_done():
    progress = Progress(total=4, bytes_total=1000, bytes_done=200, bytes_partial=50.0)
    progress.started = time.monotonic() - 10
    assert progress.eta_seconds() == 30  # 250 bytes in 10 s: 750 left take 30 s
    assert "ETA 30 s" in progress.live_line()
    assert Progress().live_line().startswith("loading the model (")
    assert Progress(stage="looking for files").live_line().startswith("looking for files (")
    assert (duration(45), duration(200), duration(7500)) == ("45 s", "3 min 20 s", "2 h 5 min")


def test_the_eta_runs_from_when_the_walk_found_the_files_not_from_the_model_load():
    """A 27-file sync that took 2.6 min said "ETA 1 h 9 min" at first: the minute spent loading the
    model counted as work on the first file's bytes."""
    progress = Progress(bytes_total=1000)
    progress.started = time.monotonic() - 100  # loading the model, then walking
    progress.found(4)
    progress.work_started -= 10
    progress.bytes_done, progress.bytes_partial = 200, 50.0
    assert progress.total == 4 and progress.eta_seconds() == 30  # 250 bytes in 10 s of work
    progress.found(2)  # a second walk (another root) adds files, not a new start
    assert progress.total == 6 and progress.eta_seconds() == 30


def test_no_eta_is_guessed_from_the_first_few_percent_of_the_bytes_in_the_first_half_minute():
    """A 119-file sync that took 58 s said `ETA 23 min 1 s`, then `ETA 38 min 9 s`, 2 and 4 s in: one
    small file of the 119 done, the time of the first conversions and encoder batches spread over all."""
    progress = Progress(bytes_total=1000)
    progress.found(119)
    progress.work_started -= 4
    progress.bytes_done = 10  # 1% in 4 s
    assert progress.eta_seconds() is None and "ETA" not in progress.live_line()
    progress.bytes_done = 60  # 6%: enough to go by
    assert progress.eta_seconds() in (63, 64)  # a second more where the machine is slow between lines
    progress.bytes_done, progress.work_started = 10, progress.work_started - 36  # 1% in 40 s: a long run
    assert progress.eta_seconds() in (3960, 3961)


def test_counts_say_one_file_and_one_chunk():
    assert Progress(seen=1, done=1, chunks_written=1, chunks_embedded=1).counts() == (
        "1 file: 1 ingested, 0 unchanged, 0 removed, 0 failed; 1 chunk (1 embedded, 0 reused)")


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_on_a_terminal_the_line_shows_at_once_before_any_change(monkeypatch):
    terminal = _Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    display = cli_output.ProgressLine()
    display.start(Progress())
    try:
        eventually(lambda: "loading the model (0 s)" in terminal.getvalue(), what="the first line")
    finally:
        display.close()
    assert terminal.getvalue().endswith("\r\x1b[K")  # cleared for the summary


def test_on_a_narrow_terminal_the_line_is_cut_to_its_width_so_each_redraw_stays_on_one_row(monkeypatch):
    terminal = _Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    monkeypatch.setenv("COLUMNS", "40")
    progress = Progress(total=300, done=266, chunks_embedded=3069,
                        current="/home/someone/projects/handbook/chapters/" + "界" * 30 + ".md")
    display = cli_output.ProgressLine()
    display._draw(progress)
    display._draw(progress)
    rows = terminal.getvalue().split("\r\x1b[K")[1:]
    assert len(rows) == 2 and rows[0] == rows[1] and rows[0].startswith("[266/300 files] ")
    assert all(display_width(row) < 40 for row in rows), rows  # the last column left free: no wrap


def test_on_an_80_column_terminal_the_file_in_hand_shows_its_name_whatever_its_folders(monkeypatch):
    # Its first 49 characters were kept, then the whole line cut to the width: `…  /tmp/explore…`.
    terminal = _Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    monkeypatch.setenv("COLUMNS", "80")
    progress = Progress(total=507, done=2, chunks_embedded=555,
                        current="/tmp/explore64/corpus/handbook/en-US/html/sect.scheduling-tasks.html")
    cli_output.ProgressLine()._draw(progress)
    row = terminal.getvalue().split("\r\x1b[K")[-1]
    assert row.startswith("[2/507 files] 555 chunks embedded") and row.endswith("/sect.scheduling-tasks.html"), row
    assert display_width(row) < 80
    monkeypatch.setenv("COLUMNS", "50")  # no room for a useful part of it: the counts alone
    cli_output.ProgressLine()._draw(progress)
    assert "explore64" not in terminal.getvalue().split("\r\x1b[K")[-1]


def test_when_stderr_is_a_pipe_a_plain_line_is_written_every_interval(monkeypatch):
    pipe = io.StringIO()
    monkeypatch.setattr(sys, "stderr", pipe)
    progress = Progress(total=3)
    display = cli_output.ProgressLine(interval=0.05)
    display.start(progress)
    try:
        eventually(lambda: pipe.getvalue().count("\n") >= 2, what="two plain lines")
    finally:
        display.close()
    lines = pipe.getvalue().splitlines()
    assert all(line.startswith("minirag: ") and "[0/3 files] 0 chunks embedded" in line for line in lines)
    assert "\r" not in pipe.getvalue() and "\x1b" not in pipe.getvalue()


def _flags(docs, tmp_path, model_path):
    return ["--base-dir", str(docs), "--db-path", str(tmp_path / "i.db"), "--model-path", model_path]


def test_verbose_names_each_finished_file_and_the_time_of_each_stage(docs, tmp_path, model_path, capsys,
                                                                     caplog):
    write(docs / "a.md", "# A\n\nApples.")
    write(docs / "b.md", "# B\n\nBananas.")
    assert main(["sync", *_flags(docs, tmp_path, model_path)]) == 0
    assert "ingested" not in caplog.text and "embed " not in capsys.readouterr().err
    write(docs / "c.md", "# C\n\nCherries.")
    assert main(["sync", "-v", *_flags(docs, tmp_path, model_path)]) == 0
    assert f"ingested {docs / 'c.md'} (1 chunk)" in caplog.text
    assert "embed " in capsys.readouterr().err


def test_strict_fails_a_sync_whose_only_failures_failed_before(docs, tmp_path, model_path, capsys):
    (docs / "bad.pdf").write_bytes(b"%PDF-1.4 not really a pdf")
    flags = _flags(docs, tmp_path, model_path)
    assert main(["sync", *flags]) == 1
    capsys.readouterr()
    assert main(["sync", *flags]) == 0  # still failing, unchanged: reported when it failed
    hint = capsys.readouterr().err  # but a user who raised a conversion limit since needs the way to retry
    assert hint == ("minirag: 1 file still failing, not tried again (the same bytes failed before): "
                    "`minirag list` says why; `minirag ingest PATH` tries again\n")
    assert main(["sync", "--strict", *flags]) == 1
    assert "1 still failing" in capsys.readouterr().out

def test_a_progress_interval_outside_one_second_to_a_day_is_refused_before_anything_runs(docs, tmp_path, model_path,
                                                                                        capsys):
    """Infinity overflowed the timer in a thread's traceback; 1e-9 wrote a line per wake-up, flooding
    stderr (and a log) with millions of lines a minute."""
    flags = _flags(docs, tmp_path, model_path)
    for interval in ("0", "1e-9", "0.5", "-3", "inf", "1e400", "nan", "soon"):
        with pytest.raises(SystemExit) as stopped:
            main(["sync", "--progress-interval", interval, *flags])
        err = capsys.readouterr().err
        assert stopped.value.code == 2 and err.count("\n") == 1, err
        assert err.startswith("minirag: error: argument --progress-interval: must be a number of seconds from 1 to "
                              f"86400, got {interval!r}"), err
    assert not (tmp_path / "i.db").exists()
    assert main(["sync", "--progress-interval", "1", *flags]) == 0


@pytest.mark.parametrize(("failed", "still", "said"), [
    (3, 0, "0 removed, 3 failed; 0 chunks"),
    (0, 3, "0 removed, 0 failed; 3 still failing (unchanged since they failed); 0 chunks"),
    (0, 1, "0 removed, 0 failed; 1 still failing (unchanged since it failed); 0 chunks"),
    (3, 3, "0 removed, 3 failed; 3 others still failing (unchanged since they failed); 0 chunks"),
    (2, 1, "0 removed, 2 failed; 1 other still failing (unchanged since it failed); 0 chunks"),
])
def test_counts_tell_new_failures_from_those_still_failing(failed, still, said):
    """`3 failed (3 still failing, unchanged)` read as if the 3 that failed were the old ones."""
    progress = Progress(seen=failed + still, failed=failed, still_failing=still)
    assert progress.counts().endswith(said), progress.counts()


def test_a_suffix_of_digits_is_no_type_and_a_few_other_types_are_named():
    """`Apache-2.0`, `LGPL-2.1` are versions, not types `.0` and `.1`; and `2 of 2 other types` hid
    which they were."""
    progress = Progress(other_types=Counter({".rst": 14, "": 10, ".gz": 10, ".0": 3, ".1": 2, ".2": 1,
                                             ".tar": 4, ".zip": 3, ".bak": 2, ".exe": 1, ".iso": 1, ".xz": 1}))
    assert progress.other_types_line() == (
        "left out, not a supported type: 16 without a suffix, 14 .rst, 10 .gz, 4 .tar, 3 .zip, 2 .bak, "
        "1 .exe, 1 .iso, 1 .xz")
    progress.other_types[".jar"] = 1
    assert progress.other_types_line() == (
        "left out, not a supported type: 16 without a suffix, 14 .rst, 10 .gz, 4 .tar, 3 .zip, 2 .bak, "
        "4 files of 4 other types")
    assert Progress(other_types=Counter({".0": 1})).other_types_line() == (
        "left out, not a supported type: 1 without a suffix")


def test_a_sync_says_how_many_chunks_it_embedded_and_how_many_vectors_it_reused(docs, tmp_path, model_path,
                                                                                   run_cli):
    """`58 files: 1 ingested, ...; 54 chunks in 2.19 s` after `ingest --force` of an unchanged file:
    a user who re-synced could not tell whether the encoder ran (it had not: every vector was reused)."""
    write(docs / "chapter.md", _long_document(12))
    flags = _flags(docs, tmp_path, model_path)
    first = run_cli("sync", *flags)
    written = int(first.stdout.split("; ")[-1].split(" chunks")[0])
    assert first.returncode == 0 and f"; {written} chunks ({written} embedded, 0 reused) in " in first.stdout, first.stdout
    again = run_cli("ingest", "--force", docs / "chapter.md", *flags)
    assert f"; {written} chunks (0 embedded, {written} reused) in " in again.stdout, again.stdout
    shaped = run_cli("ingest", "--force", "--json", docs / "chapter.md", *flags)
    counts = json.loads(shaped.stdout)
    assert (counts["chunksWritten"], counts["chunksEmbedded"], counts["chunksReused"]) == (written, 0, written)
    unchanged = run_cli("sync", *flags)
    assert unchanged.stdout.startswith("1 file: 0 ingested, 1 unchanged, 0 removed, 0 failed; 0 chunks in ")


def test_a_background_sync_job_writes_its_live_line_to_the_log_while_it_runs(app, docs, caplog, monkeypatch):
    """The server's sync jobs report where a client's MCP log view shows them, as `minirag sync` does
    to a pipe: a line at the start, the live line every interval, and the counts at the end."""
    from minirag.ingest import run_log

    monkeypatch.setattr(run_log, "LOG_EVERY_S", 0.01)
    write(docs / "chapter.md", _long_document(300))
    with caplog.at_level("WARNING"):
        job = app.start_sync()
        assert job.wait(120)
    said = [r.getMessage() for r in caplog.records if r.getMessage().startswith(job.job_id)]
    assert said[0] == f"{job.job_id}: syncing every root"
    assert any(line.startswith(f"{job.job_id}: [") and "chunks embedded" in line for line in said[1:-1]), said
    assert said[-1].startswith(f"{job.job_id} succeeded: 1 file: 1 ingested") and said[-1].endswith(" s")


def test_a_file_name_holding_a_line_break_cannot_break_the_live_line_or_forge_one(monkeypatch):
    """The file in hand (and the one under OCR) is named in the live line: a line break in its name
    moved the terminal's cursor down, past the reach of the next redraw's `\\r\\x1b[K`, and on a pipe
    wrote a line of the name's own (`minirag: error: ...`)."""
    name = "/docs/a.pdf\nminirag: error: the index is damaged; run rm -rf ~\n\tb\u200b.pdf"
    terminal = _Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    monkeypatch.setenv("COLUMNS", "200")
    progress = Progress(total=3, current=name, ocr_page=(name, 1, 2))
    cli_output.ProgressLine()._draw(progress)
    pipe = io.StringIO()
    monkeypatch.setattr(sys, "stderr", pipe)
    cli_output.ProgressLine()._plain(progress)
    for shown in (terminal.getvalue(), pipe.getvalue().rstrip("\n")):
        assert "\n" not in shown and "\t" not in shown and "\u200b" not in shown, shown
        assert "a.pdf\\nminirag: error" in shown, shown
