"""A damaged part of a document costs only itself: the rest is read, with one warning naming
what was lost; a document nothing of which can be read is one line saying why, in words.

Each damaged package is written here by hand, from a fixture's parts or a document made in the
test: its damaged member's deflate stream cut short, broken at a known byte (a block boundary,
so zlib's error comes exactly there), or whole with a wrong checksum.
"""

from __future__ import annotations

import io
import re
import struct
import zipfile
import zlib
from pathlib import Path

import pytest

from minirag.errors import ConversionFailed
from minirag.ingest.convert import convert_document

DOCS = Path(__file__).parent / "fixtures" / "docs"


def _zip(members: dict[str, bytes], damaged: str | tuple[str, ...] = "", how: str = "", at: int = 0) -> bytes:
    """A zip of `members`, deflated; `damaged`'s stream cut at its byte `at` (`cut`), broken there
    (`corrupt`: an invalid block type where a block begins), whole with a wrong CRC (`crc`), or
    with bytes no XML holds in its text at `at`, under the CRC of what it was (`garbled`); each of
    a tuple of members `damaged` so."""
    out, central = bytearray(), bytearray()
    for name, original in members.items():
        hit = name in damaged if isinstance(damaged, tuple) else name == damaged
        content = original[:at] + b"\x01<&\x01" + original[at + 4:] if hit and how == "garbled" else original
        packer = zlib.compressobj(9, zlib.DEFLATED, -zlib.MAX_WBITS)
        split = at if hit else len(content)
        head = packer.compress(content[:split]) + packer.flush(zlib.Z_FULL_FLUSH)
        tail = packer.compress(content[split:]) + packer.flush()
        stream = {"cut": head, "corrupt": head + b"\xff" + tail[1:]}.get(how if hit else "", head + tail)
        crc = zlib.crc32(original) ^ (1 if hit and how == "crc" else 0)
        raw = name.encode()
        fields = struct.pack("<HHHHHIIIHH", 20, 0, 8, 0, 0x21, crc, len(stream), len(content), len(raw), 0)
        central += b"PK\x01\x02" + struct.pack("<H", 20) + fields + struct.pack("<HHHII", 0, 0, 0, 0, len(out)) + raw
        out += b"PK\x03\x04" + fields + raw + stream
    end = struct.pack("<HHHHIIH", 0, 0, len(members), len(members), len(central), len(out), 0)
    return bytes(out + central + b"PK\x05\x06" + end)


def _members(data: bytes) -> dict[str, bytes]:
    archive = zipfile.ZipFile(io.BytesIO(data))
    return {name: archive.read(name) for name in archive.namelist()}


def _fixture(name: str) -> dict[str, bytes]:
    return _members((DOCS / name).read_bytes())


def _made(build) -> dict[str, bytes]:
    out = io.BytesIO()
    build(out)
    return _members(out.getvalue())


@pytest.mark.parametrize("how", ["cut", "corrupt"])
def test_a_docx_whose_footnotes_are_damaged_reads_its_body_and_the_notes_before_the_damage(how):
    """A damaged footnotes part refused the whole document; now the notes that closed before the
    damage are read, and the body's reference to the note it lost is left out (mammoth fails on
    a reference to a note it cannot find)."""
    members = _fixture("docx_mammoth_footnotes.docx")
    notes = members["word/footnotes.xml"]
    at = notes.index(b"Fin.")  # inside the second note: the first closed before it
    converted = convert_document(_zip(members, "word/footnotes.xml", how, at), ".docx", "d.docx")
    assert converted.markdown == "Ouch (A tachyon walks into a bar.)."  # the note where it is cited
    why = "its compressed data ends early" if how == "cut" else "its compressed data is corrupt"
    assert re.fullmatch(rf"d\.docx: word/footnotes\.xml is damaged \({why}\); read up to the damage, "
                        rf"[\d,]+ of its {len(notes):,} bytes", converted.warnings[0])


