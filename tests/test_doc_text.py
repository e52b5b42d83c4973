"""Word 97-2003 documents (.doc): real files made by Word and by LibreOffice (tests/fixtures/docs,
sources in its README), then the compound file's and the FIB's damage, the way an attacker
would write it."""

import contextlib
import random
import re
import struct
import time

import pytest
from conftest import FIXTURES
from helpers import word97
from helpers.compound_files import Node, all_fat, compound_file
from helpers.growth import grows_linearly

from minirag.errors import ConversionFailed
from minirag.ingest.cfb import CompoundFile, CompoundFileError
from minirag.ingest.convert import convert_document, convert_file

DOCS = FIXTURES / "docs"


def word_document_offset(data: bytes) -> int:
    """Where the WordDocument stream (the FIB first) starts in the file: its sectors are in order
    in these fixtures, as Word and LibreOffice write them."""
    entry = next(e for e in CompoundFile(data).entries if e.name == "WordDocument")
    return (entry.start + 1) * 512


def with_fib(data: bytes, offset: int, value: bytes) -> bytes:
    at = word_document_offset(data) + offset
    return data[:at] + value + data[at + len(value):]


# --- real files --------------------------------------------------------------------------


def test_a_document_word_saved_reads_as_its_text():
    converted = convert_file(DOCS / "doc_word_olefile_test.doc")
    assert converted.markdown == "Test OLE file, saved as Word 97-2003 Document."
    assert converted.metadata_title is None  # its properties name an author, no title


def test_libreoffice_headings_lists_code_links_tables_and_characters_past_u_ffff():
    converted = convert_file(DOCS / "doc_libreoffice_cjk_notes.doc")
    assert converted.metadata_title == "飞书消息与日程 — 使用说明"  # SummaryInformation, in UTF-8 (code page 65001)
    markdown = converted.markdown
    assert markdown.startswith("# 飞书消息与日程\n\n本文介绍如何使用 Python 的 asyncio 接收飞书消息")
    assert "## 安装\n\n1. 下载安装包并解压。\n2. 运行安装脚本：\n\n```\npip install feishu-sync\nfeishu-sync --init\n```" in markdown
    assert "詳しくは[会議室の案内](https://example.org/ja/rooms)をご覧ください。" in markdown
    # 📽 is two character positions (a surrogate pair): the table after it still has its rows.
    assert "- プロジェクターは受付で借りられます 📽️\n\n## Таблица сроков\n\n| 任务 | 负责人 | 截止日期 |\n| --- | --- | --- |\n" \
           "| 消息同步 | 王芳 | 2026-12-20 |\n| 日程导入 | 李雷 | 2027-01-15 |" in markdown
    assert markdown.endswith("«черновик» принимается до четверга. Naïve café façade, 𝔘𝔫𝔦𝔠𝔬𝔡𝔢 and 😀.")


def test_list_numbers_word_keeps_out_of_the_text_are_counted_as_word_shows_them():
    """Each list counted on its own, in its own format (letters, roman numerals from where it
    starts), a level restarting under each item above it."""
    markdown = convert_file(FIXTURES / "office" / "libreoffice_numbered_lists.doc").markdown
    assert markdown == (
        "# Setup steps\n\n1. Download the archive\n  - a. check its signature\n  - b. unpack it\n2. Run the installer\n"
        "3. Restart\n\nThen the maintenance list.\n\n- III. Weekly backup\n- IV. Monthly audit\n\n- A bullet\n"
        "- Another bullet\n\n1. A new list starts again\n2. and goes on")  # three lists side by side


def test_a_list_continued_after_an_interruption_counts_on_and_a_restart_starts_again():
    """As LibreOffice reads back the file it wrote (its text export): the override that restarts
    the list counts from 1, the items still under the first override count on."""
    markdown = convert_file(FIXTURES / "office" / "libreoffice_list_restart.doc").markdown
    assert markdown == (
        "Before the list.\n\n1. alpha\n2. beta\n  - a) beta one\n  - b) beta two\n\nAn interruption.\n\n"
        "3. gamma continues\n\nAnother interruption.\n\n1. delta restarts\n\n4. epsilon")  # two overrides


