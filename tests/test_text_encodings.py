"""Text as people's tools write it: UTF-16 and UTF-32 with their byte-order marks (Windows),
legacy single-byte charsets, HTML that declares its charset, and CSV with the locale's list
separator (a semicolon in Russian, German or French Excel). Each is read as what it is, not
refused as binary or turned into mojibake or one run-together column."""

from __future__ import annotations

import codecs
from pathlib import Path

import pytest

from minirag.errors import ConversionFailed
from minirag.ingest.convert import convert_document
from minirag.ingest.csv_table import csv_to_markdown, sniff_delimiter
from minirag.ingest.sync import run_sync
from minirag.ingest.text_decoding import decode_text, html_declared_charset
from minirag.results import payload

RUSSIAN = "Осциллограф измеряет напряжение сигнала во времени. Ёлка, щётка, объём."
FRENCH = "Le système doit être redémarré après la mise à jour, voilà."


@pytest.mark.parametrize("codec", ["utf-16", "utf-16-le", "utf-16-be", "utf-32", "utf-32-le", "utf-32-be"])
@pytest.mark.parametrize("suffix", [".txt", ".md"])
def test_utf16_and_utf32_with_a_byte_order_mark_are_text(codec, suffix):
    text = "# Заметки\n\n" + RUSSIAN + "\nEnglish words too.\n"
    mark = {"utf-16-le": codecs.BOM_UTF16_LE, "utf-16-be": codecs.BOM_UTF16_BE,
            "utf-32-le": codecs.BOM_UTF32_LE, "utf-32-be": codecs.BOM_UTF32_BE}.get(codec, b"")
    converted = convert_document(mark + text.encode(codec), suffix, "notes" + suffix)
    # (in a .txt file the `#` line over a blank one is its title line: text_headings.py)
    assert converted.markdown == text and converted.warnings == ()


def test_utf16_without_its_mark_is_still_refused_as_binary_and_told_what_would_read_it():
    with pytest.raises(ConversionFailed, match="binary.*UTF-16 text is read only with its byte-order mark"):
        convert_document("plain words".encode("utf-16-le"), ".txt", "bare.txt")


@pytest.mark.parametrize(("declared", "codec"), [
    ("utf-16le", "utf-16-le"), ("UTF-16BE", "utf-16-be"), ("utf_16", "utf-16-le"), ("utf-16", "utf-16-be"),
    ("utf-32le", "utf-32-le"), ("UTF-32BE", "utf-32-be"), ("utf-32", "utf-32-le"), ("utf-32", "utf-32-be"),
])
def test_utf16_or_utf32_without_a_mark_reads_by_the_charset_declared_for_it(declared, codec):
    # A MIME part's or an HTTP response's charset is its bytes' label: UTF-16LE and -BE are written
    # without a mark; a bare UTF-16 or UTF-32 label is read in the order its zero bytes show.
    text = "Заметки: " + RUSSIAN + "\nEnglish words too.\n"
    assert decode_text(text.encode(codec), "notes.txt", declared=declared) == (text, ())


@pytest.mark.parametrize(("data", "declared"), [
    (FRENCH.encode("cp1252"), "utf-16le"),  # 8-bit text: no zero byte where UTF-16 needs one
    (FRENCH.encode("utf-8"), "utf-32"),
    ((RUSSIAN * 3).encode("cp1251"), "utf-16"),
    (FRENCH.encode("cp1252"), "euc-jp"),  # bytes that are no EUC-JP
    ((RUSSIAN * 3).encode("cp1251"), "no-such-charset"),
    ("plain words".encode("utf-16-be"), "utf-16le"),  # its zero bytes say big-endian: refused as without it
    ("plain words".encode("utf-16-le"), "utf-32le"),
])
def test_a_declared_charset_the_bytes_belie_or_no_codec_knows_reads_as_no_label_would(data, declared):
    try:
        unlabelled: object = decode_text(data, "notes.txt")
    except ConversionFailed as exc:
        unlabelled = str(exc)
    try:
        labelled: object = decode_text(data, "notes.txt", declared=declared)
    except ConversionFailed as exc:
        labelled = str(exc)
    assert labelled == unlabelled


