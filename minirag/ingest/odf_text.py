"""OpenDocument (.odt, .ods, .odp: LibreOffice's own formats) -> Markdown, as the page reads.

An OpenDocument file is a zip whose `content.xml` holds the text. It is streamed through expat
(zip_xml.py: a piece at a time, entity declarations refused) and written as Markdown:

- headings (`text:h`) keep their outline level; paragraphs their text, with spaces
  (`text:s`), tabs and line breaks as written; a link reads as a Markdown link;
- lists become Markdown lists, nested by their depth; a list item's later paragraphs
  are its continuation lines;
- tables become pipe tables, the first row the header; a cell or row repeated (how
  Writer stores a run of equal ones) is written at most MAX_REPEATS times, an empty
  one once;
- a footnote or endnote reads as its text in brackets where it is cited; a frame's
  caption and text box are paragraphs of their own, after the paragraph it is anchored in (as
  a .doc's text box reads);
- a spreadsheet's sheets are written under their names as an XLSX's are (sheet_grid.py); a
  presentation's slides are marked as PPTX slides are (`<!-- Slide number: 3 -->`), their title frame a heading and
  their speaker notes under `### Notes:`;
- a text's page headers and footers and its comments are placed as a DOCX's are
  (odf_margins.py);
- what the reader of the page does not see as text goes: tracked deletions, generated
  indexes and tables of contents, forms, a spreadsheet's print headers, text in a style
  or a section hidden (`text:display="none"`, or a condition its text tells holds), a shape not drawn (`drawooo:display="none"`), a
  ruby's reading over its base text.

`meta.xml`'s `dc:title`, when set, is the document's title. A file encrypted with a
password says so. Every element is handled once, as it streams past: linear in the XML.
"""

from __future__ import annotations

import re
import zipfile
import zlib
from dataclasses import dataclass, field
from xml.parsers import expat

from minirag.chunking.rows import RowMap
from minirag.errors import ConversionFailed
from minirag.ingest.csv_table import pipe_table
from minirag.ingest.docx_margins import Margins
from minirag.ingest.html_markdown import fenced
from minirag.ingest.note_text import cited
from minirag.ingest.odf_condition import condition_holds
from minirag.ingest.odf_margins import Comment, PageMargins
from minirag.ingest.odf_slide_order import SlideShapes
from minirag.ingest.sheet_grid import sheet_lines
from minirag.ingest.sheet_limits import MAX_SHEET_CELLS
from minirag.ingest.sheet_text import Lines
from minirag.ingest.text_repair import escape_headings
from minirag.ingest.zip_damage import damage_words, said_kept
from minirag.ingest.zip_prefix import inflated_prefix, well_formed_prefix
from minirag.ingest.zip_xml import feed, parser_for

MIMETYPES = {".odt": b"application/vnd.oasis.opendocument.text",
             ".ods": b"application/vnd.oasis.opendocument.spreadsheet",
             ".odp": b"application/vnd.oasis.opendocument.presentation"}
MAX_REPEATS = 64  # of one repeated cell or row with text; an empty one is written once
MAX_COLUMNS = 256
# Lists, tables, notes, links and paragraphs (in frames) nest this deep; deeper ones are read as
# part of the innermost kept one (each level re-indents or re-joins what it holds: unbounded
# nesting would cost its square, and hold a stack as deep as the XML).
MAX_NESTING = 8

