"""A DOCX's footnotes and endnotes read where they are cited, as an ODT's and an RTF's do.

mammoth wrote every note as a numbered list after the body (`Ouch[1].` ... `1. A tachyon walks
into a bar.`): in a long document the note was chunked far from the sentence it explains, and a
question about what the note says ("who holds the signing key", told in an endnote) did not find
it. Now the note's text stands in parentheses right after its citation, its number is gone and
nothing is left at the end.
"""

from __future__ import annotations

import io
import zipfile

from helpers.growth import grows_linearly

from minirag.ingest.convert import convert_document
from minirag.ingest.docx_visible import Visibility, shown_docx

_W = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"'
_RELS = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"


def _run(text: str) -> str:
    return f'<w:r><w:t xml:space="preserve">{text}</w:t></w:r>'


def _reference(kind: str, number: int, custom: str = "") -> str:
    follows = ' w:customMarkFollows="1"' if custom else ""
    mark = f"<w:t>{custom}</w:t>" if custom else ""
    return (f'<w:r><w:rPr><w:rStyle w:val="{kind.capitalize()}Reference"/><w:vertAlign w:val="superscript"/>'
            f'</w:rPr><w:{kind}Reference{follows} w:id="{number}"/>{mark}</w:r>')


def _notes(kind: str, bodies: dict[int, str]) -> str:
    separators = (f'<w:{kind} w:type="separator" w:id="-1"><w:p><w:r><w:separator/></w:r></w:p></w:{kind}>'
                  f'<w:{kind} w:type="continuationSeparator" w:id="0"><w:p><w:r><w:continuationSeparator/>'
                  f'</w:r></w:p></w:{kind}>')
    own = "".join(f'<w:{kind} w:id="{number}">{body}</w:{kind}>' for number, body in bodies.items())
    return f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:{kind}s {_W}>{separators}{own}</w:{kind}s>'


def _note_paragraph(kind: str, text: str, first: bool = True, numbered: bool = False) -> str:
    mark = (f'<w:r><w:rPr><w:rStyle w:val="{kind.capitalize()}Reference"/></w:rPr><w:{kind}Ref/></w:r>'
            '<w:r><w:t xml:space="preserve"> </w:t></w:r>') if first else ""
    numbering = '<w:pPr><w:numPr><w:ilvl w:val="0"/><w:numId w:val="1"/></w:numPr></w:pPr>' if numbered else ""
    return f"<w:p>{numbering}{mark}{_run(text)}</w:p>"


def _docx(paragraphs: list[str], footnotes: dict[int, str] | None = None,
          endnotes: dict[int, str] | None = None) -> bytes:
    body = "".join(f"<w:p>{paragraph}</w:p>" for paragraph in paragraphs)
    document = (f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document {_W}><w:body>{body}'
                '</w:body></w:document>')
    types = ('<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/'
             'content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.'
             'relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="'
             '/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.'
             'document.main+xml"/></Types>')
    package_rels = ('<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/'
                    f'package/2006/relationships"><Relationship Id="rId1" Type="{_RELS}/officeDocument" '
                    'Target="word/document.xml"/></Relationships>')
    links = "".join(f'<Relationship Id="rId{index}" Type="{_RELS}/{kind}" Target="{kind}.xml"/>'
                    for index, (kind, notes) in enumerate((("footnotes", footnotes), ("endnotes", endnotes)), 1)
                    if notes is not None)
    document_rels = ('<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/'
                     f'package/2006/relationships">{links}</Relationships>')
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("[Content_Types].xml", types)
        archive.writestr("_rels/.rels", package_rels)
        archive.writestr("word/document.xml", document)
        archive.writestr("word/_rels/document.xml.rels", document_rels)
        if footnotes is not None:
            archive.writestr("word/footnotes.xml", _notes("footnote", footnotes))
        if endnotes is not None:
            archive.writestr("word/endnotes.xml", _notes("endnote", endnotes))
    return out.getvalue()


def _markdown(data: bytes) -> str:
    return convert_document(data, ".docx", "notes.docx").markdown


def test_a_footnote_reads_in_parentheses_where_it_is_cited_and_nothing_is_left_at_the_end():
    data = _docx([_run("Releases are signed by the release captain") + _reference("footnote", 1) + _run("."),
                  _run("The build runs nightly.")],
                 footnotes={1: _note_paragraph("footnote", "Currently Ana Ruiz, who holds the signing key.")})
    assert _markdown(data) == ("Releases are signed by the release captain (Currently Ana Ruiz, who holds the "
                               "signing key.).\n\nThe build runs nightly.")