@pytest.mark.parametrize(("fixture", "member", "kept", "lost"), [
    ("docx_mammoth_footnotes.docx", "word/footnotes.xml", "Ouch.", "A tachyon walks into a bar."),
    ("docx_mammoth_endnotes.docx", "word/endnotes.xml", "Ouch.", "A tachyon walks into a bar."),
    ("docx_word_comments.docx", "word/comments.xml", "Other text worthy of note.\n\nParagraph 5",
     "Text with character style."),
    ("docx_word_header_footer.docx", "word/footer2.xml", "section with header\n\nsection without header",
     "Footer for section 1"),
])
def test_a_docx_whose_notes_comments_or_footer_are_damaged_from_their_start_reads_its_body(fixture, member, kept,
                                                                                          lost):
    """Nothing of the part inflates: it is read as empty (the body's references to its notes left
    out), and the body as it is."""
    members = _fixture(fixture)
    converted = convert_document(_zip(members, member, "corrupt", 0), ".docx", "d.docx")
    assert converted.warnings[0] == f"d.docx: {member} is damaged (its compressed data is corrupt); its text is lost"
    assert kept in converted.markdown and lost not in converted.markdown


def test_a_docx_whose_body_is_cut_short_reads_the_paragraphs_before_the_damage():
    members = _fixture("docx_plain_paragraphs.docx")
    body = members["word/document.xml"]
    at = body.index(b"Python is just the language for you.")
    converted = convert_document(_zip(members, "word/document.xml", "cut", at), ".docx", "d.docx")
    assert converted.markdown.startswith("If you do much work on computers")
    assert "you don’t want to design and implement a whole new language" in converted.markdown
    assert "Python is just the language" not in converted.markdown
    assert re.fullmatch(rf"d\.docx: word/document\.xml is damaged \(its compressed data ends early\); read up to the "
                        rf"damage, [\d,]+ of its {len(body):,} bytes", converted.warnings[0])


@pytest.mark.parametrize(("fixture", "member"), [("docx_plain_paragraphs.docx", "word/document.xml"),
                                                  ("epub_live_manual_en.epub", "OEBPS/content.opf")])
def test_a_document_whose_body_or_package_document_is_damaged_from_its_start_is_one_line_saying_so(fixture, member):
    suffix = "." + fixture.rsplit(".", 1)[1]
    with pytest.raises(ConversionFailed) as failed:
        convert_document(_zip(_fixture(fixture), member, "corrupt", 0), suffix, f"d{suffix}")
    assert str(failed.value) == (f"d{suffix}: cannot read the {suffix} file: {member} is damaged (its compressed "
                                 "data is corrupt)")


def test_a_docx_whose_body_has_a_wrong_checksum_alone_reads_whole_saying_its_text_may_be_wrong():
    members = _fixture("docx_plain_paragraphs.docx")
    converted = convert_document(_zip(members, "word/document.xml", "crc"), ".docx", "d.docx")
    assert converted.markdown == convert_document(_zip(members), ".docx", "d.docx").markdown
    assert converted.warnings[0] == ("d.docx: word/document.xml is damaged (its checksum does not match); read whole "
                                     "as it inflates, though some of its text may be wrong")


def _presentation(slides: int, notes: bool = False):
    def build(out):
        from pptx import Presentation

        deck = Presentation()
        for number in range(1, slides + 1):
            slide = deck.slides.add_slide(deck.slide_layouts[1])
            slide.shapes.title.text = f"Heading {number}"
            slide.placeholders[1].text = f"Walrus fact number {number}"
            if notes:
                slide.notes_slide.notes_text_frame.text = f"Speaker note {number}"
        deck.save(out)
    return _made(build)


def test_one_damaged_slide_of_twenty_costs_only_that_slide():
    members = _presentation(20)
    converted = convert_document(_zip(members, "ppt/slides/slide7.xml", "corrupt", 0), ".pptx", "d.pptx")
    for number in range(1, 21):
        assert (f"Walrus fact number {number}\n" in converted.markdown + "\n") == (number != 7)
    assert converted.warnings[0] == ("d.pptx: ppt/slides/slide7.xml is damaged (its compressed data is corrupt); its "
                                     "text is lost")
    assert "<!-- Slide number: 8 -->\n# Heading 8" in converted.markdown  # numbered as the file numbers them