_OFFICE = "urn:oasis:names:tc:opendocument:xmlns:office:1.0 "
_TEXT = "urn:oasis:names:tc:opendocument:xmlns:text:1.0 "
_TABLE = "urn:oasis:names:tc:opendocument:xmlns:table:1.0 "
_XLINK = "http://www.w3.org/1999/xlink "
_DC = "http://purl.org/dc/elements/1.1/ "
_MANIFEST = "urn:oasis:names:tc:opendocument:xmlns:manifest:1.0 "
_DRAW = "urn:oasis:names:tc:opendocument:xmlns:drawing:1.0 "
_PRESENTATION = "urn:oasis:names:tc:opendocument:xmlns:presentation:1.0 "
_DRAWOOO = "http://openoffice.org/2010/draw "  # LibreOffice's own attributes: a shape's `display`
_NOTES = "### Notes:"
_BODIES = frozenset({_OFFICE + "text", _OFFICE + "spreadsheet", _OFFICE + "presentation"})
# Elements whose text is not the page's: tracked deletions, comments, generated indexes, forms.
_SKIPPED = frozenset({_TEXT + name for name in (
    "tracked-changes", "table-of-content", "alphabetical-index", "illustration-index", "table-index",
    "object-index", "user-index", "bibliography", "sequence-decls", "variable-decls", "user-field-decls",
    "note-citation")} | {_OFFICE + "annotation-end", _OFFICE + "forms"})
_BLOCKS = frozenset({_TEXT + "p", _TEXT + "h"})
_NESTING = frozenset({_TEXT + "list", _TABLE + "table", _TEXT + "note-body", _TEXT + "a", *_BLOCKS})
_STYLE = "urn:oasis:names:tc:opendocument:xmlns:style:1.0 "
# Paragraph styles that set code: Writer's "Preformatted Text" (`Preformatted_20_Text`), the
# source, code and listing styles documents define, and any style in a fixed-pitch font
# (Courier, a "Mono"); a style is one when it or a style it derives from is.
_CODE_STYLE = re.compile(r"preformatted|source|code|listing|verbatim", re.IGNORECASE)
_SVG = "urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0 "
MAX_STYLE_DEPTH = 8  # a style's parents followed this far (a loop of parents ends there)
_STYLED = frozenset({_TEXT + "p", _TEXT + "h", _TEXT + "span"})  # text a style can hide
_ALT_TEXT = frozenset({_SVG + "title", _SVG + "desc"})


@dataclass
class _Table:
    name: str = ""
    rows: list[list[str]] = field(default_factory=list)
    row: list[str] = field(default_factory=list)
    row_repeats: int = 1
    cell: list[str] | None = None
    cell_repeats: int = 1
    # A table holding a table lays a page out, as the HTML and DOCX readers take one: its cells
    # are read as blocks (each paragraph, list or inner table as written), not as a grid.
    layout: bool = False
    cell_blocks: list[str] = field(default_factory=list)  # the open cell's, as Markdown blocks
    blocks: list[str] = field(default_factory=list)  # every closed cell's
    # A cell merged down (number-rows-spanned) repeats in the covered cells under it, as a DOCX's
    # merged cells do (table_spans.py), while all the copies add no more than the table's own text.
    cell_rows: int = 1  # rows the open cell spans
    covered: bool = False  # the open cell is covered by a merge
    spans: dict[int, list] = field(default_factory=dict)  # column -> [text, rows still covered below]
    own_chars: int = 0
    copied_chars: int = 0
    next_row: int = 1  # the sheet's row the next table-row is on, repeated rows all counted
    numbers: list[int] = field(default_factory=list)  # the sheet's row of each of `rows`

    def merged(self, column: int) -> str:
        """The text a covered cell at `column` repeats: the merged cell's above it, while copies last."""
        span = self.spans.get(column)
        if span is None or span[1] <= 0 or self.copied_chars + len(span[0]) > self.own_chars:
            return ""
        span[1] -= 1
        self.copied_chars += len(span[0])
        return span[0]


