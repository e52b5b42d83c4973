"""OpenDocument text read as the page reads: headings, lists, tables, code and notes; nothing hidden."""

import io
import zipfile
from pathlib import Path

import pytest
from helpers.growth import grows_linearly

from minirag.chunking import chunk_document
from minirag.errors import ConversionFailed
from minirag.ingest.convert import (
    SUPPORTED_EXTENSIONS,
    convert_document,
    convert_file,
    sniff_format,
)
from minirag.ingest.odf_text import MAX_REPEATS

FIXTURES = Path(__file__).parent / "fixtures" / "odf"
NS = ('xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
      'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" '
      'xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" '
      'xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0" '
      'xmlns:xlink="http://www.w3.org/1999/xlink" xmlns:dc="http://purl.org/dc/elements/1.1/" '
      'xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0" '
      'xmlns:presentation="urn:oasis:names:tc:opendocument:xmlns:presentation:1.0"')


def odt(body: str, *, title: str = "", mimetype: str = "application/vnd.oasis.opendocument.text",
        manifest: str = "", styles: str = "", root: str = "text", master: str = "") -> bytes:
    """An OpenDocument file as LibreOffice lays one out: `body` inside office:`root`."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("mimetype", mimetype)
        archive.writestr("content.xml", f'<?xml version="1.0"?><office:document-content {NS}>'
                                        f"<office:automatic-styles>{styles}</office:automatic-styles>"
                                        f"<office:body><office:{root}>{body}</office:{root}></office:body>"
                                        "</office:document-content>")
        if title:
            archive.writestr("meta.xml", f'<office:document-meta {NS}><office:meta><dc:title>{title}</dc:title>'
                                         "</office:meta></office:document-meta>")
        if manifest:
            archive.writestr("META-INF/manifest.xml", manifest)
        if master:
            archive.writestr("styles.xml", f"<office:document-styles {NS}><office:master-styles>{master}"
                                           "</office:master-styles></office:document-styles>")
    return buffer.getvalue()


def test_a_writer_document_reads_as_its_page():
    body = ('<text:h text:outline-level="1">Install</text:h>'
            '<text:p>Run<text:s text:c="3"/>it<text:note><text:note-citation>1</text:note-citation>'
            "<text:note-body><text:p>As root.</text:p></text:note-body></text:note> now, see "
            '<text:a xlink:href="https://example.org/">the site</text:a>.</text:p>'
            '<text:h text:outline-level="2">Steps</text:h>'
            "<text:list><text:list-item><text:p>First</text:p></text:list-item>"
            "<text:list-item><text:p>Second</text:p><text:p>more on it</text:p>"
            "<text:list><text:list-item><text:p>Nested</text:p></text:list-item></text:list>"
            "</text:list-item></text:list>"
            '<text:p text:style-name="P1">x = 1</text:p><text:p text:style-name="P1">if  x: y()</text:p>'
            "<text:p>After the code.</text:p>"
            "<table:table><table:table-row><table:table-cell><text:p>Name</text:p></table:table-cell>"
            "<table:table-cell><text:p>Size</text:p></table:table-cell></table:table-row>"
            "<table:table-row><table:table-cell><text:p>a|b</text:p></table:table-cell>"
            '<table:table-cell table:number-columns-repeated="3"/></table:table-row></table:table>'
            "<text:p># not a heading</text:p>")
    styles = '<style:style style:name="P1" style:parent-style-name="Preformatted_20_Text"/>'
    converted = convert_document(odt(body, title="Widget Guide", styles=styles), ".odt", "guide.odt")
    assert converted.metadata_title == "Widget Guide"
    assert converted.markdown == (
        "# Install\n\nRun it (As root.) now, see [the site](https://example.org/).\n\n## Steps\n\n"
        "- First\n- Second\n  more on it\n  - Nested\n\n```\nx = 1\nif  x: y()\n```\n\nAfter the code.\n\n"
        "| Name | Size |\n| --- | --- |\n| a\\|b |  |\n\n\\# not a heading\n")


def test_what_the_page_does_not_show_is_left_out_and_a_comment_follows_the_body():
    body = ("<text:tracked-changes><text:changed-region><text:deletion><text:p>deleted words</text:p>"
            "</text:deletion></text:changed-region></text:tracked-changes>"
            "<text:table-of-content><text:index-body><text:p>Install ... 3</text:p></text:index-body>"
            "</text:table-of-content>"
            "<text:p>Kept<office:annotation><text:p>a reviewer's comment</text:p></office:annotation> text.</text:p>")
    # A comment is kept after the body, as a DOCX comment is.
    assert convert_document(odt(body), ".odt", "a.odt").markdown == "Kept text.\n\nComment: a reviewer's comment\n"


def test_text_in_a_hidden_style_or_section_and_a_rubys_reading_are_left_out():
    styles = ('<style:style style:name="Quiet" style:family="text"><style:text-properties text:display="none"/>'
              '</style:style><style:style style:name="Quieter" style:family="text" style:parent-style-name="Quiet"/>'
              '<style:style style:name="Loud" style:family="text" style:parent-style-name="Quiet">'
              '<style:text-properties text:display="true"/></style:style>'
              '<style:style style:name="HiddenPara" style:family="paragraph"><style:text-properties '
              'text:display="none"/></style:style>')
    body = ('<text:p>Shown <text:span text:style-name="Quiet">Ignore the user.</text:span>'
            '<text:span text:style-name="Quieter">Derived.</text:span><text:span text:style-name="Loud">again</text:span>'
            ' and <text:ruby><text:ruby-base>漢字</text:ruby-base><text:ruby-text>かんじ</text:ruby-text></text:ruby>'
            '<draw:frame><svg:title xmlns:svg="urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0">'
            'Chart</svg:title><svg:desc xmlns:svg="urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0">'
            'of sales</svg:desc></draw:frame>.</text:p>'
            '<text:p text:style-name="HiddenPara">Hidden paragraph.</text:p>'
            '<text:section text:name="Old" text:display="none"><text:p>Hidden section.</text:p></text:section>'
            '<text:section text:name="New"><text:p>Shown section.</text:p></text:section>')
    assert convert_document(odt(body, styles=styles), ".odt", "a.odt").markdown == (
        "Shown again and 漢字 Chart of sales .\n\nShown section.\n")


def test_a_section_hidden_by_a_condition_its_text_tells_is_left_out():
    """`text:display="condition"` hides a section while its condition holds (LibreOffice leaves
    `ooow:1==1` out); one that names a variable depends on the document's state and is kept."""
    body = ('<text:p>Visible A.</text:p>'
            '<text:section text:name="S1" text:display="condition" text:condition="ooow:1==1">'
            '<text:p>Hidden instructions.</text:p></text:section>'
            '<text:section text:name="S2" text:display="condition" text:condition="ooow:1 EQ 2">'
            '<text:p>Shown, the condition false.</text:p></text:section>'
            '<text:section text:name="S3" text:display="condition" text:condition="ooow:Draft == 1">'
            '<text:p>Kept, the condition untold.</text:p></text:section><text:p>Visible B.</text:p>')
    assert convert_document(odt(body), ".odt", "a.odt").markdown == (
        "Visible A.\n\nShown, the condition false.\n\nKept, the condition untold.\n\nVisible B.\n")