def test_binary_data_behind_a_text_head_is_refused_and_a_stray_nul_is_taken_out():
    head = ("Plain words of a log line.\n" * 400).encode()  # 10,800 bytes: past the first 8 KB read
    with pytest.raises(ConversionFailed, match="binary"):
        convert_document(head + bytes(range(32)) * 400, ".txt", "tail.txt")
    converted = convert_document(head + b"one\x00 stray\x07 byte\n", ".md", "log.md")
    assert converted.markdown.endswith("one stray byte\n") and "\x00" not in converted.markdown
    assert "2 control characters" in converted.warnings[0]
    # A separator between fields or lines still separates the words on either side of it.
    converted = convert_document(head + "name\x1fvalue\x1eend\x85line\n".encode(), ".md", "fields.md")
    assert converted.markdown.endswith("name value end\nline\n")


def test_a_broken_utf16_body_is_decoded_with_a_warning_not_refused():
    data = codecs.BOM_UTF16_LE + "intact words".encode("utf-16-le") + b"\x00\xd8"  # a lone high surrogate
    converted = convert_document(data, ".txt", "broken.txt")
    assert converted.markdown.startswith("intact words") and "invalid UTF-16-LE" in converted.warnings[0]



def test_a_few_words_too_short_to_detect_are_read_as_windows_1252_not_replaced():
    """A 14-byte Latin-1 attachment (a real Outlook one) gives the detector nothing to go on; a
    browser reads unlabelled legacy text as windows-1252, and so is this, its letters kept."""
    converted = convert_document("TEST äöü +-*/~".encode("latin-1"), ".txt", "short.txt")
    assert converted.markdown == "TEST äöü +-*/~"
    assert converted.warnings == ("short.txt: not UTF-8 (invalid at byte 5); too little text to detect its charset, "
                                  "decoded as cp1252",)
    # CPython's cjkencodings test text: the detector places none of it, and most of its bytes are
    # past ASCII, which no single-byte guess would spell.
    korean = "똠방각하 펲시콜라\n\n㉯㉯납!! 因九月패믤릔궈 ⓡⓖ훀¿¿¿ 긍뒙 ⓔ뎨 ㉯. .\n亞영ⓔ능".encode("cp949")
    assert "invalid UTF-8 at byte 0; undecodable bytes replaced" in convert_document(korean, ".txt", "k.txt").warnings[0]


@pytest.mark.parametrize("suffix", [".md", ".csv", ".html"])
def test_a_utf8_mark_before_text_in_another_charset_is_left_out_of_the_detection(suffix):
    """The mark's bytes, read as cp1251 or mac_cyrillic, tipped the detector to mac_cyrillic: `пїњѕривет`."""
    text = ("Привет. " + RUSSIAN + "\n") * 3
    converted = convert_document(codecs.BOM_UTF8 + text.encode("cp1251"), suffix, "lying" + suffix)
    assert "Осциллограф измеряет напряжение" in converted.markdown and "ї" not in converted.markdown
    assert converted.warnings == (f"lying{suffix}: not UTF-8 (invalid at byte 0); decoded as cp1251",)


@pytest.mark.parametrize("mark", [codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE, codecs.BOM_UTF32_LE, codecs.BOM_UTF32_BE])
def test_a_utf16_or_utf32_mark_before_8_bit_text_is_read_without_it(mark):
    """Every UTF-32 character, and each ASCII one in UTF-16, holds a zero byte: UTF-8 behind such a
    mark was read as CJK (`慗牬獵獥`), without a warning, and indexed as that."""
    text = "Walruses haul out on the ice floes. " + RUSSIAN + "\n"
    converted = convert_document(mark + text.encode("utf-8"), ".md", "lying.md")
    assert converted.markdown == text
    assert converted.warnings == ("lying.md: a UTF-16 or UTF-32 byte-order mark before text that is neither; "
                                  "read without it",)
    if len(mark) == 4:  # UTF-16 of CJK alone may hold no zero byte: only UTF-8 behind its mark is told apart
        converted = convert_document(mark + text.encode("cp1251"), ".txt", "lying.txt")
        assert RUSSIAN in converted.markdown and "decoded as cp1251" in converted.warnings[-1]


