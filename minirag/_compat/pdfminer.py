"""pdfminer.six's internals that the PDF decompression budget (ingest/pdf_inflate.py) replaces.

Written against pdfminer.six 20250506 to 20260107. `pdfminer.pdftypes` decodes a
stream's filters through the module-level names `zlib`, `rldecode`, `lzwdecode` and
`ascii85decode`, looked up at call time, so pointing those names elsewhere changes
decoding for the whole process. `PDFPageInterpreter` runs the `Do` operator through
its `do_Do` method and each page through `process_page`. Every indirect reference is
followed through `PDFObjRef.resolve` (`resolve1` and `resolve_all` call it until the
value is no reference). `PDFDocument.read_xref_from` reads each cross-reference section,
and calls itself for the ones a trailer's /Prev and /XRefStm name.

A glyph its font maps to no Unicode character is written into the text as `(cid:N)`
(`PDFLayoutAnalyzer.handle_undefined_char`): UNMAPPED_GLYPH finds it.

`LTLayoutContainer.group_textboxes` (the layout analysis that orders a page's text boxes) keeps
its candidate pairs in a heap of `(skip, distance, id(a), id(b), a, b)`, looked up as the module
global `id` of `pdfminer.layout`: boxes at equal distances were ordered by memory address, so the
same PDF gave its lines in another order from run to run (R's manuals: digits of a figure).

`PDFType1Font.__init__(self, rsrcmgr, spec)` (TrueType fonts inherit it) takes a standard 14 font's
widths from pdfminer's own metrics, by character, whatever the font dictionary's /Widths say; its
other fonts' from /Widths, by code, into `self.widths`, which `char_width` looks a code up in first.

`PSBaseParser._parse_string_1(self, s, i)` reads a literal string's octal escape a digit at a time
into `self.oct` (bytes, three digits at most) and asserts that its value is below 256; the object
parser and the content stream parser both inherit it.

`LTTextLineHorizontal.add(self, obj)` puts a space (`LTAnno(" ")`) before a character that starts
further right of `self._x1` (the right edge of the character added before it) than
`self.word_margin` times the larger of the character's width and height, then sets `self._x1` to
the character's right edge. `LTLayoutContainer.group_objects(self, laparams, objs)` takes a page's
characters in drawn order and starts a new line wherever the next one does not overlap the one
before it by `laparams.line_overlap` of the lower's height.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable

DISTRIBUTION = "pdfminer.six"
SUPPORTED = ("20250506", "20270101")

DECODER_NAMES = ("zlib", "rldecode", "lzwdecode", "ascii85decode")
WRAPPED_METHODS = ("do_Do", "process_page")
_MARK = "minirag_wrapped"
UNMAPPED_GLYPH = re.compile(r"\(cid:\d+\)")


def replace_decoders(**decoders) -> None:
    """Point pdftypes' names in DECODER_NAMES (keyword arguments) at stand-ins, process-wide."""
    import pdfminer.pdftypes

    for name, stand_in in decoders.items():
        if name not in DECODER_NAMES:
            raise ValueError(f"pdfminer.pdftypes decodes through no name {name!r}")
        setattr(pdfminer.pdftypes, name, stand_in)


def wrap_interpreter(**wrappers: Callable[[Callable], Callable]) -> None:
    """Replace each named method of PDFPageInterpreter (WRAPPED_METHODS) with `wrapper(method)`,
    once per process: a later call finds them wrapped and leaves them."""
    from pdfminer.pdfinterp import PDFPageInterpreter

    if any(getattr(getattr(PDFPageInterpreter, name), _MARK, False) for name in wrappers):
        return
    for name, wrapper in wrappers.items():
        if name not in WRAPPED_METHODS:
            raise ValueError(f"PDFPageInterpreter has no wrapped method {name!r}")
        wrapped = wrapper(getattr(PDFPageInterpreter, name))
        setattr(wrapped, _MARK, True)
        setattr(PDFPageInterpreter, name, wrapped)


