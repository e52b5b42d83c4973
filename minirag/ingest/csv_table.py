"""CSV text -> one Markdown table, with the delimiter read from the file.

Spreadsheet programs export CSV with the list separator of the user's locale:
a comma in English, a semicolon in Russian, German or French (where the comma
is the decimal mark), sometimes a tab. Parsed with commas, a semicolon file
becomes one column per line, `имя;описание`, and a query for one cell's value
matches a whole row of run-together text. The delimiter is the candidate that
splits the first rows into the same number of columns (two or more) most
consistently; a tie goes to the comma. Quoted fields are parsed by the csv
module, so a delimiter inside quotes never counts. A first line `sep=;` is
Excel's own directive naming the delimiter (exporters write it so that Excel
in any locale splits the file right): it names the delimiter and is no row. A file whose first
record is no header (sheet_header.py) is a table under an empty header, every record a row of it.
"""

from __future__ import annotations

import csv
import io
import re
from collections import Counter

from minirag.chunking.rows import RowMap
from minirag.errors import ConversionFailed
from minirag.ingest.sheet_header import has_header
from minirag.ingest.sheet_text import SheetText

DELIMITERS = (",", ";", "\t", "|")  # in order of preference when they split equally well
SAMPLE_ROWS = 50
PAD_ALLOWANCE = 1000  # empty cells a small ragged table may always get
# A row of millions of commas makes as many cells per parse
# (docs/documents.md#what-the-limits-were-measured-against). Lines and rows are bounded before
# the csv module splits them; real exports stay far below both. A field (quoted, it may span
# lines) is bounded as a line is, in place of the csv module's own 131,072 characters.
MAX_LINE_CHARS = 1024 * 1024
MAX_COLUMNS = 50_000
_SEP_LINE = re.compile(r"sep=([^\r\n\"])(?:\r\n|\r|\n|$)", re.IGNORECASE)


def csv_to_markdown(text: str, name: str, delimiter: str | None = None) -> str:
    """The rows of `text` as a Markdown table (the first row as its header where it is one); "" for no rows. The
    delimiter is `delimiter` (a TSV's tab), else the one a `sep=` line names, else sniffed."""
    return csv_to_sheet(text, name, delimiter).markdown


def csv_to_sheet(text: str, name: str, delimiter: str | None = None) -> SheetText:
    """csv_to_markdown's table, with the row each line shows as a spreadsheet program numbers the
    file's records: one a record, a quoted field over several lines in one, blank lines counted, a
    `sep=` line not (Excel shows none)."""
    text = text.lstrip("\ufeff")
    longest = max(map(len, io.StringIO(text, newline="")), default=0)
    if longest > MAX_LINE_CHARS:
        raise ConversionFailed(f"{name}: refused: a line of {longest:,} characters, over the {MAX_LINE_CHARS:,} "
                               "a CSV line may have")
    csv.field_size_limit(MAX_LINE_CHARS)  # process-wide, and the same for every call
    directive = _SEP_LINE.match(text)
    delimiter = delimiter or (directive.group(1) if directive else sniff_delimiter(text))
    text = text[directive.end():] if directive else text
    try:
        numbered = _tsv_rows(text, name) if delimiter == "\t" else _rows(text, name, delimiter)
    except csv.Error as exc:
        if "field larger than field limit" in str(exc):
            raise ConversionFailed(f"{name}: refused: a field over the {MAX_LINE_CHARS:,} characters a CSV field "
                                   "may have") from None
        raise ConversionFailed(f"{name}: cannot read CSV ({exc})") from None
    if not numbered:
        return SheetText("", None)
    rows = [row for _, row in numbered]
    headed = has_header(rows)
    # The table's lines: its header on its record's row (an empty one on none), the separator on
    # none, each row on its own.
    shown = [numbered[0][0], None, *(number for number, _ in numbered[1:])] if headed else \
        [None, None, *(number for number, _ in numbered)]
    return SheetText(markdown_table(rows, headed=headed), RowMap.of_sheet(None, shown))