def test_utf16_text_without_a_zero_byte_is_still_read_by_its_mark():
    text = "中文文本，这是一个测试。漢字かな交じり文。"
    assert convert_document(codecs.BOM_UTF16_LE + text.encode("utf-16-le"), ".md", "cjk.md").markdown == text

@pytest.mark.parametrize("meta", [
    '<meta charset="{}">', "<META CHARSET={}>",
    '<meta http-equiv="Content-Type" content="text/html; charset={}">',
])
@pytest.mark.parametrize("charset", ["windows-1251", "koi8-r"])
def test_html_is_decoded_by_the_charset_it_declares(meta, charset):
    page = f"<html><head>{meta.format(charset)}<title>Приборы</title></head><body><p>{RUSSIAN}</p></body></html>"
    converted = convert_document(page.encode(charset), ".html", "page.html")
    assert RUSSIAN in converted.markdown and converted.metadata_title == "Приборы"
    assert converted.warnings == ()


@pytest.mark.parametrize("declared", ["iso-8859-1", "us-ascii", "latin1"])
def test_a_latin1_or_ascii_declaration_is_read_as_windows_1252_as_browsers_do(declared):
    page = f'<meta charset="{declared}"><p>“{FRENCH}” – 5 €</p>'.encode("cp1252")
    converted = convert_document(page, ".html", "page.html")
    assert f"“{FRENCH}” – 5 €" in converted.markdown and converted.warnings == ()


@pytest.mark.parametrize("declared", ["base64", "hex", "rot13", "utf-7", "unicode_escape", "undefined", "idna"])
def test_a_declared_codec_that_is_no_web_charset_falls_back_to_detection(declared):
    page = f'<meta charset="{declared}"><p>{FRENCH} Un café, s\'il vous plaît.</p>'.encode("cp1252")
    converted = convert_document(page, ".html", "page.html")
    assert "Un café" in converted.markdown and "detected" not in converted.markdown
    assert "not UTF-8" in converted.warnings[0]


def test_a_false_utf8_declaration_falls_back_to_detection():
    page = f'<meta charset="utf-8"><p>{FRENCH}</p>'.encode("cp1252")
    assert html_declared_charset(page) == "utf-8"
    converted = convert_document(page, ".html", "page.html")
    assert "not UTF-8" in converted.warnings[0]


def test_short_western_text_in_a_legacy_charset_is_read_as_cp1252():
    # cp1250 and cp1252 score alike on so few letters; cp1250 would give "crčme", "naďve".
    converted = convert_document("Café crème brûlée, a naïve façade.".encode("latin-1"), ".txt", "menu.txt")
    assert converted.markdown == "Café crème brûlée, a naïve façade." and "cp1252" in converted.warnings[0]


@pytest.mark.parametrize("text", [
    "Name;Stadt;Betrag\nMüller;Köln;1.234,56\nSchmidt;München;99,00\n",  # the detector's best: cp852, "MŘller"
    "Nombre;Ciudad;Importe\nNúñez;Cádiz;10\nPeña;León;4\n",  # cp775, "N·±ez"
])
def test_a_short_western_csv_is_not_read_in_a_dos_code_page(text):
    """Excel in a German or Spanish locale saves CSV in windows-1252. On a few lines the detector
    scored DOS code pages (cp852, cp775) as high as the Windows ones and named them best, so every
    accented letter was another; browsers never guess a DOS code page for unlabelled text."""
    converted = convert_document(text.encode("cp1252"), ".csv", "t.csv")
    assert converted.markdown == csv_to_markdown(text, "t.csv")