def wrap_reference(wrapper: Callable[[Callable], Callable]) -> None:
    """Replace `PDFObjRef.resolve` with `wrapper(resolve)`, once per process."""
    from pdfminer.pdftypes import PDFObjRef

    if not getattr(PDFObjRef.resolve, _MARK, False):
        wrapped = wrapper(PDFObjRef.resolve)
        setattr(wrapped, _MARK, True)
        setattr(PDFObjRef, "resolve", wrapped)  # noqa: B010 - mypy refuses an assignment to a method


def wrap_xref_reader(wrapper: Callable[[Callable], Callable]) -> None:
    """Replace `PDFDocument.read_xref_from(self, parser, start, xrefs)`, which reads one cross-reference
    section and calls itself for the sections its trailer names (/Prev, /XRefStm), with
    `wrapper(read_xref_from)`, once per process."""
    from pdfminer.pdfdocument import PDFDocument

    if not getattr(PDFDocument.read_xref_from, _MARK, False):
        wrapped = wrapper(PDFDocument.read_xref_from)
        setattr(wrapped, _MARK, True)
        setattr(PDFDocument, "read_xref_from", wrapped)  # noqa: B010 - as in wrap_reference


_SERIALS = itertools.count()
_SERIAL = "minirag_serial"


def _serial(element: object) -> int:
    """A number for a layout element, given when first asked for and kept with it: elements
    are numbered in the order the analysis first compares them, the same in every run."""
    serial = getattr(element, _SERIAL, None)
    if serial is None:
        serial = next(_SERIALS)
        setattr(element, _SERIAL, serial)
    return serial


def order_layout_ties() -> None:
    """Make `pdfminer.layout` break its ties by `_serial`, not by memory address, process-wide."""
    import pdfminer.layout

    pdfminer.layout.id = _serial  # type: ignore[attr-defined]


_MAX_WIDTH = 100_000.0  # glyph space units (1/1000 of the text size): a hundred em


def font_widths_as_given() -> None:
    """Make a Type 1 or TrueType font that names a standard 14 font (Times-Roman) take its glyphs'
    widths from its dictionary's /Widths, by code, where it gives them, as viewers do: they are the
    widths the producer set the text with, once per process. A code /Widths leaves out keeps the
    standard font's width for its character.

    groff's PDFs (gropdf: every man page typeset with `groff -Tpdf`) name Times-Roman unembedded, in
    an encoding of their own whose code for `\\-` draws a minus but maps to `-`: pdfminer measured
    each as a hyphen, 2.3 points short, and set each word after them further left than its place,
    so the word that groff placed anew read cut (`belo w`, `--ignor e-backups`) or as a box of its
    own (`b` / `ut any use of --sort=none` two lines apart)."""
    from pdfminer.pdffont import PDFType1Font
    from pdfminer.pdftypes import list_value, resolve1

    original = PDFType1Font.__init__
    if getattr(original, _MARK, False):
        return

    def init(self, rsrcmgr, spec) -> None:
        original(self, rsrcmgr, spec)
        if "Widths" not in spec:
            return
        try:
            first = int(resolve1(spec.get("FirstChar", 0)))
            given = {first + at: float(resolve1(width)) for at, width in enumerate(list_value(spec["Widths"]))}
        except (TypeError, ValueError, OverflowError):
            return  # widths that are no numbers: pdfminer's own stand
        # A width no glyph has (infinite, NaN, past a page) would throw every later glyph off its line.
        self.widths = {**self.widths, **{code: width for code, width in given.items() if 0 <= width <= _MAX_WIDTH}}

    setattr(init, _MARK, True)
    PDFType1Font.__init__ = init  # type: ignore[method-assign]


def octal_overflow_ignored() -> None:
    """Make a literal string's octal escape past \\377 keep its low eight bits, as ISO 32000-1
    (7.3.4.2) has it ("the high-order overflow shall be ignored"), process-wide, once. pdfminer
    asserted instead, and the whole PDF was unread: hyperref wrote the Russian MetaPost manual's
    UTF-16 bookmarks so (`\\004\\436` for U+043E), and they read right so."""
    from pdfminer.psparser import PSBaseParser

    original = PSBaseParser._parse_string_1
    if getattr(original, _MARK, False):
        return

    def parse(self, s: bytes, i: int) -> int:
        if len(self.oct) == 3 and self.oct[0] > ord("3"):  # three digits past \\377: the first is 4-7
            self.oct = b"%03o" % (int(self.oct, 8) & 0o377)
        return original(self, s, i)

    setattr(parse, _MARK, True)
    PSBaseParser._parse_string_1 = parse  # type: ignore[method-assign]


