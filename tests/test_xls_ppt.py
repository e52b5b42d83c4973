"""Excel and PowerPoint 97-2003 files (.xls, .ppt): real ones made by Excel 95 and 97, PowerPoint
and LibreOffice (tests/fixtures/docs and tests/fixtures/office, sources in their README), then
the records' corners and the damage an attacker would write."""

import gzip
import random
import struct
import time

import pytest
from conftest import FIXTURES
from helpers import biff
from helpers.compound_files import Node, compound_file

from minirag.errors import ConversionFailed
from minirag.ingest import xls_biff
from minirag.ingest.convert import convert_document, convert_file
from minirag.ingest.sheet_limits import MAX_SHEET_CELLS

DOCS = FIXTURES / "docs"
OFFICE = FIXTURES / "office"


def mirror_sync() -> bytes:
    return gzip.decompress((OFFICE / "libreoffice_mirror_sync.ppt.gz").read_bytes())


# --- Excel -------------------------------------------------------------------------------


def xls(globals_body: bytes, sheets: list[bytes]) -> bytes:
    return compound_file([Node("Workbook", biff.workbook(globals_body, sheets))])


def test_a_very_hidden_sheet_is_left_out_and_a_hidden_one_read_as_in_xlsx(tmp_path):
    """Only a macro can show a very hidden sheet; a hidden one a reader unhides from the menu."""
    import openpyxl

    cells = [biff.number(0, 0, 0, float(n)) for n in (1, 2, 3)]
    stream = biff.workbook(b"", cells, states=[0, 1, 2])
    assert convert_document(compound_file([Node("Workbook", stream)]), ".xls", "a.xls").markdown == \
        "## S0\n\n1\n\n## S1\n\n2"
    book = openpyxl.Workbook()
    for title, state in (("Shown", "visible"), ("Hidden", "hidden"), ("Secret", "veryHidden")):
        sheet = book.create_sheet(title)
        sheet["A1"], sheet.sheet_state = f"{title} cell", state
    book.remove(book.active if book.active.title == "Sheet" else book["Sheet"])
    book.save(tmp_path / "a.xlsx")
    markdown = convert_file(tmp_path / "a.xlsx").markdown
    assert "Shown cell" in markdown and "Hidden cell" in markdown and "Secret" not in markdown


def test_sheet_entries_naming_one_sheet_or_none_read_each_sheet_once():
    """2,000 sheet entries at one sheet's offset read it 2,000 times (quadratic in the file); entries
    pointing into a sheet's records, not at its BOF, re-read the rest of it from there."""
    head = biff.begin(0x0005)
    sheet = biff.begin(0x0010) + biff.number(0, 0, 0, 7.0) + biff.number(1, 0, 0, 8.0) + biff.END
    entries = 2_000
    offset = len(head) + entries * len(biff.sheet_entry(0, b"S")) + len(biff.END)
    targets = [offset] * (entries - 1) + [offset + len(biff.begin(0x0010))]  # the last: into the records
    stream = head + b"".join(biff.sheet_entry(target, b"S") for target in targets) + biff.END + sheet
    assert convert_document(compound_file([Node("Workbook", stream)]), ".xls", "many.xls").markdown == "## S\n\n7\n\n8"


def test_sheets_whose_bofs_nest_in_each_others_records_read_each_record_about_once(monkeypatch):
    """A BOF record's data may hold more BOFs: 300 sheet entries naming BOFs nested one in the next
    all landed on the same tail of records, and each read all of it (quadratic: 46 s at 194 KB)."""
    count, tail = 300, biff.number(0, 0, 0, 1.0) + bytes(4) * 3_000 + biff.END
    chain = b"".join(struct.pack("<HHHH", 0x0809, 4 + 8 * (count - index - 1), 0x0600, 0x0010) for index in range(count))
    head = biff.begin(0x0005)
    start = len(head) + count * len(biff.sheet_entry(0, b"S")) + len(biff.END)
    stream = head + b"".join(biff.sheet_entry(start + 8 * index, b"S") for index in range(count)) + biff.END + chain + tail
    read = []
    real = xls_biff._records

    def counted(*args):
        for record in real(*args):
            read.append(record)
            yield record

    monkeypatch.setattr(xls_biff, "_records", counted)
    convert_document(compound_file([Node("Workbook", stream)]), ".xls", "nested.xls")
    assert len(read) < 2 * (count + 3_000 + 400)


