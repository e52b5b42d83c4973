"""A small PDF writer for tests: pages of text lines in Helvetica, and an optional outline.

Real PDF pages with embedded fonts weigh 150 kB each; these are built at test time from
the real text of a document, laid out line by line as its pages are.
"""

from __future__ import annotations


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")


def pdf_of_objects(objects: list[bytes], root: int = 1) -> bytes:
    """A PDF file of these object bodies, numbered from 1, with its cross-reference table;
    object `root` is the catalog."""
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += b"trailer\n<< /Size %d /Root %d 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, root, xref)
    return bytes(out)


def make_pdf(pages: list[list[str]], outline: list[tuple[int, str, int]] = ()) -> bytes:
    """`pages`: lines top to bottom ("" leaves a gap); `outline`: (level 1-2, title, page index)."""
    objects: list[bytes] = []

    def add(body: bytes) -> int:
        objects.append(body)
        return len(objects)

    catalog = add(b"")
    page_tree = add(b"")
    font = add(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
    page_ids = []
    for lines in pages:
        ops, y = [], 760
        for line in lines:
            if line:
                ops.append(f"BT /F1 10 Tf 56 {y} Td ({_escape(line)}) Tj ET")
            y -= 13 if line else 20
        stream = "\n".join(ops).encode("cp1252")
        content = add(b"<< /Length %d >>\nstream\n%s\nendstream" % (len(stream), stream))
        page_ids.append(add(b"<< /Type /Page /Parent %d 0 R /MediaBox [0 0 612 792] /Contents %d 0 R "
                            b"/Resources << /Font << /F1 %d 0 R >> >> >>" % (page_tree, content, font)))
    kids = b" ".join(b"%d 0 R" % p for p in page_ids)
    objects[page_tree - 1] = b"<< /Type /Pages /Kids [%s] /Count %d >>" % (kids, len(page_ids))
    outlines = ""
    if outline:
        root = add(b"")
        ids = [add(b"") for _ in outline]
        tops = [i for i, (level, _, _) in enumerate(outline) if level == 1]
        for n, (level, title, page) in enumerate(outline):
            parent = root if level == 1 else ids[max(i for i in tops if i < n)]
            siblings = tops if level == 1 else [i for i in range(len(outline)) if outline[i][0] == 2
                                                 and max(t for t in tops if t < i) == max(t for t in tops if t < n)]
            pos = siblings.index(n)
            links = b""
            if pos > 0:
                links += b" /Prev %d 0 R" % ids[siblings[pos - 1]]
            if pos + 1 < len(siblings):
                links += b" /Next %d 0 R" % ids[siblings[pos + 1]]
            children = [i for i in range(n + 1, len(outline)) if outline[i][0] == 2
                        and max(t for t in tops if t < i) == n] if level == 1 else []
            if children:
                links += b" /First %d 0 R /Last %d 0 R /Count %d" % (ids[children[0]], ids[children[-1]],
                                                                   len(children))
            objects[ids[n] - 1] = (b"<< /Title (%s) /Parent %d 0 R /Dest [%d 0 R /XYZ 0 792 0]%s >>"
                                   % (_escape(title).encode("cp1252"), parent, page_ids[page], links))
        objects[root - 1] = b"<< /Type /Outlines /First %d 0 R /Last %d 0 R /Count %d >>" % (
            ids[tops[0]], ids[tops[-1]], len(tops))
        outlines = f" /Outlines {root} 0 R"
    objects[catalog - 1] = b"<< /Type /Catalog /Pages %d 0 R%s >>" % (page_tree, outlines.encode())
    return pdf_of_objects(objects, root=catalog)


def placed_pdf(items: list[tuple[float, float, str]]) -> bytes:
    """One page of text lines each placed where its (x, y) says, in Helvetica 10."""
    ops = "\n".join(f"BT /F1 10 Tf {x} {y} Td ({_escape(text)}) Tj ET" for x, y, text in items).encode("cp1252")
    return pdf_of_objects([
        b"<< /Type /Catalog /Pages 2 0 R >>", b"<< /Type /Pages /Kids [5 0 R] /Count 1 >>",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
        b"<< /Length %d >>\nstream\n%s\nendstream" % (len(ops), ops),
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
        b"/Resources << /Font << /F1 3 0 R >> >> >>"])


def wide_pdf(paragraphs: list[list[str]], size: float = 10.5, indent: int = 0, leading: float = 1.45,
             parskip: float = 1.5) -> bytes:
    """One page of paragraphs in a CID font whose codes map to any characters (Chinese, Japanese,
    Korean): every line but a paragraph's last is justified to the longest line's width, as a
    typesetter sets them (character spacing stretched), lines `leading` ems apart (baseline to
    baseline), paragraphs `parskip` ems more, each one's first line indented `indent` ems. East
    Asian wide characters are 1 em wide, others half an em."""
    import unicodedata

    chars = sorted({c for lines in paragraphs for line in lines for c in line})
    code = {c: n + 1 for n, c in enumerate(chars)}

    def em(c: str) -> float:
        return 1.0 if unicodedata.east_asian_width(c) in "WF" else 0.5

    width = max(sum(em(c) for c in line) + (indent if not at else 0)
                for lines in paragraphs for at, line in enumerate(lines)) * size
    ops, y = [], 760.0
    for lines in paragraphs:
        for at, line in enumerate(lines):
            left = 0 if at else indent * size
            natural = sum(em(c) for c in line) * size
            spacing = (width - left - natural) / (len(line) - 1) if at + 1 < len(lines) and len(line) > 1 else 0
            glyphs = "".join(f"{code[c]:04X}" for c in line)
            ops.append(f"BT /F1 {size} Tf {spacing:.3f} Tc {72 + left:.1f} {y:.1f} Td <{glyphs}> Tj ET")
            y -= size * leading
        y -= size * parskip
    stream = "\n".join(ops).encode()
    mapping = "\n".join(f"<{code[c]:04X}> <{c.encode('utf-16-be').hex().upper()}>" for c in chars)
    cmap = (f"/CIDInit /ProcSet findresource begin 12 dict begin begincmap /CMapName /Wide def "
            f"1 begincodespacerange <0000> <FFFF> endcodespacerange\n{len(chars)} beginbfchar\n{mapping}\n"
            f"endbfchar endcmap CMapName currentdict /CMap defineresource pop end end").encode()
    widths = " ".join(f"{code[c]} [{int(em(c) * 1000)}]" for c in chars)
    return pdf_of_objects([
        b"<< /Type /Catalog /Pages 2 0 R >>", b"<< /Type /Pages /Kids [5 0 R] /Count 1 >>",
        b"<< /Type /Font /Subtype /Type0 /BaseFont /Wide /Encoding /Identity-H /DescendantFonts [6 0 R] "
        b"/ToUnicode 7 0 R >>",
        b"<< /Length %d >>\nstream\n%s\nendstream" % (len(stream), stream),
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
        b"/Resources << /Font << /F1 3 0 R >> >> >>",
        b"<< /Type /Font /Subtype /CIDFontType2 /BaseFont /Wide /DW 1000 /W [%s] /FontDescriptor 8 0 R "
        b"/CIDSystemInfo << /Registry (Adobe) /Ordering (Identity) /Supplement 0 >> >>" % widths.encode(),
        b"<< /Length %d >>\nstream\n%s\nendstream" % (len(cmap), cmap),
        b"<< /Type /FontDescriptor /FontName /Wide /Flags 4 /FontBBox [0 -120 1000 880] /ItalicAngle 0 "
        b"/Ascent 880 /Descent -120 /CapHeight 700 /StemV 80 >>"])
