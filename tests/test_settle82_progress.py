"""A conversion's worker tells its parent of each piece it has done (a PDF's pages), and the stdio
server, its client's stdin closed, counts each as work ended (in_flight.settled): a piped ingest_file
of one PDF whose reading took longer than SETTLE_S was cancelled, its answer lost, though it was
reading page after page. One that stops making progress (a page that hangs) is still given up on."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import time
from pathlib import Path

import pytest
from pdf_maker import make_pdf
from test_server_stdio import CONFIG_VARS, TIMEOUT_S, RawServer

from minirag import interruptible
from minirag.errors import ConversionFailed
from minirag.ingest.isolation import ConversionStopped, ConverterPool, Limits

# The patience the tests' servers settle with: short, so that a reading several times as long is short too.
SETTLE_S = 2.0
PAGE_S = 0.2  # each page's reading slowed by this, in the worker
PAGES = 20  # read in PAGES * PAGE_S: twice SETTLE_S

# The stdio server, settling with the tests' patience.
SERVE = """import os
import sys
import minirag.in_flight as in_flight
from minirag.cli import main
in_flight.SETTLE_S = float(os.environ["TEST_SETTLE_S"])
sys.exit(main())"""

# Put on the module path of the server and of its converter workers (PYTHONPATH): each page pdfminer
# reads waits TEST_PAGE_S first; the TEST_HANG_AT_PAGE-th page a process reads never ends (10 minutes).
SLOW_PAGES = """import os
if os.environ.get("TEST_PAGE_S"):
    import threading
    from pdfminer.pdfinterp import PDFPageInterpreter
    real = PDFPageInterpreter.process_page
    read = [0]
    def process_page(self, page):
        read[0] += 1
        threading.Event().wait(600 if read[0] == int(os.environ.get("TEST_HANG_AT_PAGE", "0")) else
                               float(os.environ["TEST_PAGE_S"]))
        return real(self, page)
    PDFPageInterpreter.process_page = process_page
"""

# Put on the module path of a converter worker: each request floods its parent with OCR's page frames.
FLOODING = """import os
if os.environ.get("TEST_FLOOD"):
    from minirag.ingest import convert, ocr
    real = convert.convert_document
    def flooding(*args, **kwargs):
        tell = ocr.PAGE_LISTENER.get()
        for _ in range(1_000_000):
            tell(1, 1)
        return real(*args, **kwargs)
    convert.convert_document = flooding
"""


def _long_pdf() -> bytes:
    return make_pdf([[f"Page {n} of the tide tables.", f"High water at {n} o'clock, low water six hours later."]
                     for n in range(1, PAGES + 1)])


def piped_ingest(tmp_path: Path, model_path: str, slowed: str, name: str, data: bytes,
                 env: dict[str, str]) -> tuple[RawServer, Path]:
    """A stdio server whose converter worker runs `slowed` (a sitecustomize), asked to ingest `name`
    (`data`) right before its stdin closes; `env` adds to the server's environment."""
    docs, hook = tmp_path / "docs", tmp_path / "hook"
    docs.mkdir()
    hook.mkdir()
    (hook / "sitecustomize.py").write_text(slowed, encoding="utf-8")
    (docs / "tides.md").write_text("# Tides\n\nThe moon's gravity raises two tidal bulges a day.\n")
    (docs / name).write_bytes(data)
    env = {k: v for k, v in os.environ.items() if k not in CONFIG_VARS} | {
        "MODEL_PATH": model_path, "BASE_DIR": str(docs), "DB_PATH": str(tmp_path / "index.db"),
        "TEST_SETTLE_S": str(SETTLE_S), **env,
        "PYTHONPATH": os.pathsep.join([str(hook), str(Path(__file__).parent.parent)])}
    server = RawServer(env, run=("-c", SERVE))
    server.initialize()
    # A worker started, and the model loaded, before stdin closes: a start makes no progress to tell.
    assert server.call("ingest_file", filePath=str(docs / "tides.md"))["isError"] is False
    server.send({"id": Path(name).suffix[1:], "method": "tools/call",
                 "params": {"name": "ingest_file", "arguments": {"filePath": str(docs / name)}}})
    server.proc.stdin.close()
    return server, docs


def _server(tmp_path: Path, model_path: str, **hooks: str) -> tuple[RawServer, Path]:
    return piped_ingest(tmp_path, model_path, SLOW_PAGES, "tables.pdf", _long_pdf(),
                        {"TEST_PAGE_S": str(PAGE_S), **hooks})