def test_a_word_restart_override_starts_its_level_again_where_it_is_first_used():
    """Word's "restart numbering" is a second override of the same list whose level override
    ([MS-DOC] LFOLVL, fStartAt) names the new start; LibreOffice writes a new list instead, so
    this table is built by hand: one simple decimal list, override 1 plain, override 2 from 5."""
    from minirag.ingest.doc_lists import read_lists

    level = struct.pack("<iB", 1, 0) + bytes(19) + bytes([0, 0, 0, 0]) + struct.pack("<H", 2) + "\x00.".encode("utf-16-le")
    lists = struct.pack("<h", 1) + struct.pack("<ii", 7, 0) + bytes(18) + bytes([0x01, 0]) + level
    plain, restart = (struct.pack("<iiiBBBB", 7, 0, 0, count, 0, 0, 0) for count in (0, 1))
    overrides = struct.pack("<I", 2) + plain + restart + struct.pack("<I", 0) + struct.pack("<I", 0) + \
        struct.pack("<iI", 5, 0x10 | 0)  # LFOData: a CP each, then override 2's one level: from 5, level 0
    table = lists + overrides
    found = read_lists(table, (0, len(lists) - len(level)), (len(lists), len(overrides)))
    assert [found.marker(ilfo, 0) for ilfo in (1, 1, 2, 2, 1)] == ["1.", "2.", "5.", "6.", "7."]


def test_code_paragraphs_keep_their_indentation_as_the_docx_they_were_saved_from():
    """Every paragraph's spaces were collapsed, a code block's indentation (Python's meaning) with them."""
    def code_blocks(markdown: str) -> list[str]:
        return re.findall(r"```.*?```", markdown, re.DOTALL)

    doc = code_blocks(convert_file(FIXTURES / "office" / "libreoffice_code_blocks.doc").markdown)
    assert doc == code_blocks(convert_file(DOCS / "docx_headings_table.docx").markdown) and len(doc) == 2
    assert '    data = tomllib.load(f)\n```' in doc[0]


def test_a_text_boxs_words_are_kept():
    """The text-box stories were cut out of the text and never read (now read where anchored:
    test_office81_doc_text_boxes.py)."""
    assert convert_file(FIXTURES / "office" / "libreoffice_text_frame.doc").markdown == (
        "Body paragraph before the box.\n\nTEXTBOXWORDS inside the frame.\n\nBody paragraph after.")


def test_hidden_text_and_tracked_deletions_are_left_out_as_the_rtf_reader_leaves_them():
    """LibreOffice's .doc of `Visible text {\\v HIDDENWORD} end. / Keep {\\deleted DELETEDWORD}this.`:
    the character properties were never read, and both words were indexed."""
    assert convert_file(FIXTURES / "office" / "libreoffice_hidden_deleted.doc").markdown == \
        "Visible text end.\n\nKeep this."


def test_text_a_style_hides_is_left_out_unless_the_run_itself_shows_it():
    """LibreOffice's .doc of an RTF whose `HiddenChar` character style and `HiddenPara` paragraph
    style set hidden text: the runs name only their style (sprmCIstd, the paragraph's istd), the
    style sheet says hidden, and the words were indexed. `SHOWNBYRUN`'s own sprmCFVanish 0 shows it,
    as Word and the RTF reader show it."""
    assert convert_file(FIXTURES / "office" / "libreoffice_hidden_styles.doc").markdown == \
        "Visible start middle bold shown end.\n\nSHOWNBYRUN\n\nLast line."


def test_a_style_chain_that_loops_ends_and_toggles_follow_their_base():
    from minirag.ingest.doc_format import _inherited_vanish

    # 1 hides; 2, based on 1, toggles it off; 3, based on 2, says nothing; 4 and 5 are based on each
    # other (damage: either may come out first); 6 says nothing
    found = _inherited_vanish({1: 1, 2: 0x81, 4: 1}, {1: 0x0FFF, 2: 1, 3: 2, 4: 5, 5: 4, 6: 0x0FFF})
    assert {k: v for k, v in found.items() if k != 5} == {1: True, 2: False, 3: False, 4: True}


