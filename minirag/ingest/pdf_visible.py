"""A PDF page's text as a viewer shows it: only what is drawn on the page.

A viewer shows a page's crop box (within its media box) and nothing outside it; pdfminer kept
every character, so text set far off the page (at 5000, 5000 on a letter-size page), which no
reader sees, was read, and first. Text that hides from the reader may still speak to an agent
reading the result: a character drawn wholly outside the visible area is left out, as each
reader leaves hidden text out (pdftotext leaves out what lies off the media box, and keeps what
only the crop box hides); one the page's edge cuts is kept: a line of code set too long goes on
past it. Both devices the PDF reader uses (the page's text, the first page's title) keep to it.

Text on the page that the viewer draws no ink for is left out the same way: text in rendering
mode 3 or 7 (neither filled nor stroked), unless an image dense enough to be a scan lies under
it, which is how a scanned page carries its OCR text; text filled (or, outlined, stroked) at an
opacity under MIN_ALPHA (an ExtGState's `ca`, `CA`); text marked as content of an optional
content layer the document shows off, by marked content or a form (pdf_layers.py); and glyphs
under MIN_GLYPH_SIZE either way. Text the same colour as what lies under it, or clipped away, is
not told (pdfminer follows neither fills nor clipping paths).
"""

from __future__ import annotations

import io
import math
from collections.abc import Iterator

from pdfminer.converter import PDFLayoutAnalyzer, PDFPageAggregator
from pdfminer.layout import LAParams, LTPage
from pdfminer.pdfinterp import PDFPageInterpreter, PDFResourceManager
from pdfminer.pdfpage import PDFPage
from pdfminer.pdftypes import resolve1
from pdfminer.psparser import PSLiteral, literal_name
from pdfminer.utils import apply_matrix_pt

from minirag.ingest.pdf_layers import groups_off, shown_off

# Text rendering modes (PDF 32000-1, 9.3.6) that fill, that stroke, and that do neither.
FILLING_MODES, STROKING_MODES, INVISIBLE_MODES = (0, 2, 4, 6), (1, 2, 5, 6), (3, 7)
MIN_GLYPH_SIZE = 1.0  # points, either way: a glyph drawn smaller is no text a reader can see
MIN_ALPHA = 0.05  # a fill or stroke fainter than this is no ink a reader can see (watermarks are 0.1-0.3)
MIN_SCAN_DENSITY = 0.5  # pixels a point (36 dpi): an image thinner is no scan its invisible text could be read from
MAX_IMAGES = 256  # on one page, the largest, that invisible text is looked up under (a scan has one)
_CELL = 64.0  # points: the grid images are filed in, so each character looks at those near it only


class SeenInterpreter(PDFPageInterpreter):
    """pdfminer's interpreter, telling an OnThePage device what it does not: the fill and stroke
    opacity an ExtGState sets, and whether what is drawn now is in an optional content layer shown
    off (marked content, or a form marked so, which it does not draw at all)."""

    def init_state(self, ctm) -> None:
        super().init_state(ctm)
        # A form drawn from a page starts with the page's opacity where it is drawn (dup).
        outer = getattr(self, "_outer", None)
        self.fill_alpha = getattr(outer, "fill_alpha", 1.0)
        self.stroke_alpha = getattr(outer, "stroke_alpha", 1.0)
        self._saved_alphas: list[tuple[float, float]] = []

    def do_q(self) -> None:
        self._saved_alphas.append((self.fill_alpha, self.stroke_alpha))
        super().do_q()

    def do_Q(self) -> None:
        if self._saved_alphas:
            self.fill_alpha, self.stroke_alpha = self._saved_alphas.pop()
        super().do_Q()

    def do_gs(self, name) -> None:
        try:
            state = resolve1(_entry(self.resources, "ExtGState", name))
        except Exception:  # noqa: BLE001 - a damaged state changes nothing seen here
            return
        if isinstance(state, dict):
            for key, attribute in (("ca", "fill_alpha"), ("CA", "stroke_alpha")):
                if isinstance(alpha := resolve1(state.get(key)), (int, float)):
                    setattr(self, attribute, float(alpha))

    def do_Do(self, xobjid) -> None:
        # A form or image marked with a layer shown off is not drawn.
        try:
            marked = resolve1(self.xobjmap.get(literal_name(xobjid))).attrs.get("OC")
        except Exception:  # noqa: BLE001 - pdfminer says what is wrong with it when it draws it
            marked = None
        if marked is not None and shown_off(marked, getattr(self.device, "hidden_groups", frozenset())):
            return
        super().do_Do(xobjid)

    def do_BMC(self, tag) -> None:
        self._marked(False)
        super().do_BMC(tag)

    def do_BDC(self, tag, props) -> None:
        off = False
        if isinstance(tag, PSLiteral) and tag.name == "OC":
            named = _entry(self.resources, "Properties", props) if isinstance(props, PSLiteral) else props
            off = shown_off(named, getattr(self.device, "hidden_groups", frozenset()))
        self._marked(off)
        super().do_BDC(tag, props)

    def do_EMC(self) -> None:
        marked = getattr(self.device, "marked", None)
        if marked:
            marked.pop()
        super().do_EMC()

    def _marked(self, off: bool) -> None:
        marked = getattr(self.device, "marked", None)
        if marked is not None:
            marked.append(off)

    def render_contents(self, resources, streams, ctm=(1, 0, 0, 1, 0, 0)) -> None:
        # What draws a character asks for the opacity where it is drawn.
        self.device.interpreter = self  # type: ignore[attr-defined]
        try:
            super().render_contents(resources, streams, ctm)
        finally:
            self.device.interpreter = getattr(self, "_outer", None)  # type: ignore[attr-defined]

    def dup(self) -> SeenInterpreter:
        inner = super().dup()
        inner._outer = self  # type: ignore[attr-defined]
        return inner  # type: ignore[return-value]