def test_one_shared_string_cited_by_every_cell_is_refused_before_its_copies_are_built(monkeypatch):
    monkeypatch.setattr(xls_biff, "MAX_TEXT_CHARS", 100_000)
    long = b"x" * 2_000
    strings = biff.record(0x00FC, struct.pack("<II", 1, 1) + struct.pack("<HB", len(long), 0) + long)  # SST
    data = xls(strings, [b"".join(biff.shared_string(row, 0, 0) for row in range(100))])
    with pytest.raises(ConversionFailed, match=r"^sst.xls: refused: its cells' text passes the 100,000 characters"):
        convert_document(data, ".xls", "sst.xls")


def test_merged_ranges_past_what_a_sheet_may_hold_are_left_out_before_they_are_built(monkeypatch):
    """A sheet of nothing but MERGEDCELLS records (8 bytes a range) held about 29 times its bytes as
    ranges, and a 100 MB file would have taken 2.9 GB."""
    import tracemalloc

    monkeypatch.setattr(xls_biff, "MAX_SHEET_MERGES", 1_000)
    ranges = biff.record(0x00E5, struct.pack("<H", 1_000) + struct.pack("<HHHH", 0, 1, 0, 0) * 1_000)
    data = xls(b"", [biff.number(0, 0, 0, 1.0) + biff.number(0, 1, 0, 2.0) + biff.number(1, 1, 0, 3.0)
                     + ranges * 40])
    tracemalloc.start()
    converted = convert_document(data, ".xls", "m.xls")
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    # A merge kept: 1 repeated. Numbers over numbers: no header (sheet_header.py).
    assert converted.markdown == "## S0\n\n|  |  |\n| --- | --- |\n| 1 | 2 |\n| 1 | 3 |"
    assert peak / len(data) < 10


def test_an_xlsx_sheets_merged_ranges_past_what_it_may_hold_are_left_out(monkeypatch):
    import io
    import zipfile

    from minirag.ingest import xlsx_tables

    monkeypatch.setattr(xlsx_tables, "MAX_SHEET_MERGES", 10)
    merges = "".join(f'<mergeCell ref="A{row}:B{row}"/>' for row in range(1, 101))
    sheet = ('<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData/>'
             f'<mergeCells count="100">{merges}</mergeCells></worksheet>')
    package = io.BytesIO()
    with zipfile.ZipFile(package, "w") as archive:
        archive.writestr("xl/worksheets/sheet1.xml", sheet)
    parts = xlsx_tables.sheet_parts(zipfile.ZipFile(package), "xl/worksheets/sheet1.xml")
    assert len(parts.merges) == 10


def test_a_sheet_of_rows_of_one_cell_each_is_written_in_linear_time():
    """Each leading row of one cell was taken off the front of the list of rows, moving every row
    after it: 200,000 rows of one cell each (a column of cells zigzagging over two) took 3 s."""
    from helpers.growth import grows_linearly

    from minirag.ingest.xlsx_tables import sheet_markdown

    def zigzag(repeats: int) -> list[list[str]]:
        return [["a", ""] if row % 2 else ["", "b"] for row in range(20 * repeats)]

    assert grows_linearly(sheet_markdown, zigzag)


def test_a_date_past_9999_reads_as_its_number_not_an_error():
    """A serial a rounded second takes past 9999-12-31, or one a 1904-based workbook counts past it,
    raised OverflowError out of the reader."""
    for dates_1904, value, shown in ((0, 2958465.99999999, "2958465.99999999"), (1, 2958000.0, "2958000")):
        data = xls(biff.record(0x0022, struct.pack("<H", dates_1904)) + biff.cell_format(14),  # DATEMODE; a date XF
                   [biff.number(0, 0, 0, value)])
        assert convert_document(data, ".xls", "dates.xls").markdown == f"## S0\n\n{shown}"


def test_a_cell_whose_format_shows_nothing_is_empty_as_in_xlsx():
    """A FORMAT record `;;;` (Excel's way to hide a cell's contents) named by a cell's XF, on a number
    and on a formula's text result (which a STRING record after the formula carries)."""
    hiding = biff.record(0x041E, struct.pack("<HHB", 164, 3, 0) + b";;;")  # FORMAT 164, a compressed string
    formula = biff.record(0x0006, struct.pack("<HHH", 1, 2, 0) + b"\0" * 6 + b"\xff\xff" + bytes(8))
    text = biff.record(0x0207, struct.pack("<HB", 6, 0) + b"Secret")
    data = xls(hiding + biff.cell_format(164) + biff.cell_format(0),
               [b"".join(biff.number(row, column, 0 if value == 5 else 1, float(value))
                         for row, values in enumerate(((5, 7, 6), (8, 9, 10))) for column, value in enumerate(values))
                + formula + text])
    assert convert_document(data, ".xls", "hidden.xls").markdown == \
        "## S0\n\n|  |  |  |\n| --- | --- | --- |\n|  | 7 | 6 |\n| 8 | 9 |  |"  # numbers over numbers: no header