@pytest.mark.parametrize("member", ["ppt/slideLayouts/slideLayout2.xml", "ppt/slideMasters/slideMaster1.xml",
                                    "ppt/notesSlides/notesSlide2.xml", "ppt/theme/theme1.xml",
                                    "ppt/slides/_rels/slide2.xml.rels"])
def test_a_pptx_whose_layout_master_notes_or_theme_is_damaged_reads_its_slides(member):
    members = _presentation(3, notes=True)
    converted = convert_document(_zip(members, member, "corrupt", 0), ".pptx", "d.pptx")
    for number in range(1, 4):
        assert f"Walrus fact number {number}" in converted.markdown
    # (a slide's relationships lost, its notes are: they are found by them)
    assert ("Speaker note 2" in converted.markdown) == (member.split("/")[1] not in ("notesSlides", "slides"))
    assert converted.warnings[0].startswith(f"d.pptx: {member} is damaged (its compressed data is corrupt); ")


def test_a_pptx_whose_only_slide_is_damaged_is_one_line_saying_so():
    with pytest.raises(ConversionFailed) as failed:
        convert_document(_zip(_presentation(1), "ppt/slides/slide1.xml", "corrupt", 0), ".pptx", "d.pptx")
    assert str(failed.value) == ("d.pptx: cannot read the .pptx file: ppt/slides/slide1.xml is damaged (its "
                                 "compressed data is corrupt)")


def test_a_pptx_whose_slide_is_cut_short_reads_the_paragraphs_before_the_damage():
    members = _presentation(2)
    slide = members["ppt/slides/slide2.xml"]
    at = slide.index(b"Walrus fact number 2")
    converted = convert_document(_zip(members, "ppt/slides/slide2.xml", "cut", at), ".pptx", "d.pptx")
    assert "Walrus fact number 1" in converted.markdown and "Heading 2" in converted.markdown
    assert "Walrus fact number 2" not in converted.markdown
    assert "read up to the damage" in converted.warnings[0]


def _workbook(sheets: int):
    def build(out):
        from openpyxl import Workbook

        book = Workbook()
        for number in range(1, sheets + 1):
            sheet = book.active if number == 1 else book.create_sheet()
            sheet.title = f"Sheet{number}"
            sheet.append(["Animal", "Count"])
            sheet.append([f"walrus {number}", number])
        book.save(out)
    return _made(build)


def test_one_damaged_sheet_of_three_costs_only_that_sheet():
    members = _workbook(3)
    converted = convert_document(_zip(members, "xl/worksheets/sheet2.xml", "corrupt", 0), ".xlsx", "d.xlsx")
    assert "walrus 1" in converted.markdown and "walrus 3" in converted.markdown
    assert "walrus 2" not in converted.markdown
    assert converted.warnings[0] == ("d.xlsx: xl/worksheets/sheet2.xml is damaged (its compressed data is corrupt); "
                                     "its text is lost")


@pytest.mark.parametrize(("suffix", "member"), [(".xlsx", "xl/workbook.xml"),
                                                (".docx", "[Content_Types].xml"), (".pptx", "ppt/presentation.xml")])
def test_a_part_the_package_cannot_do_without_damaged_is_one_line_in_words(suffix, member):
    members = _fixture("xlsx_rows_founders.xlsx") if suffix == ".xlsx" else _presentation(1) if suffix == ".pptx" \
        else _fixture("docx_plain_paragraphs.docx")
    with pytest.raises(ConversionFailed) as failed:
        convert_document(_zip(members, member, "corrupt", 0), suffix, f"d{suffix}")
    assert str(failed.value).startswith(f"d{suffix}: cannot read the {suffix} file: {member} is damaged (its "
                                        "compressed data is corrupt)")


