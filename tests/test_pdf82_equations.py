"""Display equations read as equations, line by line, not as a table's rows; a sentence between two
displays stays between them.

tests/fixtures/pdf82/equations.pdf is made from equations.tex beside it (pdflatex, amsmath): a
numbered `align`, an `align*` with words beside each equation, one of two equations a row, and a
`tabular`. pdfminer boxes each column of an alignment apart, and they share rows as a table's
columns do: `(a + b)2 = (a + b)(a + b) | (1)`; the two `align*` had been one table, and the sentence
between them was read after both."""

from __future__ import annotations

from conftest import FIXTURES

from minirag.ingest.convert import convert_file

PDF = FIXTURES / "pdf82" / "equations.pdf"


def _lines() -> list[str]:
    return [" ".join(line.split()) for line in convert_file(PDF).markdown.split("\n") if line.strip()]


def test_pdf82_numbered_equations_read_with_their_numbers_not_as_a_table():
    lines = _lines()
    for equation in ("(a + b)2 = (a + b)(a + b) (1)", "= a2 + ab + ba + b2 (2)", "(a − b)2 = a2 − 2ab + b2 (4)",
                     "x2 − y2 = (x − y)(x + y) for all x, y,", "f (x) = x2 + 1, g(x) = 2x − 3,"):
        assert equation in lines, equation


def test_pdf82_a_sentence_between_two_displays_reads_between_them():
    lines = _lines()
    sentence = lines.index("Two functions and their derivatives, side by side, are aligned in pairs of columns:")
    assert lines.index("x3 + y3 = (x + y)(x2 − xy + y2) likewise.") < sentence
    assert sentence < lines.index("f (x) = x2 + 1, g(x) = 2x − 3,")


def test_pdf82_a_table_beside_the_equations_is_still_a_table():
    lines = _lines()
    assert [line for line in lines if " | " in line] == ["f | 1 | 2", "g | minus 3 | minus 1", "h | 0 | 5"]
