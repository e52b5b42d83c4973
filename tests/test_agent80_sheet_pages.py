"""agent80: a page of a workbook of many sheets holds as much text as the budget allows.

read_file sized each page's text with room for the `sheets` of the whole workbook, then named only
those the page holds: a workbook of 1,500 small sheets left no room at all, so each page was one
character, and reading it took as many calls as it has characters."""

from __future__ import annotations

from pathlib import Path

import pytest
import xlsxwriter

from minirag.budget import cost
from minirag.results import payload


def _workbook(path: Path, sheets: int) -> Path:
    book = xlsxwriter.Workbook(str(path))
    for n in range(sheets):
        sheet = book.add_worksheet(f"S{n:04d}")
        sheet.write(0, 0, f"item {n}")
        sheet.write(0, 1, f"the stock count of shelf {n} is {n * 7}")
    book.close()
    return path


@pytest.mark.slow  # a workbook of 1,500 sheets ingested
def test_a_page_of_a_workbook_of_many_sheets_is_filled_and_names_only_its_own_sheets(make_app, docs):
    app = make_app(env={"MINIRAG_MAX_RESPONSE_TOKENS": "2000"})
    book = _workbook(docs / "stock.xlsx", 1500)
    app.ingest_file(str(book))
    key = app.source_key(file_path=str(book), source=None)
    first = payload(app.read(key, 0, None))
    assert cost(first) <= 2000
    assert len(first["text"]) > 500, (len(first["text"]), first["totalChars"])
    assert first["sheets"][0]["sheet"] == "S0000" and len(first["sheets"]) < 1500