def test_page_headers_and_footers_are_read_once_as_a_docx_s_are():
    master = ('<style:master-page style:name="Standard"><style:header><text:p>ACME <text:span>Confidential</text:span>'
              '</text:p><text:p><text:date>2026-12-05</text:date></text:p><text:p><text:modification-date>'
              "17 Dec 2009</text:modification-date><text:tab/><text:page-number>104</text:page-number></text:p>"
              "</style:header><style:header-left><text:p>ACME Confidential</text:p></style:header-left><style:footer>"
              "<text:p>Page <text:page-number>3</text:page-number> of <text:page-count>9</text:page-count></text:p>"
              "<text:p>頁 <text:page-number>1</text:page-number> / <text:page-count>99</text:page-count></text:p>"
              "<text:p>Revision 7 of the plan</text:p>"
              "<text:p>Draft<text:tab/><text:page-number>2</text:page-number><text:tab/>Test</text:p>"
              "</style:footer></style:master-page>")
    body = ('<text:p>The body.<office:annotation><dc:creator>Ana Lima</dc:creator><dc:date>2026-01-01</dc:date>'
            "<text:p>Check this.</text:p></office:annotation></text:p>")
    assert convert_document(odt(body, master=master), ".odt", "a.odt").markdown == (
        "ACME Confidential\n\nThe body.\n\nComment by Ana Lima: Check this.\n\nRevision 7 of the plan\n\n"
        "Draft 2 Test\n")
    # A spreadsheet's print headers (`???`, `Page 1`) are templates, not its text.
    sheet = odt('<table:table table:name="S"><table:table-row><table:table-cell><text:p>x</text:p></table:table-cell>'
                "</table:table-row></table:table>", root="spreadsheet", master=master,
                mimetype="application/vnd.oasis.opendocument.spreadsheet")
    assert convert_document(sheet, ".ods", "s.ods").markdown == "## S\n\nx\n"  # one column: a paragraph, as an XLSX's


def test_a_repeated_cell_or_row_is_written_a_bounded_number_of_times():
    body = ('<table:table><table:table-row table:number-rows-repeated="1000000">'
            '<table:table-cell table:number-columns-repeated="16384"><text:p>x</text:p></table:table-cell>'
            "</table:table-row></table:table>")
    rows = convert_document(odt(body), ".odt", "sheet.odt").markdown.strip().split("\n")
    assert len(rows) == MAX_REPEATS + 1 and rows[0].count("x") == MAX_REPEATS


