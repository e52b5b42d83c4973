"""A table whose first row is a record, not a header (a sensor log, an export of `id,name,score`
rows without titles), is read as rows under an empty header, its first record row 1 (sheet_header.py)."""

from __future__ import annotations

from minirag.ingest.convert import convert_document
from minirag.ingest.csv_table import csv_to_sheet
from minirag.ingest.sheet_header import has_header
from minirag.results import payload

SENSOR_LOG = ("2024-03-01T10:00:00,21.5,40,ok\n"
              "2024-03-01T10:05:00,21.6,41,ok\n"
              "2024-03-01T10:10:00,21.9,39,ok\n")


def _lines_and_rows(sheet) -> list[tuple[str, int | None]]:
    places = sheet.rows.places()
    return list(zip(sheet.markdown.split("\n"), places, strict=True))


def test_a_csv_without_a_header_is_its_records_under_an_empty_header_each_on_its_row():
    sheet = csv_to_sheet(SENSOR_LOG, "log.csv")
    assert _lines_and_rows(sheet) == [
        ("|  |  |  |  |", None),
        ("| --- | --- | --- | --- |", None),
        ("| 2024-03-01T10:00:00 | 21.5 | 40 | ok |", 1),
        ("| 2024-03-01T10:05:00 | 21.6 | 41 | ok |", 2),
        ("| 2024-03-01T10:10:00 | 21.9 | 39 | ok |", 3),
    ]


def test_an_export_of_numbered_records_has_no_header_and_a_titled_one_keeps_it():
    rows = "17,Ann,42\n18,Bob,7\n19,Cy,13\n"
    assert csv_to_sheet(rows, "export.csv").markdown.split("\n")[2] == "| 17 | Ann | 42 |"
    titled = csv_to_sheet("id,name,score\n" + rows, "export.csv")
    assert _lines_and_rows(titled)[:3] == [("| id | name | score |", 1), ("| --- | --- | --- |", None),
                                           ("| 17 | Ann | 42 |", 2)]


def test_a_tsv_without_a_header_counts_blank_lines_in_its_row_numbers():
    converted = convert_document(b"1\t0.25\n\n2\t0.5\n3\t0.75\n", ".tsv", "t.tsv")
    lines = list(zip(converted.markdown.split("\n"), converted.rows.places(), strict=True))
    assert lines[2:] == [("| 1 | 0.25 |", 1), ("| 2 | 0.5 |", 3), ("| 3 | 0.75 |", 4)]


def test_the_rule_reads_headers_as_the_columns_under_them_tell():
    def table(text: str) -> list[list[str]]:
        return [line.split(",") for line in text.strip().split("\n")]

    assert has_header(table("id,name,score\n1,Ann,42\n2,Bob,17"))
    assert not has_header(table("1,Ann,42\n2,Bob,17\n3,Cy,9"))
    # years are names of columns over figures, and `""` an index column's (R's write.csv)
    assert has_header(table('country,1990,2000\nFrance,12.5,13.1\nItaly,11,12'))
    assert has_header(table(',value\n1,0.5\n2,0.25'))
    # a category's value comes again under it; codes of one length under a longer name
    assert not has_header(table("setosa,5.1\nsetosa,4.9\nversicolor,6.0"))
    assert has_header(table("code,label\nAB1,one\nAB2,two\nAB3,three"))
    # values missing, as exporters write them, tell nothing either way
    assert not has_header(table("3,NA,0.5\n4,1.5,NA\n5,2.5,0.7"))
    assert has_header(table("a,b\nNA,NA\n1,2"))
    # a row of one value twice is no header; a table of words only keeps its first row the header
    assert not has_header(table("x,x\ny,z\nw,v"))
    assert has_header(table("word,translation\ndog,chien\ncat,chat"))
    # a cell's address is no number in exponent form: `E1` over `E3` (a sheet of merged ranges)
    assert has_header(table("A1,B1,E1\nA3,B3,E3\nA4,B4,E4"))


def test_a_search_for_the_first_records_values_finds_them_as_a_row(app, docs):
    lines = [f"{n},sensor-{n:04d},{20 + n / 10:.1f}" for n in range(1, 400)]
    (docs / "readings.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    app.sync()
    hit = payload(app.query("sensor-0001", top_k=1))["results"][0]
    assert hit["rows"].partition("-")[0] == "1"
    first = next(line for line in hit["text"].split("\n") if "sensor-0001" in line)
    assert first.startswith("| 1 | sensor-0001")
    assert "|  |  |  |" in hit["text"]  # the empty header, no record for one


def test_a_worksheet_without_a_header_reads_as_a_csv_without_one_does(tmp_path):
    """One rule for every table a sheet holds: XLSX, XLS and ODS (sheet_grid.py) ask it as CSV does."""
    import io

    import openpyxl

    book = openpyxl.Workbook()
    log = book.active
    log.title = "Log"
    for row in SENSOR_LOG.strip().split("\n"):
        stamp, temperature, humidity, state = row.split(",")
        log.append([stamp, float(temperature), int(humidity), state])
    titled = book.create_sheet("Stock")
    for row in (["Name", "Price"], ["Bolt", 0.25], ["Nut", 0.1]):
        titled.append(row)
    data = io.BytesIO()
    book.save(data)
    converted = convert_document(data.getvalue(), ".xlsx", "book.xlsx")
    sheet_of = {at: (sheet, row + at - line) for line, count, sheet, row in converted.rows.runs
                for at in range(line, line + count)}
    lines = [(text, sheet_of.get(at)) for at, text in enumerate(converted.markdown.split("\n"))]
    log_at = lines.index(("## Log", None))
    assert lines[log_at + 2:log_at + 5] == [("|  |  |  |  |", None), ("| --- | --- | --- | --- |", None),
                                            ("| 2024-03-01T10:00:00 | 21.5 | 40 | ok |", (0, 1))]
    stock_at = lines.index(("## Stock", None))
    assert lines[stock_at + 2] == ("| Name | Price |", (1, 1))