FOUNDERS = "xl/sharedStrings.xml"  # xlsx_rows_founders.xlsx's: first_name, last_name, gpa, John, Adams, ...


def _rows(markdown: str) -> list[list[str]]:
    return [[cell.strip() for cell in line.strip("|").split("|")] for line in markdown.splitlines()
            if line.startswith("|") and "---" not in line]


def test_a_workbook_whose_shared_strings_are_damaged_from_their_start_reads_its_cells_with_the_text_lost():
    """Excel and LibreOffice open it with those cells empty; it was refused whole."""
    converted = convert_document(_zip(_fixture("xlsx_rows_founders.xlsx"), FOUNDERS, "corrupt", 0), ".xlsx", "d.xlsx")
    assert converted.markdown.split() == ["##", "Feuille1", "90", "67", "50"], converted.markdown  # the numbers
    assert converted.warnings == (
        "d.xlsx: xl/sharedStrings.xml is damaged (its compressed data is corrupt); its text is lost",
        "d.xlsx: 9 cells name a shared string the workbook does not hold (its table holds 0); read as empty")


def test_a_workbook_whose_shared_strings_are_cut_short_reads_the_strings_before_the_damage():
    members = _fixture("xlsx_rows_founders.xlsx")
    at = members[FOUNDERS].index(b"George")
    converted = convert_document(_zip(members, FOUNDERS, "cut", at), ".xlsx", "d.xlsx")
    assert _rows(converted.markdown)[:2] == [["first_name", "last_name", "gpa"], ["John", "Adams", "90"]]
    assert "Washington" not in converted.markdown and "| 67 |" in converted.markdown
    assert converted.warnings[0].startswith("d.xlsx: xl/sharedStrings.xml is damaged (its compressed data ends early)")
    assert converted.warnings[1] == ("d.xlsx: 4 cells name a shared string the workbook does not hold "
                                     "(its table holds 5); read as empty")


@pytest.mark.parametrize(("how", "said"), [
    ("missing", "d.xlsx: xl/sharedStrings.xml, the table of the workbook's text, is missing; its text is lost"),
    ("broken", "d.xlsx: xl/sharedStrings.xml, the table of the workbook's text, is not well-formed XML "
               "(mismatched tag: line 3, column 2); read up to the damage, 3 of its strings"),
    ("short", ""),
])
def test_a_workbook_whose_string_table_is_missing_broken_or_short_reads_its_cells(how, said):
    """A zip member whole, its XML not: the table gone (its content type still names it), broken
    after three strings, or holding fewer strings than the cells name (one index -1, which a
    Python list reads from its end)."""
    members = _fixture("xlsx_rows_founders.xlsx")
    table = members[FOUNDERS]
    if how == "missing":
        del members[FOUNDERS]
    elif how == "broken":
        members[FOUNDERS] = table[:table.index(b"<si>", table.index(b"gpa"))] + b"\n</ss>"
    else:
        members[FOUNDERS] = table[:table.index(b"<si>", table.index(b"gpa"))] + b"</sst>"
        members["xl/worksheets/sheet1.xml"] = members["xl/worksheets/sheet1.xml"].replace(b"<v>8</v>", b"<v>-1</v>")
    converted = convert_document(_zip(members), ".xlsx", "d.xlsx")
    if how == "missing":
        assert converted.markdown.split() == ["##", "Feuille1", "90", "67", "50"], converted.markdown
    else:
        assert _rows(converted.markdown)[0] == ["first_name", "last_name", "gpa"], converted.markdown
        assert [row[-1] for row in _rows(converted.markdown)[1:]] == ["90", "67", "50"], converted.markdown
    assert "John" not in converted.markdown and "Jefferson" not in converted.markdown
    assert converted.markdown.count("gpa") == (0 if how == "missing" else 1)  # not read again for index -1
    assert converted.warnings == (*((said,) if said else ()),
                                  f"d.xlsx: {9 if how == 'missing' else 6} cells name a shared string the workbook "
                                  f"does not hold (its table holds {0 if how == 'missing' else 3}); read as empty")