def _answers_until_it_ends(server: RawServer) -> tuple[list[dict], str]:
    try:
        server.proc.wait(TIMEOUT_S)
    finally:
        if server.proc.poll() is None:
            server.proc.kill()
            server.proc.wait()
    server.read_to_end()
    answers = []
    while True:
        try:
            answers.append(json.loads(server.lines.get_nowait()))
        except queue.Empty:
            break
    return answers, server.proc.stderr.read().decode()


@pytest.mark.skipif(sys.platform == "win32", reason="sitecustomize on PYTHONPATH, as on POSIX")
def test_settle82_a_piped_ingest_of_a_pdf_read_longer_than_settle_s_is_answered(tmp_path, model_path):
    server, _docs = _server(tmp_path, model_path)
    answers, stderr = _answers_until_it_ends(server)
    assert [answer["id"] for answer in answers] == ["pdf"], (answers, stderr)
    assert answers[0].get("result", {}).get("isError") is False, (answers, stderr)
    assert answers[0]["result"]["structuredContent"]["chunkCount"] >= 1, answers
    assert server.proc.returncode == 0 and "Traceback" not in stderr, stderr


@pytest.mark.skipif(sys.platform == "win32", reason="sitecustomize on PYTHONPATH, as on POSIX")
def test_settle82_a_piped_ingest_of_a_pdf_whose_reading_hangs_is_still_cancelled(tmp_path, model_path):
    server, _docs = _server(tmp_path, model_path, TEST_HANG_AT_PAGE="5")
    answers, stderr = _answers_until_it_ends(server)
    assert answers == [{"jsonrpc": "2.0", "id": "pdf", "error": {"code": -32000, "message": "Connection closed"}}], \
        (answers, stderr)  # the SDK's answer to a call it cancelled as stdin closed
    assert server.proc.returncode == 0 and "Traceback" not in stderr, stderr


def test_settle82_a_worker_that_floods_its_parent_with_reports_is_stopped(tmp_path, monkeypatch):
    """Each report is a read for the parent's converting thread: a worker sending them without end
    (a converter gone wrong, or steered by a hostile file) is stopped, its file failed in one line."""
    hook = tmp_path / "hook"
    hook.mkdir()
    (hook / "sitecustomize.py").write_text(FLOODING, encoding="utf-8")
    monkeypatch.setenv("TEST_FLOOD", "1")
    monkeypatch.syspath_prepend(str(hook))  # the workers' PYTHONPATH is this process's module path
    pool = ConverterPool(max_workers=1)
    try:
        with pytest.raises(ConversionFailed, match="progress reports faster than any conversion"):
            pool.run("document", (b"# Tides\n", ".md", "tides.md"), "tides.md", Limits(512, 60, 60))
    finally:
        pool.close()


# Put on the module path of a converter worker: each request tells of a page, then of REPORTS_LEFT more
# once its parent has stopped the run (TEST_LEFT_REPORTS is made once they are all in the pipe), then hangs.
LEFT_REPORTS = """import os
if os.environ.get("TEST_LEFT_REPORTS"):
    import threading
    from minirag.ingest import convert, ocr
    def reporting_after_the_stop(*args, **kwargs):
        tell = ocr.PAGE_LISTENER.get()
        tell(1, 2)
        for _ in range(int(os.environ["TEST_REPORTS_LEFT"])):
            tell(2, 2)
        open(os.environ["TEST_LEFT_REPORTS"], "w").close()
        threading.Event().wait(600)
    convert.convert_document = reporting_after_the_stop
"""
REPORTS_LEFT = 200


def test_settle82_reports_a_stopped_worker_left_in_its_pipe_are_not_counted(tmp_path, monkeypatch):
    """The reports a worker wrote before its run was stopped, read as its pipe drains after the kill,
    are no work going on: counted, they kept a stdio server waiting on a call already given up."""
    hook, written = tmp_path / "hook", tmp_path / "written"
    hook.mkdir()
    (hook / "sitecustomize.py").write_text(LEFT_REPORTS, encoding="utf-8")
    monkeypatch.setenv("TEST_LEFT_REPORTS", str(written))
    monkeypatch.setenv("TEST_REPORTS_LEFT", str(REPORTS_LEFT))
    monkeypatch.syspath_prepend(str(hook))
    bound = interruptible.RunBound(None)
    told: list[tuple[int, int]] = []

    def on_page(page: int, pages: int) -> None:
        told.append((page, pages))
        if len(told) == 1:  # the others in the pipe by now: the run is stopped behind them
            deadline = time.monotonic() + TIMEOUT_S
            while not written.exists():
                assert time.monotonic() < deadline, "the worker never wrote its reports"
                time.sleep(0.05)
            counted = interruptible.steps()
            bound.stop("was stopped: the test stopped it")
            told.append((counted, 0))

    pool = ConverterPool(max_workers=1)
    try:
        with interruptible.bounded(bound), pytest.raises(ConversionStopped):
            pool.run("document", (b"# Tides\n", ".md", "tides.md"), "tides.md", Limits(512, 60, 60), on_page=on_page)
    finally:
        pool.close()
    counted = told[1][0]
    assert told[0] == (1, 2) and told[2:] == [], told  # none of those read after the stop shown
    assert interruptible.steps() - counted <= 1, "reports read after the stop were counted as work going on"


