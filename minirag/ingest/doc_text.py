"""Word 97-2003 documents (.doc) -> Markdown, as the page reads, from the compound file's streams
(cfb.py) and Word's structures in them (doc_format.py).

The text is where the piece table says, in character positions (CPs) that run through the main
text first, then the footnotes, the page headers and footers, the comments and the endnotes. The
main text is read paragraph by paragraph (each ends at a paragraph mark, `\\r`, or a table's cell
mark, `\\x07`), each with its properties:

- a paragraph in a heading style (Word's built-in Heading 1-9 or Title, or a style named
  *heading N*) or with an outline level is a heading; one in a list a list item, nested by its
  level; one in a code style (Source Code, Preformatted Text, HTML Preformatted...) code;
- table cells and rows become pipe tables (cell_tables.py), a table inside a cell read as the
  page's layout, as everywhere;
- a field's result is kept without its code (`\\x13` code `\\x14` result `\\x15`), except a page
  number's, a page reference's and a table of contents' (their numbers are the printer's);
- line and page breaks are line breaks; pictures and drawn objects go;
- a footnote or endnote reads in parentheses where it is cited, in its mark's place (note_text.cited,
  as in ODT, RTF and DOCX; doc_notes.py finds where). Where the file's note tables do not fit its
  text, that kind of note follows the body, a line per paragraph.

Page header and footer lines are placed, and comments
follow, as a DOCX's are (docx_margins.Margins), a line that is only a page number left out. The
title is the SummaryInformation stream's. A file saved with a password, or by Word 6 or 95, says so.
"""

from __future__ import annotations

import bisect
import re
import struct
from collections import deque
from dataclasses import dataclass, field

from minirag.errors import ConversionFailed
from minirag.ingest.cell_tables import Table
from minirag.ingest.cfb import CompoundFile, CompoundFileError
from minirag.ingest.doc_boxes import boxes
from minirag.ingest.doc_format import (
    CLX,
    PLCF_AND_TXT,
    PLCF_HDD,
    STORIES,
    Fib,
    Paragraph,
    ParagraphTable,
    Styles,
    joined,
    piece_text,
    pieces,
    read_fib,
    styles,
)
from minirag.ingest.doc_hidden import HIDDEN, hidden_runs, without_hidden
from minirag.ingest.doc_lists import PLF_LFO, PLF_LST, Lists, read_lists
from minirag.ingest.doc_notes import KINDS, notes
from minirag.ingest.docx_margins import Margins
from minirag.ingest.note_text import cited
from minirag.ingest.paragraph_blocks import Block, blocks_markdown
from minirag.ingest.text_limit import MAX_TEXT_CHARS
from minirag.ingest.text_repair import is_page_number

MAX_FIELD_DEPTH = 64
MAX_INSTRUCTION_CHARS = 256  # of a field's code, enough to tell its kind
_MARKS = re.compile("[\r\x07\x0c]")  # paragraph, cell and section marks
_SPECIALS = str.maketrans({"\x0b": "\n", "\x0c": "\n", "\x0e": "\n", "\x1e": "-", "\x1f": None, "\x01": None,
                           "\x02": None, "\x03": None, "\x04": None, "\x05": None, "\x08": None, "\t": " ",
                           "\xa0": " "})
_CODE_SPECIALS = {**_SPECIALS, ord("\t"): "\t", ord("\xa0"): " "}  # a code line keeps its tabs
_UNSHOWN = re.compile(r"\s*(?:PAGE|NUMPAGES|SECTIONPAGES|PAGEREF|TOC)\b", re.IGNORECASE)
_HYPERLINK = re.compile(r'\s*HYPERLINK\s+"?((?:https?|ftp|mailto):[^"\s]+)', re.IGNORECASE)
_PIDSI_TITLE, _PID_CODEPAGE = 2, 1


def doc_to_markdown(data: bytes, name: str) -> tuple[str, str | None]:
    """The document's Markdown, and its title (None where it has none)."""
    try:
        return _read(CompoundFile(data), name)
    except (CompoundFileError, struct.error, ValueError) as exc:
        raise ConversionFailed(f"{name}: not a valid .doc file (damaged: {exc or 'truncated'})") from None