class _Styles:
    """The paragraph styles of styles.xml and content.xml: each one's parent and font, and the
    fonts of fixed pitch."""

    def __init__(self) -> None:
        self.parents: dict[str, str] = {}
        self.fonts: dict[str, str] = {}
        self.fixed: set[str] = set()
        self.current = ""
        self.numbered: set[tuple[str, int]] = set()  # (list style, level) whose items are numbered 1, 2, 3
        self.list_style = ""
        self.display: dict[str, bool] = {}  # a style's own `text:display`: shown or not, where it says

    def start(self, tag: str, attributes: dict[str, str]) -> None:
        if tag == _STYLE + "font-face" and attributes.get(_STYLE + "font-pitch") == "fixed":
            self.fixed.add(attributes.get(_STYLE + "name", ""))
        elif tag == _STYLE + "style":
            self.current = attributes.get(_STYLE + "name", "")
            self.parents[self.current] = attributes.get(_STYLE + "parent-style-name", "")
        elif tag == _TEXT + "list-style":
            self.list_style = attributes.get(_STYLE + "name", "")
        elif tag == _TEXT + "list-level-style-number" and attributes.get(_STYLE + "num-format") == "1":
            self.numbered.add((self.list_style, _count(attributes.get(_TEXT + "level"))))
        elif tag == _STYLE + "text-properties" and self.current:
            font = attributes.get(_STYLE + "font-name") or attributes.get(_SVG + "font-family", "")
            if font:
                self.fonts[self.current] = font
            if _TEXT + "display" in attributes:
                self.display[self.current] = attributes[_TEXT + "display"] != "none"

    def is_hidden(self, style: str) -> bool:
        """Whether text of the style is hidden (`text:display="none"`), by it or a style it derives from."""
        for _ in range(MAX_STYLE_DEPTH):
            if not style:
                return False
            if style in self.display:
                return not self.display[style]
            style = self.parents.get(style, "")
        return False

    def is_code(self, style: str) -> bool:
        for _ in range(MAX_STYLE_DEPTH):
            if not style:
                return False
            font = self.fonts.get(style, "")
            if _CODE_STYLE.search(style) or font in self.fixed or "mono" in font.lower() or "courier" in font.lower():
                return True
            style = self.parents.get(style, "")
        return False