def _entry(resources, kind: str, name):
    """The resource `name` of `kind` (unresolved: a reference keeps its object number), or None
    where the page's resources are missing or damaged (a damaged one hides nothing)."""
    try:
        table = resolve1((resources or {}).get(kind))
        return table.get(literal_name(name)) if isinstance(table, dict) else None
    except Exception:  # noqa: BLE001 - pdfminer raises many kinds on a broken object
        return None


class OnThePage(PDFLayoutAnalyzer):
    """A layout device that keeps the characters drawn inside the page's visible area only, and
    only those drawn with ink (see the module's docstring)."""

    _visible: tuple[float, float, float, float] = (float("-inf"), float("-inf"), float("inf"), float("inf"))
    _mode = 0

    def begin_page(self, page: PDFPage, ctm) -> None:
        super().begin_page(page, ctm)
        self.marked: list[bool] = []
        self.hidden_groups = groups_off(page.doc)
        self._over_images: list = []  # (container, char) drawn in an invisible mode: kept over an image only
        self._image_boxes: list[tuple[float, float, float, float]] = []
        media, crop = page.mediabox, page.cropbox
        x0, y0 = max(media[0], crop[0]), max(media[1], crop[1])
        x1, y1 = min(media[2], crop[2]), min(media[3], crop[3])
        if x1 <= x0 or y1 <= y0:  # a crop box beside the media box: the media box is the page
            x0, y0, x1, y1 = media
        corners = [apply_matrix_pt(ctm, point) for point in ((x0, y0), (x1, y1))]
        xs, ys = [x for x, _ in corners], [y for _, y in corners]
        self._visible = (min(xs), min(ys), max(xs), max(ys))

    def render_image(self, name, stream) -> None:
        # An image is drawn as a figure of its own, whose box is where it lands on the page. Kept
        # here since a text device (pdfminer's TextConverter) keeps no images in its layout.
        figure = self.cur_item
        width, height = figure.x1 - figure.x0, figure.y1 - figure.y0
        try:
            pixels = [resolve1(stream.attrs.get(key) or stream.attrs.get(key[0])) for key in ("Width", "Height")]
        except Exception:  # noqa: BLE001
            pixels = [None, None]
        if (width > 0 and height > 0 and all(isinstance(n, (int, float)) for n in pixels)
                and min(pixels[0] / width, pixels[1] / height) >= MIN_SCAN_DENSITY):
            self._image_boxes.append((figure.x0, figure.y0, figure.x1, figure.y1))
        super().render_image(name, stream)

    def render_string(self, textstate, seq, ncs, graphicstate) -> None:
        # A mode past 7 is no mode: viewers draw it (pdf.js fills or strokes by its low bits), so it is read.
        self._mode = textstate.render if textstate.render in range(8) else 0
        super().render_string(textstate, seq, ncs, graphicstate)

    def render_char(self, matrix, font, fontsize, scaling, *args, **kwargs) -> float:
        advance = super().render_char(matrix, font, fontsize, scaling, *args, **kwargs)
        container = self.cur_item
        if container._objs:
            char = container._objs[-1]
            left, bottom, right, top = self._visible
            if (not (char.x1 > left and char.x0 < right and char.y1 > bottom and char.y0 < top)
                    or any(self.marked) or _too_small(matrix, fontsize, scaling) or not self._inked()):
                container._objs.pop()
            elif self._mode in INVISIBLE_MODES:
                self._over_images.append((container, char))
        return advance

    def _inked(self) -> bool:
        """Whether the text drawn now leaves ink, or may be a scan's (an invisible mode: see end_page)."""
        interpreter = getattr(self, "interpreter", None)
        return (self._mode in INVISIBLE_MODES
                or (self._mode in FILLING_MODES and getattr(interpreter, "fill_alpha", 1.0) >= MIN_ALPHA)
                or (self._mode in STROKING_MODES and getattr(interpreter, "stroke_alpha", 1.0) >= MIN_ALPHA))

    def end_page(self, page: PDFPage) -> None:
        if self._over_images:
            under = _Images(self._image_boxes, self._visible)
            unseen: dict[int, set[int]] = {}
            holders = {}
            for container, char in self._over_images:
                if not under.cover((char.x0 + char.x1) / 2, (char.y0 + char.y1) / 2):
                    unseen.setdefault(id(container), set()).add(id(char))
                    holders[id(container)] = container
            for key, chars in unseen.items():
                holder = holders[key]
                holder._objs = [item for item in holder._objs if id(item) not in chars]
            self._over_images = []
        super().end_page(page)