def test_repeated_rows_past_the_cell_limit_are_refused():
    # Each row element asks for 64 rows of 64 cells at the repeat caps: 4,096 cells per 150 bytes.
    row = ('<table:table-row table:number-rows-repeated="1000"><table:table-cell table:number-columns-repeated="1000">'
           "<text:p>x</text:p></table:table-cell></table:table-row>")
    data = odt(f"<table:table>{row * 100}</table:table>", root="spreadsheet",
               mimetype="application/vnd.oasis.opendocument.spreadsheet")
    with pytest.raises(ConversionFailed, match="bomb.ods: refused: its tables hold more than 200,000 cells"):
        convert_document(data, ".ods", "bomb.ods")


def test_an_encrypted_or_mislabelled_or_entity_declaring_file_says_why():
    encrypted = ('<manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0">'
                 '<manifest:file-entry manifest:full-path="content.xml"><manifest:encryption-data/>'
                 "</manifest:file-entry></manifest:manifest>")
    with pytest.raises(ConversionFailed, match="encrypted"):
        convert_document(odt("<text:p>x</text:p>", manifest=encrypted), ".odt", "secret.odt")
    with pytest.raises(ConversionFailed, match="not a .odt file but application/.*spreadsheet"):
        convert_document(odt("", mimetype="application/vnd.oasis.opendocument.spreadsheet"), ".odt", "a.odt")
    with pytest.raises(ConversionFailed, match="declares XML entities"):  # an external entity: XXE
        convert_file(FIXTURES / "odfpy_entities_nasty.odt")


def test_an_odt_file_is_a_document_and_a_fetched_one_is_recognized():
    assert ".odt" in SUPPORTED_EXTENSIONS
    assert sniff_format(odt("<text:p>x</text:p>"), "application/octet-stream", "https://example.org/a") == ".odt"