def test_an_items_list_text_adds_at_most_a_few_characters_whatever_its_level_claims():
    """A level of 64 number placeholders from -2147483648 made each 2-byte paragraph an item of
    710 characters."""
    from minirag.ingest.doc_lists import MAX_MARKER, Level, Lists

    lists = Lists(levels={7: (Level(-2_147_483_648, 0, "\x00" * 64),)}, overrides=[7])
    assert len(lists.marker(1, 0)) == MAX_MARKER == 24
    nine = Lists(levels={7: tuple(Level(1, 0, "".join(f"{chr(n)}." for n in range(level + 1))) for level in range(9))},
                 overrides=[7])
    assert [nine.marker(1, level) for level in range(9)][-1] == "1.1.1.1.1.1.1.1.1."  # Word's deepest fits


def test_a_table_with_merged_cells_reads_as_the_docx_it_was_saved_from():
    assert convert_file(DOCS / "doc_libreoffice_merged_cells.doc").markdown == \
        convert_file(DOCS / "docx_merged_cells_ubuntu_releases.docx").markdown


@pytest.mark.parametrize("name", ["nested_tables", "nested_table_rowspan"])
def test_a_table_inside_a_table_reads_as_the_docx_it_was_saved_from(name):
    """A nested table's cells end at paragraph marks Word flags as ending an inner cell (they were
    joined into one: `| DDD EEE |`), and its cells merged down repeat as an outer table's do."""
    assert convert_file(FIXTURES / "office" / f"libreoffice_{name}.doc").markdown == \
        convert_file(DOCS / f"docx_{name}.docx").markdown


def test_page_headers_footers_and_comments_are_placed_as_a_docxs_are():
    assert convert_file(DOCS / "doc_libreoffice_header_footer.doc").markdown == (
        "Header for section-1\n\nsection with header\n\nsection without header of its own.\n\nFooter for section 1")
    markdown = convert_file(DOCS / "doc_libreoffice_word_comments.doc").markdown
    assert markdown.startswith("Document text\n\nSome text worthy of note.")
    assert markdown.endswith("Paragraph 7\n\nComment: Text with hyperlink [https://google.com](https://google.com/) "
                             "embedded.\n\n"
                             "Comment: Text with inline image in the middle.\n\nComment: Text with character style.\n\n"
                             "Comment: Paragraph with Heading 2 paragraph style.")


# --- what Word also saves as .doc, and a .doc saved as .docx --------------------------------


def test_what_else_is_named_doc_is_read_as_what_it_is():
    assert convert_document(b"Plain notes about the build.\n", ".doc", "notes.doc").markdown == \
        "Plain notes about the build.\n"
    rtf = convert_document(rb"{\rtf1\ansi Saved as RTF\par}", ".doc", "memo.doc")
    assert rtf.markdown == "Saved as RTF" and rtf.warnings == ("memo.doc: a .rtf file named .doc; read as .rtf",)
    docx = convert_document((DOCS / "docx_word_comments.docx").read_bytes(), ".doc", "new.doc")
    assert "Paragraph 7" in docx.markdown and docx.warnings[0] == "new.doc: a .docx file named .doc; read as .docx"
    old = convert_document((DOCS / "doc_word_olefile_test.doc").read_bytes(), ".docx", "old.docx")
    assert old.markdown == "Test OLE file, saved as Word 97-2003 Document."
    assert old.warnings == ("old.docx: a .doc file named .docx; read as .doc",)
    as_rtf = convert_document((DOCS / "doc_word_olefile_test.doc").read_bytes(), ".rtf", "old.rtf")
    assert as_rtf.warnings == ("old.rtf: a .doc file named .rtf; read as .doc",)


