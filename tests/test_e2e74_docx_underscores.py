"""A DOCX's underscores inside a word read as written, not escaped.

markdownify escapes every underscore of a DOCX's text; inside a word one opens no emphasis in
Markdown (CommonMark), so the backslash was only noise: Word's copy of Python's tomllib page read
`*parse\\_float* will be called with the string of every TOML float`, and so did its signatures.
"""

from __future__ import annotations

from conftest import FIXTURES

from minirag.ingest.convert import convert_file


def test_an_underscore_inside_a_word_is_no_markup():
    markdown = convert_file(FIXTURES / "docs" / "docx_headings_table.docx").markdown
    assert "tomllib.loads(*s*, */*, *\\**, *parse_float=float*)" in markdown
    assert "*parse_float* will be called with the string of every TOML float" in markdown
    assert "| float | float (configurable with *parse_float*) |" in markdown
    assert "\\_" not in markdown
