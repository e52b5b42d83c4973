"""A Word 97-2003 document's (.doc) footnotes and endnotes read where they are cited, as an ODT's,
an RTF's and a DOCX's do (note_text.cited).

The .doc reader had put the footnote and endnote stories after the body, a line per paragraph:
in a long document a note was chunked far from the sentence it explains. Now each note's text
stands in parentheses at its reference character (PlcffndRef / PlcfendRef give where, PlcffndTxt /
PlcfendTxt which text), its mark gone. Tables a file gets wrong (references out of order, texts
past the story) leave that kind of note where it was read before: after the body.
"""

from __future__ import annotations

import struct

from conftest import FIXTURES
from helpers import word97
from helpers.growth import grows_linearly

from minirag.ingest.convert import convert_document, convert_file

OFFICE = FIXTURES / "office"
BODY = b"Fusion needs heat\x02. Tritium breeds* in lithium.\rA later paragraph cites an endnote\x02.\r"
FOOTNOTES = [b" Plasma at 150 million kelvin.\r", b"* Lithium-6 blankets.\r"]
ENDNOTES = [b" The first endnote paragraph.\rIts second paragraph.\r"]


def _notes_document(body: bytes = BODY, footnote_refs: bytes | None = None, endnote_refs: bytes | None = None,
                    footnote_cps: list[int] | None = None) -> bytes:
    footnotes, found_cps = word97.notes(FOOTNOTES, [True, False])
    endnotes, endnote_cps = word97.notes(ENDNOTES)
    tables = {
        word97.PLCF_FND_REF: footnote_refs if footnote_refs is not None else word97.note_references(
            [body.index(b"\x02"), body.index(b"*")], [True, False]),
        word97.PLCF_FND_TXT: struct.pack(f"<{len(footnote_cps or found_cps)}I", *(footnote_cps or found_cps)),
        word97.PLCF_END_REF: endnote_refs if endnote_refs is not None else word97.note_references(
            [body.rindex(b"\x02")], [True]),
        word97.PLCF_END_TXT: struct.pack(f"<{len(endnote_cps)}I", *endnote_cps),
    }
    return word97.document({word97.TEXT: body, word97.FOOTNOTES: footnotes, word97.ENDNOTES: endnotes},
                           tables=tables)


def _markdown(data: bytes) -> str:
    return convert_document(data, ".doc", "notes.doc").markdown


def test_each_note_reads_in_parentheses_where_cited_its_mark_gone_nothing_left_at_the_end():
    assert _markdown(_notes_document()) == (
        "Fusion needs heat (Plasma at 150 million kelvin.). Tritium breeds (Lithium-6 blankets.) in lithium.\n\n"
        "A later paragraph cites an endnote (The first endnote paragraph. Its second paragraph.).")


def test_word_files_with_a_footnote_read_it_where_cited():
    """Apache Tika's test documents, saved by Word (tests/fixtures/README.md)."""
    various = convert_file(OFFICE / "word_tika_various.doc").markdown
    assert "Footnote appears here (This is a footnote.)\n\n" in various
    assert not various.endswith("This is a footnote.\n\nThis is the footer text.")
    assert various.count("This is a footnote.") == 1
    listed = convert_file(OFFICE / "word_tika_numbered_list.doc").markdown
    # cited in a paragraph of its own; the note is four paragraphs, a heading and a list of three
    # (after the text box anchored in the paragraph before it: test_office81_doc_text_boxes.py)
    assert "2 a i\n\n(Footnote list Footnote list 1 Footnote list 2 Footnote list 2a)\n\nHow about" in listed
    assert listed.count("Footnote list 2a") == 1


def test_references_out_of_order_leave_the_notes_after_the_body_as_before():
    """PlcffndRef's CPs must rise; where they do not, which note is whose is unknown."""
    backwards = word97.note_references([BODY.index(b"*"), BODY.index(b"\x02")], [False, True])
    markdown = _markdown(_notes_document(footnote_refs=backwards))
    assert markdown == ("Fusion needs heat. Tritium breeds* in lithium.\n\n"
                        "A later paragraph cites an endnote (The first endnote paragraph. Its second paragraph.).\n\n"
                        "Plasma at 150 million kelvin.\n\n* Lithium-6 blankets.")


def test_note_texts_past_their_story_or_references_past_the_body_leave_the_notes_after_it():
    past_story = _notes_document(footnote_cps=[0, 10**6, 10**6 + 5, 10**6 + 6])
    assert _markdown(past_story).endswith("Plasma at 150 million kelvin.\n\n* Lithium-6 blankets.")
    overlapping = _notes_document(footnote_cps=[0, 40, 5, 55])  # the second note would end before it starts
    assert _markdown(overlapping).endswith("Plasma at 150 million kelvin.\n\n* Lithium-6 blankets.")
    past_body = word97.note_references([BODY.index(b"\x02"), 10**6], [True, False])
    markdown = _markdown(_notes_document(footnote_refs=past_body))
    assert markdown.startswith("Fusion needs heat. Tritium breeds* in lithium.")
    assert markdown.endswith("Plasma at 150 million kelvin.\n\n* Lithium-6 blankets.")
    for damaged in (b"", b"\x01\x02\x03", word97.note_references([3], [True])[:-1]):  # short tables
        assert "Plasma at 150 million kelvin." in _markdown(_notes_document(footnote_refs=damaged))


def test_as_many_notes_as_references_cost_time_linear_in_their_number():
    def document(count: int) -> bytes:
        body = b"".join(b"w\x02 " for _ in range(count)) + b"\r"
        story, cps = word97.notes([b" n%d\r" % index for index in range(count)])
        return word97.document({word97.TEXT: body, word97.FOOTNOTES: story}, tables={
            word97.PLCF_FND_REF: word97.note_references([3 * index + 1 for index in range(count)], [True] * count),
            word97.PLCF_FND_TXT: struct.pack(f"<{len(cps)}I", *cps)})

    assert grows_linearly(lambda text: _markdown(document(len(text))), lambda count: "x" * count)
    markdown = _markdown(document(100_000))
    assert markdown.startswith("w (n0) w (n1) w (n2)") and markdown.endswith("w (n99999)")


def test_a_link_in_a_note_stays_a_link_and_a_reference_on_another_character_keeps_it():
    """A numbered reference must be Word's mark 0x02; on any other character (damage) the
    character stays and the note follows it."""
    body = b"Read this!\r"
    story, cps = word97.notes([b' See \x13 HYPERLINK "https://example.org/spec" \x14the spec\x15.\r'])
    data = word97.document({word97.TEXT: body, word97.FOOTNOTES: story}, tables={
        word97.PLCF_FND_REF: word97.note_references([body.index(b"!")], [True]),
        word97.PLCF_FND_TXT: struct.pack(f"<{len(cps)}I", *cps)})
    assert _markdown(data) == "Read this! (See [the spec](https://example.org/spec).)"


def test_a_note_whose_reference_is_hidden_or_deleted_is_left_out_with_it():
    """doc_hidden.py makes hidden and deleted characters 0x01, Word's mark for an object's place."""
    body = b"Kept\x01 text.\r"
    story, cps = word97.notes([b" A deleted note.\r"])
    data = word97.document({word97.TEXT: body, word97.FOOTNOTES: story}, tables={
        word97.PLCF_FND_REF: word97.note_references([body.index(b"\x01")], [True]),
        word97.PLCF_FND_TXT: struct.pack(f"<{len(cps)}I", *cps)})
    assert _markdown(data) == "Kept text."
