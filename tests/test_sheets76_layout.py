"""A sheet's notes above and below its table are text, not its header and rows; and every sheet
reader (XLSX, XLS, ODS, CSV) says which row of its sheet each line of its Markdown shows."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import openpyxl
from helpers.growth import grows_linearly

from minirag.chunking import chunk_document
from minirag.ingest.convert import convert_document
from minirag.ingest.xlsx_tables import sheet_lines, sheet_markdown

FIXTURES = Path(__file__).parent / "fixtures"


def _xlsx(rows: list[list], title: str = "Sheet1") -> bytes:
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = title
    for row in rows:
        sheet.append(row)
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


# readxl's deaths.xlsx in shape: notes in words scattered over the columns above the table (the
# second row of two cells, the third of five), the header, its rows, a blank row and notes.
DEATHS = [
    ["Lots of people"],
    ["simply cannot resist writing", None, None, None, None, "some notes"],
    ["at", "the", "top", None, "of", "their spreadsheets"],
    [],
    ["Name", "Profession", "Age", "Has kids", "Date of birth", "Date of death"],
    ["David Bowie", "musician", 69, True, "1947-01-08", "2016-01-10"],
    ["Carrie Fisher", "actor", 60, True, "1956-10-21", "2016-12-27"],
    ["Chuck Berry", "musician", 90, True, "1926-10-18", "2017-03-18"],
    ["Bill Paxton", "actor", 61, True, "1955-05-17", "2017-02-25"],
    [],
    ["This is a footnote about the data"],
    ["checked by Ann"],
]


def test_notes_above_and_below_a_table_are_text_and_its_header_is_the_header_row():
    markdown = convert_document(_xlsx(DEATHS, "arts"), ".xlsx", "deaths.xlsx").markdown
    assert markdown.split("\n\n") == [
        "## arts",
        "Lots of people",
        "simply cannot resist writing some notes",
        "at the top of their spreadsheets",
        "| Name | Profession | Age | Has kids | Date of birth | Date of death |\n"
        "| --- | --- | --- | --- | --- | --- |\n"
        "| David Bowie | musician | 69 | TRUE | 1947-01-08 | 2016-01-10 |\n"
        "| Carrie Fisher | actor | 60 | TRUE | 1956-10-21 | 2016-12-27 |\n"
        "| Chuck Berry | musician | 90 | TRUE | 1926-10-18 | 2017-03-18 |\n"
        "| Bill Paxton | actor | 61 | TRUE | 1955-05-17 | 2017-02-25 |",
        "This is a footnote about the data",
        "checked by Ann",
    ]


def test_each_line_of_a_sheet_says_the_row_it_shows():
    lines = sheet_lines([[str(v) if v is not None else "" for v in row] for row in DEATHS])
    shown = [(line.split(" |")[0], row) for line, row in lines if line]
    assert shown == [("Lots of people", 1), ("simply cannot resist writing some notes", 2),
                     ("at the top of their spreadsheets", 3), ("| Name", 5), ("| ---", None),
                     ("| David Bowie", 6), ("| Carrie Fisher", 7), ("| Chuck Berry", 8), ("| Bill Paxton", 9),
                     ("This is a footnote about the data", 11), ("checked by Ann", 12)]


def test_a_sheet_whose_first_row_is_its_header_is_read_as_before():
    grid = [["Region", "Q1", "Q2", "Q3"], ["North", "10", "12", "9"], ["", "", "", ""], ["South", "8", "", "7"],
            ["East", "5", "6", "4"], ["", "", "", ""], ["Total", "23"]]
    # As the reader wrote it before notes were told apart: the blank rows dropped, the total kept.
    assert sheet_markdown([list(row) for row in grid]) == (
        "| Region | Q1 | Q2 | Q3 |\n| --- | --- | --- | --- |\n| North | 10 | 12 | 9 |\n| South | 8 |  | 7 |\n"
        "| East | 5 | 6 | 4 |\n| Total | 23 |  |  |")


def test_a_title_over_a_table_and_a_table_of_groups_keep_their_headers():
    titled = [["Quarterly report"], ["Region", "Q1", "Q2"], ["North", "1", "2"], ["South", "3", "4"]]
    assert sheet_markdown(titled) == (
        "Quarterly report\n\n| Region | Q1 | Q2 |\n| --- | --- | --- |\n| North | 1 | 2 |\n| South | 3 | 4 |")
    groups = [["Country", "City", "People", "Area"], ["Europe", "", "", ""], ["France", "Paris", "2.1", "105"],
              ["Italy", "Rome", "2.8", "1285"], ["Spain", "Madrid", "3.3", "604"], ["Asia", "", "", ""],
              ["Japan", "Tokyo", "14", "2194"], ["India", "Delhi", "16", "1484"]]
    assert sheet_markdown([list(row) for row in groups]).split("\n")[0] == "| Country | City | People | Area |"


def test_a_ten_thousand_row_sheet_is_laid_out_in_linear_time():
    def sheet(rows: int) -> list[list[str]]:
        return [["Title"], ["Notes", "", "", "by Ann"], [], ["Ref", "Name", "Team", "Badge"],
                *([f"R{n}", f"P{n}", "Ops", f"b{n}"] for n in range(rows))]

    assert len(sheet_lines(sheet(10_000))) == 10_000 + 2 + 4
    assert grows_linearly(lambda grid: sheet_lines(grid), lambda n: sheet(10 * n))  # type: ignore[arg-type,return-value]


def test_an_excel_97_sheet_says_its_rows():
    converted = convert_document((FIXTURES / "office" / "libreoffice_chart_data.xls").read_bytes(), ".xls", "c.xls")
    lines = converted.markdown.split("\n")
    assert converted.rows is not None and converted.rows.lines == len(lines)
    shown = [(line.split(" |")[1].strip(), place) for line, place in zip(lines, converted.rows.places(), strict=True)
             if place is not None]
    assert shown == [("State", 1), ("CA", 2), ("", 3), ("NY", 4), ("", 5), ("GB", 6), ("", 7), ("Scotland", 8), ("", 9)]
    chunked = chunk_document(converted.markdown, title="c", count_tokens=lambda t: len(t.split()), budget=400,
                             rows=converted.rows)
    assert [(c.rows.sheet, c.rows.first, c.rows.last) for c in chunked.chunks if c.rows] == [("Sheet1", 1, 9)]


def _ods(rows_xml: str) -> bytes:
    content = (
        '<?xml version="1.0" encoding="UTF-8"?>'
        '<office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
        'xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" '
        'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" office:version="1.2">'
        f'<office:body><office:spreadsheet>{rows_xml}</office:spreadsheet></office:body></office:document-content>')
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as package:
        package.writestr(zipfile.ZipInfo("mimetype"), "application/vnd.oasis.opendocument.spreadsheet")
        package.writestr("content.xml", content)
    return out.getvalue()


def _row(*cells: str, repeated: int = 1) -> str:
    inner = "".join(f"<table:table-cell><text:p>{cell}</text:p></table:table-cell>" if cell
                    else "<table:table-cell/>" for cell in cells)
    return f'<table:table-row table:number-rows-repeated="{repeated}">{inner}</table:table-row>'


def test_an_ods_sheet_says_its_rows_counting_blank_and_repeated_rows():
    ledger = (_row("Item", "Cost") + _row("Tea", "3") + _row("", "", repeated=2) + _row("Milk", "2", repeated=3)
              + _row("Bread", "4") + _row("", "", repeated=1048000))
    data = _ods(f'<table:table table:name="Ledger">{ledger}</table:table>'
                f'<table:table table:name="Notes">{_row("Who", "When") + _row("Ann", "May")}</table:table>')
    converted = convert_document(data, ".ods", "ledger.ods")
    assert converted.rows is not None
    places = converted.rows.places()
    shown = [(line, place) for line, place in zip(converted.markdown.split("\n"), places, strict=True) if place]
    rows = [(line.split(" |")[0], place % (1 << 32), place >> 32) for line, place in shown]
    assert rows == [("| Item", 1, 0), ("| Tea", 2, 0), ("| Milk", 5, 0), ("| Milk", 6, 0), ("| Milk", 7, 0),
                    ("| Bread", 8, 0), ("| Who", 1, 1), ("| Ann", 2, 1)]
    assert converted.rows.sheets == ("Ledger", "Notes")


def test_a_row_map_from_a_worker_is_read_in_one_pass_whatever_its_runs():
    from minirag.chunking.rows import RowMap

    # A million runs each claiming every line (a worker's answer is checked, not trusted) cost one pass.
    hostile = RowMap.from_json({"sheets": ["s"], "runs": [[0, 10**9, 0, 1]] * 1_000_000, "lines": 1_000})
    assert hostile is not None and hostile.places()[:3] == [1, 2, 3]
    reaching_back = RowMap.from_json({"sheets": ["s"], "runs": [[0, 3, 0, 1], [1, 1, 0, 50]], "lines": 3})
    assert reaching_back is not None and reaching_back.places() == [1, 2, 3]
    assert RowMap.from_json({"sheets": ["s"], "runs": [[0, -1, 0, 1]], "lines": 3}) is None
    made = RowMap.of(["a", None], [None, (0, 4), (0, 5), None, (1, 9)])
    assert RowMap.from_json(made.as_json()) == made


def test_an_ods_sheet_reads_as_an_xlsx_one_does_notes_and_all():
    rows = "".join(_row(*("" if value is None else str(value) for value in row)) if row else _row("")
                   for row in DEATHS)
    data = _ods(f'<table:table table:name="arts">{rows}</table:table>')
    converted = convert_document(data, ".ods", "deaths.ods")
    xlsx = convert_document(_xlsx(DEATHS, "arts"), ".xlsx", "deaths.xlsx")
    assert converted.markdown.replace("True", "TRUE").rstrip("\n") == xlsx.markdown
    assert converted.rows is not None and converted.rows.places()[:6] == [None, None, 1, None, 2, None]
