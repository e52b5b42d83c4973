"""A hyperlink inside a DOCX footnote or endnote reads `[text](url)`, as the body's links do.

A note reads in parentheses where it is cited (docx_notes.py), but only its words were kept: a
`w:hyperlink` in footnotes.xml named its URL by a relationship of footnotes.xml.rels, never read,
so `See the ITER site` lost where the site is. Now the note's link keeps its URL.
"""

from __future__ import annotations

import io
import zipfile

from minirag.ingest.convert import convert_document

_W = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"'
_R = 'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"'
_RELS = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
_PACKAGE = "http://schemas.openxmlformats.org/package/2006/relationships"


def _run(text: str) -> str:
    return f'<w:r><w:t xml:space="preserve">{text}</w:t></w:r>'


def _link(relationship: str, text: str) -> str:
    return f'<w:hyperlink r:id="{relationship}">{_run(text)}</w:hyperlink>'


def _reference(kind: str, number: int) -> str:
    return f'<w:r><w:{kind}Reference w:id="{number}"/></w:r>'


def _rels(links: dict[str, str]) -> str:
    own = "".join(f'<Relationship Id="{rid}" Type="{_RELS}/hyperlink" Target="{url}" TargetMode="External"/>'
                  for rid, url in links.items())
    return f'<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="{_PACKAGE}">{own}</Relationships>'


def _notes(kind: str, bodies: dict[int, str]) -> str:
    own = "".join(f'<w:{kind} w:id="{number}"><w:p><w:r><w:{kind}Ref/></w:r>{body}</w:p></w:{kind}>'
                  for number, body in bodies.items())
    return f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:{kind}s {_W} {_R}>{own}</w:{kind}s>'


def _docx(body: str, body_links: dict[str, str], footnotes: dict[int, str], footnote_links: dict[str, str],
          endnotes: dict[int, str], endnote_links: dict[str, str]) -> bytes:
    document = (f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document {_W} {_R}><w:body>'
                f'<w:p>{body}</w:p></w:body></w:document>')
    types = ('<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/'
             'content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.'
             'relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="'
             '/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.'
             'document.main+xml"/></Types>')
    package = (f'<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="{_PACKAGE}"><Relationship Id="rId1" '
               f'Type="{_RELS}/officeDocument" Target="word/document.xml"/></Relationships>')
    parts = (f'<Relationship Id="rIdF" Type="{_RELS}/footnotes" Target="footnotes.xml"/>'
             f'<Relationship Id="rIdE" Type="{_RELS}/endnotes" Target="endnotes.xml"/>')
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("[Content_Types].xml", types)
        archive.writestr("_rels/.rels", package)
        archive.writestr("word/document.xml", document)
        archive.writestr("word/_rels/document.xml.rels", _rels(body_links).replace("</Relationships>",
                                                                                    parts + "</Relationships>"))
        archive.writestr("word/footnotes.xml", _notes("footnote", footnotes))
        archive.writestr("word/_rels/footnotes.xml.rels", _rels(footnote_links))
        archive.writestr("word/endnotes.xml", _notes("endnote", endnotes))
        archive.writestr("word/_rels/endnotes.xml.rels", _rels(endnote_links))
    return out.getvalue()


def _markdown(data: bytes) -> str:
    return convert_document(data, ".docx", "links.docx").markdown


def test_a_link_in_a_footnote_or_an_endnote_reads_as_a_link_in_the_body_does():
    data = _docx(_run("Fusion is hard") + _reference("footnote", 1) + _run(". Read ")
                 + _link("rId1", "the overview") + _run(" first") + _reference("endnote", 1) + _run("."),
                 {"rId1": "https://example.org/overview"},
                 {1: _run(" See ") + _link("rId1", "the ITER site") + _run(" for the schedule.")},
                 {"rId1": "https://www.iter.org/"},
                 {1: _run(" Archived at ") + _link("rId7", "the archive") + _run(".")},
                 {"rId7": "https://archive.example.org/?a=1&amp;b=2"})
    assert _markdown(data) == (
        "Fusion is hard (See [the ITER site](https://www.iter.org/) for the schedule.). Read "
        "[the overview](https://example.org/overview) first (Archived at [the archive]"
        "(https://archive.example.org/?a=1&b=2).).")


def test_a_note_link_to_a_bookmark_or_of_no_words_keeps_only_its_words():
    data = _docx(_run("Claim") + _reference("footnote", 1) + _run("."), {},
                 {1: _run(" Per ") + '<w:hyperlink w:anchor="_Ref1">' + _run("section 2") + "</w:hyperlink>"
                  + _run(" and ") + _link("rId2", "  ") + _run("more.")},
                 {"rId2": "https://example.org/blank"}, {}, {})
    assert _markdown(data) == "Claim (Per section 2 and more.)."


def test_a_note_of_only_a_link_with_no_words_leaves_only_the_text():
    data = _docx(_run("Claim") + _reference("footnote", 1) + _run("."), {}, {1: _link("rId2", " ")},
                 {"rId2": "https://example.org/blank"}, {}, {})
    assert _markdown(data) == "Claim."


def test_a_link_whose_relationship_is_missing_reads_as_its_words_in_the_body_and_in_a_note():
    # mammoth failed the whole document on it: `cannot convert (KeyError: 'rId404')`
    data = _docx(_run("Before ") + _link("rId404", "a lost link") + _run(" after") + _reference("footnote", 1)
                 + _run("."), {}, {1: _run(" See ") + _link("rId9", "the lost note link")}, {}, {}, {})
    assert _markdown(data) == "Before a lost link after (See the lost note link)."


def test_a_link_whose_relationship_is_there_keeps_its_url_beside_one_that_is_missing():
    data = _docx(_link("rId1", "kept") + _run(" and ") + _link("rId2", "lost"), {"rId1": "https://example.org/"},
                 {}, {}, {}, {})
    assert _markdown(data) == "[kept](https://example.org/) and lost"


def _custom_reference(number: int, mark: str) -> str:
    return f'<w:r><w:footnoteReference w:customMarkFollows="1" w:id="{number}"/><w:t>{mark}</w:t></w:r>'


def test_a_custom_marked_note_reads_without_the_copy_of_its_mark_word_writes_at_its_start():
    # Word begins a custom-marked note with its mark as text; it read `(\* The custom note.)`
    data = _docx(_run("Claim") + _custom_reference(1, "*") + _run(". Year") + _custom_reference(2, "1")
                 + _run(". Bare") + _custom_reference(3, "†") + _run("."), {},
                 {1: _run("*") + _run(" The custom note."), 2: _run("1990 was the year."), 3: _run("†")},
                 {}, {}, {})
    assert _markdown(data) == "Claim (The custom note.). Year (1990 was the year.). Bare."