def test_a_web_page_an_mhtml_page_or_rtf_behind_a_byte_order_mark_named_doc_is_read_as_what_it_is():
    """Read as text before: the page's markup and style sheet, or the RTF's field codes and
    hidden text, were indexed as written."""
    page = convert_document(b'<html xmlns:w="urn:schemas-microsoft-com:office:word"><head><style>p{color:red}'
                            b"</style></head><body><h1>Report</h1><p>Hello</p></body></html>", ".doc", "web.doc")
    assert page.markdown == "# Report\n\nHello" and page.warnings == ("web.doc: a .html file named .doc; read as .html",)
    mhtml = (b"MIME-Version: 1.0\r\nContent-Type: multipart/related; boundary=\"b\"\r\n\r\n--b\r\n"
             b"Content-Type: text/html; charset=utf-8\r\n\r\n<html><body><p>Single file page</p></body></html>\r\n--b--\r\n")
    assert convert_document(mhtml, ".doc", "single.doc").markdown == "Single file page"
    rtf = b"\xef\xbb\xbf" + rb'{\rtf1\ansi visible {\v hidden}{\field{\*\fldinst HYPERLINK "http://x"}{\fldrslt link}}\par}'
    for suffix in (".doc", ".rtf"):
        assert convert_document(rtf, suffix, "marked" + suffix).markdown == "visible [link](http://x)"
    with pytest.raises(ConversionFailed, match="^xml.doc: a Word 2003 XML document, which is not read; save it as DOCX$"):
        convert_document(b'<?xml version="1.0"?><?mso-application progid="Word.Document"?><w:wordDocument>'
                         b"<w:body><w:p><w:r><w:t>Hello</w:t></w:r></w:p></w:body></w:wordDocument>", ".doc", "xml.doc")


# --- hostile and damaged files -----------------------------------------------------------


def test_a_password_a_word_95_file_and_a_spreadsheet_each_say_so_in_one_line():
    data = (DOCS / "doc_libreoffice_word_comments.doc").read_bytes()
    flags, = struct.unpack_from("<H", data, word_document_offset(data) + 0x0A)
    with pytest.raises(ConversionFailed, match=r"^locked.doc: encrypted \(password required\)$"):
        convert_document(with_fib(data, 0x0A, struct.pack("<H", flags | 0x0100)), ".doc", "locked.doc")
    with pytest.raises(ConversionFailed, match=r"^old.doc: a Word 6 or Word 95 document, which is not read"):
        convert_document(with_fib(data, 0, b"\xdc\xa5"), ".doc", "old.doc")
    with pytest.raises(ConversionFailed, match=r"^sheet.doc: an Office file, but not a Word document"):
        convert_document(data.replace("WordDocument".encode("utf-16-le"), "WorkDocument".encode("utf-16-le")),
                         ".doc", "sheet.doc")


def test_a_file_claiming_more_text_than_a_document_may_give_is_refused_before_it_is_read():
    data = (DOCS / "doc_word_olefile_test.doc").read_bytes()
    csw, = struct.unpack_from("<H", data, word_document_offset(data) + 32)
    counts_at = 34 + csw * 2 + 2 + 3 * 4  # ccpText, the first of FibRgLw97's story counts
    with pytest.raises(ConversionFailed, match=r"^big.doc: refused: it claims 4,000,000,000 characters"):
        convert_document(with_fib(data, counts_at, struct.pack("<I", 4_000_000_000)), ".doc", "big.doc")


def test_a_sector_chain_that_loops_is_damage_not_a_hang():
    data = bytearray((DOCS / "doc_word_olefile_test.doc").read_bytes())
    first_fat_sector, = struct.unpack_from("<I", data, 0x4C)
    fat_at = (first_fat_sector + 1) * 512
    entry = next(e for e in CompoundFile(bytes(data)).entries if e.name == "WordDocument")
    struct.pack_into("<I", data, fat_at + 4 * entry.start, entry.start)  # its first sector points at itself
    with pytest.raises(ConversionFailed, match=r"^loop.doc: not a valid .doc file \(damaged: a sector chain loops"):
        convert_document(bytes(data), ".doc", "loop.doc")


def test_a_stream_is_read_from_the_sectors_its_size_takes_however_long_its_chain_runs_on():
    """Many small entries chained on through a whole file would each read all of it."""
    data = bytearray(compound_file([Node("small", b"y" * 10), Node("big", b"z" * 5_000)]))
    compound = CompoundFile(bytes(data))
    small, big = (next(e for e in compound.entries if e.name == name) for name in ("small", "big"))
    fat_at = (struct.unpack_from("<I", data, 0x4C)[0] + 1) * 512
    struct.pack_into("<I", data, fat_at + 4 * small.start, big.start)  # on through the big stream's ten sectors
    assert CompoundFile(bytes(data)).read(small) == b"y" * 10
    struct.pack_into("<I", data, fat_at + 4 * small.start, small.start)  # or round to itself for ever
    assert CompoundFile(bytes(data)).read(small) == b"y" * 10