def _misnamed(data: bytes, member: str, headers: tuple[bytes, ...] = (b"PK\x03\x04", b"PK\x01\x02")) -> bytes:
    """`data` with `member`'s name flagged UTF-8 (bit 11) and a byte of it made one UTF-8 never
    holds, in the `headers` named (local, central)."""
    damaged, raw = bytearray(data), member.encode()
    for signature, flags, name in ((b"PK\x03\x04", 6, 30), (b"PK\x01\x02", 8, 46)):
        at = damaged.find(signature)
        while signature in headers and at >= 0:
            if damaged[at + name:at + name + len(raw)] == raw:
                damaged[at + flags + 1] |= 0x08
                damaged[at + name + len(raw) - 5] = 0xFF
            at = damaged.find(signature, at + 4)
    return bytes(damaged)


@pytest.mark.parametrize(("fixture", "member"), [("docx_word_comments.docx", "word/media/image1.jpeg"),
                                                 ("docx_headings_table.docx", "docProps/app.xml"),
                                                 ("xlsx_rows_founders.xlsx", "docProps/app.xml"),
                                                 ("epub_live_manual_en.epub", "OEBPS/css/xhtml.css")])
def test_a_member_name_that_claims_utf8_but_is_not_is_read_as_cp437_and_the_rest_reads(fixture, member):
    """zipfile decodes a name flagged UTF-8 as UTF-8, and its error refused the whole archive
    ('not a valid .docx file (corrupt or truncated zip: 'utf-8' codec can't decode byte 0xff ...)')."""
    data = (DOCS / fixture).read_bytes()
    assert member in zipfile.ZipFile(io.BytesIO(data)).namelist()
    suffix = Path(fixture).suffix
    converted = convert_document(_misnamed(data, member), suffix, f"d{suffix}")
    assert converted.markdown == convert_document(data, suffix, f"d{suffix}").markdown
    assert converted.warnings[0] == (f"d{suffix}: a member's name is not the UTF-8 it claims to be; read as "
                                     f"{member[:-5] + chr(0xA0) + member[-4:]!r}")


def test_a_member_whose_local_header_alone_claims_utf8_wrongly_is_read_without_it():
    """Its local header's name, decoded as UTF-8 on opening it, failed the whole document with
    the codec's message."""
    data = (DOCS / "docx_headings_table.docx").read_bytes()
    converted = convert_document(_misnamed(data, "docProps/app.xml", (b"PK\x03\x04",)), ".docx", "d.docx")
    assert converted.markdown == convert_document(data, ".docx", "d.docx").markdown
    assert converted.warnings == ("d.docx: docProps/app.xml is damaged (its header's name is not the UTF-8 it "
                                  "claims to be); read without it",)


ODF = Path(__file__).parent / "fixtures" / "odf"


@pytest.mark.parametrize("member", ["styles.xml", "meta.xml", "META-INF/manifest.xml", "mimetype"])
def test_an_opendocument_whose_styles_meta_manifest_or_mimetype_is_damaged_reads_its_text(member):
    """Any damaged member refused the whole document ('not a valid .odt file (damaged: Bad CRC-32
    for file 'styles.xml')'); those that hold none of its body cost only themselves, read as if the
    package had not held them (without styles.xml, its lists are not numbered)."""
    members = _members((ODF / "libreoffice_cjk_notes.odt").read_bytes())
    whole = convert_document(_zip({part: data for part, data in members.items() if part != member}), ".odt", "d.odt")
    converted = convert_document(_zip(members, member, "corrupt", 0), ".odt", "d.odt")
    assert converted.markdown == whole.markdown
    assert converted.metadata_title == whole.metadata_title
    assert converted.warnings == (f"d.odt: {member} is damaged (its compressed data is corrupt); read without it",)


