"""Writes PDFs of right-to-left text shaped as a typesetter shapes it, for the tests' fixtures.

    uv run --with uharfbuzz python scripts/gen_shaped_pdf.py

Each paragraph is shaped by HarfBuzz with a real font (DejaVu Sans, Debian's fonts-dejavu-core, or
KacstFarsi, fonts-kacst, or Amiri, fonts-hosny-amiri) and its glyphs drawn one by one where HarfBuzz puts them, in drawn order
(left to right), as XeTeX and LibreOffice draw a right-to-left line: joining forms, the lam-alef
ligature, and each vowel mark a glyph of no advance set over its letter by an offset. Word spaces are gaps, not glyphs, as TeX leaves them. The
fonts are not embedded (the widths and a ToUnicode map are all a text extractor reads), so the files
are a few kilobytes. Lines are broken at spaces to a fixed measure and set `leading` apart, with a
paragraph's gap (`parskip`) between paragraphs.
"""

from __future__ import annotations

import sys
import unicodedata
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

FONT = Path("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf")
# Debian's fonts-kacst: a font that sets its marks high over tall letters (a GPOS offset upwards).
KACST = Path("/usr/share/fonts/truetype/kacst/KacstFarsi.ttf")
# Debian's fonts-hosny-amiri: a naskh that kerns a letter that joins no letter after it (ر ز و) off
# the next one, a gap of 0.12 em inside the word, where DejaVu's letters touch.
AMIRI = Path("/usr/share/fonts/opentype/fonts-hosny-amiri/Amiri-Regular.ttf")
OUT = ROOT / "tests" / "fixtures" / "rtl81"
OUT_PDF81 = ROOT / "tests" / "fixtures" / "pdf81"

# Sentences on the Arabic language and on the National Library of Egypt, written for this project;
# the first two vowel-marked (harakat, shadda, tanwin) throughout, as a schoolbook marks them.
VOWELLED = [
    "اللُّغَةُ العَرَبِيَّةُ هِيَ أَكْثَرُ اللُّغَاتِ السَّامِيَّةِ تَحَدُّثًا، وَإِحْدَى أَكْثَرِ اللُّغَاتِ انْتِشَارًا فِي العَالَمِ، "
    "يَتَحَدَّثُهَا أَكْثَرُ مِنْ أَرْبَعِمِائَةِ مَلْيُونِ نَسَمَةٍ.",
    "دَارُ الكُتُبِ وَالوَثَائِقِ القَوْمِيَّةِ فِي القَاهِرَةِ هِيَ أَقْدَمُ مَكْتَبَةٍ وَطَنِيَّةٍ فِي الوَطَنِ العَرَبِيِّ.",
]
TITLE = "لغات الأرض والإنسان"  # a title whose words have lam-alef ligatures (لأ, لإ)
PLAIN = [
    "تعد اللغة العربية من أقدم اللغات الحية على وجه الأرض، وهي لغة رسمية في كل دول الوطن العربي "
    "إضافة إلى كونها لغة رسمية في تشاد وإريتريا وإسرائيل، وهي إحدى اللغات الرسمية الست في منظمة الأمم المتحدة.",
    "ويحتفل باليوم العالمي للغة العربية في الثامن عشر من ديسمبر كذكرى اعتماد العربية بين لغات العمل في الأمم المتحدة.",
    "تحتوي دار الكتب المصرية على مجموعة كبيرة من المخطوطات والبرديات والوثائق النادرة، وقد تأسست عام ألف "
    "وثمانمائة وسبعين في عهد الخديوي إسماعيل.",
]

# Sentences on Eritrea, on a manuscript library and on a ministry, written for this project: words
# with ر ز و inside them (إريتريا، المصرية، بزيادة) beside words that end in them (دار، الوزير).
KERNED = [
    "تقع إريتريا على ساحل البحر الأحمر، وعاصمتها أسمرة، وقد نالت استقلالها بعد حرب طويلة دامت ثلاثين عاما.",
    "تضم دار المخطوطات المصرية وثائق نادرة من عصور مختلفة، ويزورها الدارسون والمؤرخون من بلاد كثيرة.",
    "درس الوزير الجديد خطة الوزارة لإدارة الموارد المائية، ووعد بزيادة الزراعة في المناطق الصحراوية.",
]


def shaped(text: str, font, size: float) -> list[tuple[int, float, float, float, str]]:
    """(glyph, x, y offset, advance, its text) of each glyph in drawn order, x from the line's left."""
    import uharfbuzz as hb

    buf = hb.Buffer()
    buf.add_str(text)
    buf.guess_segment_properties()
    buf.cluster_level = hb.BufferClusterLevel.MONOTONE_CHARACTERS  # a mark is a cluster of its own
    hb.shape(font, buf, {})
    scale = size / font.face.upem
    infos, positions = buf.glyph_infos, buf.glyph_positions
    clusters = sorted({info.cluster for info in infos})
    ends = {start: end for start, end in zip(clusters, clusters[1:] + [len(text)], strict=True)}
    shared = {info.cluster for at, info in enumerate(infos) if at and infos[at - 1].cluster == info.cluster}
    out, pen = [], 0.0
    given: dict[int, set[str]] = {}  # of a cluster of several glyphs, the characters given out
    for info, pos in zip(infos, positions, strict=True):
        chars = text[info.cluster:ends[info.cluster]]
        if info.cluster in shared:  # a letter and a mark HarfBuzz kept together: each glyph its own
            chars = _glyph_text(font, info.codepoint, chars, given.setdefault(info.cluster, set()))
        if not chars:  # a glyph whose cluster's letters are given out already (Amiri's kashida in الكتب)
            raise ValueError(f"glyph {font.glyph_to_string(info.codepoint)} in {text!r} stands for no text")
        out.append((info.codepoint, pen + pos.x_offset * scale, pos.y_offset * scale, pos.x_advance * scale, chars))
        pen += pos.x_advance * scale
    return out


