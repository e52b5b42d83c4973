"""A hit in a spreadsheet names its sheet and its first and last rows, as the spreadsheet program
numbers them: in query results, read_chunk_neighbors, read_file pages, and the CLI."""

from __future__ import annotations

import gzip
import io
import re
import shutil
from pathlib import Path

import openpyxl
import pytest

from minirag.results import payload
from minirag.store import connection as db

REF = re.compile(r"\bR(\d+)\b")  # each cell of these sheets that names its own row: `R7005`


def _staff_sheet(rows: int) -> bytes:
    """A sheet shaped as readxl's deaths.xlsx: two title rows (the second of two cells), a blank
    row, the header on row 4, `rows` data rows, a blank row and a note. Each row's first cell names
    the row it is on."""
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "Staff"
    sheet.append(["Staff list R1"])
    sheet.append(["Exported from the HR system R2", None, None, "2024-03-01"])
    sheet.append([])
    sheet.append(["Ref", "Name", "Team", "Badge"])
    for n in range(rows):
        row = 5 + n
        sheet.append([f"R{row}", f"Person {n}", ["Sales", "Ops", "Legal"][n % 3], f"kx{row}q"])
    sheet.append([])
    sheet.append([f"Source: payroll export, checked by Ann R{rows + 6}"])
    other = book.create_sheet("Teams")
    other.append(["Team", "Lead"])
    other.append(["Sales", "R2 Mo"])
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


def _claimed_rows(text: str) -> list[int]:
    return [int(n) for n in REF.findall(text)]


@pytest.fixture(scope="module")
def staff(tmp_path_factory, tiny_model_dir, tiny_encoder):
    """The ten-thousand-row workbook, synced once into an index the tests below only read."""
    from minirag.app import App
    from minirag.config import load_config

    root = tmp_path_factory.mktemp("staff")
    docs = root / "docs"
    docs.mkdir()
    (docs / "staff.xlsx").write_bytes(_staff_sheet(10_000))
    app = App(load_config(env={}, base_dirs=[str(docs)], db_path=str(root / "index.db"),
                          model_path=str(tiny_model_dir)), encoder=tiny_encoder)
    assert app.sync().failed == 0
    yield app, docs / "staff.xlsx"
    app.close()


def test_every_chunk_of_a_ten_thousand_row_sheet_names_the_rows_its_text_holds(staff):
    app, path = staff
    source = str(path)
    count = app.index.source_row(source).chunk_count
    assert count > 100
    checked = 0
    for start in range(0, count, 21):
        window = payload(app.neighbors(source, start, 0, 20))
        for chunk in window["chunks"]:
            held = _claimed_rows(chunk["text"])
            first, _, last = chunk["rows"].partition("-")
            if chunk["sheet"] == "Teams":
                assert chunk["rows"] == "1-2"
                continue
            assert chunk["sheet"] == "Staff"
            # The chunk that holds the table's first row holds its header (row 4) as text; the
            # others repeat it as context.
            expected = (4 if min(held) == 5 else min(held), max(held))
            assert (int(first), int(last or first)) == expected, chunk
            checked += 1
    assert checked == count - 1


def test_a_hit_names_the_sheet_and_rows_of_its_passage(staff):
    app, _path = staff
    hit = payload(app.query("kx7005q", top_k=1))["results"][0]
    first, _, last = hit["rows"].partition("-")
    assert hit["sheet"] == "Staff"
    assert int(first) <= 7005 <= int(last)
    assert "kx7005q" in hit["text"] and "pages" not in hit


