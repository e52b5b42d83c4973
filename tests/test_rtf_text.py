"""RTF as a reader sees it: real files from Word, LibreOffice, TextEdit and a DocBook tool
(tests/fixtures/docs, sources in its README), and the format's corners one at a time."""

import pytest
from conftest import FIXTURES
from helpers.growth import grows_linearly

from minirag.errors import ConversionFailed
from minirag.ingest.convert import convert_document, convert_file, sniff_format
from minirag.ingest.rtf_text import MAX_DEPTH, rtf_to_markdown

DOCS = FIXTURES / "docs"


def read(body: str, header: str = r"{\rtf1\ansi\deff0{\fonttbl{\f0\fswiss Arial;}{\f1\fmodern Courier New;}}") -> str:
    return rtf_to_markdown(f"{header}{body}}}".encode("latin-1"), "test.rtf")[0]


# --- real files --------------------------------------------------------------------------


def test_word_headings_come_from_its_stylesheet_and_its_title_from_the_information_group():
    converted = convert_file(DOCS / "rtf_word_cvs_writeproxy.rtf")
    assert converted.metadata_title == "Ximbiot"  # what the file's {\info{\title}} says
    lines = converted.markdown.split("\n")
    assert "# CVS Improvement for Remote Development – Exhibit A" in lines  # \'96 in windows-1252
    assert "## Abstract" in lines and "## Introduction" in lines
    assert "a “mirror”, or “read-only”, CVS repository" in converted.markdown
    assert "Times New Roman" not in converted.markdown and "panose" not in converted.markdown


def test_each_fonts_character_set_decodes_its_bytes_and_page_numbers_leave_the_footer():
    markdown = convert_file(DOCS / "rtf_docbook_muttprint_manual_sl.rtf").markdown
    # \'e8 is č in the Central European fonts (\fcharset238), \'9a is š in windows-1252 too.
    assert "### 2.2. Namestitev datotek na vašem računalniku" in markdown.split("\n")
    assert "Integracija Muttprint-a v poštne ter novičarske kliente" in markdown
    assert "```\n$ tar xvfz muttprint-Verzija.tar.gz\n```" in markdown  # a paragraph in Courier New CE
    # The page header's text once, above the body; its footers hold only the page number (\chpgn).
    assert markdown.startswith("Muttprint -- Navodila za uporabo\n\n")
    # the title page's title once: the page header that repeats it is not read twice (e2e74)
    assert markdown.count("Muttprint -- Navodila za uporabo") == 1
    assert "000" not in markdown  # the contents' PAGEREF fields


def test_libreoffice_unicode_text_lists_tables_links_and_code():
    converted = convert_file(DOCS / "rtf_libreoffice_cjk_notes.rtf")
    assert converted.metadata_title == "飞书消息与日程 — 使用说明"  # the \*\ud half of {\upr ...}, not the ?s
    markdown = converted.markdown
    assert markdown.startswith("# 飞书消息与日程\n\n本文介绍如何使用 Python 的 asyncio 接收飞书消息")
    assert "1. 下载安装包并解压。\n2. 运行安装脚本：" in markdown
    assert "```\npip install feishu-sync\nfeishu-sync --init\n```" in markdown
    assert "詳しくは[会議室の案内](https://example.org/ja/rooms)をご覧ください。" in markdown
    assert "- 予約の取り消しは前日まで\n- プロジェクターは受付で借りられます 📽️" in markdown
    assert "| 任务 | 负责人 | 截止日期 |\n| --- | --- | --- |\n| 消息同步 | 王芳 | 2026-12-20 |" in markdown
    assert "«черновик»" in markdown and "𝔘𝔫𝔦𝔠𝔬𝔡𝔢 and 😀." in markdown  # surrogate pairs as \u-pairs
    assert "?" not in markdown  # no fallback character leaked


def test_textedit_code_in_a_fixed_pitch_font_is_fenced():
    markdown = convert_file(DOCS / "rtf_textedit_loopbuf_help.rtf").markdown
    assert markdown.startswith("LoopBuf sample looping oscillator\n\nPlays and loops between two frames")
    fence = markdown.index("```\n// Create buffer and SynthDef")
    assert "s = Server.internal;" in markdown[fence:]
    assert "Plays and loops" not in markdown[fence:]


def test_comments_follow_the_body_with_their_authors():
    markdown = convert_file(DOCS / "rtf_libreoffice_word_comments.rtf").markdown
    body, _, comments = markdown.partition("Comment by")
    assert "Paragraph 7" in body and "Steve Canny" not in body
    assert comments.startswith(" Steve Canny: Text with hyperlink https://google.com embedded.")
    assert "Comment: Text with inline image in the middle." in markdown  # its author left empty in the file


# --- characters --------------------------------------------------------------------------