def _read(cfb: CompoundFile, name: str) -> tuple[str, str | None]:
    word = cfb.stream("WordDocument")
    if word is None:
        raise ConversionFailed(f"{name}: an Office file, but not a Word document (no WordDocument stream)")
    fib = read_fib(word, name)
    table = cfb.stream(fib.table)
    if table is None:
        raise ConversionFailed(f"{name}: not a valid .doc file (its table stream is missing)")
    total = sum(fib.counts.values())
    if total > MAX_TEXT_CHARS:
        raise ConversionFailed(f"{name}: refused: it claims {total:,} characters, over the {MAX_TEXT_CHARS:,} "
                               "one document may give")
    offset, length = fib.pair(CLX)
    text_pieces = pieces(table[offset:offset + length], total)
    paragraphs, sheet = ParagraphTable(word, table, fib, text_pieces), styles(table, fib)
    hidden = hidden_runs(word, table, fib, paragraphs.runs, sheet.vanish)
    text = without_hidden(piece_text(word, text_pieces), text_pieces, hidden)
    stories, start = {}, 0
    for story in STORIES:
        stories[story] = text[start:start + fib.counts[story]]
        start += fib.counts[story]
    lists = read_lists(table, fib.pair(PLF_LST), fib.pair(PLF_LFO))
    cited_at, unplaced = _citations(table, fib, stories)
    boxed_at, loose = _boxes(table, fib, stories)
    blocks = _body(stories["text"], paragraphs, sheet, lists, cited_at, boxed_at)
    blocks += [Block("p", line) for line in loose]
    for story in unplaced:
        blocks += [Block("p", line) for line in _lines(stories[story])]
    headers, footers = _margins(stories["headers"], _cps(table, fib, PLCF_HDD))
    kept = set(headers)
    headers += [line for line in dict.fromkeys(_lines(stories["header_textboxes"])) if line not in kept]
    comments = [f"Comment: {comment}" for comment in _parts(stories["comments"], _cps(table, fib, PLCF_AND_TXT))
                if comment]
    margins = Margins(headers=tuple(headers), footers=tuple(footers), comments=tuple(comments))
    return margins.around(blocks_markdown(blocks)), _title(cfb)


@dataclass
class _Field:
    code: list[str] = field(default_factory=list)
    shown: bool | None = None  # whether its result is shown; None while its code is read
    start: int | None = None  # where its result begins among this paragraph's kept parts


class _Fields:
    """What a reader sees of text with fields in it: each field's result, not its code, and a
    hyperlink's result as a Markdown link. Fed paragraph by paragraph, as a field may span them."""

    def __init__(self) -> None:
        self.open: list[_Field] = []
        self.deeper = 0  # fields open past MAX_FIELD_DEPTH: read as code, whatever they hold

    def shown(self, text: str) -> str:
        if "\x13" not in text and not self.open:
            return text
        kept: list[str] = []
        for opened in self.open:
            opened.start = None  # a result begun in an earlier paragraph is not made a link
        for part in re.split("([\x13\x14\x15])", text):
            if self.deeper and part in ("\x13", "\x15"):
                self.deeper += 1 if part == "\x13" else -1
            elif self.deeper:
                continue
            elif part == "\x13" and len(self.open) >= MAX_FIELD_DEPTH:
                self.deeper = 1
            elif part == "\x13":
                self.open.append(_Field())
            elif part == "\x14" and self.open:
                top = self.open[-1]
                top.shown, top.start = not _UNSHOWN.match("".join(top.code)), len(kept)
            elif part == "\x15" and self.open:
                self._close(self.open.pop(), kept)
            elif part in ("\x14", "\x15"):
                continue
            elif not self.open:
                kept.append(part)
            elif self.open[-1].shown is None:
                if len(self.open[-1].code) < MAX_INSTRUCTION_CHARS:
                    self.open[-1].code.append(part[:MAX_INSTRUCTION_CHARS])
            elif all(opened.shown for opened in self.open):
                kept.append(part)
        return "".join(kept)

    @staticmethod
    def _close(closed: _Field, kept: list[str]) -> None:
        link = _HYPERLINK.match("".join(closed.code))
        if link is None or closed.start is None or not closed.shown:
            return
        label = " ".join("".join(kept[closed.start:]).split())
        if label and label != link.group(1):
            del kept[closed.start:]
            kept.append(f"[{label}]({link.group(1)})")


def _clean(text: str, *, code: bool = False) -> str:
    """A paragraph's text with Word's special characters made text, its spaces collapsed (a code
    paragraph's kept, its indentation the code's own)."""
    if code:
        lines = joined(text).translate(_CODE_SPECIALS).split("\n")
        return "\n".join(line.rstrip() for line in lines).strip("\n")
    return "\n".join(" ".join(line.split()) for line in joined(text).translate(_SPECIALS).split("\n")).strip("\n")


