"""What conversion hands the chunker from real office files, and what it keeps to itself:
DOCX titles and tables, and third-party warnings kept off the terminal and the MCP client."""

import os
import subprocess
import sys
import threading
import warnings

import pytest
from conftest import FIXTURES

from minirag.chunking.titles import choose_title
from minirag.ingest.convert import convert_file
from minirag.ingest.quiet import converting

DOCS = FIXTURES / "docs"
CHATTY_XLSX = DOCS / "xlsx_excel_chart_data.xlsx"  # openpyxl: "Unknown extension is not supported"


@pytest.mark.slow
def test_a_docx_title_paragraph_becomes_the_h1_and_so_the_title():
    converted = convert_file(DOCS / "docx_title_style_appetite.docx")
    assert converted.markdown.startswith("# Whetting Your Appetite\n")
    title = choose_title(converted.markdown, metadata_title=converted.metadata_title, stem="x")
    assert title == "Whetting Your Appetite"


@pytest.mark.slow
def test_a_docx_table_without_a_marked_header_row_keeps_its_first_row_as_the_header():
    markdown = convert_file(DOCS / "docx_plain_table_ubuntu_releases.docx").markdown
    table = [line for line in markdown.split("\n") if line.startswith("|")]
    assert table[0] == "| version | codename | series | created | release | eol |"
    assert table[1].startswith("| --- |")
    assert table[2].startswith("| 4.10 | Warty Warthog |")
    assert not any(set(line) <= set("| ") for line in table)


@pytest.mark.slow
def test_a_docx_with_a_marked_header_row_is_unchanged():
    markdown = convert_file(DOCS / "docx_headings_table.docx").markdown
    assert "| TOML | Python |\n| --- | --- |\n| table | dict |" in markdown


def test_parser_warnings_during_a_conversion_are_not_shown():
    with warnings.catch_warnings(record=True) as shown:
        warnings.simplefilter("always")
        convert_file(CHATTY_XLSX)
    assert [str(w.message) for w in shown] == []


def test_the_same_parser_warning_outside_a_conversion_is_shown():
    with warnings.catch_warnings(record=True) as shown:
        warnings.simplefilter("always")
        import openpyxl

        openpyxl.load_workbook(CHATTY_XLSX)
    assert any("not supported" in str(w.message) for w in shown)


def test_warnings_on_other_threads_during_a_conversion_are_still_shown():
    inside, done = threading.Event(), threading.Event()

    def convert():
        with converting("x"):
            inside.set()
            done.wait(10)

    with warnings.catch_warnings(record=True) as shown:
        warnings.simplefilter("always")
        worker = threading.Thread(target=convert)
        worker.start()
        inside.wait(10)
        warnings.warn("not from a conversion", UserWarning, stacklevel=1)
        done.set()
        worker.join()
    assert [str(w.message) for w in shown] == ["not from a conversion"]


@pytest.mark.slow
def test_sync_of_a_chatty_spreadsheet_prints_nothing_on_stderr(tmp_path, model_dir):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / CHATTY_XLSX.name).write_bytes(CHATTY_XLSX.read_bytes())
    env = {k: v for k, v in os.environ.items() if k not in ("BASE_DIR", "BASE_DIRS", "DB_PATH", "MODEL_NAME")}
    env.update({"MODEL_PATH": str(model_dir), "BASE_DIR": str(docs), "DB_PATH": str(tmp_path / "i.db"),
                "PYTHONWARNINGS": "default"})
    # A progress line is not chatter: on a loaded machine the sync may outlast the default interval.
    done = subprocess.run([sys.executable, "-m", "minirag", "sync", "--progress-interval", "3600"], capture_output=True,
                          text=True, env=env, cwd=docs, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    assert "1 ingested" in done.stdout
