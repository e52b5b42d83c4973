"""A PDF page's text as a viewer shows it: only what is drawn on the page.

A viewer shows a page's crop box (within its media box) and nothing outside it; pdfminer kept
every character, so text set far off the page (at 5000, 5000 on a letter-size page), which no
reader sees, was read, and first. Text that hides from the reader may still speak to an agent
reading the result: a character drawn wholly outside the visible area is left out, as each
reader leaves hidden text out (pdftotext leaves out what lies off the media box, and keeps what
only the crop box hides); one the page's edge cuts is kept: a line of code set too long goes on
past it. Both devices the PDF reader uses (the page's text, the first page's title) keep to it.

Text on the page that the viewer draws no ink for is left out the same way: text in rendering
mode 3 or 7 (neither filled nor stroked), unless an image lies under it, which is how a scanned
page carries its OCR text; text filled at opacity 0 (an ExtGState's `ca`); text marked as
content of an optional content group the document shows off (`/OC ... BDC` naming one the
default configuration's /OFF lists); and glyphs under one point high. Text the same colour as
what lies under it, or clipped away, is not told (pdfminer follows neither fills nor clips).
"""

from __future__ import annotations

import io
from collections.abc import Iterator

from pdfminer.converter import PDFLayoutAnalyzer, PDFPageAggregator
from pdfminer.layout import LAParams, LTPage
from pdfminer.pdfinterp import PDFPageInterpreter, PDFResourceManager
from pdfminer.pdfpage import PDFPage
from pdfminer.pdftypes import resolve1
from pdfminer.psparser import PSLiteral, literal_name
from pdfminer.utils import apply_matrix_pt

INVISIBLE_MODES = (3, 7)  # text rendering modes that neither fill nor stroke (PDF 32000-1, 9.3.6)
MIN_GLYPH_SIZE = 1.0  # points: a glyph drawn smaller is no text a reader can see


class SeenInterpreter(PDFPageInterpreter):
    """pdfminer's interpreter, telling an OnThePage device what it does not: the fill opacity an
    ExtGState sets, and whether the marked content drawn now is an optional content group shown off."""

    def init_state(self, ctm) -> None:
        super().init_state(ctm)
        # A form drawn from a page starts with the page's opacity where it is drawn (dup).
        self.fill_alpha = getattr(getattr(self, "_outer", None), "fill_alpha", 1.0)
        self._saved_alphas: list[float] = []

    def do_q(self) -> None:
        self._saved_alphas.append(self.fill_alpha)
        super().do_q()

    def do_Q(self) -> None:
        if self._saved_alphas:
            self.fill_alpha = self._saved_alphas.pop()
        super().do_Q()

    def do_gs(self, name) -> None:
        state = _entry(self.resources, "ExtGState", name)
        if isinstance(state, dict) and isinstance(alpha := resolve1(state.get("ca")), (int, float)):
            self.fill_alpha = float(alpha)

    def do_BMC(self, tag) -> None:
        self._marked(False)
        super().do_BMC(tag)

    def do_BDC(self, tag, props) -> None:
        off = False
        if isinstance(tag, PSLiteral) and tag.name == "OC":
            named = _entry(self.resources, "Properties", props) if isinstance(props, PSLiteral) else props
            off = _shown_off(named, getattr(self.device, "hidden_groups", frozenset()))
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


def _shown_off(reference, hidden: frozenset[int]) -> bool:
    """Whether an optional content group (or a membership dictionary of them, by its default policy
    AnyOn: off only when every group it names is) is off in the document's default configuration.
    `reference`: the group as the page names it, an indirect object (whose number /OFF lists)."""
    if getattr(reference, "objid", None) in hidden:
        return True
    try:
        group = resolve1(reference)
    except Exception:  # noqa: BLE001 - a damaged group hides nothing
        return False
    if not isinstance(group, dict) or group.get("Type") is None or literal_name(group.get("Type")) != "OCMD":
        return False
    try:
        members = resolve1(group.get("OCGs"))
    except Exception:  # noqa: BLE001
        return False
    members = members if isinstance(members, list) else [members]
    ids = [getattr(member, "objid", None) for member in members]
    return bool(ids) and all(objid in hidden for objid in ids)


class OnThePage(PDFLayoutAnalyzer):
    """A layout device that keeps the characters drawn inside the page's visible area only, and
    only those drawn with ink (see the module's docstring)."""

    _visible: tuple[float, float, float, float] = (float("-inf"), float("-inf"), float("inf"), float("inf"))
    _mode = 0

    def begin_page(self, page: PDFPage, ctm) -> None:
        super().begin_page(page, ctm)
        self.marked: list[bool] = []
        self.hidden_groups = _groups_off(page)
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
        self._image_boxes.append((figure.x0, figure.y0, figure.x1, figure.y1))
        super().render_image(name, stream)

    def render_string(self, textstate, seq, ncs, graphicstate) -> None:
        self._mode = textstate.render
        super().render_string(textstate, seq, ncs, graphicstate)

    def render_char(self, *args, **kwargs) -> float:
        advance = super().render_char(*args, **kwargs)
        container = self.cur_item
        if container._objs:
            char = container._objs[-1]
            left, bottom, right, top = self._visible
            interpreter = getattr(self, "interpreter", None)
            if (not (char.x1 > left and char.x0 < right and char.y1 > bottom and char.y0 < top)
                    or any(self.marked) or getattr(interpreter, "fill_alpha", 1.0) <= 0
                    or getattr(char, "size", MIN_GLYPH_SIZE) < MIN_GLYPH_SIZE):
                container._objs.pop()
            elif self._mode in INVISIBLE_MODES:
                self._over_images.append((container, char))
        return advance

    def end_page(self, page: PDFPage) -> None:
        if self._over_images:
            images = self._image_boxes
            unseen: dict[int, set[int]] = {}
            holders = {}
            for container, char in self._over_images:
                middle_x, middle_y = (char.x0 + char.x1) / 2, (char.y0 + char.y1) / 2
                if not any(x0 <= middle_x <= x1 and y0 <= middle_y <= y1 for x0, y0, x1, y1 in images):
                    unseen.setdefault(id(container), set()).add(id(char))
                    holders[id(container)] = container
            for key, chars in unseen.items():
                holder = holders[key]
                holder._objs = [item for item in holder._objs if id(item) not in chars]
            self._over_images = []
        super().end_page(page)


def _groups_off(page: PDFPage) -> frozenset[int]:
    """The object numbers of the optional content groups the document's default configuration shows off."""
    try:
        properties = resolve1(page.doc.catalog.get("OCProperties"))
        default = resolve1(properties.get("D")) if isinstance(properties, dict) else None
        off = resolve1(default.get("OFF")) if isinstance(default, dict) else None
    except Exception:  # noqa: BLE001 - a damaged catalog hides nothing
        return frozenset()
    return frozenset(group.objid for group in off if hasattr(group, "objid")) if isinstance(off, list) else frozenset()


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