def _citations(table: bytes, fib: Fib, stories: dict[str, str]) -> tuple[dict[int, str], list[str]]:
    """Each note's text as it reads where cited, by the CP of the mark it takes the place of, and
    the note stories whose notes are not placed so (their tables do not fit the text)."""
    cited_at: dict[int, str] = {}
    unplaced: list[str] = []
    body = stories["text"]
    for story, references, texts in KINDS:
        if not stories[story]:
            continue
        found = notes(table, fib, references, texts, len(body), len(stories[story]))
        if found is None:
            unplaced.append(story)
            continue
        for note in found:
            mark = body[note.cp]
            if mark == HIDDEN:  # a reference hidden or deleted: so is its note
                continue
            text = stories[story][note.start:note.end]
            if note.custom and text.lstrip().startswith(mark):
                text = text.lstrip()[len(mark):]  # the note's own copy of its custom mark
            # Word's number, else a custom mark, gives way to the note; any other character (damage) stays
            kept = "" if note.custom or mark == "\x02" else mark
            cited_at[note.cp] = kept + cited(_note_lines(text))
    return cited_at, unplaced


def _boxes(table: bytes, fib: Fib, stories: dict[str, str]) -> tuple[dict[int, list[Block]], list[str]]:
    """Each text box's paragraphs by its anchor's CP (doc_boxes.py), and the lines of those
    without one, read after the body."""
    story, body = stories["textboxes"], stories["text"]
    found = boxes(table, fib, len(body), len(story)) if story else []
    if not found:
        return {}, _lines(story)
    boxed_at: dict[int, list[Block]] = {}
    loose: list[str] = []
    for box in found:
        lines = _lines(story[box.start:box.end])
        if box.anchor is None:
            loose += lines
        elif body[box.anchor] != HIDDEN:  # an anchor hidden or deleted: so is its box
            boxed_at.setdefault(box.anchor, []).extend(Block("p", line) for line in lines)
    return boxed_at, loose


def _note_lines(text: str) -> list[str]:
    """A note's lines, fields read as in the body (a link stays a link)."""
    return _clean(_Fields().shown(text.replace("\x07", "\r").replace("\r", "\n"))).split("\n")


def _with_notes(raw: str, start: int, cited_at: dict[int, str], cps: list[int]) -> str:
    """A paragraph's text from CP `start` with each note cited in it read in its mark's place."""
    first, last = bisect.bisect_left(cps, start), bisect.bisect_left(cps, start + len(raw))
    if first == last:
        return raw
    parts, at = [], 0
    for cp in cps[first:last]:
        parts.append(raw[at:cp - start])
        parts.append(cited_at[cp])
        at = cp - start + 1
    parts.append(raw[at:])
    return "".join(parts)


def _body(text: str, paragraphs: ParagraphTable, sheet: Styles, lists: Lists,
          cited_at: dict[int, str] | None = None, boxed_at: dict[int, list[Block]] | None = None) -> list[Block]:
    """The main text's blocks; a text box's (`boxed_at`, by its anchor's CP) after the paragraph
    holding its anchor, or after the table holding it."""
    blocks: list[Block] = []
    table, fields = Table(), _Fields()
    cited_at, boxed_at = cited_at or {}, boxed_at or {}
    cps, anchors = sorted(cited_at), deque(sorted(boxed_at))
    start, waiting = 0, []
    for mark in _MARKS.finditer(text):
        raw, at = text[start:mark.start()], mark.start()
        if cps:
            raw = _with_notes(raw, start, cited_at, cps)
        start = mark.end()
        while anchors and anchors[0] < start:
            waiting += boxed_at[anchors.popleft()]
        props = paragraphs.at(at)
        shown = _clean(fields.shown(raw), code=props.style in sheet.code and not props.in_table)
        if props.in_table or mark.group() == "\x07":
            _cell(table, shown, props, mark.group() == "\x07")
            continue
        if table.is_open():
            blocks += table.end()
            table = Table()
        blocks.append(_block(shown, props, sheet, lists))
        blocks += waiting
        waiting = []
    if table.is_open():
        blocks += table.end()
    return blocks + waiting + [block for anchor in anchors for block in boxed_at[anchor]]


