"""office81: a presentation's (.odp) shapes read in the slide's reading order, as a PPTX's do.

LibreOffice writes a slide's shapes in the order they were drawn, and the reader read them so: a
text box added last but standing above the others read at the slide's end, and stacked boxes in
two columns read in whatever order they were made. Now the title comes first and the other shapes
follow by position (odf_slide_order.py, on pptx_order's rule: side-by-side columns a column at a
time, each top to bottom); the speaker notes stay after them.
"""

from __future__ import annotations

from test_odf_text import odt

from minirag.results import payload


def _box(text: str, x: float, y: float, width: float = 4, height: float = 1, kind: str = "") -> str:
    klass = f' presentation:class="{kind}"' if kind else ""
    return (f'<draw:frame{klass} svg:x="{x}cm" svg:y="{y}cm" svg:width="{width}cm" svg:height="{height}cm">'
            f"<draw:text-box><text:p>{text}</text:p></draw:text-box></draw:frame>")


def test_an_odp_slides_boxes_read_top_to_bottom_a_column_at_a_time(app, docs):
    body = ('<draw:page xmlns:svg="urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0">'
            + _box("Right two.", 14, 8) + _box("Left two.", 2, 8) + _box("Plans", 2, 1, 24, 2, kind="title")
            + _box("Right one.", 14, 5) + _box("Left one.", 2, 5) + _box("Added last, placed on top.", 2, 3.2, 24)
            + '<draw:g><draw:custom-shape svg:x="2cm" svg:y="12cm" svg:width="24cm" svg:height="1cm">'
              "<text:p>Grouped closing line.</text:p></draw:custom-shape></draw:g>"
            + "<presentation:notes><draw:frame><draw:text-box><text:p>Say why.</text:p></draw:text-box>"
              "</draw:frame></presentation:notes></draw:page>")
    path = docs / "talk.odp"
    path.write_bytes(odt(body, root="presentation", mimetype="application/vnd.oasis.opendocument.presentation"))
    assert app.sync().failed == 0
    text = payload(app.read(app.source_key(file_path=str(path), source=None), 0, None))["text"]
    assert text == ("# Plans\n\nAdded last, placed on top.\n\nLeft one.\n\nLeft two.\n\n"
                    "Right one.\n\nRight two.\n\nGrouped closing line.\n\n### Notes:\n\nSay why."), text