def test_unicode_escapes_skip_their_fallback_however_it_is_written():
    assert read(r"\uc1 caf\u233\'e9 na\u239?ve\par") == "café naïve"
    assert read(r"\uc2 \u8364\'80\'80 x\par") == "€ x"
    assert read(r"\uc0 \u8364 5\par") == "€5"
    assert read(r"{\uc3 \u8364 abc}d\par") == "€d"  # a group's end ends the fallback
    assert read(r"\u8364{x}\par") == "€x"  # and so does a group's start
    assert read(r"{\upr{Caf? ANSI}{\*\ud{Caf\u233? Unicode}}}\par") == "Café Unicode"  # a text written twice
    assert read(r"\u-10179?\u-8704?\par") == "😀"  # a surrogate pair, each half negative
    assert read(r"\u-10179?x\par") == "x"  # half a pair is no character
    assert read(r"\u128512?\u-99999?\u9999999999?\u0?!\par") == "😀!"  # a code point whole; none at all


def test_code_pages_by_document_by_font_and_double_byte():
    assert read(r"\'cf\'f0\'e8\'e2\'e5\'f2\par", r"{\rtf1\ansi\ansicpg1251\deff0") == "Привет"
    cyrillic_font = r"{\rtf1\ansi\deff0{\fonttbl{\f0 Arial;}{\f1\fcharset204 Arial Cyr;}}"
    assert read(r"caf\'e9 \f1 \'cf\'f0\'e8\'e2\'e5\'f2\par", cyrillic_font) == "café Привет"
    japanese = r"{\rtf1\ansi\ansicpg932\deff0{\fonttbl{\f0\fcharset128 MS Mincho;}}"
    assert read(r"\'93\'fa\'96\'7b\'8c\'ea\par", japanese) == "日本語"
    # A double-byte character's second byte may be written as a plain character (0x82 0x60 is Ａ).
    assert read(r"\'82`B\par", japanese) == "ＡB"
    assert read(r"\'8e\'a9\par", r"{\rtf1\mac\deff0") == "é©"
    # Raw 8-bit text, which some writers put in, is UTF-8 when the file is.
    assert rtf_to_markdown("{\\rtf1\\ansi Grüße aus Köln\\par}".encode(), "x.rtf")[0] == "Grüße aus Köln"
    assert rtf_to_markdown("{\\rtf1\\ansi Grüße\\par}".encode("cp1252"), "x.rtf")[0] == "Grüße"


def test_symbols_and_typographic_words():
    assert read(r"a\~b\-c\_d \{x\} \\ \emdash\endash\lquote q\rquote\ldblquote w\rdblquote\bullet\par") == \
        "a bc-d {x} \\ —–‘q’“w”•"


# --- what the page does not show ---------------------------------------------------------


def test_tables_of_fonts_colours_styles_and_information_and_unknown_destinations_are_not_text():
    header = (r"{\rtf1\ansi{\fonttbl{\f0\froman Times;}}{\colortbl;\red0\green0\blue0;}"
              r"{\stylesheet{\s0 Normal;}{\*\cs10 Default Paragraph Font;}}"
              r"{\info{\author Ann}{\title Report}{\*\company Acme}}{\*\generator Writer;}")
    assert read(r"{\*\unknownthing secret}{\*\bkmkstart b1}Body{\pict\pngblip 89504e47}\par", header) == "Body"
    assert rtf_to_markdown(f"{header}x}}".encode(), "x.rtf")[1] == "Report"


def test_hidden_and_deleted_text_is_left_out():
    assert read(r"seen {\v hidden }and{\deleted  gone} kept\v  also hidden\v0  back\par") == "seen and kept back"


def test_text_a_hiding_style_applies_to_is_left_out_unless_the_run_shows_it():
    """A character style (`{\\*\\cs10 \\additive \\v ...}` applied by `\\cs10`) or a paragraph
    style (`\\s15 \\v`) whose text is hidden hides it, as Word and LibreOffice show the file; its text
    had been read. A run's own `\\v0` shows it again; `\\plain` and `\\pard` leave the styles."""
    styles = (r"{\stylesheet{\s0 Normal;}{\*\cs10 \additive \v Hidden Char;}{\s15 \v Hidden Para;}"
              r"{\s16\outlinelevel0 Heading 1;}}")
    body = (r"\pard\s0 Seen {\cs10 secret char }and kept.\par\pard\s15 Secret paragraph.\par"
            r"\pard\s15 {\v0 Shown on purpose.}\par\pard\s0 {\cs10 hidden\plain  plain again}\par"
            r"\pard\s16 Title\par")
    markdown = read(body, header=r"{\rtf1\ansi" + styles)
    assert markdown == "Seen and kept.\n\nShown on purpose.\n\nplain again\n\n# Title"


