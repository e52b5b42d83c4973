"""A PDF line that its producer drew in two pieces, the second half first, reads as one line in order.

R-FAQ.pdf (r-doc-pdf, R 4.2.2), section 3.3.3, page 20: pdfTeX drew "It then loads a saved image of the
user workspace from .RData in" before "user workspace." on the same line, pdfminer took them for two
lines of one box, and ordered them by their top, which the first-drawn half has a hair higher: the
passage read "sources it into the / It then loads ... / user workspace. / case there is one".
The page is built here from the real text, laid out as on the page (tests/pdf_maker.py).
"""

from __future__ import annotations

from pdf_maker import pdf_of_objects
from pdfminer.fontmetrics import FONT_METRICS

from minirag.ingest.convert import convert_document

_WIDTHS = FONT_METRICS["Helvetica"][1]
_LEFT = 56.0


def _width(text: str, size: float = 10) -> float:
    return sum(_WIDTHS.get(character, 556) for character in text) * size / 1000


def _page(first: str, second: str, *, second_rise: float) -> bytes:
    """Five justified lines; the middle one drawn as `second` (at its right) and then `first`."""
    start = _LEFT + _width(first) + 8  # a sentence's space, stretched as a justified line's are
    right = start + _width(second)

    def justified(y: float, text: str) -> str:
        spacing = (right - _LEFT - _width(text)) / (len(text) - 1)
        return f"BT /F1 10 Tf {spacing:.3f} Tc {_LEFT} {y} Td ({text}) Tj ET"

    ops = "\n".join([
        justified(700, "option --no-site-file was given. This code is loaded in package base. Then, unless"),
        justified(687, "--no-init-file was given, R searches for a user profile file, and sources it into the"),
        f"BT /F1 10 Tf 0 Tc {start:.2f} {674 + second_rise} Td ({second}) Tj ET",
        f"BT /F1 10 Tf 0 Tc {_LEFT} 674 Td ({first}) Tj ET",
        justified(661, "case there is one (unless --no-restore-data or --no-restore were specified). Next,"),
    ]).encode()
    return pdf_of_objects([
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [4 0 R] /Count 1 >>",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 5 0 R "
        b"/Resources << /Font << /F1 3 0 R >> >> >>",
        b"<< /Length %d >>\nstream\n%s\nendstream" % (len(ops), ops),
    ])


def test_a_line_drawn_second_half_first_reads_in_order_as_one_line():
    data = _page("user workspace.", "It then loads a saved image of the user workspace from .RData in", second_rise=0.3)
    text = convert_document(data, ".pdf", "R-FAQ.pdf").markdown
    assert ("sources it into the\nuser workspace. It then loads a saved image of the user workspace from .RData in\n"
            "case there is one") in text


def test_a_line_drawn_in_two_pieces_on_one_baseline_reads_as_one_line():
    data = _page("user workspace.", "It then loads a saved image of the user workspace from .RData in", second_rise=0)
    text = convert_document(data, ".pdf", "R-FAQ.pdf").markdown
    assert "user workspace. It then loads a saved image" in text