def _tsv_rows(text: str, name: str) -> list[tuple[int, list[str]]]:
    """Most TSV writers quote nothing (IANA's text/tab-separated-values, database dumps), so a cell may
    open with `"`; Excel's quotes a cell holding a quote, a tab or a line break. Quotes make fields
    where they parse strictly as fields, else they are text: a stray one had made the rest of the file
    one cell."""
    try:
        return _rows(text, name, "\t", strict=True)
    except csv.Error:
        return _rows(text, name, "\t", quoting=csv.QUOTE_NONE)


def _rows(text: str, name: str, delimiter: str, **how: bool | int) -> list[tuple[int, list[str]]]:
    """The rows of `text` that hold some text, each with its record's number (1-based).
    ConversionFailed for a row over MAX_COLUMNS."""
    rows = []
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, **how)  # type: ignore[arg-type]
    for number, row in enumerate(reader, start=1):
        if len(row) > MAX_COLUMNS:
            raise ConversionFailed(f"{name}: refused: a row of {len(row):,} columns, over the "
                                   f"{MAX_COLUMNS:,} a CSV table may have")
        if _has_text(row):
            rows.append((number, row))
    return rows


def markdown_table(rows: list[list[str]], *, headed: bool = True) -> str:
    """`rows` as a Markdown table, the first its header (`headed`) or all under an empty one (a
    Markdown table has a header line: one of empty cells adds no words to every chunk it is
    repeated in, as `Column 1` would); "" for no rows."""
    cells = [[_cell(value) for value in row] for row in rows]
    if not headed and cells:
        cells.insert(0, [""] * max(len(row) for row in cells))
    return pipe_table(cells)


def pipe_table(rows: list[list[str]]) -> str:
    """Rows of cells already safe inside a table cell (`_cell`) as a Markdown table, the first its
    header; "" for no rows. Every table writer (CSV, XLSX, HTML) lays its rows out here."""
    if not rows:
        return ""
    width = max(len(row) for row in rows)
    # Rows are padded to the widest so cells line up, unless that would more than double the table
    # (a wide row over many one-cell rows would make mostly empty cells). The header always is:
    # a header narrower than the line under it makes no table at all, and a row's cells past the
    # header's are dropped by the renderers.
    cells_given = sum(len(row) for row in rows)
    pad = width * len(rows) <= 2 * cells_given + PAD_ALLOWANCE
    lines = []
    for n, row in enumerate(rows):
        cells = row + [""] * ((width - len(row)) if pad or n == 0 else 0)
        lines.append("| " + " | ".join(cells) + " |")
        if n == 0:
            lines.append("| " + " | ".join(["---"] * width) + " |")
    return "\n".join(lines)


def sniff_delimiter(text: str) -> str:
    """The delimiter that gives the first rows one column count (two or more) most consistently."""
    best, best_score = DELIMITERS[0], (0.0, 0)
    for delimiter in DELIMITERS:
        widths = []
        try:
            for row in csv.reader(io.StringIO(text, newline=""), delimiter=delimiter):
                if _has_text(row):
                    widths.append(len(row))
                if len(widths) >= SAMPLE_ROWS:
                    break
        except csv.Error:
            continue
        if not widths:
            continue
        width, count = Counter(widths).most_common(1)[0]
        if width < 2:
            continue
        score = (count / len(widths), width)
        if score > best_score:
            best, best_score = delimiter, score
    return best


def _has_text(row: list[str]) -> bool:
    """Blank rows say nothing: they are neither kept nor counted."""
    return any(cell.strip() for cell in row)


def _cell(value: str) -> str:
    """A value made safe inside a Markdown table cell: pipes escaped, line breaks as spaces."""
    value = value.replace("|", "\\|")
    return " ".join(value.splitlines()) if ("\n" in value or "\r" in value) else value