def test_a_csv_hit_names_record_numbers_a_quoted_line_break_counting_once(app, docs):
    lines = ["id,name,note", '1,alpha,"first line', 'second line"', "2,beta,plain", "", "3,gamma,zq9target"]
    (docs / "people.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    app.sync()
    hit = payload(app.query("zq9target", top_k=1))["results"][0]
    # Records: the header 1, alpha 2 (over two lines), beta 3, the blank line 4, gamma 5.
    assert hit["rows"] == "1-5" and "sheet" not in hit
    sections = app.index.sections(str(docs / "people.csv"))
    assert [(s.rows.sheet, s.rows.first, s.rows.last) for s in sections if s.rows] == [(None, 1, 5)]


def test_read_file_names_the_sheets_and_rows_of_the_text_it_returns(app, docs):
    (docs / "staff.xlsx").write_bytes(_staff_sheet(3_000))
    app.sync()
    source = str(docs / "staff.xlsx")
    first = payload(app.read(source, 0, 2_000, budgeted=False))
    assert first["sheets"][0]["sheet"] == "Staff" and first["sheets"][0]["rows"].startswith("1-")
    assert len(first["sheets"]) == 1
    last = _claimed_rows(first["text"])[-1]
    assert int(first["sheets"][0]["rows"].partition("-")[2]) >= last
    whole = payload(app.read(source, 0, None, budgeted=False))
    assert whole["sheets"] == [{"sheet": "Staff", "rows": "1-3006"}, {"sheet": "Teams", "rows": "1-2"}]


def test_a_markdown_file_names_no_rows(app, docs):
    (docs / "note.md").write_text("# Note\n\n| a | b |\n| --- | --- |\n| zq7unique | 2 |\n", encoding="utf-8")
    app.sync()
    hit = payload(app.query("zq7unique", top_k=1))["results"][0]
    assert "rows" not in hit and "sheet" not in hit
    assert "sheets" not in payload(app.read(str(docs / "note.md"), 0, None, budgeted=False))


def test_the_cli_names_the_sheet_and_rows_after_the_chunk(cli_env, run_cli, docs):
    (docs / "staff.xlsx").write_bytes(_staff_sheet(400))
    assert run_cli("sync").returncode == 0
    out = run_cli("query", "kx205q", "--top-k", "1").stdout
    heading = out.splitlines()[0]
    found = re.search(r"#\d+ Staff: rows (\d+)\u2013(\d+)  ", heading)
    assert found and int(found[1]) <= 205 <= int(found[2]), heading
    chunk = int(re.search(r"#(\d+)", heading)[1])
    frames = run_cli("read-neighbors", "--file-path", str(docs / "staff.xlsx"), "--chunk-index", str(chunk),
                     "--before", "0", "--after", "0").stdout
    assert re.match(rf"--- #{chunk} Staff: rows \d+\u2013\d+ \(hit\)\n", frames), frames


def test_an_index_written_before_rows_were_told_names_them_after_one_sync_without_re_embedding(
        make_config, tmp_path, encoder):
    # Written by minirag at a50ede2 (schema 10, chunking scheme 17) with the tiny test encoder:
    # stock.xlsx (a table whose first row is its header, and a second sheet) and orders.csv.
    from conftest import FIXTURES
    from helpers.encoders import CountingEncoder

    from minirag.app import App

    fixture = FIXTURES / "sheet_rows"
    path = tmp_path / "index.db"
    with gzip.open(fixture / "index_before_sheet_rows.db.gz") as packed, path.open("wb") as out:
        shutil.copyfileobj(packed, out)
    root = Path("/tmp/sheets76_oldidx/docs")  # where its sources were indexed
    root.mkdir(parents=True, exist_ok=True)
    for name in ("stock.xlsx", "orders.csv"):
        shutil.copy(fixture / name, root / name)
    old = db.connect(path)
    vectors = sorted(row[0] for row in old.execute("SELECT embedding FROM chunks_vec"))
    assert "row_start" not in {row[1] for row in old.execute("PRAGMA table_info(chunks)")}
    old.close()

    counting = CountingEncoder(encoder)
    app = App(make_config(db_path=str(path), base_dirs=[str(root)]), encoder=counting)
    try:
        assert {entry.state for entry in app.list_files().files} == {"stale_scheme"}
        app.sync()
        assert counting.embedded == []
        conn = app.index.conn
        assert sorted(row[0] for row in conn.execute("SELECT embedding FROM chunks_vec")) == vectors
        hit = payload(app.query("item7", top_k=1))["results"][0]
        first, _, last = hit["rows"].partition("-")
        assert hit["sheet"] == "Stock" and int(first) <= 9 <= int(last)
        window = payload(app.neighbors(str(root / "orders.csv"), 0, 0, 0))["chunks"]
        assert [(chunk.get("sheet"), chunk["rows"]) for chunk in window] == [(None, "1-4")]
    finally:
        app.close()