def _too_small(matrix, fontsize: float, scaling: float) -> bool:
    """Whether a glyph drawn with this rendering matrix is under MIN_GLYPH_SIZE either way: its
    height is the font size along the matrix's second axis, its width along the first times the
    horizontal scaling (pdfminer's own size is the box's height, which rotated text turns into its
    width)."""
    a, b, c, d = matrix[:4]
    size = abs(fontsize)
    return size * math.hypot(c, d) < MIN_GLYPH_SIZE or size * abs(scaling) * math.hypot(a, b) < MIN_GLYPH_SIZE


class _Images:
    """The page's images, filed by grid cell: which of them covers a point."""

    def __init__(self, boxes: list[tuple[float, float, float, float]],
                 page: tuple[float, float, float, float]) -> None:
        self._cells: dict[tuple[int, int], list[tuple[float, float, float, float]]] = {}
        left, bottom, right, top = page
        on_page = [(max(x0, left), max(y0, bottom), min(x1, right), min(y1, top)) for x0, y0, x1, y1 in boxes]
        on_page = [box for box in on_page if box[0] <= box[2] and box[1] <= box[3]]
        largest = sorted(on_page, key=lambda box: (box[2] - box[0]) * (box[3] - box[1]), reverse=True)[:MAX_IMAGES]
        for box in largest:
            x0, y0, x1, y1 = box
            for i in range(int(x0 // _CELL), int(x1 // _CELL) + 1):
                for j in range(int(y0 // _CELL), int(y1 // _CELL) + 1):
                    self._cells.setdefault((i, j), []).append(box)

    def cover(self, x: float, y: float) -> bool:
        boxes = self._cells.get((int(x // _CELL), int(y // _CELL)), ())
        return any(x0 <= x <= x1 and y0 <= y <= y1 for x0, y0, x1, y1 in boxes)


class _Pages(OnThePage, PDFPageAggregator):
    pass


def visible_pages(data: bytes, maxpages: int = 0) -> Iterator[LTPage]:
    """Each page's layout, as pdfminer's extract_pages gives it, with only what is on the page."""
    manager = PDFResourceManager(caching=True)
    device = _Pages(manager, laparams=LAParams())
    interpreter = SeenInterpreter(manager, device)
    for page in PDFPage.get_pages(io.BytesIO(data), maxpages=maxpages, caching=True):
        interpreter.process_page(page)
        yield device.get_result()