def _glyph_text(font, glyph: int, chars: str, given: set[str]) -> str:
    """The text of one glyph of a cluster of several: the mark it draws (its nominal glyph, or a glyph
    Amiri names after it, `uni064E.small2`), else the cluster's letters, each once."""
    name = font.glyph_to_string(glyph)
    for c in chars:
        if unicodedata.combining(c) and c not in given and (
                font.get_nominal_glyph(ord(c)) == glyph or name.startswith(f"uni{ord(c):04X}")):
            given.add(c)
            return c
    letters = "".join(c for c in chars if not unicodedata.combining(c))
    if letters in given:
        return ""
    given.add(letters)
    return letters


def lines_of(paragraph: str, font, size: float, measure: float) -> list[str]:
    words, lines, line = paragraph.split(" "), [], ""
    for word in words:
        trial = f"{line} {word}" if line else word
        if line and sum(glyph[3] for glyph in shaped(trial, font, size)) > measure:
            lines.append(line)
            line = word
        else:
            line = trial
    return lines + [line]


def rtl_pdf(paragraphs: list[str], size: float = 11.0, leading: float = 1.25, parskip: float = 1.0,
            measure: float = 430.0, font_file: Path = FONT, sizes: list[float] | None = None) -> bytes:
    """One page of right-to-left paragraphs, each line set flush right, the last of each too; each
    paragraph in its own type size where `sizes` gives them (a title's larger type)."""
    import uharfbuzz as hb
    from pdf_maker import pdf_of_objects

    blob = hb.Blob.from_file_path(str(font_file))
    font = hb.Font(hb.Face(blob))
    upem = font.face.upem
    ops, texts, widths, y, right = [], {}, {}, 770.0, 72.0 + measure
    base = size
    for number, paragraph in enumerate(paragraphs):
        size = sizes[number] if sizes else base
        for line in lines_of(paragraph, font, size, measure):
            glyphs = shaped(line, font, size)
            width = sum(g[3] for g in glyphs)
            for gid, x, dy, _advance, text in glyphs:
                if text == " ":
                    continue  # a gap, as TeX leaves a word space
                if texts.setdefault(gid, text) != text:  # one ToUnicode entry per glyph
                    raise ValueError(f"glyph {gid} stands for {texts[gid]!r} and {text!r}")
                widths[gid] = round(font.get_glyph_h_advance(gid) * 1000 / upem)
                ops.append(f"BT /F1 {size} Tf 1 0 0 1 {right - width + x:.3f} {y + dy:.3f} Tm <{gid:04X}> Tj ET")
            y -= size * leading
        y -= size * parskip
    stream = "\n".join(ops).encode()
    mapping = "\n".join(f"<{gid:04X}> <{text.encode('utf-16-be').hex().upper()}>" for gid, text in sorted(texts.items()))
    cmap = (f"/CIDInit /ProcSet findresource begin 12 dict begin begincmap /CMapName /Shaped def "
            f"1 begincodespacerange <0000> <FFFF> endcodespacerange\n{len(texts)} beginbfchar\n{mapping}\n"
            f"endbfchar endcmap CMapName currentdict /CMap defineresource pop end end").encode()
    w = " ".join(f"{gid} [{width}]" for gid, width in sorted(widths.items()))
    extents = font.get_font_extents("ltr")
    ascent, descent = round(extents.ascender * 1000 / upem), round(extents.descender * 1000 / upem)
    name = font_file.stem.replace("-", "").encode()
    return pdf_of_objects([
        b"<< /Type /Catalog /Pages 2 0 R >>", b"<< /Type /Pages /Kids [5 0 R] /Count 1 >>",
        b"<< /Type /Font /Subtype /Type0 /BaseFont /%s /Encoding /Identity-H /DescendantFonts [6 0 R] "
        b"/ToUnicode 7 0 R >>" % name,
        b"<< /Length %d >>\nstream\n%s\nendstream" % (len(stream), stream),
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
        b"/Resources << /Font << /F1 3 0 R >> >> >>",
        b"<< /Type /Font /Subtype /CIDFontType2 /BaseFont /%s /DW 1000 /W [%s] /FontDescriptor 8 0 R "
        b"/CIDSystemInfo << /Registry (Adobe) /Ordering (Identity) /Supplement 0 >> >>" % (name, w.encode()),
        b"<< /Length %d >>\nstream\n%s\nendstream" % (len(cmap), cmap),
        b"<< /Type /FontDescriptor /FontName /%s /Flags 4 /FontBBox [-1000 %d 2000 %d] /ItalicAngle 0 "
        b"/Ascent %d /Descent %d /CapHeight 700 /StemV 80 >>" % (name, descent, ascent, ascent, descent)])


def main() -> int:
    OUT.mkdir(parents=True, exist_ok=True)
    files = {"vowelled.pdf": rtl_pdf(VOWELLED),
             "vowelled_kacst.pdf": rtl_pdf(VOWELLED, font_file=KACST),
             "plain.pdf": rtl_pdf(PLAIN),
             "wide_leading.pdf": rtl_pdf(PLAIN, leading=2.0, parskip=1.5),
             "kerned_amiri.pdf": rtl_pdf(KERNED, font_file=AMIRI)}
    titled = [TITLE, *PLAIN]
    titled_files = {"titled.pdf": rtl_pdf(titled, sizes=[20.0] + [11.0] * len(PLAIN))}
    for out, made in ((OUT, files), (OUT_PDF81, titled_files)):
        for name, data in made.items():
            (out / name).write_bytes(data)
            print(f"{out.relative_to(ROOT) / name}: {len(data)} bytes")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
