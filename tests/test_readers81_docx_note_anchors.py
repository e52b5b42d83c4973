"""A link in a DOCX footnote or endnote reads as the body's links do: to a place in another document
(`w:hyperlink r:id=… w:anchor="part2"`) with that place, `guide#part2`, as mammoth reads the body's;
to a bookmark of this document (`w:anchor` alone: a cross-reference, "see section 2") as its words,
once. The note's link lost its place: `[the guide](https://example.org/guide)`."""

from __future__ import annotations

from test_word79_docx_note_links import _docx, _reference, _run


def _anchored(anchor: str, text: str, relationship: str | None = None) -> str:
    target = f' r:id="{relationship}"' if relationship else ""
    return f'<w:hyperlink{target} w:anchor="{anchor}" w:history="1">{_run(text)}</w:hyperlink>'


def test_a_note_links_place_in_another_document_is_kept_and_a_bookmark_link_reads_as_its_words(app, docs):
    data = _docx(_run("Rotate the keys yearly") + _reference("footnote", 1) + _run(" and log each rotation")
                 + _reference("endnote", 1) + _run(". See ") + _anchored("part2", "the guide", "rId1") + _run("."),
                 {"rId1": "https://example.org/guide"},
                 {1: _run(" Per ") + _anchored("_Ref4021", "section 2") + _run(" and ")
                  + _anchored("rotation", "the rotation guide", "rId3") + _run(".")},
                 {"rId3": "https://example.org/guide"},
                 {1: _run(" Kept for ") + _anchored("_Toc77", "seven years") + _run(" (")
                  + _anchored("retention", "policy", "rId5") + _run(").")},
                 {"rId5": "https://example.org/policy.html#old"})
    (docs / "keys.docx").write_bytes(data)
    app.sync()
    text = app.read(str(docs / "keys.docx")).text
    assert text == ("Rotate the keys yearly (Per section 2 and [the rotation guide](https://example.org/guide#rotation).)"
                    " and log each rotation (Kept for seven years ([policy](https://example.org/policy.html#retention)).)."
                    " See [the guide](https://example.org/guide#part2).")

