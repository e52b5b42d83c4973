"""A Word table of contents (a TOC field's result) is left out, as the .doc, RTF and ODF readers
leave theirs out.

A German operations manual written as Word writes one (a TOC field over \\o "1-3" \\h \\z \\u, each
entry a link to a `_Toc` bookmark holding a PAGEREF field) read
`[Datensicherung 2](#_Toc1)` / `[Notfallkontakte 3](#_Toc2)`: the headings repeated with their page
numbers glued on, and links to bookmarks no reader can follow, in the passage an agent got for
the manual's title.
"""

from __future__ import annotations

from test_docx_visible import _docx, _markdown, _run


def _field(instruction: str, result: str) -> str:
    return ("<w:r><w:fldChar w:fldCharType='begin'/></w:r><w:r><w:instrText xml:space='preserve'> "
            f"{instruction} </w:instrText></w:r><w:r><w:fldChar w:fldCharType='separate'/></w:r>{result}"
            "<w:r><w:fldChar w:fldCharType='end'/></w:r>")


def _entry(title: str, page: str, bookmark: str) -> str:
    pageref = _field("PAGEREF " + bookmark + " \\h", _run(page))
    return f"<w:hyperlink w:anchor='{bookmark}' w:history='1'>{_run(title)}<w:r><w:tab/></w:r>{pageref}</w:hyperlink>"


BODY = (
    "<w:p>" + _run("Betriebshandbuch Rechenzentrum Nord") + "</w:p>"
    "<w:p><w:r><w:fldChar w:fldCharType='begin'/></w:r><w:r><w:instrText xml:space='preserve'> TOC \\o \"1-3\" "
    "\\h \\z \\u </w:instrText></w:r><w:r><w:fldChar w:fldCharType='separate'/></w:r>"
    + _entry("Datensicherung", "2", "_Toc1") + "</w:p>"
    "<w:p>" + _entry("Notfallkontakte", "3", "_Toc2") + "</w:p>"
    "<w:p><w:r><w:fldChar w:fldCharType='end'/></w:r></w:p>"
    "<w:p>" + _run("Die nächtliche Vollsicherung beginnt um 03:30 Uhr, siehe Seite ")
    + _field("PAGEREF _Toc2 \\h", _run("3")) + _run(".") + "</w:p>"
)


def test_a_table_of_contents_is_left_out_and_the_text_after_it_kept():
    markdown = _markdown(_docx(BODY.replace("\\", "\\\\")))  # (_docx substitutes it with re.sub)
    assert "_Toc" not in markdown and "Datensicherung" not in markdown and "Notfallkontakte" not in markdown
    assert markdown.split() == ["Betriebshandbuch", "Rechenzentrum", "Nord", "Die", "nächtliche", "Vollsicherung", "beginnt", "um", "03:30", "Uhr,", "siehe", "Seite", "3."]