def test_an_excel_97_workbook_reads_as_its_sheets_with_dates_and_numbers_as_excel_shows_them():
    markdown = convert_file(DOCS / "xls_excel_parseexcel_test97j.xls").markdown
    assert markdown.startswith("## Sheet1-ASC\n\n| ASC | This Data is 'ASC Only' |\n| --- | --- |\n"
                               "| Date | 1964-03-23 |\n| INTEGER | 12345 |\n| Float | 1.29 |\n")
    assert "| Formula | 1246912.89012345 |" in markdown  # a formula's value as last computed
    assert "| BIG INTEGER | 123456789012 |" in markdown
    assert "## 漢字名\n\n| ASC | This Data is 'ASC Only' |\n| --- | --- |\n| 漢字も入る | 漢字のデータ |" in markdown


def test_an_excel_95_workbook_reads_in_its_code_page():
    markdown = convert_file(DOCS / "xls_excel95_parseexcel_test95j.xls").markdown  # BIFF5, Shift-JIS
    assert "## 漢字名\n\n| ASC | This Data is 'ASC Only' |\n| --- | --- |\n| 漢字も入る | 漢字のデータ |" in markdown
    assert "| Date | 1964-03-23 |" in markdown


def test_a_libreoffice_xls_reads_as_the_xlsx_it_was_saved_from():
    assert convert_file(OFFICE / "libreoffice_chart_data.xls").markdown == \
        convert_file(DOCS / "xlsx_excel_chart_data.xlsx").markdown


def test_shared_strings_continued_over_records_change_width_at_the_boundary():
    book = xls_biff._Book()
    first = struct.pack("<IIHB", 2, 2, 5, 0) + "hé".encode("latin-1")
    second = b"\x01" + "llo".encode("utf-16-le") + struct.pack("<HB", 2, 1) + "文字".encode("utf-16-le")
    assert xls_biff._shared_strings([first, second], book) == ["héllo", "文字"]
    assert xls_biff._shared_strings([first], book) == []  # cut short: what was read stands


def test_rk_numbers():
    assert xls_biff._rk((1234 << 2) | 0x02) == 1234
    assert xls_biff._rk((1234 << 2) | 0x03) == 12.34
    assert xls_biff._rk(struct.unpack("<Q", struct.pack("<d", 2.5))[0] >> 32) == 2.5