@pytest.mark.parametrize(("text", "charset"), [
    ("Artikel;Preis\nKäse;4,50 €\nGemüse;2,00 €\n", "cp1252"),  # was mac cp775: `Kõse`, `4,50 Ć`
    ("Name;Straße;Preis\nMüller;Königsallee 5;12,50 €\nBäcker;Großmarkt 3;9,99 €\n", "cp1252"),  # mac_latin2
    ("Größe;Menge\nÄpfel;3\nÖl;1\nFüße;2\n", "cp1252"),  # read right, named cp1250
    ("Jméno;Cena\nJiří;řeka\nČeněk;šest\n", "cp1250"),  # cp1252: `Jiøí`, `Èenìk`
    ("Jméno;Příjmení;Město\nJiří;Dvořák;Plzeň\nPetr;Černý;České Budějovice\n", "cp1250"),  # iso8859_16: `Jiűí`
    ("Imię;Miasto\nŁukasz;Łódź\nJoanna;Kraków\nŻaneta;Gdańsk\n", "cp1250"),  # cp1252: `£ukasz`, `£ódŸ`
    ("Név;Város\nŐsz Ödön;Győr\nÜnnep Éva;Pécs\n", "cp1250"),  # cp1252: `Õsz`, `Gyõr`
    ("Nom;Ville\nFrançois;Besançon\nHélène;Orléans\n", "cp1252"),
])
def test_a_short_central_or_western_european_csv_is_read_and_named_in_its_code_page(text, charset):
    """cp1250 and cp1252 put German umlauts and the euro sign on the same bytes, and other letters
    on bytes where both have a letter: the detector cannot tell them apart on a few lines, named
    the one it liked first (a German file `decoded as cp1250`), read Czech and Polish as cp1252
    and German with a `€` in a Mac or DOS code page. The warning names the code page the text was
    decoded with, as a reader of that text would call it."""
    converted = convert_document(text.encode(charset), ".csv", "t.csv")
    assert converted.markdown == csv_to_markdown(text, "t.csv")
    assert converted.warnings == (f"t.csv: not UTF-8 (invalid at byte {_first_past_ascii(text)}); decoded as {charset}",)


def _first_past_ascii(text: str) -> int:
    return next(n for n, c in enumerate(text) if ord(c) > 0x7F)


@pytest.mark.parametrize(("text", "delimiter"), [
    ("имя;описание\nосциллограф;измеряет напряжение, ток\nмультиметр;сопротивление\n", ";"),
    ("Name\tPrice\nTea\t3,50\nCoffee\t4,20\n", "\t"),
    ("a|b|c\n1|2|3\n", "|"),
    ('name,notes\nA,"x;y;z"\nB,"p;q;r"\n', ","),  # a separator inside quotes does not count
    ("version,codename\n4.10,Warty Warthog\n", ","),
    ("one column\nvalue\n", ","),
])
def test_the_csv_delimiter_is_read_from_the_file(text, delimiter):
    assert sniff_delimiter(text) == delimiter


def test_excels_sep_line_names_the_delimiter_and_is_no_row():
    """Exporters write `sep=;` above the data so that Excel in any locale splits it right; it had
    been the table's header (`| sep= |  |`) and its column names the first row."""
    assert csv_to_markdown("sep=;\r\nName;City\r\nAnn;Oslo, Norway\r\n", "t.csv").splitlines() == [
        "| Name | City |", "| --- | --- |", "| Ann | Oslo, Norway |"]
    assert csv_to_markdown("SEP=|\nName|City\nAnn|Oslo\n", "t.csv").splitlines()[0] == "| Name | City |"


def test_a_semicolon_csv_is_a_table_of_its_cells():
    table = csv_to_markdown("имя;описание\nосциллограф;измеряет напряжение, ток\n\nмульти|метр;сопротивление\n", "t.csv")
    assert table.splitlines() == ["| имя | описание |", "| --- | --- |", "| осциллограф | измеряет напряжение, ток |",
                                  "| мульти\\|метр | сопротивление |"]


