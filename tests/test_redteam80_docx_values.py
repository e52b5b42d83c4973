"""Red team 80: values mammoth reads as numbers, and references in a DOCX's comments. A symbol
(`w:sym`) without its character or with one that is no hexadecimal number, or a cell's `w:gridSpan`
that is no whole number, refused the whole document (`cannot convert (TypeError: int() can't
convert non-string with explicit base)`, `(ValueError: invalid literal for int() with base 10:
'two')`); so did a link or a picture in a comment naming a relationship that is not there
(`KeyError: 'rId1'`). The symbol is left out, the cell spans one column, the comment's link reads
as its words and its picture as its alt text; the rest of the document reads."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import pytest

from minirag.ingest.convert import convert_document

DOCS = Path(__file__).parent / "fixtures" / "docs"


def _with(fixture: str, member: str, old: bytes, new: bytes) -> bytes:
    with zipfile.ZipFile(DOCS / fixture) as source:
        parts = {info.filename: source.read(info) for info in source.infolist()}
    assert old in parts[member]
    parts[member] = parts[member].replace(old, new, 1)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, body in parts.items():
            archive.writestr(name, body)
    return buffer.getvalue()


@pytest.mark.parametrize("symbol", [b'<w:sym w:font="Wingdings"/>', b'<w:sym w:font="Wingdings" w:char="zz"/>',
                                    b'<w:sym w:font="Wingdings" w:char=""/>'], ids=["no-char", "not-hex", "empty"])
def test_a_symbol_without_a_readable_character_is_left_out(symbol):
    paragraph = b'<w:p><w:r><w:t xml:space="preserve">Tick </w:t></w:r><w:r>' + symbol + b'</w:r></w:p>'
    data = _with("docx_plain_paragraphs.docx", "word/document.xml", b"<w:body>", b"<w:body>" + paragraph)
    markdown = convert_document(data, ".docx", "sym.docx").markdown
    assert markdown.startswith("Tick") and "Python is just the language for you." in markdown


@pytest.mark.parametrize("span", [b"two", b"", b"2.5"])
def test_a_cell_spanning_no_whole_number_of_columns_spans_one(span):
    table = (b'<w:tbl><w:tr><w:tc><w:tcPr><w:gridSpan w:val="' + span + b'"/></w:tcPr><w:p><w:r><w:t>Walrus</w:t>'
             b'</w:r></w:p></w:tc><w:tc><w:p><w:r><w:t>Tusks</w:t></w:r></w:p></w:tc></w:tr></w:tbl>')
    data = _with("docx_plain_paragraphs.docx", "word/document.xml", b"<w:body>", b"<w:body>" + table)
    markdown = convert_document(data, ".docx", "span.docx").markdown
    assert "| Walrus | Tusks |" in markdown and "Python is just the language for you." in markdown


@pytest.mark.parametrize("attribute", [b"r:embed", b"r:id"], ids=["picture", "link"])
def test_a_comment_naming_a_relationship_that_is_not_there_leaves_the_document_readable(attribute):
    """docx_word_comments.docx's comment holds a picture (r:embed) and the body a link (r:id): here the
    comment's reference names a relationship its part does not hold."""
    with zipfile.ZipFile(DOCS / "docx_word_comments.docx") as source:
        comments = source.read("word/comments.xml")
    start = comments.index(b'r:embed="')
    old = comments[start:comments.index(b'"', start + 9) + 1]
    if attribute == b"r:id":  # a link where the picture was
        drawing = comments.rindex(b"<w:drawing", 0, start)
        end = comments.index(b"</w:drawing>", start) + len(b"</w:drawing>")
        old = comments[drawing:end]
        new = b'<w:hyperlink r:id="rGone"><w:t>the walrus page</w:t></w:hyperlink>'
    else:
        new = b'r:embed="rGone"'
    data = _with("docx_word_comments.docx", "word/comments.xml", old, new)
    markdown = convert_document(data, ".docx", "comments.docx").markdown
    plain = convert_document((DOCS / "docx_word_comments.docx").read_bytes(), ".docx", "plain.docx").markdown
    assert markdown.splitlines()[0] == plain.splitlines()[0]
    if attribute == b"r:id":
        assert "the walrus page" in markdown
