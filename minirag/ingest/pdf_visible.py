"""A PDF page's text as a viewer shows it: only what is drawn on the page.

A viewer shows a page's crop box (within its media box) and nothing outside it; pdfminer kept
every character, so text set far off the page (at 5000, 5000 on a letter-size page), which no
reader sees, was read, and first. Text that hides from the reader may still speak to an agent
reading the result: a character drawn wholly outside the visible area is left out, as each
reader leaves hidden text out (pdftotext leaves out what lies off the media box, and keeps what
only the crop box hides); one the page's edge cuts is kept: a line of code set too long goes on
past it. Both devices the PDF reader uses (the page's text, the first page's title) keep to it.
"""

from __future__ import annotations

import io
from collections.abc import Iterator

from pdfminer.converter import PDFLayoutAnalyzer, PDFPageAggregator
from pdfminer.layout import LAParams, LTPage
from pdfminer.pdfinterp import PDFPageInterpreter, PDFResourceManager
from pdfminer.pdfpage import PDFPage
from pdfminer.utils import apply_matrix_pt


class OnThePage(PDFLayoutAnalyzer):
    """A layout device that keeps the characters drawn inside the page's visible area only."""

    _visible: tuple[float, float, float, float] = (float("-inf"), float("-inf"), float("inf"), float("inf"))

    def begin_page(self, page: PDFPage, ctm) -> None:
        super().begin_page(page, ctm)
        media, crop = page.mediabox, page.cropbox
        x0, y0 = max(media[0], crop[0]), max(media[1], crop[1])
        x1, y1 = min(media[2], crop[2]), min(media[3], crop[3])
        if x1 <= x0 or y1 <= y0:  # a crop box beside the media box: the media box is the page
            x0, y0, x1, y1 = media
        corners = [apply_matrix_pt(ctm, point) for point in ((x0, y0), (x1, y1))]
        xs, ys = [x for x, _ in corners], [y for _, y in corners]
        self._visible = (min(xs), min(ys), max(xs), max(ys))

    def render_char(self, *args, **kwargs) -> float:
        advance = super().render_char(*args, **kwargs)
        container = self.cur_item
        if container._objs:
            char = container._objs[-1]
            left, bottom, right, top = self._visible
            if not (char.x1 > left and char.x0 < right and char.y1 > bottom and char.y0 < top):
                container._objs.pop()
        return advance


class _Pages(OnThePage, PDFPageAggregator):
    pass


def visible_pages(data: bytes, maxpages: int = 0) -> Iterator[LTPage]:
    """Each page's layout, as pdfminer's extract_pages gives it, with only what is on the page."""
    manager = PDFResourceManager(caching=True)
    device = _Pages(manager, laparams=LAParams())
    interpreter = PDFPageInterpreter(manager, device)
    for page in PDFPage.get_pages(io.BytesIO(data), maxpages=maxpages, caching=True):
        interpreter.process_page(page)
        yield device.get_result()