@pytest.mark.parametrize("how", ["cut", "corrupt"])
def test_an_opendocument_whose_content_is_damaged_reads_the_paragraphs_before_the_damage(how):
    members = _members((ODF / "odfpy_api_manual.odt").read_bytes())
    content = members["content.xml"]
    at = content.index(b"See the examples folder in the source package")
    converted = convert_document(_zip(members, "content.xml", how, at), ".odt", "d.odt")
    whole = convert_document(_zip(members), ".odt", "d.odt").markdown
    assert converted.markdown.startswith("Application Programmer's Interface\n\nfor\n\nODFPY 0.9.1")
    assert 'doc.save("trip-to-rome", True)' in converted.markdown
    assert "See the examples folder" not in converted.markdown and len(converted.markdown) > 0.9 * len(whole)
    why = "its compressed data ends early" if how == "cut" else "its compressed data is corrupt"
    assert re.fullmatch(rf"d\.odt: content\.xml is damaged \({why}\); read up to the damage, [\d,]+ of its "
                        rf"{len(content):,} bytes", converted.warnings[0])


def test_an_opendocument_whose_content_is_damaged_from_its_start_is_one_line_saying_so():
    members = _members((ODF / "libreoffice_cjk_notes.odt").read_bytes())
    with pytest.raises(ConversionFailed) as failed:
        convert_document(_zip(members, "content.xml", "corrupt", 0), ".odt", "d.odt")
    assert str(failed.value) == "d.odt: cannot read the .odt file: content.xml is damaged (its compressed data is corrupt)"