@pytest.mark.parametrize("damage", ["past the end", "loop"])
def test_a_damaged_mini_stream_costs_only_the_small_streams_kept_in_it(damage):
    """This file's WordDocument and table streams are over the 4,096-byte cutoff, so neither is in
    the mini stream (the summary with the title is): the mini stream's chain broken (the root
    entry's first sector past the file's end, or pointing at itself) had refused the whole file."""
    data = bytearray((DOCS / "doc_libreoffice_merged_cells.doc").read_bytes())
    whole = convert_document(bytes(data), ".doc", "d.doc")
    root_at = (struct.unpack_from("<I", data, 0x30)[0] + 1) * 512
    root_start, = struct.unpack_from("<I", data, root_at + 0x74)
    if damage == "past the end":
        struct.pack_into("<I", data, root_at + 0x74, 0x7FFFFFF0)
    else:
        fat_at = (struct.unpack_from("<I", data, 0x4C)[0] + 1) * 512
        struct.pack_into("<I", data, fat_at + 4 * root_start, root_start)
    assert convert_document(bytes(data), ".doc", "d.doc").markdown == whole.markdown
    with pytest.raises(CompoundFileError):
        CompoundFile(bytes(data)).stream("\x05SummaryInformation")  # what is in it stays unreadable


@pytest.mark.parametrize("next_of", [
    lambda i: 0xFFFFFFFE if i == 0 else 0x10000000 + i,  # a FAT of numbers each its own Python int
    lambda i: i + 1,  # the directory's chain running on through every entry the FAT holds
], ids=["distinct", "chained"])
def test_a_file_all_fat_costs_memory_about_its_size(next_of):
    """A FAT as large as the file (every sector a FAT sector) was held as a tuple of ints, 10 times
    the file's bytes, and a chain was followed through every entry of it, past the sectors the file
    has, before the first missing one was found: 22 times (a 100 MB .doc: 2.2 GB)."""
    import tracemalloc

    data = all_fat(4_000, next_of)
    tracemalloc.start()
    with contextlib.suppress(CompoundFileError):
        CompoundFile(data).children()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak / len(data) < 3


def test_pieces_that_go_back_give_each_character_once():
    """A piece table of (0, T) pieces over and over held N copies of the text in memory (810 MB
    from a 201 KB file) before the stories were cut to T."""
    from minirag.ingest.doc_format import piece_text, pieces

    text = b"word " * 2_000
    word = bytes(word97.TEXT_AT) + text
    found = pieces(word97.clx([0, len(text)] * 500, [word97.TEXT_AT] * 999), len(text) + 1)
    assert sum(piece.end - piece.cp for piece in found) == len(text)
    assert piece_text(word, found) == text.decode()
    assert convert_document(word97.document({word97.TEXT: text + b"\r"}), ".doc", "w.doc").markdown == text.decode().strip()


def test_cps_no_piece_gives_still_count_so_hidden_runs_land_on_their_own_characters():
    """A piece past the stream's end gave no characters, and a first piece above CP 0 none before
    it: later CPs moved, and a hidden run hid the wrong words and showed its own."""
    from minirag.ingest.doc_format import Piece, piece_text

    word = bytes(word97.TEXT_AT) + b"abcdef"
    text = piece_text(word, [Piece(2, 4, 10**6, True), Piece(4, 10, word97.TEXT_AT, True)])
    assert len(text) == 10 and text.endswith("abcdef")


def test_comment_ranges_that_go_back_give_each_comment_once():
    """Ranges (0, L) over and over repeated the whole comment story once each: 10 M characters
    indexed from a 104 KB file."""
    data = word97.document({word97.TEXT: b"Body text.\r", word97.COMMENTS: b"A remark.\r"},
                           {word97.PLCF_AND_TXT: [0, 10] * 200})
    markdown = convert_document(data, ".doc", "c.doc").markdown
    assert markdown.count("A remark.") == 1 and "Body text." in markdown


