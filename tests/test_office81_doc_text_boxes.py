"""office81: a Word 97-2003 document's (.doc) text box reads after the paragraph it is anchored to.

The .doc reader put every text box's text after the whole body (and its footnotes): the box
LibreOffice placed between two paragraphs read after both, Word's sidebar beside a list read at
the end of the document, far from the text it stands beside, chunked with whatever came last.
Now a box's paragraphs follow the paragraph holding its anchor (PlcSpaMom's CP for the shape
PlcftxbxTxt names, doc_boxes.py), never inside that paragraph's sentence; a box whose shape is not
found stays after the body.
"""

from __future__ import annotations

import shutil
import struct
from pathlib import Path

from conftest import FIXTURES
from helpers import word97

from minirag.results import payload

OFFICE = FIXTURES / "office"
TEXT_BOXES = 6  # the text-box story, as FibRgLw97 counts its characters
PLC_SPA_MOM, PLCF_TXBX_TXT = 40, 56


def _read(app, path: Path) -> str:
    """`path` as `minirag read` gives it after a sync of its folder."""
    assert app.sync().failed == 0
    return payload(app.read(app.source_key(file_path=str(path), source=None), 0, None))["text"]


def _boxed(body: bytes, boxes: list[bytes], anchors: list[int], lids: list[int], spids: list[int]) -> bytes:
    """A .doc whose main text has shapes `spids` anchored at `anchors` and text boxes `boxes`
    held by shapes `lids` (and Word's last, unused box)."""
    story, cps = b"", []
    for box in boxes:
        cps.append(len(story))
        story += box
    cps += [len(story), len(story) + 1]
    txbx = struct.pack(f"<{len(cps)}I", *cps)
    for lid in [*lids, 0]:
        txbx += struct.pack("<iiHIii", 1, 0, 0, 0xFFFFFFFF, lid, 0)
    spa = struct.pack(f"<{len(anchors) + 1}I", *anchors, len(body))
    for spid in spids:
        spa += struct.pack("<I", spid) + bytes(22)
    return word97.document({word97.TEXT: body, TEXT_BOXES: story + b"\r"},
                           tables={PLC_SPA_MOM: spa, PLCF_TXBX_TXT: txbx})


def test_a_text_box_reads_between_the_paragraphs_it_stands_between(app, docs):
    path = docs / "frame.doc"
    shutil.copy(OFFICE / "libreoffice_text_frame.doc", path)
    assert _read(app, path) == ("Body paragraph before the box.\n\nTEXTBOXWORDS inside the frame.\n\n"
                                "Body paragraph after.")


def test_words_sidebar_reads_beside_the_list_it_is_anchored_to_not_at_the_end(app, docs):
    path = docs / "lists.doc"
    shutil.copy(OFFICE / "word_tika_numbered_list.doc", path)
    text = _read(app, path)
    assert "- f. seven f\n\nI’m a little text box\n\nShort\n\nStout\n\n2 a\n\n2 a i\n\n(Footnote list" in text, text
    assert text.count("I’m a little text box") == 1


def test_a_box_anchored_mid_sentence_reads_after_that_paragraph_and_an_unknown_shapes_after_the_body(app, docs):
    body = b"The plant opened\x08 in spring and hired forty people.\rA second paragraph.\r"
    path = docs / "boxes.doc"
    path.write_bytes(_boxed(body, [b"Sidebar: the budget.\r", b"Orphan box.\r"], [body.index(b"\x08")],
                            [1025, 2048], [1025]))
    assert _read(app, path) == ("The plant opened in spring and hired forty people.\n\nSidebar: the budget.\n\n"
                                "A second paragraph.\n\nOrphan box.")