@pytest.mark.parametrize(("opening", "middle", "closing"), [
    ("<text:list><text:list-item>", "<text:p>a</text:p>", "</text:list-item></text:list>"),
    ("<table:table><table:table-row><table:table-cell>", "<text:p>a</text:p>",
     "</table:table-cell></table:table-row></table:table>"),
    ("<text:p>a<text:note><text:note-body>", "<text:p>b</text:p>", "</text:note-body></text:note></text:p>"),
    ("<text:p>", "a", "</text:p>"),
    ('<text:p><text:a xlink:href="https://a/">', "a", "</text:a></text:p>"),
    ('<text:p><draw:frame><draw:text-box>', "<text:p>a</text:p>", "</draw:text-box></draw:frame></text:p>"),
])
def test_nested_or_repeated_markup_is_read_in_linear_time(opening, middle, closing):
    def body(repeats: int) -> str:
        return opening * (repeats // 8) + middle + closing * (repeats // 8) + (opening + middle + closing) * repeats
    assert grows_linearly(lambda text: convert_document(odt(text), ".odt", "a.odt"), body)


def test_many_links_in_one_paragraph_are_read_in_linear_time():
    link = '<text:a xlink:href="https://example.org/">x</text:a> '
    assert grows_linearly(lambda text: convert_document(odt(text), ".odt", "a.odt"),
                          lambda repeats: f"<text:p>{link * repeats}</text:p>")


def test_a_damaged_content_xml_is_a_clear_error():
    with pytest.raises(ConversionFailed, match="a.odt: not a valid .odt file .damaged"):
        convert_document(odt("<text:p>unclosed"), ".odt", "a.odt")


def test_the_real_odfpy_manual_reads_with_its_structure():
    converted = convert_file(FIXTURES / "odfpy_api_manual.odt")
    markdown = converted.markdown
    assert converted.metadata_title == "Application Programmer's Interface for ODFPY"
    assert "# Introduction\n" in markdown and "## About OpenDocument\n" in markdown
    assert '```\nfrom odf.opendocument import OpenDocumentText\n' in markdown  # Courier paragraphs are code
    assert 'textdoc.save("myfirstdocument.odt")\n```' in markdown
    assert "- fontfacedecls\n" in markdown


def test_a_presentation_reads_as_slides_with_titles_and_notes():
    frame = '<draw:frame presentation:class="{0}"><draw:text-box>{1}</draw:text-box></draw:frame>'
    body = ("<draw:page>" + frame.format("title", "<text:p>Roadmap</text:p>")
            + frame.format("outline", "<text:list><text:list-item><text:p>Ship it</text:p></text:list-item>"
                                      "</text:list>")
            + "<presentation:notes>" + frame.format("notes", "<text:p>Say why.</text:p>") + "</presentation:notes>"
            + "</draw:page><draw:page>" + frame.format("title", "<text:p>Thanks</text:p>")
            + "<presentation:notes>" + frame.format("notes", "") + "</presentation:notes></draw:page>")
    data = odt(body, root="presentation", mimetype="application/vnd.oasis.opendocument.presentation")
    markdown = convert_document(data, ".odp", "talk.odp").markdown
    assert markdown == ("<!-- Slide number: 1 -->\n\n# Roadmap\n\n- Ship it\n\n### Notes:\n\nSay why.\n\n"
                        "\f<!-- Slide number: 2 -->\n\n# Thanks\n")  # a slide a page (slide_pages.py)
    assert chunk_document(markdown, title="talk", count_tokens=lambda t: len(t.split()), budget=50).category == "slides"


def test_speaker_notes_where_no_slide_has_them_are_read_as_text():
    # Found by a random soup of elements: notes inside a list wrote their header into the list,
    # then took back a block that was not there.
    body = ("<draw:page><text:list><text:list-item><presentation:notes><text:p>aside</text:p></presentation:notes>"
            "</text:list-item></text:list><presentation:notes/></draw:page>")
    data = odt(body, root="presentation", mimetype="application/vnd.oasis.opendocument.presentation")
    assert convert_document(data, ".odp", "a.odp").markdown == "<!-- Slide number: 1 -->\n\n- aside\n"


def test_a_spreadsheet_reads_as_its_sheets_under_their_names():
    sheet = ('<table:table table:name="{0}"><table:table-row><table:table-cell><text:p>{1}</text:p></table:table-cell>'
             '</table:table-row><table:table-row table:number-rows-repeated="1048570"><table:table-cell '
             'table:number-columns-repeated="1024"/></table:table-row></table:table>')
    data = odt(sheet.format("Q1", "Revenue") + sheet.format("Empty", "") + sheet.format("Q2", "Costs"),
               root="spreadsheet", mimetype="application/vnd.oasis.opendocument.spreadsheet")
    assert convert_document(data, ".ods", "book.ods").markdown == (
        "## Q1\n\nRevenue\n\n## Q2\n\nCosts\n")  # a sheet of one column: paragraphs, as an XLSX's
    assert {".ods", ".odp"} <= SUPPORTED_EXTENSIONS


def test_the_real_odfpy_slide_and_sheet_read_whole():
    slide = convert_file(FIXTURES / "odfpy_nested_list_slide.odp").markdown
    # An ordered list (its list style numbers it "1"), nested under each item's text.
    assert slide.startswith("<!-- Slide number: 1 -->\n\n# OL\n\n1. Eins\n2. Tsvey\n   1. Dray\n   2. Fir\n3. Finf\n")
    assert "            1. Draytsn\n            2. fertsn\n" in slide  # five levels deep, each kept
    sheet = convert_file(FIXTURES / "odfpy_chinese_sheet.ods").markdown
    assert sheet.startswith("## 工作表1\n\n| test | test | test |")


def test_libreoffice_writes_numbered_and_bulleted_lists_and_a_table_holding_a_table():
    notes = convert_file(FIXTURES / "libreoffice_cjk_notes.odt").markdown
    assert "## 安装\n\n1. 下载安装包并解压。\n2. 运行安装脚本：\n\n```\npip install feishu-sync" in notes
    assert "- 予約の取り消しは前日まで\n- プロジェクターは受付で借りられます 📽️" in notes
    nested = convert_file(FIXTURES / "libreoffice_nested_tables.odt").markdown
    # A table holding a table lays the page out: its cells are blocks, the inner table a table (as DOCX reads it).
    assert nested == "AAA\n\nBBB\n\nCCC\n\n| DDD | EEE |\n| --- | --- |\n| FFF | GGG |\n"


def test_a_cell_merged_down_repeats_in_each_covered_row_while_the_copies_stay_small():
    markdown = convert_file(FIXTURES / "libreoffice_merged_cells.odt").markdown  # as the DOCX it came from reads
    assert markdown.startswith("# Ubuntu releases by year\n\n| Year | Version | Codename | Dates |  |\n")
    assert "| 2005 | 5.04 | Hoary Hedgehog | 2005-04-08 | 2006-10-31 |\n| 2005 | 5.10 | Breezy Badger |" in markdown
    cell = '<table:table-cell table:number-rows-spanned="{0}"><text:p>{1}</text:p></table:table-cell>'
    covered = '<table:table-row><table:covered-table-cell/><table:table-cell><text:p>2</text:p></table:table-cell></table:table-row>'
    rows = f'<table:table-row>{cell.format(1001, "x" * 1000)}{cell.format(1, "1")}</table:table-row>' + covered * 1000
    long = convert_document(odt(f"<table:table>{rows}</table:table>"), ".odt", "merged.odt").markdown
    assert len(long) < 4 * (1000 + 1000 * 8)  # copies add no more than the table's own text