def test_page_header_lines_are_kept_once_each_in_linear_time():
    def convert(text: str) -> object:
        headers = text.encode()
        return convert_document(word97.document({word97.TEXT: b"Body.\r", word97.HEADERS: headers},
                                                {word97.PLCF_HDD: [0] * 7 + [len(headers)] * 7}), ".doc", "h.doc")

    assert grows_linearly(convert, lambda repeats: "".join(f"header line {n}\r" for n in range(repeats)))
    markdown = convert("Same header\rSame header\rOther\r").markdown  # type: ignore[attr-defined]
    assert markdown.count("Same header") == 1 and "Other" in markdown


def test_truncated_and_randomly_damaged_files_are_read_or_refused_in_one_line():
    data = (DOCS / "doc_libreoffice_cjk_notes.doc").read_bytes()
    for size in (8, 100, 512, 2000, len(data) // 2, len(data) - 1):
        try:
            convert_document(data[:size], ".doc", "cut.doc")
        except ConversionFailed as exc:
            assert "\n" not in str(exc)
    rng = random.Random(7)
    slowest = 0.0
    for _ in range(300):
        damaged = bytearray(data)
        for _ in range(rng.randint(1, 12)):
            damaged[rng.randrange(len(damaged))] = rng.randrange(256)
        started = time.perf_counter()
        try:
            convert_document(bytes(damaged), ".doc", "bad.doc")
        except ConversionFailed as exc:
            assert "\n" not in str(exc)
        slowest = max(slowest, time.perf_counter() - started)
    assert slowest < 5  # each is one pass over at most the file's own sectors


def test_a_fields_code_is_left_out_its_result_kept_and_a_hyperlink_is_a_link():
    from minirag.ingest.doc_text import _Fields

    text = ('See \x13 HYPERLINK "https://example.org/a" \x14the site\x15, page \x13PAGE\x147\x15 of '
            '\x13 QUOTE \x14\x13 HYPERLINK "http://b.example" \x14inner\x15 text\x15.')
    assert _Fields().shown(text) == "See [the site](https://example.org/a), page  of [inner](http://b.example) text."
    fields = _Fields()  # a field's result running over two paragraphs: its text, no link
    assert (fields.shown('\x13 HYPERLINK "https://x.org" \x14first'), fields.shown("second\x15 after")) == \
        ("first", "second after")


def test_unclosed_fields_cost_no_more_than_their_text():
    from minirag.ingest.doc_text import _Fields

    def read(repeats: int) -> None:
        fields = _Fields()
        fields.shown("\x13" * repeats)
        for _ in range(repeats):
            fields.shown("a paragraph")

    assert grows_linearly(lambda text: read(len(text)), lambda repeats: "x" * 10 * repeats)


def test_a_paragraph_table_naming_one_page_over_and_over_reads_it_once():
    from minirag.ingest.doc_format import PLCF_BTE_PAPX, Fib, ParagraphTable, read_fib

    compound = CompoundFile((DOCS / "doc_libreoffice_cjk_notes.doc").read_bytes())
    word = compound.stream("WordDocument")
    fib = read_fib(word, "notes.doc")
    table = compound.stream(fib.table)
    offset, length = fib.pair(PLCF_BTE_PAPX)
    count = (length - 4) // 8
    page, = struct.unpack_from("<I", table, offset + (count + 1) * 4)  # a real page of paragraph runs
    honest = len(ParagraphTable(word, table, fib, []).runs)
    # A forged table naming that page 100,000 times: its runs are read once, not 100,000 times.
    times = 100_000
    forged = struct.pack(f"<{times + 1}I", *range(times + 1)) + struct.pack("<I", page) * times
    pairs = [0] * (2 * (PLCF_BTE_PAPX + 1))
    pairs[2 * PLCF_BTE_PAPX + 1] = len(forged)
    runs = ParagraphTable(word, forged, Fib(fib.table, fib.counts, tuple(pairs)), []).runs
    assert 0 < len(runs) <= honest