class _Reader:
    """expat's handlers: a stack of open paragraphs, lists and tables, written out as each closes."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.cells = 0  # written into tables so far, repeats included
        self.blocks: list[str] = []
        self.paragraphs: list[tuple[str, list[str]]] = []  # (tag, text pieces) of each open paragraph
        self.notes: list[list[str]] = []  # the pieces of each open note's body
        self.lists: list[list[str]] = []  # the lines of each open list
        self.items: list[bool] = []  # per open list: whether its current item has its first line yet
        self.list_styles: list[str] = []  # per open list: its style, or its enclosing list's
        self.numbers: list[int | None] = []  # per open list: its current item's number; None for bullets
        self.tables: list[_Table] = []
        self.links: list[str] = []
        self.skipping = 0
        self.flattened: dict[str, int] = {}  # per nesting element, its levels past MAX_NESTING now open
        self.in_body = False
        self.comment: Comment | None = None  # the comment (office:annotation) being read
        self.comments: list[str] = []
        self.spreadsheet = False
        self.sheet_rows: dict[int, tuple[str, list[int | None]]] = {}  # a sheet's block: its name, each line's row
        self.slides = 0
        self.frames: list[bool] = []  # per open frame: whether it is a slide's title
        self.paragraph_at: int | None = None  # where the open body paragraph's frames' blocks begin
        self.slide_shapes = SlideShapes()  # the open slide's shapes, put in reading order as it ends
        self.notes_at: int | None = None  # where the open speaker notes' blocks begin
        self.code: list[str] | None = None  # the lines of the code block being read, paragraph by paragraph
        self.styles = _Styles()

    def start(self, tag: str, attributes: dict[str, str]) -> None:
        if tag in _BODIES:
            self.in_body = True
            self.spreadsheet = tag == _OFFICE + "spreadsheet"
        if not self.in_body:
            self.styles.start(tag, attributes)
            return
        if self.comment is not None or (tag == _OFFICE + "annotation" and not self.skipping):
            if self.comment is None:
                self.comment = Comment()
            else:
                self.comment.start(tag)
            self.skipping += 1
            return
        if self.skipping or tag in _SKIPPED or self._hidden(tag, attributes):
            self.skipping += 1
            return
        if tag in _ALT_TEXT:
            self._piece(" ")  # a picture's title and description, apart from the words around them
        if tag in _NESTING and len(self._stack(tag)) >= MAX_NESTING:
            self.flattened[tag] = self.flattened.get(tag, 0) + 1
            return
        if self.slides and self.notes_at is None:
            self.slide_shapes.start(tag, attributes, len(self.blocks))
        if tag in _BLOCKS:
            level = attributes.get(_TEXT + "outline-level", "1")
            code = self.styles.is_code(attributes.get(_TEXT + "style-name", ""))
            heading = tag == _TEXT + "h" or any(self.frames)
            if not (self.paragraphs or self.lists or self.tables or self.notes or self.frames):
                self.paragraph_at = len(self.blocks)
            self.paragraphs.append((f"h{level}" if heading else "code" if code else "p", []))
        elif tag == _DRAW + "page":
            self.slides += 1
            self._block(f"<!-- Slide number: {self.slides} -->")
        elif tag == _DRAW + "frame":
            self.frames.append(attributes.get(_PRESENTATION + "class") == "title")
        elif tag == _PRESENTATION + "notes" and not (self.lists or self.tables or self.paragraphs):
            self._block(_NOTES)
            self.notes_at = len(self.blocks)
        elif tag == _TEXT + "s":
            self._piece(" " * min(_count(attributes.get(_TEXT + "c")), MAX_COLUMNS))
        elif tag == _TEXT + "tab":
            self._piece(" ")
        elif tag == _TEXT + "line-break":
            self._piece("\n")
        elif tag == _TEXT + "a":
            self.links.append(attributes.get(_XLINK + "href", ""))
            self._piece("\x00")  # where the link's text begins
        elif tag == _TEXT + "note-body":
            self.notes.append([])
        elif tag == _TEXT + "list":
            style = attributes.get(_TEXT + "style-name") or (self.list_styles[-1] if self.list_styles else "")
            self.lists.append([])
            self.items.append(False)
            self.list_styles.append(style)
            self.numbers.append(0 if (style, len(self.lists)) in self.styles.numbered else None)
        elif tag in (_TEXT + "list-item", _TEXT + "list-header") and self.items:
            self.items[-1] = False
            number = self.numbers[-1]
            if number is not None and tag == _TEXT + "list-item":
                self.numbers[-1] = _count(attributes.get(_TEXT + "start-value")) if \
                    attributes.get(_TEXT + "start-value") else number + 1
        elif tag == _TABLE + "table":
            self.tables.append(_Table(name=attributes.get(_TABLE + "name", "")))
        elif self.flattened.get(_TABLE + "table"):
            return  # a row or cell of a table read as part of its enclosing cell
        elif tag == _TABLE + "table-row" and self.tables:
            table = self.tables[-1]
            table.row, table.row_repeats = [], _count(attributes.get(_TABLE + "number-rows-repeated"))
        elif tag in (_TABLE + "table-cell", _TABLE + "covered-table-cell") and self.tables:
            table = self.tables[-1]
            table.cell, table.cell_repeats = [], _count(attributes.get(_TABLE + "number-columns-repeated"))
            table.cell_rows = _count(attributes.get(_TABLE + "number-rows-spanned"))
            table.covered = tag == _TABLE + "covered-table-cell"

    def end(self, tag: str) -> None:
        if not self.in_body:
            return
        if self.skipping:
            self.skipping -= 1
            if self.comment is not None and not self.skipping:  # the annotation closed
                self.comments.append(self.comment.line())
                self.comment = None
            elif self.comment is not None:
                self.comment.end(tag)
            return
        if self.slides and self.notes_at is None:
            self.slide_shapes.end(tag, len(self.blocks))
        if tag in _BODIES:
            self.in_body = False
        elif tag == _DRAW + "page":
            self.slide_shapes.reordered(self.blocks)
        elif tag in _NESTING and self.flattened.get(tag):
            self.flattened[tag] -= 1
        elif self.flattened.get(_TABLE + "table") and tag in (_TABLE + "table-row", _TABLE + "table-cell",
                                                            _TABLE + "covered-table-cell"):
            return
        elif tag in _BLOCKS and self.paragraphs:
            kind, pieces = self.paragraphs.pop()
            at, before = self.paragraph_at, len(self.blocks)
            self._paragraph(kind, "".join(pieces))
            if not self.paragraphs and at is not None:
                self.paragraph_at = None
                if at < before and len(self.blocks) == before + 1:  # a frame anchored in it wrote first
                    self.blocks.insert(at, self.blocks.pop())
        elif tag == _TEXT + "a" and self.links:
            href = self.links.pop()
            self._close_link(href)
        elif tag == _TEXT + "note-body" and self.notes:
            note = cited(self.notes.pop())
            if note:
                self._piece(note)
        elif tag == _TEXT + "list" and self.lists:
            lines = self.lists.pop()
            self.items.pop()
            self.list_styles.pop()
            self.numbers.pop()
            self._block("\n".join(lines))
        elif tag == _TABLE + "table-cell" or tag == _TABLE + "covered-table-cell":
            self._close_cell()
        elif tag == _TABLE + "table-row" and self.tables:
            table = self.tables[-1]
            while table.row and not table.row[-1]:
                table.row.pop()
            if table.row:
                repeats = min(table.row_repeats, MAX_REPEATS)
                self.cells += len(table.row) * repeats
                if self.cells > MAX_SHEET_CELLS:
                    raise ConversionFailed(f"{self.name}: refused: its tables hold more than {MAX_SHEET_CELLS:,} "
                                           "cells; spreadsheet bomb?")
                table.rows += [table.row] * repeats
                table.numbers += range(table.next_row, table.next_row + repeats)
            table.next_row += table.row_repeats
        elif tag == _TABLE + "table" and self.tables:
            table = self.tables.pop()
            if self.spreadsheet and not self.tables and table.rows and table.name:
                self._block(f"## {escape_headings(' '.join(table.name.split()))}")
            sheet = self.spreadsheet and not self.tables and not table.layout
            # A sheet reads as an XLSX's does (sheet_grid.py): its cells' text unescaped, as that writer escapes it.
            shown: Lines = sheet_lines([[cell.replace("\\|", "|") for cell in row] for row in table.rows], (),
                                       table.numbers) if sheet else []
            written = ("\n".join(line for line, _ in shown) if sheet
                       else "\n\n".join(table.blocks) if table.layout else pipe_table(table.rows))
            outer = self.tables[-1] if self.tables else None
            if outer is not None and outer.cell is not None:
                outer.layout = True
                outer.cell.append(" ".join(cell for row in table.rows for cell in row if cell))
                outer.cell_blocks.append(written)
            else:
                self._block(written)
                if sheet and written and self.blocks and self.blocks[-1] is written:
                    self.sheet_rows[len(self.blocks) - 1] = (" ".join(table.name.split()), [row for _, row in shown])
        elif tag == _DRAW + "frame" and self.frames:
            self.frames.pop()
        elif tag in _ALT_TEXT:
            self._piece(" ")
        elif tag == _PRESENTATION + "notes" and self.notes_at is not None:
            self._block("")  # a code block the notes end with
            if len(self.blocks) == self.notes_at and self.blocks[-1] == _NOTES:  # no notes written
                self.blocks.pop()
            self.notes_at = None

    def _hidden(self, tag: str, attributes: dict[str, str]) -> bool:
        """Whether the element is text the page does not show: in a hidden style or section, a shape
        set not to be drawn (a slide's text box hidden in LibreOffice's or PowerPoint's selection pane),
        or a ruby's reading (the base text is the line's)."""
        if tag in _STYLED:
            return self.styles.is_hidden(attributes.get(_TEXT + "style-name", ""))
        if tag.startswith(_DRAW) and "none" in (attributes.get(_DRAWOOO + "display"), attributes.get(_DRAW + "display")):
            return True
        if tag == _TEXT + "section":
            display = attributes.get(_TEXT + "display")
            return display == "none" or (display == "condition"
                                         and condition_holds(attributes.get(_TEXT + "condition", "")) is True)
        return tag == _TEXT + "ruby-text"

    def _stack(self, tag: str) -> list:
        stacks: dict[str, list] = {_TEXT + "list": self.lists, _TABLE + "table": self.tables, _TEXT + "a": self.links,
                                   _TEXT + "note-body": self.notes}
        return stacks.get(tag, self.paragraphs)

    def text(self, data: str) -> None:
        if self.comment is not None:
            self.comment.text(data)
        elif self.in_body and not self.skipping and self.paragraphs:
            self._piece(data.replace("\n", " "))

    # --- writing ---------------------------------------------------------------------------

    def _piece(self, text: str) -> None:
        if self.paragraphs:
            self.paragraphs[-1][1].append(text)

    def _close_link(self, href: str) -> None:
        if not self.paragraphs:
            return
        pieces = self.paragraphs[-1][1]
        # The open link's marker is the last one: looked for from the end, past its own text only.
        at = next((n for n in range(len(pieces) - 1, -1, -1) if pieces[n] == "\x00"), None)
        if at is None:
            return
        label = "".join(pieces[at + 1 :])
        del pieces[at:]
        shown = " ".join(label.split())
        pieces.append(f"[{shown}]({href})" if shown and href and not href.startswith("#") and shown != href
                      else label)

    def _paragraph(self, kind: str, text: str) -> None:
        text = text.replace("\x00", "")
        if self.notes:  # a paragraph of a footnote's body: read where the note is cited
            self.notes[-1].append(text)
            return
        if self.tables and self.tables[-1].cell is not None:
            self.tables[-1].cell.append(text)
            lines = [" ".join(line.split()) for line in text.split("\n")]
            self.tables[-1].cell_blocks.append("\n".join(escape_headings(line) for line in lines if line))
            return
        if kind == "code" and not self.lists:
            if self.code is None:
                self._block("")  # closes whatever came before
                self.code = []
            self.code += text.split("\n")
            return
        lines = [" ".join(line.split()) for line in text.split("\n")]
        lines = [line for line in lines if line]
        if not lines:
            return
        if kind.startswith("h") and not self.lists:
            level = min(max(_count(kind[1:]), 1), 6)
            self._block(f"{'#' * level} {' '.join(lines)}")
        elif self.lists:  # a list's lines are its own; an enclosing list indents them (_block)
            number = self.numbers[-1]
            marker = "- " if number is None else f"{number}. "
            if self.items[-1]:  # a later paragraph of the same item
                marker = " " * len(marker)
            self.items[-1] = True
            indent = " " * len(marker)
            self.lists[-1] += [f"{marker}{escape_headings(lines[0])}", *(f"{indent}{line}" for line in lines[1:])]
        else:
            self._block("\n".join(escape_headings(line) for line in lines))

    def _block(self, text: str) -> None:
        if self.code is not None and not self.lists and not self.tables:
            code, self.code = self.code, None
            self._block(fenced("\n".join(code), ""))
        if not text:
            return
        if self.lists:  # a table or a nested list inside a list item: its lines under the item's text
            number = self.numbers[-1]
            indent = " " * (2 if number is None else len(f"{number}. "))
            self.lists[-1] += [f"{indent}{line}" if line else "" for line in text.split("\n")]
        elif self.tables and self.tables[-1].cell is not None:
            self.tables[-1].cell.append(text)
            self.tables[-1].cell_blocks.append(text)
        else:
            self.blocks.append(text)

    def finish(self) -> None:
        self._block("")  # a code block that ends the document

    def _close_cell(self) -> None:
        if not self.tables or self.tables[-1].cell is None:
            return
        table = self.tables[-1]
        text = " ".join(" ".join(table.cell or []).split()).replace("|", "\\|")
        repeats = min(table.cell_repeats, MAX_REPEATS) if text else min(table.cell_repeats, MAX_COLUMNS)
        repeats = max(0, min(repeats, MAX_COLUMNS - len(table.row)))
        column = len(table.row)
        if table.covered and not text:
            table.row += [table.merged(column + offset) for offset in range(repeats)]
        else:
            table.row += [text] * repeats
            table.own_chars += len(text) * repeats
            for offset in range(repeats):
                table.spans.pop(column + offset, None)
            if text and table.cell_rows > 1:
                table.spans[column] = [text, table.cell_rows - 1]
        table.blocks += [block for block in table.cell_blocks if block]
        table.cell, table.cell_blocks = None, []


def _count(value: str | None) -> int:
    """A repeat count or level as written; 1 for anything that is not a small positive number."""
    if value is None or not value.isdigit() or len(value) > 9:
        return 1
    return max(1, int(value))


@dataclass(frozen=True)
class OdfText:
    markdown: str
    title: str | None
    warnings: tuple[str, ...]  # the damaged members read without, or in part
    rows: RowMap | None = None  # a spreadsheet's: the row of its sheet each line shows


def _sheet_rows(blocks: list[str], sheets: dict[int, tuple[str, list[int | None]]], lines: int) -> RowMap | None:
    """The row each of `lines` lines shows, where they open with `blocks` joined by blank lines: a
    sheet's block's lines on the rows `sheets` gives (sheet_grid.sheet_lines), the others on none."""
    if not sheets:
        return None
    names: list[str | None] = []
    shown: list[tuple[int, int] | None] = []
    for index, block in enumerate(blocks):
        if index:
            shown.append(None)
        count = block.count("\n") + 1
        name, rows = sheets.get(index, ("", []))
        if len(rows) != count:
            shown += [None] * count
            continue
        names.append(name)
        sheet = len(names) - 1
        shown += [None if row is None else (sheet, row) for row in rows]
    if len(shown) > lines:
        return None
    return RowMap.of(names, shown + [None] * (lines - len(shown)))


# What a damaged member raises as it is read (UnicodeDecodeError: its local header claims a UTF-8 name
# wrongly); and what its garbled bytes raise as they are parsed
# (ExpatError, before zipfile reaches the checksum at the member's end), said damage only where the
# member's bytes show it is.
_DAMAGED = (zipfile.BadZipFile, zlib.error, EOFError, NotImplementedError, UnicodeDecodeError, expat.ExpatError)


def odf_to_markdown(archive: zipfile.ZipFile, package: bytes, name: str, suffix: str) -> OdfText:
    """Markdown for an OpenDocument archive (whose bytes are `package`) of the kind `suffix` names
    (see the module's docstring), and its title, if set. A damaged member costs only itself: the
    mimetype, manifest, styles and metadata are read as missing, the content up to its damage."""
    try:
        return _read(archive, package, name, suffix)
    except (expat.ExpatError, zipfile.BadZipFile) as exc:
        raise ConversionFailed(f"{name}: not a valid {suffix} file (damaged: {exc})") from None


def _read(archive: zipfile.ZipFile, package: bytes, name: str, suffix: str) -> OdfText:
    names = set(archive.namelist())
    warnings: list[str] = []

    def damaged(member: str, exc: BaseException) -> bool:
        """Whether `exc` comes of the member's damage; if so, a warning says it is read without it."""
        why = _damage(archive, package, member, exc)
        if why is not None:
            warnings.append(f"{name}: {member} is damaged ({why}); read without it")
        return why is not None

    if "mimetype" in names:
        try:
            with archive.open("mimetype") as stream:
                declared = stream.read(100).strip()
        except _DAMAGED as exc:
            if not damaged("mimetype", exc):
                raise
            declared = MIMETYPES[suffix]
        if declared != MIMETYPES[suffix]:
            kind = declared.decode("ascii", "replace") or "another format"
            raise ConversionFailed(f"{name}: not a {suffix} file but {kind}; name it by what it is")
    if "META-INF/manifest.xml" in names:
        try:
            encrypted = _encrypted(archive, name)
        except _DAMAGED as exc:  # (an encrypted content.xml is then no XML: it says so)
            if not damaged("META-INF/manifest.xml", exc):
                raise
            encrypted = False
        if encrypted:
            raise ConversionFailed(f"{name}: encrypted (password required)")
    if "content.xml" not in names:
        raise ConversionFailed(f"{name}: not a valid {suffix} file (no content.xml)")
    reader, margins = _styled(archive, name, names, damaged)
    content = archive.getinfo("content.xml")
    try:
        feed(archive, content, _content_parser(reader))
    except _DAMAGED as exc:
        why = _damage(archive, package, "content.xml", exc)
        if why is None:
            raise
        prefix = inflated_prefix(package, content)
        kept, whole = well_formed_prefix(prefix.data) if prefix else (b"", False)
        if not kept:
            raise ConversionFailed(f"{name}: cannot read the {suffix} file: content.xml is damaged ({why})") from None
        reader, margins = _styled(archive, name, names, lambda _member, _exc: True)  # (said once already)
        _content_parser(reader).Parse(kept, whole)
        warnings.append(said_kept(name, "content.xml", why, len(kept), content.file_size, whole=whole))
    reader.finish()
    text = suffix == ".odt"
    placed = Margins(headers=tuple(margins.lines["header"]) if text else (),
                     footers=tuple(margins.lines["footer"]) if text else (),
                     comments=tuple(line for line in reader.comments if line))
    title = None
    if "meta.xml" in names:
        try:
            title = _title(archive, name)
        except _DAMAGED as exc:
            if not damaged("meta.xml", exc):
                raise
    body = "\n\n".join(reader.blocks)
    markdown = placed.around(body) + "\n"
    rows = _sheet_rows(reader.blocks, reader.sheet_rows, markdown.count("\n") + 1) \
        if markdown.startswith(body) else None
    return OdfText(markdown, title, tuple(warnings), rows)


def _styled(archive: zipfile.ZipFile, name: str, names: set[str], damaged) -> tuple[_Reader, PageMargins]:
    """A reader that knows the paragraph styles of styles.xml, and its page headers and footers;
    `damaged(member, error)` is told where styles.xml cannot be read, and says whether that is its
    damage (then the reader knows none of its styles)."""
    reader, margins = _Reader(name), PageMargins()
    if "styles.xml" not in names:
        return reader, margins
    styles = parser_for(name, archive.getinfo("styles.xml"))

    def start(tag: str, attributes: dict[str, str]) -> None:
        reader.styles.start(tag, attributes)
        margins.start(tag, attributes)

    styles.StartElementHandler = start
    styles.EndElementHandler, styles.CharacterDataHandler = margins.end, margins.text
    try:
        feed(archive, archive.getinfo("styles.xml"), styles)
    except _DAMAGED as exc:
        if not damaged("styles.xml", exc):
            raise
        return _Reader(name), PageMargins()
    return reader, margins


def _damage(archive: zipfile.ZipFile, package: bytes, member: str, exc: BaseException) -> str | None:
    """What is wrong with `member`, where `exc`, raised as it was read, comes of its damage; None
    where its bytes are whole (XML wrong as it was written)."""
    prefix = inflated_prefix(package, archive.getinfo(member))
    if prefix is not None:
        return prefix.why
    return None if isinstance(exc, expat.ExpatError) else damage_words(exc)


def _content_parser(reader: _Reader) -> expat.XMLParserType:
    parser = parser_for(reader.name, zipfile.ZipInfo("content.xml"))
    parser.StartElementHandler = reader.start
    parser.EndElementHandler = reader.end
    parser.CharacterDataHandler = reader.text
    return parser


def _encrypted(archive: zipfile.ZipFile, name: str) -> bool:
    found: list[bool] = []
    parser = parser_for(name, archive.getinfo("META-INF/manifest.xml"))
    parser.StartElementHandler = lambda tag, _attributes: found.append(tag == _MANIFEST + "encryption-data")
    feed(archive, archive.getinfo("META-INF/manifest.xml"), parser)
    return any(found)


def _title(archive: zipfile.ZipFile, name: str) -> str | None:
    pieces: list[str] = []
    inside = [False]
    parser = parser_for(name, archive.getinfo("meta.xml"))

    def start(tag: str, _attributes: dict[str, str]) -> None:
        inside[0] = tag == _DC + "title"

    def end(_tag: str) -> None:
        inside[0] = False

    def text(data: str) -> None:
        if inside[0]:
            pieces.append(data)

    parser.StartElementHandler, parser.EndElementHandler, parser.CharacterDataHandler = start, end, text
    feed(archive, archive.getinfo("meta.xml"), parser)
    return " ".join("".join(pieces).split())[:300] or None
