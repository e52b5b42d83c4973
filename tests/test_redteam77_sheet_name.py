"""Red team 77: a workbook whose sheet has a name of megabytes. Every passage of a spreadsheet
carries its sheet's name (in the index's `sheet` column of each chunk and section, and in each hit),
so the name was stored once per chunk: a 74 KB XLSX of 3,000 rows under a 1,000,000-character name
made a 701 MB index, and every query hit of it was left out of the answer by the response budget
(`results: []`, `hitsLeftOut: 10`). A name a passage carries is now cut (MAX_SHEET_NAME); the
sheet's heading, which is the document's text, stays whole."""

from __future__ import annotations

import sqlite3
import zipfile
from pathlib import Path

from minirag.chunking.rows import MAX_SHEET_NAME
from minirag.results import payload


def workbook_of_a_long_sheet_name(path: Path, name: str, rows: int) -> Path:
    """An XLSX whose one sheet is called `name` (xlsxwriter refuses names past Excel's 31
    characters, so the workbook part is written over), with `rows` rows under a header."""
    import xlsxwriter

    plain = path.with_name("plain.xlsx")
    book = xlsxwriter.Workbook(str(plain))
    sheet = book.add_worksheet("S")
    sheet.write_row(0, 0, ["Name", "Value", "Note"])
    for row in range(1, rows + 1):
        sheet.write_row(row, 0, [f"item{row}", row, f"a note about thing {row}"])
    book.close()
    with zipfile.ZipFile(plain) as source, zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as out:
        for member in source.infolist():
            data = source.read(member.filename)
            if member.filename == "xl/workbook.xml":
                data = data.replace(b'name="S"', f'name="{name}"'.encode())
            out.writestr(member, data)
    plain.unlink()
    return path


def test_a_sheet_name_of_megabytes_is_stored_cut_once_per_passage(app, docs, tmp_path):
    name = "Q" * 200_000
    workbook_of_a_long_sheet_name(docs / "book.xlsx", name, rows=600)
    progress = app.sync()
    assert progress.failed == 0
    with sqlite3.connect(tmp_path / "index.db") as db:
        for table in ("chunks", "parents"):
            longest, named = db.execute(f"SELECT MAX(LENGTH(sheet)), COUNT(sheet) FROM {table}").fetchone()
            assert named > 0 and longest <= MAX_SHEET_NAME + 1, (table, longest)
    hits = payload(app.query("a note about thing 17", top_k=5))["results"]
    assert hits, "every hit was left out of the answer"
    assert {hit["sheet"] for hit in hits if "rows" in hit} == {name[:MAX_SHEET_NAME] + "…"}


def test_a_sheet_name_of_ordinary_length_is_kept_whole():
    from minirag.chunking.rows import SheetRows

    names = ("Staff", "Ü" * MAX_SHEET_NAME, None)
    assert [SheetRows.of((at << 32 | 3, at << 32 | 9), names) for at in range(3)] == [
        SheetRows(name, 3, 9) for name in names]