def test_a_cp1251_semicolon_csv_syncs_and_its_cells_are_found(app, docs):
    (docs / "приборы.csv").write_bytes("Прибор;Назначение\nОсциллограф;форма сигнала\nМегаомметр;сопротивление "
                                      "изоляции\n".encode("cp1251"))
    (docs / "notes.txt").write_bytes(codecs.BOM_UTF16_LE + "Quokkas live on Rottnest Island.".encode("utf-16-le"))
    result = run_sync(app.pipeline, list(app.config.roots))
    assert result.failed == 0, result.warnings
    hit = payload(app.query("мегаомметр", top_k=1))["results"][0]
    assert hit["source"].endswith("приборы.csv") and "| Мегаомметр | сопротивление изоляции |" in hit["text"]
    assert payload(app.query("quokkas", top_k=1))["results"][0]["source"].endswith("notes.txt")


def test_lone_surrogates_a_notebook_or_ingest_data_carries_are_replaced_and_the_rest_indexed(app, docs):
    """JSON may escape half a surrogate pair (`"\\ud800"`); the chunker's tokenizer raised a TypeError
    on it, a traceback for the notebook and a failed ingest_data."""
    import json

    cell = {"cell_type": "markdown", "metadata": {}, "source": ["Walruses haul out \ud800 on ice \udfff floes.\n"]}
    (docs / "walrus.ipynb").write_text(json.dumps({"cells": [cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))
    result = run_sync(app.pipeline, list(app.config.roots))
    assert result.failed == 0, result.warnings
    hit = payload(app.query("walruses ice floes", top_k=1))["results"][0]
    assert hit["source"].endswith("walrus.ipynb") and "out \ufffd on ice \ufffd floes" in hit["text"]
    app.ingest_data("Narwhal tusks \udc80 spiral", "notes/narwhal", fmt="text")
    assert "tusks \ufffd spiral" in payload(app.query("narwhal tusks", top_k=1))["results"][0]["text"]


def test_ingest_data_is_cleaned_of_control_characters_as_a_text_file_is(app):
    """A file's stray NULs are taken out and a file of them refused as binary; ingest_data indexed
    them as they came, a chunk of `\\x00\\x00` for content of only NULs."""
    with pytest.raises(ConversionFailed, match="looks like binary data"):
        app.ingest_data("\x00" * 64, "notes/nul", fmt="text")
    assert app.index.stats().chunk_count == 0
    result = app.ingest_data("Narwhal\x00 tusks \x07spiral. " + "Narwhals live in Arctic waters. " * 20,
                             "notes/narwhal", fmt="markdown")
    assert any("control characters" in warning for warning in result.warnings)
    assert app.read(result.source).text.startswith("Narwhal tusks spiral.")


def test_a_ragged_csv_is_padded_to_line_up_but_never_blown_up():
    assert csv_to_markdown("a,b,c\n1\n2,3\n", "t.csv").splitlines()[2:] == ["| 1 |  |  |", "| 2 | 3 |  |"]
    wide_header = ",".join(f"h{i}" for i in range(20_000)) + "\n" + "x\n" * 3_000  # 100 KB
    assert len(csv_to_markdown(wide_header, "wide.csv")) < 10 * len(wide_header)
    # A wide row under a narrow header: the header is still as wide as the line under it, or the
    # Markdown is no table at all.
    wide_row = "a,b\n" + "x\n" * 3_000 + ",".join(f"c{i}" for i in range(20_000)) + "\n"
    lines = csv_to_markdown(wide_row, "wide.csv").splitlines()
    assert lines[0].count("|") == lines[1].count("|") == 20_001 and lines[2] == "| x |"


def test_a_csv_cell_up_to_the_line_limit_is_read_and_a_longer_one_refused_saying_so():
    """The csv module's own field limit (131,072 characters) refused a 300 kB cell on one line, under
    the 1 MiB line limit, with `field larger than field limit (131072)`."""
    from minirag.ingest.csv_table import MAX_LINE_CHARS

    long_cell = "walrus " * 45_000  # 315 kB
    table = csv_to_markdown(f"name,notes\nodobenus,{long_cell}\n", "long.csv")
    assert table.splitlines()[2] == f"| odobenus | {long_cell} |"
    quoted = "name,notes\nodobenus,\"" + "tusk\n" * (MAX_LINE_CHARS // 4) + "\"\n"  # one field, short lines
    with pytest.raises(ConversionFailed, match=r"^huge\.csv: refused: a field over the 1,048,576 characters a CSV "
                                              r"field may have$"):
        csv_to_markdown(quoted, "huge.csv")


@pytest.mark.parametrize("suffix", [".xhtml", ".xht", ".html"])
def test_xhtml_is_read_as_html_by_the_encoding_its_xml_declaration_names(suffix):
    # XHTML (a DocBook or Sphinx build's pages, a saved page) declares its encoding in the XML
    # declaration and may have no meta tag; .xhtml had been left out as an unsupported type.
    page = (f'<?xml version="1.0" encoding="windows-1251"?>\n<html xmlns="http://www.w3.org/1999/xhtml">'
            f"<head><title>Приборы</title></head><body><p>{RUSSIAN}</p></body></html>")
    converted = convert_document(page.encode("cp1251"), suffix, "page" + suffix)
    assert RUSSIAN in converted.markdown and converted.metadata_title == "Приборы"
    assert converted.warnings == ()


def test_a_tsv_file_is_a_table_split_at_its_tabs_alone():
    # tzdata's country list as TSV: a name holding a comma or a semicolon stays one cell, where
    # sniffing could have split at them; .tsv had been left out as an unsupported type.
    data = (Path(__file__).parent / "fixtures" / "docs" / "tsv_tzdata_iso3166_countries.tsv").read_bytes()
    rows = convert_document(data, ".tsv", "countries.tsv").markdown.split("\n")
    assert rows[:3] == ["| code | country |", "| --- | --- |", "| AD | Andorra |"]
    assert "| BQ | Caribbean NL |" in rows and len(rows) == 62
    odd = "id\tnote\n1\tred, green; blue\n2\tone, two; three\n3\tfour, five; six\n"
    assert convert_document(odd.encode(), ".tsv", "odd.tsv").markdown.split("\n")[2] == "| 1 | red, green; blue |"



def test_a_tsv_quote_that_opens_no_quoted_field_is_text_and_swallows_no_rows():
    # Most TSV writers (IANA's text/tab-separated-values, database dumps) quote nothing: a cell opening
    # with `"` had been read as a quoted field running to the file's end, every row after it one cell.
    stray = 'word\tsaid\n"Hi there\tgreeting\nbye\tfarewell\nyes\tassent\n'
    assert convert_document(stray.encode(), ".tsv", "stray.tsv").markdown.split("\n")[2:] == [
        '| "Hi there | greeting |', "| bye | farewell |", "| yes | assent |"]
    # Excel's "Text (Tab delimited)" quotes a cell holding a quote, a tab or a line break: still one cell.
    excel = 'name\tnote\r\nx\t"5"" screen"\r\ny\t"two\r\nlines"\r\n'
    assert convert_document(excel.encode(), ".tsv", "excel.tsv").markdown.split("\n")[2:] == [
        '| x | 5" screen |', "| y | two lines |"]


@pytest.mark.parametrize("suffix", [".qmd", ".Rmd", ".mkd", ".mkdn", ".mdown", ".mdwn"])
def test_quarto_r_markdown_and_markdowns_rarer_names_read_as_markdown(suffix):
    # A Quarto or R Markdown report: YAML frontmatter, then Markdown with `{python}`/`{r}` code chunks.
    source = ("---\ntitle: \"Sales report\"\nformat: html\n---\n\n## Method\n\nWe **fit** a model.\n\n"
              "```{r}\nfit <- lm(y ~ x, data = sales)\n```\n")
    converted = convert_document(source.encode(), suffix, "report" + suffix)
    assert converted.frontmatter and "## Method" in converted.markdown and "We **fit** a model." in converted.markdown
    assert "```r\nfit <- lm(y ~ x, data = sales)\n```" in converted.markdown


def test_a_server_side_include_page_reads_as_html():
    converted = convert_document(b"<html><head><title>Intro</title></head><body><!--#include virtual=\"nav.html\" -->"
                                 b"<p>Welcome to the lab.</p></body></html>", ".shtml", "index.shtml")
    assert converted.markdown == "Welcome to the lab." and converted.metadata_title == "Intro"