def test_binary_data_is_skipped_by_its_length_even_when_it_holds_braces():
    assert read(r"{\*\blob\bin6 }}{{\\}after\par") == "after"
    assert read(r"{\pict\bin999999 }") == ""  # past the end of the file


def test_fields_links_and_page_numbers():
    link = r'{\field{\*\fldinst HYPERLINK "https://example.org/a"}{\fldrslt the site}}'
    assert read(rf"See {link}.\par") == "See [the site](https://example.org/a)."
    assert read(r"Page {\field{\*\fldinst PAGE}{\fldrslt 7}} of it\par") == "Page of it"
    assert read(r'{\field{\*\fldinst HYPERLINK \\l "_Toc1"}{\fldrslt Chapter 2}}\par') == "Chapter 2"
    assert read(r'{\field{\*\fldinst HYPERLINK "file:///etc/passwd"}{\fldrslt notes}}\par') == "notes"


def test_a_footnote_reads_where_it_is_cited():
    body = r"Text{\super\chftn}{\footnote\pard\plain{\super\chftn} The source.\par Second line.}{} goes on.\par"
    assert read(body) == "Text (The source. Second line.) goes on."


def test_headers_keep_their_words_and_drop_page_lines():
    body = (r"{\header\pard Acme Confidential\par Page {\field{\*\fldinst PAGE}{\fldrslt 3}}\par}"
            r"{\footer\pard\chpgn\par Draft\par}Body\par")
    assert read(body) == "Acme Confidential\n\nBody\n\nDraft"


# --- structure ---------------------------------------------------------------------------


def test_headings_by_outline_level_or_style_name():
    header = r"{\rtf1\ansi{\stylesheet{\s0 Normal;}{\s2\outlinelevel1 Custom Two;}{\s3 heading 3;}{\s9 Title;}}"
    body = r"\pard\s9 Report\par\pard\s2 Scope\par\pard\s3 Detail\par\pard\outlinelevel0 Top\par\pard Body\par"
    assert read(body, header) == "# Report\n\n## Scope\n\n### Detail\n\n# Top\n\nBody"


def test_list_text_makes_items_nested_by_level():
    bullet = r"{\listtext\pard\plain\f2 \'b7\tab}"
    body = (rf"\pard\ls1\ilvl0 {bullet}One\par\pard\ls1\ilvl1 {bullet}Inner\par"
            r"\pard\ls2 {\listtext 3.\tab}Third\par{\pntext a)\tab}Letter\par\pard After\par")
    header = r"{\rtf1\ansi{\fonttbl{\f0 Arial;}{\f2\fcharset2 Symbol;}}"
    assert read(body, header) == "- One\n  - Inner\n\n3. Third\n- a) Letter\n\nAfter"  # \\ls1, then list 2


def test_tables_and_a_table_holding_a_table():
    row = r"\trowd\cellx1000\cellx2000 \pard\intbl {0}\cell \pard\intbl {1}\cell \row "
    body = row.format("Name", "Value") + row.format("a|b", "1") + r"\pard After\par"
    assert read(body) == "| Name | Value |\n| --- | --- |\n| a\\|b | 1 |\n\nAfter"
    nested = (r"\trowd\cellx1000\cellx2000 \pard\intbl Outer\cell \pard\intbl\itap2 In1\nestcell In2\nestcell"
              r"{\*\nesttableprops\trowd\cellx500\nestrow}{\nonesttables\par}\pard\intbl\itap1\cell\row \pard End\par")
    # A table holding a table lays the page out: its cells are blocks, the inner table a table.
    assert read(nested) == "Outer\n\n| In1 | In2 |\n| --- | --- |\n\nEnd"
    two_rows = nested.replace(r"{\*\nesttableprops\trowd\cellx500\nestrow}",
                              r"{\*\nesttableprops\trowd\cellx500\nestrow}\pard\intbl\itap2 In3\nestcell In4\nestcell"
                              r"{\*\nesttableprops\trowd\cellx500\nestrow}")
    assert read(two_rows) == "Outer\n\n| In1 | In2 |\n| --- | --- |\n| In3 | In4 |\n\nEnd"


def test_a_cell_merged_down_repeats_in_each_row_it_covers_while_the_copies_stay_small():
    first = r"\trowd\clvmgf\cellx1000\cellx2000 \pard\intbl {0}\cell \pard\intbl {1}\cell \row "
    below = r"\trowd\clvmrg\cellx1000\cellx2000 \pard\intbl \cell \pard\intbl {0}\cell \row "
    header = r"\trowd\cellx1000\cellx2000 \pard\intbl Year\cell \pard\intbl Release\cell \row "
    body = header + first.format("2005", "5.04") + below.format("5.10") + r"\pard After\par"
    assert read(body) == "| Year | Release |\n| --- | --- |\n| 2005 | 5.04 |\n| 2005 | 5.10 |\n\nAfter"
    # A long cell merged over many rows is copied only while the copies add no more than the table holds.
    bomb = header + first.format("x" * 1000, "1") + below.format("2") * 1000 + r"\pard\par"
    assert len(read(bomb)) < 4 * (1000 + 1000 * 8)


