"""office81: an ODT's text frame reads after the paragraph it is anchored in, as a .doc's text box does.

A frame's paragraphs close before the paragraph holding its anchor, so they were written before
it: a box placed beside (below) the paragraph it is anchored to read above that paragraph. Now the
paragraph comes first and the frame's paragraphs follow it, as test_office81_doc_text_boxes.py
reads a .doc's boxes (after the paragraph holding the anchor), whichever format the page was saved in.
"""

from __future__ import annotations

from test_odf_text import odt

from minirag.results import payload


def test_a_frame_anchored_in_a_paragraph_reads_after_it(app, docs):
    body = ("<text:p>Body paragraph before the box.<draw:frame><draw:text-box><text:p>Box words.</text:p>"
            "<text:p>Its second line.</text:p></draw:text-box></draw:frame></text:p>"
            "<text:p>Body paragraph after.</text:p>")
    path = docs / "frame.odt"
    path.write_bytes(odt(body))
    assert app.sync().failed == 0
    text = payload(app.read(app.source_key(file_path=str(path), source=None), 0, None))["text"]
    assert text == ("Body paragraph before the box.\n\nBox words.\n\nIts second line.\n\nBody paragraph after."), text
