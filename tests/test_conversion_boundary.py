"""What conversion hands the chunker from real office files, and what it keeps to itself:
DOCX titles and tables, and third-party warnings kept off the terminal and the MCP client."""

import io
import logging
import os
import subprocess
import sys
import threading
import warnings
import zipfile

import pytest
from conftest import FIXTURES
from pdf_maker import pdf_of_objects

from minirag.chunking.titles import choose_title
from minirag.ingest.convert import convert_file
from minirag.ingest.quiet import converting, not_a_parsers

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


def test_a_parsers_log_records_in_a_conversion_are_held_back_and_others_pass():
    parser = logging.makeLogRecord({"name": "pdfminer.pdffont", "levelno": logging.WARNING, "msg": "no FontBBox"})
    ours = logging.makeLogRecord({"name": "minirag.ingest.ocr", "levelno": logging.WARNING, "msg": "ours"})
    with converting("x.pdf"):
        assert not not_a_parsers(parser) and not_a_parsers(ours)
    assert not_a_parsers(parser)


def _pdf_font_without_a_box() -> bytes:
    """A page set in a font whose descriptor has no FontBBox: pdfminer logs a warning for each use."""
    text = b"BT /F1 12 Tf 72 720 Td (Boxless) Tj ET"
    objects = [b"<< /Type /Catalog /Pages 2 0 R >>", b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
               b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
               b"/Resources << /Font << /F1 5 0 R >> >> >>",
               b"<< /Length %d >>\nstream\n%s\nendstream" % (len(text), text),
               b"<< /Type /Font /Subtype /TrueType /BaseFont /NoBoxSans "
               b"/FontDescriptor << /Type /FontDescriptor /FontName /NoBoxSans /Flags 32 >> >>"]
    return pdf_of_objects(objects)


def _docx_without_text() -> bytes:
    """bs4 logs "Some characters could not be decoded" for the empty HTML mammoth makes of it."""
    with io.BytesIO() as out:
        with zipfile.ZipFile(DOCS / "docx_plain_paragraphs.docx") as source, zipfile.ZipFile(out, "w") as target:
            for member in source.infolist():
                part = source.read(member)
                if member.filename == "word/document.xml":
                    part = part[:part.index(b"<w:body>")] + b"<w:body></w:body></w:document>"
                target.writestr(member, part)
        return out.getvalue()


@pytest.mark.slow
def test_a_verbose_sync_shows_no_parsers_log_lines(tmp_path, model_dir):
    """The converter process's stderr reaches the terminal under -v: pdfminer's "Could not get FontBBox"
    and bs4's "Some characters could not be decoded" (a false alarm: the text is empty) came through
    bare, naming no file."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "boxless.pdf").write_bytes(_pdf_font_without_a_box())
    (docs / "empty.docx").write_bytes(_docx_without_text())
    env = {k: v for k, v in os.environ.items() if k not in ("BASE_DIR", "BASE_DIRS", "DB_PATH", "MODEL_NAME")}
    env.update({"MODEL_PATH": str(model_dir), "BASE_DIR": str(docs), "DB_PATH": str(tmp_path / "i.db")})
    done = subprocess.run([sys.executable, "-m", "minirag", "sync", "-v", "--progress-interval", "3600"],
                          capture_output=True, text=True, env=env, cwd=docs, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "FontBBox" not in done.stderr and "could not be decoded" not in done.stderr, done.stderr
    assert all(line.startswith(("minirag:", "warn:")) for line in done.stderr.splitlines()), done.stderr