def _cell(table: Table, text: str, props: Paragraph, cell_mark: bool) -> None:
    nested = props.depth > 1
    if props.inner_row_end:
        table.nested_row(props.merged)
    elif props.row_end:
        table.merged_down = [column in props.merged for column in range(max(props.merged, default=-1) + 1)]
        table.end_cell(row=True)
    else:
        table.paragraph(text, nested=nested)
        if (cell_mark or props.inner_cell_end) and nested:
            table.nested_cell()
        elif cell_mark:
            table.end_cell()


def _block(text: str, props: Paragraph, sheet: Styles, lists: Lists) -> Block:
    marker = lists.marker(props.listed, props.level) if props.listed else ""  # counted, whatever the text
    if not text:
        return Block("empty", "")
    level = sheet.headings.get(props.style, 0)
    if props.outline is not None and 0 <= props.outline < 9:
        level = level or min(props.outline + 1, 6)
    if level:
        return Block("h", " ".join(text.split()), level)
    if props.listed:
        return Block("item", text, props.level, marker, props.listed)
    return Block("code" if props.style in sheet.code else "p", text)


def _lines(text: str) -> list[str]:
    lines = _clean(_Fields().shown(text.replace("\x07", "\r").replace("\r", "\n"))).split("\n")
    return [line for line in lines if line and not is_page_number(line)]


def _cps(table: bytes, fib: Fib, pair: int) -> tuple[int, ...]:
    """The CPs a PLC in the table stream begins with (a PLC of bare CPs, or a PLC's CP array)."""
    offset, length = fib.pair(pair)
    data = table[offset:offset + length]
    return struct.unpack_from(f"<{len(data) // 4}I", data)


def _ranges(cps: tuple[int, ...]) -> list[tuple[int, int]]:
    """The parts a PLC's CPs cut a story into, each from where the one before ended: CPs that go
    back would give the same text again, once per part."""
    ranges, covered = [], 0
    for start, end in zip(cps, cps[1:], strict=False):
        ranges.append((max(start, covered), end))
        covered = max(covered, end)
    return ranges


def _parts(story: str, cps: tuple[int, ...]) -> list[str]:
    """Each part of a story (a comment, a header) as one line, by the CPs that part it."""
    ranges = _ranges(cps) if cps else [(0, len(story))]
    return [" ".join(_lines(story[start:end])) for start, end in ranges if end > start]


def _margins(story: str, cps: tuple[int, ...]) -> tuple[list[str], list[str]]:
    """The distinct lines of the page headers and footers. PlcfHdd's first six parts are the note
    separators; then each section has six: even and odd header, even and odd footer, first-page
    header and footer."""
    headers: list[str] = []
    footers: list[str] = []
    kept: set[tuple[bool, str]] = set()
    for index, (start, end) in enumerate(_ranges(cps)):
        if index < 6 or end <= start:
            continue
        header = (index - 6) % 6 in (0, 1, 4)
        for line in _lines(story[start:end]):
            if (header, line) not in kept:
                kept.add((header, line))
                (headers if header else footers).append(line)
    return headers, footers


def _title(cfb: CompoundFile) -> str | None:
    """PIDSI_TITLE of the SummaryInformation property set, in its own code page."""
    try:
        data = cfb.stream("\x05SummaryInformation")
        if not data:
            return None
        section, = struct.unpack_from("<I", data, 44)
        _, count = struct.unpack_from("<II", data, section)
        count = min(count, 1000)
        numbers = struct.unpack_from(f"<{2 * count}I", data, section + 8)
        where = {numbers[i]: section + numbers[i + 1] for i in range(0, 2 * count, 2)}
        if _PIDSI_TITLE not in where:
            return None
        codepage = struct.unpack_from("<H", data, where[_PID_CODEPAGE] + 4)[0] if _PID_CODEPAGE in where else 1252
        kind, size = struct.unpack_from("<II", data, where[_PIDSI_TITLE])
        raw = data[where[_PIDSI_TITLE] + 8:]
        if kind == 31:  # VT_LPWSTR, counted in 16-bit characters
            title = raw[:size * 2].decode("utf-16-le", "replace")
        elif kind == 30:  # VT_LPSTR
            title = raw[:size].decode("utf-8" if codepage == 65001 else f"cp{codepage}", "replace")
        else:
            return None
    except (CompoundFileError, struct.error, LookupError):
        return None
    return " ".join(title.replace("\x00", " ").split()) or None