def test_a_sheet_of_more_cells_than_a_workbook_may_hold_stops_reading_there():
    record = struct.pack("<HHHHHd", 0x0203, 14, 0, 0, 0, 1.0)
    stream = struct.pack("<HHHH", 0x0809, 4, 0x0600, 0x0010) + b"".join(
        record[:4] + struct.pack("<HHHd", row % 65536, row // 65536, 0, 1.0) for row in range(MAX_SHEET_CELLS + 10))
    started = time.perf_counter()
    grid, _merges, cells, _numbers = xls_biff._sheet(stream, 0, xls_biff._Book())
    assert cells == 65_536 * 4 and grid == []  # the 200,001 cells read span 4 columns of every row
    assert time.perf_counter() - started < 30


def test_a_sheet_whose_few_cells_span_more_than_a_workbook_may_hold_is_refused_before_its_grid_is_built():
    """One cell a row, over all 256 columns (50,000 cells, a 0.9 MB file) was padded to a grid of
    rows x columns: 13 million cells, 364 MB, where an XLSX of that shape is refused for its span."""
    sheet = b"".join(biff.number(row, row % 256, 0, 1.0) for row in range(50_000))
    with pytest.raises(ConversionFailed, match=r"^d.xls: refused: its sheets hold more than 200,000 cells"):
        convert_document(xls(b"", [sheet]), ".xls", "d.xls")
    old = struct.pack("<HHHH", 0x0009, 4, 2, 0x10) + b"".join(  # an Excel 2.x worksheet of that shape
        struct.pack("<HHHH", 0x0003, 15, row, row % 256) + bytes(3) + struct.pack("<d", 1.0) for row in range(50_000))
    with pytest.raises(ConversionFailed, match=r"^d.xls: refused: its sheet holds more than 200,000 cells"):
        convert_document(old, ".xls", "d.xls")


def test_a_workbook_stream_that_does_not_open_with_its_bof_is_damage_not_an_empty_workbook():
    """A damaged directory can name sectors of anything as the Workbook stream, or a stream whose
    globals name no sheet (Excel writes one at least): each read as a workbook of no sheets ("no
    text found"), where it is damage."""
    with pytest.raises(ConversionFailed, match=r"^w.xls: not a valid .xls file \(damaged: the Workbook stream does "
                                               r"not open with a BOF record\)$"):
        convert_document(compound_file([Node("Workbook", bytes(range(256)) * 20)]), ".xls", "w.xls")
    with pytest.raises(ConversionFailed, match=r"^w.xls: not a valid .xls file \(damaged: its globals name no sheet\)$"):
        convert_document(xls(b"", []), ".xls", "w.xls")
    assert convert_document(xls(b"", [b""]), ".xls", "e.xls").markdown == ""  # a workbook of an empty sheet


def test_a_password_protected_workbook_says_so():
    data = convert_data = (OFFICE / "libreoffice_chart_data.xls").read_bytes()
    codepage = struct.pack("<HH", 0x0042, 2)
    assert data.count(codepage) == 1
    with pytest.raises(ConversionFailed, match=r"^locked.xls: encrypted \(password required\)$"):
        convert_document(convert_data.replace(codepage, struct.pack("<HH", 0x002F, 2)), ".xls", "locked.xls")


# --- PowerPoint --------------------------------------------------------------------------


def test_a_powerpoint_file_reads_as_its_slides():
    assert convert_file(DOCS / "ppt_powerpoint_mimetype_test.ppt").markdown == "<!-- Slide number: 1 -->\n# zZZZZZZ"


def test_a_libreoffice_ppt_has_titles_bodies_and_speaker_notes_in_slide_order():
    markdown = convert_document(mirror_sync(), ".ppt", "mirror_sync.ppt").markdown
    assert markdown == (
        "<!-- Slide number: 1 -->\n# Quarterly sync of the mirror servers\n\n"
        "Secondaries pull from the primary every hour\nA failed pull is retried after five minutes\n"
        "Prometheus alerts after three failures\n\n"
        "### Notes:\nMention the rsync bandwidth limit: 40 Mbit/s per secondary.\n\n"
        "\f<!-- Slide number: 2 -->\n# Зеркала и расписание\n\nСинхронизация каждый час\n同步每小时一次\n\n"
        "### Notes:\nЗаметка докладчика: проверить часовой пояс.")
    assert "Click to edit" not in markdown  # the masters' prompts


def test_a_password_protected_presentation_says_so():
    data = mirror_sync()
    token = struct.pack("<I", 0xE391C05F)
    assert data.count(token) == 1
    with pytest.raises(ConversionFailed, match=r"^locked.ppt: encrypted \(password required\)$"):
        convert_document(data.replace(token, struct.pack("<I", 0xF3D1C4DF)), ".ppt", "locked.ppt")


def ppt_record(kind: int, data: bytes = b"", *, container: bool = False) -> bytes:
    return struct.pack("<HHI", 0xF if container else 0, kind, len(data)) + data


def forged_ppt(slide_ids: list[int], slide_body: bytes, edits: int = 1, padding: int = 0) -> bytes:
    """A PowerPoint Document stream: a document whose slide list names persist object 2 once per
    slide id, the one slide record, a persist directory (`padding` empty words after its
    entries) and `edits` user edits all naming that directory; with its Current User stream."""
    atoms = b"".join(ppt_record(0x03F3, struct.pack("<IIiII", 2, 0, 0, slide_id, 0)) for slide_id in slide_ids)
    document = ppt_record(0x03E8, ppt_record(0x0FF0, atoms, container=True), container=True)
    stream = document + ppt_record(0x03EE, slide_body, container=True)
    directory = len(stream)
    stream += ppt_record(0x1772, struct.pack("<III", 1 | 2 << 20, 0, len(document)) + bytes(4 * padding))
    last = 0
    for _ in range(edits):
        at = len(stream)
        stream += ppt_record(0x0FF5, struct.pack("<IIIIII", 0, 0, last, directory, 0, 0) + bytes(4))
        last = at
    user = ppt_record(0x0FF6, struct.pack("<III", 20, 0xE391C05F, last) + bytes(8))
    return compound_file([Node("PowerPoint Document", stream), Node("Current User", user)])


def test_a_slide_record_many_slide_entries_name_is_read_once():
    """300 entries naming one slide of 100,000 characters gave 30 M characters to index."""
    body = ppt_record(0x0F9F, struct.pack("<I", 1)) + ppt_record(0x0FA8, b"slide text " * 9_000)
    markdown = convert_document(forged_ppt(list(range(256, 556)), body), ".ppt", "slides.ppt").markdown
    assert markdown.count("slide text") == 9_000


def test_user_edits_naming_one_persist_directory_over_and_over_are_refused():
    """2,500 edits each re-reading a 2,500-word directory: quadratic in the file."""
    body = ppt_record(0x0F9F, struct.pack("<I", 1)) + ppt_record(0x0FA8, b"hello")
    assert "hello" in convert_document(forged_ppt([256], body, edits=2), ".ppt", "two.ppt").markdown
    with pytest.raises(ConversionFailed, match=r"^edits.ppt: not a valid .ppt file \(damaged: its edits' persist "
                                               r"directories overlap\)$"):
        convert_document(forged_ppt([256], body, edits=2_500, padding=2_500), ".ppt", "edits.ppt")


# --- renamed and damaged -----------------------------------------------------------------


def test_each_office_97_2003_file_is_read_as_what_it_is_whatever_it_is_named():
    xls = (OFFICE / "libreoffice_chart_data.xls").read_bytes()
    renamed = convert_document(xls, ".xlsx", "chart.xlsx")
    assert renamed.warnings == ("chart.xlsx: a .xls file named .xlsx; read as .xls",)
    assert renamed.markdown == convert_file(OFFICE / "libreoffice_chart_data.xls").markdown
    ppt = convert_document(mirror_sync(), ".pptx", "sync.pptx")
    assert ppt.warnings == ("sync.pptx: a .ppt file named .pptx; read as .ppt",)
    assert convert_document(mirror_sync(), ".xls", "sync.xls").warnings == \
        ("sync.xls: a .ppt file named .xls; read as .ppt",)
    docx = convert_document((DOCS / "xlsx_rows_founders.xlsx").read_bytes(), ".xls", "rows.xls")
    assert docx.warnings == ("rows.xls: a .xlsx file named .xls; read as .xlsx",)


def test_text_exported_as_excel_under_xls_is_read_as_csv_and_excel_2003_xml_is_named():
    """Banks, CRMs and reporting tools export tab- or comma-separated text, or a web page's table, as
    `.xls`, which Excel opens after a warning; the text had been refused as `not a valid .xls file`.
    Excel 2003's XML spreadsheet, which such tools also name .xls, is refused saying what it is."""
    tabs = convert_document("Invoice\tAmount\nINV-7782\t12.00\n".encode("utf-16"), ".xls", "export.xls")
    assert tabs.markdown == "| Invoice | Amount |\n| --- | --- |\n| INV-7782 | 12.00 |"
    assert tabs.warnings == ("export.xls: a .csv file named .xls; read as .csv",)
    page = b"<html><body><table><tr><th>Invoice</th></tr><tr><td>INV-7781</td></tr></table></body></html>"
    assert convert_document(page, ".xls", "page.xls").markdown == "| Invoice |\n| --- |\n| INV-7781 |"
    spreadsheet_ml = (b'<?xml version="1.0"?>\n<?mso-application progid="Excel.Sheet"?>\n'
                      b'<Workbook xmlns="urn:schemas-microsoft-com:office:spreadsheet"></Workbook>')
    with pytest.raises(ConversionFailed, match=r"^x.xls: an Excel 2003 XML spreadsheet, which is not read; save it as "
                                               r"XLSX$"):
        convert_document(spreadsheet_ml, ".xls", "x.xls")
    with pytest.raises(ConversionFailed, match=r"^bin.xls: not a valid .xls file$"):
        convert_document(bytes(range(256)) * 4, ".xls", "bin.xls")


@pytest.mark.parametrize("suffix", [".xls", ".ppt"])
def test_randomly_damaged_files_are_read_or_refused_in_one_line(suffix):
    data = (OFFICE / "libreoffice_chart_data.xls").read_bytes() if suffix == ".xls" else mirror_sync()
    rng = random.Random(11)
    slowest = 0.0
    for _ in range(300):
        damaged = bytearray(data)
        for _ in range(rng.randint(1, 12)):
            at = rng.randrange(min(len(damaged), 16384))  # the header, tables and streams LibreOffice writes first
            damaged[at] = rng.randrange(256)
        started = time.perf_counter()
        try:
            convert_document(bytes(damaged), suffix, f"bad{suffix}")
        except ConversionFailed as exc:
            assert "\n" not in str(exc)
        slowest = max(slowest, time.perf_counter() - started)
    assert slowest < 5


def test_an_excel_4_worksheet_a_bare_record_stream_reads_as_its_cells():
    markdown = convert_file(OFFICE / "excel4_astap_1476_areas.xls").markdown
    assert markdown.startswith("|  |") and "\n| StepsizeX | 5.1428571429 |" in markdown  # key | value pairs: no header
    assert "|  | Ring | Declination  minimum | range | RA cells |" in markdown
    assert "|  | 2 | 87.4285714286 | 2-3 | 3 | 5.3837796421 |" in markdown


def test_a_fetched_office_97_2003_body_is_read_as_what_it_is_whatever_it_is_served_as():
    from minirag.ingest.convert import sniff_format

    assert sniff_format((OFFICE / "libreoffice_chart_data.xls").read_bytes(), "application/octet-stream",
                        "https://example.org/download?id=7") == ".xls"
    assert sniff_format(mirror_sync(), "text/plain", "https://example.org/talk") == ".ppt"
    assert sniff_format((DOCS / "doc_word_olefile_test.doc").read_bytes(), "", "https://example.org/x") == ".doc"


@pytest.mark.parametrize(("macro_enabled", "plain"), [
    ("libreoffice_word_comments.docm", "docx_word_comments.docx"),
    ("libreoffice_rows_founders.xlsm", "xlsx_rows_founders.xlsx"),
    ("libreoffice_slides_text.pptm", "pptx_slides_text.pptx"),
    ("libreoffice_word_comments.dotx", "docx_word_comments.docx"),
    ("libreoffice_rows_founders.xltx", "xlsx_rows_founders.xlsx"),
    ("libreoffice_slides_text.ppsx", "pptx_slides_text.pptx"),
])
def test_a_macro_enabled_template_or_show_file_reads_as_its_plain_sibling(macro_enabled, plain):
    """LibreOffice saved each fixture again as its macro-enabled, template or slide-show kind
    (another main content type); the text is the same, and macros are never read."""
    assert convert_file(OFFICE / macro_enabled).markdown == convert_file(DOCS / plain).markdown


def test_an_old_slide_show_reads_as_a_presentation():
    assert convert_document(mirror_sync(), ".pps", "sync.pps").markdown == \
        convert_document(mirror_sync(), ".ppt", "sync.ppt").markdown


@pytest.mark.parametrize("suffix", [".xlsx", ".xlsm", ".xltx", ".xltm"])
def test_an_excel_binary_workbook_under_an_xml_workbooks_name_is_refused_saying_what_it_is(suffix):
    """A .xlsb (Excel's binary workbook: a package like .xlsx's whose parts are binary records) named
    as an XML workbook said `cannot convert (OSError: File contains no valid workbook part)`."""
    data = (OFFICE / "excel_calamine_issue_419.xlsb").read_bytes()
    with pytest.raises(ConversionFailed) as failed:
        convert_document(data, suffix, f"book{suffix}")
    assert str(failed.value) == (f"book{suffix}: an Excel binary workbook (.xlsb) under another name: "
                                 "its sheets are binary records, which minirag does not read; saved as .xlsx "
                                 "(Excel's or LibreOffice's Save As) it is read")


def test_an_excel_binary_workbook_is_left_out_by_its_name_saying_why(app, docs):
    """Sync's summary counted it as any unsupported type; ingesting it alone listed every suffix
    minirag reads. Both now say what it is and how to have it read."""
    import shutil

    shutil.copy(OFFICE / "excel_calamine_issue_419.xlsb", docs / "book.xlsb")
    for result in (app.ingest_paths([str(docs / "book.xlsb")]), app.sync(str(docs / "book.xlsb"))):
        assert (result.done, result.unread) == (0, 1)
        assert result.warnings == [f"{docs / 'book.xlsb'}: unsupported file type .xlsb (an Excel binary workbook: "
                                   "its sheets are binary records, which minirag does not read; saved as .xlsx "
                                   "(Excel's or LibreOffice's Save As) it is read)"]