def test_fixed_pitch_paragraphs_are_code_unless_the_whole_document_is():
    body = r"Run this:\par\f1 make\par\par\tab make install\par\f0 Done.\par"  # one blank ends a word
    assert read(body) == "Run this:\n\n```\nmake\n\n    make install\n```\n\nDone."
    assert read(r"\f1 All typewritten.\par Second line.\par") == "All typewritten.\n\nSecond line."


def test_a_line_opening_with_a_hash_stays_text():
    assert read(r"#1 in sales\par") == "#1 in sales"  # no heading in Markdown: read as written
    assert read(r"# 1 in sales\par") == r"\# 1 in sales"  # one: escaped, so it stays text


# --- hostile input -----------------------------------------------------------------------


def test_what_is_not_rtf_is_refused_in_one_line():
    with pytest.raises(ConversionFailed, match=r"^x.rtf: not an RTF file \(it does not begin with \{\\rtf\)$"):
        rtf_to_markdown(b"Just some notes.", "x.rtf")
    with pytest.raises(ConversionFailed, match="empty file"):
        convert_document(b"", ".rtf", "x.rtf")


def test_a_docx_named_rtf_is_read_as_docx_and_a_damaged_binary_word_file_says_so():
    # Debian's libdds-dev ships one such file ("Par Calculation.rtf").
    converted = convert_document((DOCS / "docx_word_comments.docx").read_bytes(), ".rtf", "notes.rtf")
    assert "Paragraph 7" in converted.markdown
    assert converted.warnings[0] == "notes.rtf: a .docx file named .rtf; read as .docx"
    with pytest.raises(ConversionFailed, match=r"^old.rtf: not a valid .doc file \(damaged: "):
        convert_document(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(600), ".rtf", "old.rtf")
    with pytest.raises(ConversionFailed, match=r"^x.rtf: not a valid zip file"):
        convert_document(b"PK\x03\x04" + bytes(100), ".rtf", "x.rtf")


def test_text_after_the_documents_group_and_unbalanced_braces_do_not_break_reading():
    assert rtf_to_markdown(rb"{\rtf1 Body\par} trailing junk {\b more}", "x.rtf")[0] == "Body"
    assert rtf_to_markdown(rb"{\rtf1 {\b Unclosed", "x.rtf")[0] == "Unclosed"
    assert rtf_to_markdown(rb"{\rtf1 a}}}}", "x.rtf")[0] == "a"


def test_groups_past_the_depth_limit_are_not_read_and_cost_nothing_more():
    deep = "{" * 200_000 + "hidden" + "}" * 200_000
    assert read(rf"shallow {{{{\b bold}}}} {deep} end\par") == "shallow bold end"
    assert read("{" * (MAX_DEPTH - 2) + "kept" + "}" * (MAX_DEPTH - 2) + r"\par") == "kept"


@pytest.mark.parametrize("run", [
    r"{\b x}",
    r"\u8364?",
    r'{\field{\*\fldinst HYPERLINK "https://a.b"}{\fldrslt x}}',
    r"\'e9",
    r"{\footnote a}",
    r"\trowd\pard\intbl x\cell",
    r"{",
    r"\par",
])
def test_long_runs_read_in_linear_time(run):
    assert grows_linearly(read, lambda repeats: run * 3 * repeats)


def test_a_fetched_rtf_body_is_read_as_rtf():
    assert sniff_format(rb"{\rtf1\ansi Hello}", "text/plain", "https://example.org/notes") == ".rtf"
    assert sniff_format(rb"{\rtf1\ansi Hello}", "application/rtf", "https://example.org/notes.txt") == ".rtf"
    assert convert_document(rb"{\rtf1\ansi Hello\par}", ".RTF", "notes.RTF").markdown == "Hello"


@pytest.mark.parametrize("run", [r"h{n}\par ", r"x\chpgn ", r"{\*\fldinst AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA}"],
                         ids=["distinct header lines", "page numbers in a header", "field code groups"])
def test_page_headers_and_field_codes_are_read_in_linear_time(run):
    """Each was quadratic: a header's lines checked against a list, its pieces joined again for
    each page number, a field's code copied whole at each of its groups (8 s at 0.5 MB)."""
    def body(repeats: int) -> str:
        runs = "".join(run.replace("{n}", str(n)) for n in range(repeats))
        if "fldinst" in run:
            return r"{\field" + runs + r"{\fldrslt x}}\par "
        return r"{\header " + runs + r"}body\par "

    assert grows_linearly(read, lambda repeats: body(repeats * 3))
