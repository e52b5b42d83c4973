"""A PDF string's octal escape past \\377 keeps its low eight bits: "the high-order overflow shall be
ignored" (ISO 32000-1, 7.3.4.2). hyperref wrote the Russian MetaPost manual's bookmarks so
(mpman-ru.pdf, Debian's texlive-lang-cyrillic 2022.20230122-1: `(\\376\\377\\004\\436\\004\\477...)` for
"Операторы"), and pdfminer asserted instead: "cannot read PDF (AssertionError: Invalid octal b'436'
(286))", the whole manual unread. The titles here are three of its bookmarks, byte for byte."""

from pdf_maker import pdf_of_objects

from minirag.ingest.convert import convert_document

TITLES = {  # as mpman-ru.pdf's outline spells them, and what they read
    rb"\376\377\004\422\004\462\004\465\004\464\004\465\004\475\004\470\004\465": "Введение",
    rb"\376\377\004\436\004\477\004\465\004\100\004\460\004\102\004\476\004\100\004\113": "Операторы",
    rb"\376\377\004\442\004\470\004\477\004\113\000\040\004\464\004\460\004\475\004\475\004\113\004\105": "Типы данных",
}


def _manual() -> bytes:
    pages, lines = [], []
    for at, title in enumerate(TITLES.values()):
        lines.append(f"BT /F1 14 Tf 72 {700 - 200 * at} Td <{title.encode('cp1251').hex()}> Tj ET")
        lines.append(f"BT /F1 10 Tf 72 {680 - 200 * at} Td (\\510ere the text of section {at + 1} begins.) Tj ET")
    stream = "\n".join(lines).encode()
    outline = list(TITLES)
    # cp1251's Cyrillic letters (192-255) as Unicode's (U+0410-U+044F), the rest as ASCII.
    cmap = (b"/CIDInit /ProcSet findresource begin 12 dict begin begincmap /CMapName /Cyr def "
            b"1 begincodespacerange <00> <FF> endcodespacerange 2 beginbfrange <20> <7E> <0020> "
            b"<C0> <FF> <0410> endbfrange endcmap CMapName currentdict /CMap defineresource pop end end")
    first = 6
    items = [b"<< /Title (%s) /Parent 5 0 R /Dest [4 0 R /XYZ 72 %d 0]%s%s >>" % (
        raw, 720 - 200 * at, b" /Prev %d 0 R" % (first + at - 1) if at else b"",
        b" /Next %d 0 R" % (first + at + 1) if at + 1 < len(outline) else b"") for at, raw in enumerate(outline)]
    pages = [
        b"<< /Type /Catalog /Pages 2 0 R /Outlines 5 0 R >>",
        b"<< /Type /Pages /Kids [4 0 R] /Count 1 >>",
        b"<< /Length %d >>\nstream\n%s\nendstream" % (len(stream), stream),
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 3 0 R "
        b"/Resources << /Font << /F1 %d 0 R >> >> >>" % (first + len(outline)),
        b"<< /Type /Outlines /First %d 0 R /Last %d 0 R /Count %d >>" % (first, first + len(outline) - 1, len(outline)),
        *items,
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /FirstChar 32 /LastChar 255 /Widths ["
        + b"600 " * 224 + b"] /ToUnicode %d 0 R >>" % (first + len(outline) + 1),
        b"<< /Length %d >>\nstream\n%s\nendstream" % (len(cmap), cmap),
    ]
    return pdf_of_objects(pages)


def test_a_manual_whose_bookmarks_overflow_their_octal_escapes_is_read():
    converted = convert_document(_manual(), ".pdf", "mpman-ru.pdf")
    assert "Here the text of section 2 begins." in converted.markdown, converted.markdown
    for title in TITLES.values():  # headings, as the outline names them
        assert f"# {title}\n" in converted.markdown, converted.markdown