def test_settle82_a_progress_report_is_counted_as_work_ended_and_a_malformed_one_fails_only_that_file():
    from test_ocr import answered

    text = b'{"markdown": "text", "title": null, "warnings": [], "note": "", "frontmatter": false, "rows": null}'
    before = interruptible.steps()
    assert answered([b'{"progress": 1}', b'{"progress": 7}', text]).markdown == "text"
    assert interruptible.steps() - before >= 2
    for frame in (b'{"progress": 0}', b'{"progress": "1"}', b'{"progress": true}', b'{"progress": 1, "of": 2}',
                  b'{"progress": 1.5}', b'{"progress": 1, "page": 1, "pages": 2}'):
        with pytest.raises(ConversionFailed, match=r"^/d/x.pdf: the converter sent something unreadable; stopped$"):
            answered([frame, text])


# The stdio server, each ingest_file call stuck where no stop reaches (a lock, a hung mount), and quick
# to give up on it: a cancelled call's stopped thread is waited for STOPPED_WITHIN_S.
SERVE_STUCK_WRITE = """import sys
import threading
import minirag.in_flight as in_flight
import minirag.server as server
from minirag.app import App
from minirag.cli import main
in_flight.SETTLE_S = 1.0
server.STOPPED_WITHIN_S = 1.0
never = threading.Event()
def stuck(self, *args, **kwargs):
    print("stuck", file=sys.stderr, flush=True)
    never.wait(600)
App.ingest_file = stuck
sys.exit(main())"""


@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT to a child process")
@pytest.mark.parametrize("how", ["stdin closed", "Ctrl-C"])
def test_settle82_a_cancelled_write_call_stuck_where_no_stop_reaches_does_not_hold_the_server(tmp_path, model_path, how):
    """stoppable waited for a cancelled write call's thread to end, shielded, with no bound: a call
    stuck in a wait its stop does not reach held the server's end for ever, after stdin closed and
    after Ctrl-C alike."""
    import signal

    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "tides.md").write_text("# Tides\n")
    env = {k: v for k, v in os.environ.items() if k not in CONFIG_VARS} | {
        "MODEL_PATH": model_path, "BASE_DIR": str(docs), "DB_PATH": str(tmp_path / "index.db"),
        "PYTHONPATH": str(Path(__file__).parent.parent)}
    server = RawServer(env, run=("-c", SERVE_STUCK_WRITE))
    try:
        server.initialize()
        server.send({"id": "stuck", "method": "tools/call",
                     "params": {"name": "ingest_file", "arguments": {"filePath": str(docs / "tides.md")}}})
        while b"stuck" not in (said := server.proc.stderr.readline()):
            assert said, "the server ended before the call began"
        if how == "stdin closed":
            server.proc.stdin.close()
        else:
            server.proc.send_signal(signal.SIGINT)
        server.proc.wait(TIMEOUT_S)
    except subprocess.TimeoutExpired:
        pytest.fail(f"the server, {how}, waited on for a call stuck where its stop does not reach")
    finally:
        if server.proc.poll() is None:
            server.proc.kill()
            server.proc.wait()
    stderr = server.proc.stderr.read().decode()
    assert server.proc.returncode == (0 if how == "stdin closed" else 130), stderr
    assert "went on 1 s after it was stopped" in stderr and "Traceback" not in stderr, stderr


def test_settle82_a_pdf_tells_each_page_and_a_workbook_each_sheet_as_they_are_read():
    import io

    import xlsxwriter

    from minirag.ingest import conversion_progress
    from minirag.ingest.convert import convert_document

    book = io.BytesIO()
    with xlsxwriter.Workbook(book) as workbook:
        for name in ("Spring", "Neap", "Storm"):
            workbook.add_worksheet(name).write("A1", f"{name} tides")
    told: list[str] = []
    token = conversion_progress.LISTENER.set(lambda: told.append("piece"))
    try:
        convert_document(_long_pdf(), ".pdf", "tables.pdf")
        pdf_pieces = len(told)
        convert_document(book.getvalue(), ".xlsx", "tides.xlsx")
    finally:
        conversion_progress.LISTENER.reset(token)
    assert (pdf_pieces, len(told) - pdf_pieces) == (PAGES, 3)