@pytest.mark.parametrize("how", ["cut", "corrupt", "crc"])
def test_one_damaged_chapter_of_an_epub_costs_only_that_chapter(how):
    """A damaged chapter refused the whole book: 'cannot convert (BadZipFile: Bad CRC-32 for file
    ...)'; the other 16 chapters of the guide are now read, and the warning names the lost one."""
    members = _fixture("epub_ubuntu_packaging_guide_ru.epub")
    lost = "ubuntu-packaging-guide/fixing-a-bug.xhtml"
    whole = convert_document(_zip(members), ".epub", "d.epub").markdown
    without = dict(members, **{lost: b"<html xmlns='http://www.w3.org/1999/xhtml'><body></body></html>"})
    converted = convert_document(_zip(members, lost, how, len(members[lost]) // 2), ".epub", "d.epub")
    assert converted.markdown == convert_document(_zip(without), ".epub", "d.epub").markdown != whole
    why = {"cut": "its compressed data ends early", "corrupt": "its compressed data is corrupt",
           "crc": "its checksum does not match"}[how]
    assert converted.warnings[0] == f"d.epub: {lost} is damaged ({why}); its text is lost"




@pytest.mark.parametrize(("fixture", "member", "before", "after"), [
    ("docx_plain_paragraphs.docx", "word/document.xml", "If you do much work on computers", "Python enables programs"),
    ("../odf/odfpy_api_manual.odt", "content.xml", "Application Programmer's Interface", "See the examples folder"),
])
def test_a_part_whose_garbled_bytes_break_its_xml_before_its_checksum_is_read_up_to_them(fixture, member, before,
                                                                                       after):
    """Garbled bytes whose deflate data still inflates fail the part's XML before zipfile reaches its
    checksum, at the end of a 1.4 MB content.xml: an OpenDocument was 'not a valid .odt file
    (damaged: not well-formed (invalid token) ...)'. The part is read up to the last paragraph before them."""
    members = _fixture(fixture)
    suffix = Path(fixture).suffix
    size = len(members[member])
    converted = convert_document(_zip(members, member, "garbled", size // 2), suffix, f"d{suffix}")
    assert before in converted.markdown and after not in converted.markdown
    assert re.fullmatch(rf"d\{suffix}: {member} is damaged \(its checksum does not match\); read up to the damage, "
                        rf"[\d,]+ of its {size:,} bytes", converted.warnings[0])


def test_a_package_with_many_damaged_parts_names_twenty_and_counts_the_rest():
    """Each damaged part was a warning of its own: a presentation whose second half was garbage
    would have said so 25 times over."""
    members = _presentation(30)
    lost = tuple(f"ppt/slides/slide{number}.xml" for number in range(6, 31))
    converted = convert_document(_zip(members, lost, "corrupt", 0), ".pptx", "d.pptx")
    assert "Walrus fact number 5" in converted.markdown and "Walrus fact number 6" not in converted.markdown
    assert len(converted.warnings) == 21 and converted.warnings[-1] == "d.pptx: ... and 5 more damaged parts"


@pytest.mark.parametrize(("fixture", "member"), [("../odf/libreoffice_cjk_notes.odt", "meta.xml"),
                                                 ("epub_ubuntu_packaging_guide_ru.epub",
                                                  "ubuntu-packaging-guide/fixing-a-bug.xhtml")])
def test_an_opendocument_or_epub_member_whose_local_header_claims_utf8_wrongly_costs_only_itself(fixture, member):
    """zipfile's UnicodeDecodeError on opening the member escaped the reader (found by flipping
    random bits of the fixtures)."""
    data = (DOCS / fixture).read_bytes()
    suffix = Path(fixture).suffix
    converted = convert_document(_misnamed(data, member, (b"PK\x03\x04",)), suffix, f"d{suffix}")
    assert converted.warnings[0] == (f"d{suffix}: {member} is damaged (its header's name is not the UTF-8 it claims "
                                     f"to be); " + ("read without it" if suffix == ".odt" else "its text is lost"))


def test_the_relationships_of_many_damaged_slides_are_mended_in_linear_time():
    """Each damaged slide's relationships were mended by a scan of every member for its layout: a
    deck of 2,000 slides whose relationships are all damaged cost 2,000 scans of 4,000 names."""
    from helpers.growth import grows_linearly

    from minirag.ingest.zip_damage import mended

    relationships = (b'<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/'
                     b'relationships"/>')
    packages: dict[int, tuple[bytes, list[str]]] = {}

    def deck_of(repeats: int) -> str:
        members = {"ppt/slideLayouts/slideLayout1.xml": b"<x/>"}
        damaged = []
        for number in range(1, repeats // 4 + 1):
            members[f"ppt/slides/slide{number}.xml"] = b"<x/>"
            members[f"ppt/slides/_rels/slide{number}.xml.rels"] = relationships
            damaged.append(f"ppt/slides/_rels/slide{number}.xml.rels")
        packages[repeats] = (_zip(members, tuple(damaged), "corrupt", 0), damaged)
        return str(repeats)

    def mend(key: str) -> None:
        data, damaged = packages[int(key)]
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            mended(archive, data, ".pptx", damaged, "d.pptx")

    assert grows_linearly(mend, deck_of)


def _animals() -> dict[str, bytes]:
    """A workbook as xlsxwriter writes it: every text cell a shared string (`t="s"`), A2's `<v>2</v>`."""
    def build(out):
        import xlsxwriter

        book = xlsxwriter.Workbook(out)
        sheet = book.add_worksheet()
        for row, values in enumerate((["Animal", "Count"], ["walrus", 3], ["seal", 4])):
            sheet.write_row(row, 0, values)
        book.close()
    return _made(build)


@pytest.mark.parametrize("value", ["", "1.0", "seal", "-1", "99999999999999999999", "9" * 5000, "1_0", "\u0663"])
def test_a_shared_string_cell_whose_number_is_no_whole_index_is_one_empty_cell_and_one_warning(value):
    """`1.0`, text, and 5,000 digits (past what Python's int() reads) refused the whole workbook;
    an empty `<v>` read as empty without a word, and an Arabic-Indic three (which int() reads as 3)
    as another cell's string. Now each is the cell left empty, counted in the one warning a shared
    string the table does not hold gives (as `-1` and an index past the table's end were)."""
    members = _animals()
    sheet = members["xl/worksheets/sheet1.xml"]
    damaged = sheet.replace(b'<c r="A2" t="s"><v>2</v>', f'<c r="A2" t="s"><v>{value}</v>'.encode())
    assert damaged != sheet
    members["xl/worksheets/sheet1.xml"] = damaged
    converted = convert_document(_zip(members), ".xlsx", "d.xlsx")
    assert _rows(converted.markdown) == [["Animal", "Count"], ["", "3"], ["seal", "4"]], converted.markdown
    assert converted.warnings == ("d.xlsx: 1 cells name a shared string the workbook does not hold "
                                  "(its table holds 4); read as empty",)


@pytest.mark.parametrize("value", ["2", " 2 ", "+2", "002"])
def test_a_shared_string_index_xml_schema_reads_as_a_number_names_its_string(value):
    members = _animals()
    members["xl/worksheets/sheet1.xml"] = members["xl/worksheets/sheet1.xml"].replace(
        b'<c r="A2" t="s"><v>2</v>', f'<c r="A2" t="s"><v>{value}</v>'.encode())
    converted = convert_document(_zip(members), ".xlsx", "d.xlsx")
    assert _rows(converted.markdown)[1] == ["walrus", "3"] and converted.warnings == ()


@pytest.mark.parametrize(("cell", "shown"), [
    ('<c r="B2"><v>three</v>', "three"), ('<c r="B2" t="n"><v>nan</v>', "nan"),
    ('<c r="B2" t="n"><v>inf</v>', "inf"), (f'<c r="B2" t="n"><v>{"9" * 5000}</v>', "9" * 5000),
    ('<c r="B2" t="b"><v>yes</v>', "yes"), ('<c r="B2" t="d"><v>not a date</v>', "not a date")])
def test_a_cell_whose_value_its_type_cannot_hold_is_read_as_written_with_one_warning(cell, shown):
    """A number cell holding text (or `nan`, or 5,000 digits), a boolean holding `yes`, a date
    holding no date: each refused the whole workbook (ValueError from openpyxl's int(), float() or
    its ISO 8601 reader). Now the one cell reads as its XML writes it, counted in one warning."""
    members = _animals()
    sheet = members["xl/worksheets/sheet1.xml"]
    damaged = sheet.replace(b'<c r="B2"><v>3</v>', cell.encode())
    assert damaged != sheet
    members["xl/worksheets/sheet1.xml"] = damaged
    converted = convert_document(_zip(members), ".xlsx", "d.xlsx")
    assert _rows(converted.markdown) == [["Animal", "Count"], ["walrus", shown], ["seal", "4"]]
    assert converted.warnings == ("d.xlsx: 1 cells hold a value their type cannot (text in a number cell); "
                                  "read as written",)


@pytest.mark.parametrize(("cell", "booleans"), [('<c r="B2" t="b"><v>true</v>', "TRUE"),
                                                ('<c r="B2" t="b"><v>0</v>', "FALSE")])
def test_a_boolean_cell_reads_as_xml_schema_writes_a_boolean(cell, booleans):
    members = _animals()
    members["xl/worksheets/sheet1.xml"] = members["xl/worksheets/sheet1.xml"].replace(
        b'<c r="B2"><v>3</v>', cell.encode())
    converted = convert_document(_zip(members), ".xlsx", "d.xlsx")
    assert _rows(converted.markdown)[1] == ["walrus", booleans] and converted.warnings == ()


@pytest.mark.parametrize("cell", ['<c r="B2" s="x">', '<c r="B2" s="99999">', '<c r="2B">', '<c r="B2" s="-1">'])
def test_a_cell_whose_place_or_style_is_no_index_reads_its_value(cell):
    """A style that is no number or past the workbook's styles, or a place that is no cell's name,
    refused the whole workbook (ValueError, IndexError). A style the workbook does not hold is no
    style; a cell with no place takes the one after the cell before it, as a cell with no `r`."""
    members = _animals()
    members["xl/worksheets/sheet1.xml"] = members["xl/worksheets/sheet1.xml"].replace(
        b'<c r="B2">', cell.encode())
    converted = convert_document(_zip(members), ".xlsx", "d.xlsx")
    assert _rows(converted.markdown) == [["Animal", "Count"], ["walrus", "3"], ["seal", "4"]]
