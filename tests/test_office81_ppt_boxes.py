"""office81: a PowerPoint 97-2003 (.ppt) slide's text boxes read by the slide's geometry, each a
paragraph of its own, as a PPTX's do.

The .ppt reader read a slide's boxes in the order the file holds them (the order they were
drawn) and wrote all their lines as one paragraph: a box drawn last but standing at the top read
last, two columns of stacked boxes read as drawn, and every box ran on into the next. Now each
OfficeArt shape's client anchor places its text (pptx_order.by_position: columns a column at a
time, each top to bottom), each box a paragraph; the title still comes first.
"""

from __future__ import annotations

import struct

from test_xls_ppt import forged_ppt, ppt_record

from minirag.results import payload

INCH = 576  # master units


def _box(text: bytes, top: float, left: float, bottom: float, right: float, text_type: int = 4) -> bytes:
    anchor = ppt_record(0xF010, struct.pack("<4h", *(round(edge * INCH) for edge in (top, left, right, bottom))))
    textbox = ppt_record(0xF00D, ppt_record(0x0F9F, struct.pack("<I", text_type)) + ppt_record(0x0FA8, text),
                         container=True)
    return ppt_record(0xF004, anchor + textbox, container=True)


def test_a_ppt_slides_boxes_read_by_geometry_each_a_paragraph(app, docs):
    body = (_box(b"Right one.\rRight more.", 2, 5, 3, 9) + _box(b"Left two.", 3.5, 0.5, 4.5, 4.5)
            + _box(b"Plans", 0.3, 0.5, 1, 9.5, text_type=0) + _box(b"Left one.", 2, 0.5, 3, 4.5)
            + _box(b"Drawn last, placed on top.", 1.2, 0.5, 1.7, 9.5))
    path = docs / "plans.ppt"
    path.write_bytes(forged_ppt([256], ppt_record(0xF002, body, container=True)))
    assert app.sync().failed == 0
    text = payload(app.read(app.source_key(file_path=str(path), source=None), 0, None))["text"]
    assert text == ("# Plans\n\nDrawn last, placed on top.\n\nLeft one.\n\nLeft two.\n\n"
                    "Right one.\nRight more."), text