def marks_join_their_letters() -> None:
    """Make a combining mark that is no letter of its own (a vowel mark, Unicode's Mn and Me) stay
    in the word of its letter, process-wide, once: no space goes before it, the gap to the next
    character is measured from the letter before it, and a space due before a right-to-left letter
    goes before the marks drawn just before it, which are its own.

    A mark is a glyph of no advance, drawn at its letter's start and set over the letter by an
    offset. A right-to-left line is drawn left to right (XeTeX, LibreOffice: HarfBuzz's glyph
    order), each letter's marks just before it: Arabic's harakat stood left of the letter drawn
    before them, and the letter after them counted its distance from there, more than pdfminer's
    word margin (a tenth of the letter's height) for every mark on a letter narrower than half an
    em (`أَكْثَرُ` read `ُرَ ثْ كَ أَ`). A left-to-right letter's marks are drawn after it.

    A mark set high over a tall letter (Amiri's and KacstFarsi's shadda and its vowel over a lam)
    stood above its line, and two marks on one letter (a shadda and its vowel), each of no width,
    stood apart by any distance at all to pdfminer: it cut the line there, and gave the marks
    lines of their own. A mark now stands where its letter stands, for the line to take it in."""
    import unicodedata

    from pdfminer.layout import LTChar, LTLayoutContainer, LTTextLineHorizontal

    original = LTTextLineHorizontal.add
    if getattr(original, _MARK, False):
        return
    grouped = LTLayoutContainer.group_objects

    def is_mark(text: str) -> bool:
        return bool(text) and all(unicodedata.category(character) in ("Mn", "Me") for character in text)

    def group_objects(self, laparams, objs):
        objs = list(objs)
        for at, obj in enumerate(objs):
            if isinstance(obj, LTChar) and is_mark(obj.get_text()):
                letter = _letter_of(objs, at, is_mark)
                if letter is not None:
                    obj.set_bbox(letter.bbox)
        return grouped(self, laparams, objs)

    def add(self, obj) -> None:
        text = obj.get_text() if isinstance(obj, LTChar) else ""
        if is_mark(text):
            super(LTTextLineHorizontal, self).add(obj)  # as `add` adds it, without the space or the new edge
            return
        objs = self._objs
        before = len(objs)
        marks = 0
        while marks < before and isinstance(objs[before - 1 - marks], LTChar) \
                and is_mark(objs[before - 1 - marks].get_text()):
            marks += 1
        original(self, obj)
        if marks and len(objs) == before + 2 and text and unicodedata.bidirectional(text[0]) in ("R", "AL"):
            objs.insert(before - marks, objs.pop(before))  # the space, before the letter's marks

    setattr(add, _MARK, True)
    LTTextLineHorizontal.add = add  # type: ignore[method-assign]
    LTLayoutContainer.group_objects = group_objects  # type: ignore[method-assign]


_MAX_MARKS = 8  # on one letter: Unicode's stream-safe format allows 30, text holds one to three


def _letter_of(objs: list, at: int, is_mark: Callable[[str], bool]):
    """The letter that the mark `objs[at]` is drawn with: the next one where that is a right-to-left
    letter (drawn after its marks), else the one before it, else the next; None for none near."""
    import unicodedata

    from pdfminer.layout import LTChar

    def near(steps: range):
        for step in steps:
            if not 0 <= step < len(objs) or not isinstance(objs[step], LTChar):
                return None
            if not is_mark(objs[step].get_text()):
                return objs[step]
        return None

    after = near(range(at + 1, at + 1 + _MAX_MARKS))
    if after is not None and unicodedata.bidirectional(after.get_text()[:1]) in ("R", "AL"):
        return after
    return near(range(at - 1, at - 1 - _MAX_MARKS, -1)) or after