def test_an_endnote_reads_where_it_is_cited_as_a_footnote_does():
    data = _docx([_run("Ask the captain") + _reference("endnote", 1) + _run(" before tagging."), _run("Next.")],
                 endnotes={1: _note_paragraph("endnote", "The current release captain holds the signing key.")})
    assert _markdown(data) == ("Ask the captain (The current release captain holds the signing key.) before "
                               "tagging.\n\nNext.")


def test_a_note_of_several_paragraphs_and_a_list_reads_as_one_line():
    body = (_note_paragraph("footnote", "Two people may sign:")
            + _note_paragraph("footnote", "Ana Ruiz", first=False, numbered=True)
            + _note_paragraph("footnote", "Bo Lind", first=False, numbered=True)
            + '<w:p><w:r><w:t>Ask</w:t><w:tab/><w:t>either</w:t><w:br/><w:t>of them.</w:t></w:r></w:p>')
    data = _docx([_run("Signers") + _reference("footnote", 1) + _run(" rotate.")], footnotes={1: body})
    assert _markdown(data) == "Signers (Two people may sign: Ana Ruiz Bo Lind Ask either of them.) rotate."


def test_footnotes_and_endnotes_together_each_read_at_their_own_citation():
    data = _docx([_run("One") + _reference("footnote", 1) + _run(" two") + _reference("endnote", 1)
                  + _run(" three") + _reference("footnote", 2, custom="*") + _run(".")],
                 footnotes={1: _note_paragraph("footnote", "First foot."),
                            2: _note_paragraph("footnote", "Starred foot.")},
                 endnotes={1: _note_paragraph("endnote", "First end.")})
    assert _markdown(data) == "One (First foot.) two (First end.) three (Starred foot.)."


def test_hidden_text_in_a_note_stays_out_and_an_empty_or_missing_note_leaves_only_the_text():
    hidden = ('<w:p><w:r><w:t xml:space="preserve">Shown </w:t></w:r><w:r><w:rPr><w:vanish/></w:rPr>'
              '<w:t>secret</w:t></w:r><w:r><w:t>words.</w:t></w:r></w:p>')
    data = _docx([_run("A") + _reference("footnote", 1) + _run(" b") + _reference("footnote", 2)
                  + _run(" c") + _reference("footnote", 9) + _run(".")],
                 footnotes={1: hidden, 2: "<w:p/>"})
    assert _markdown(data) == "A (Shown words.) b c."


def _claims(count: int) -> bytes:
    """One paragraph of `count` claims, each citing a footnote of its own."""
    body = "".join(_run(f"Claim {number}") + _reference("footnote", number) + _run(".") for number in range(1, count + 1))
    return _docx([body], footnotes={number: _note_paragraph("footnote", f"Source {number}.")
                                    for number in range(1, count + 1)})


def test_a_thousand_notes_each_read_at_their_citation():
    # A thousand, not ten thousand: mammoth's own reading of each run, not the notes' placing, is most
    # of a conversion's time; the placing's cost in the count is judged below, without mammoth.
    count = 1_000
    markdown = _markdown(_claims(count))
    assert markdown.startswith("Claim 1 (Source 1.).Claim 2 (Source 2.).")
    assert markdown.endswith(f"Claim {count} (Source {count}.).") and "[1]" not in markdown


def test_suite82_placing_notes_where_they_are_cited_takes_time_in_proportion_to_their_number():
    """One pass over each notes part and one over the references: a look-up of each note by a scan
    of its part would cost the square of the count."""
    def placed(data: bytes) -> None:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            assert shown_docx(archive, Visibility.of(archive)) is not None

    assert grows_linearly(placed, _claims)


def test_a_question_answered_in_an_endnote_finds_it_with_the_sentence_that_cites_it(app, docs):
    """The endnote was the last chunk of a long document, apart from the sentence it explains."""
    topics = ("the coffee machine on the third floor", "parking permits for visitors", "the quarterly budget review",
              "holiday rota for the support desk", "the office plants and their watering", "printer toner orders")
    filler = [_run(f"Paragraph {number} is about {topics[number % len(topics)]}, which has its own page on the "
                   f"intranet and is updated by the facilities team every {number % 7 + 2} weeks.")
              for number in range(120)]
    cited = _run("Tag the release only after the release captain has approved it") + _reference("endnote", 1) + _run(".")
    note = _note_paragraph("endnote", "The current release captain is Ana Ruiz, who holds the signing key.")
    (docs / "handbook.docx").write_bytes(_docx(filler[:3] + [cited] + filler[3:], endnotes={1: note}))
    app.sync()
    hits = app.query("who is the current release captain holding the signing key", top_k=5).hits
    assert any("Ana Ruiz, who holds the signing key" in hit.text and "Tag the release only after" in hit.text
               for hit in hits)
