"""The structures of a Word 97-2003 file ([MS-DOC]) that doc_text.py reads, from its WordDocument
and table streams: the FIB (where everything is), the piece table (where the text is), the
paragraphs' properties (styles, tables, lists, outline levels) and the style sheet's names.

Every offset and count comes from the file, so each is checked against the bytes it points into;
a structure that does not fit is damage (struct.error or ValueError), never a read past a stream.
"""

from __future__ import annotations

import bisect
import re
import struct
from dataclasses import dataclass, field

from minirag.errors import ConversionFailed

WORD97, WORD95 = 0xA5EC, 0xA5DC
_ENCRYPTED, _TABLE_1 = 0x0100, 0x0200
# FibRgFcLcb97's (offset, length) pairs, by their index among the pairs.
STSHF, PLCF_AND_TXT, PLCF_HDD, PLCF_BTE_PAPX, CLX = 1, 5, 11, 13, 33
# The stories, in CP order, as FibRgLw97 counts their characters (its 4th to 11th numbers).
STORIES = ("text", "footnotes", "headers", "macros", "comments", "endnotes", "textboxes", "header_textboxes")
_FKP = 512
# Paragraph sprms read here: in a table, the row's end mark, the table depth, a nested table's row
# end, the outline level, a list's level and list.
_IN_TABLE, _TTP, _ITAP, _INNER_TTP, _OUTLINE, _ILVL, _ILFO = 0x2416, 0x2417, 0x6649, 0x244C, 0x2640, 0x260A, 0x460B
_INNER_CELL = 0x244B  # a nested table's cell ends at this paragraph's mark (its cells have no \x07)
_OPERAND = {0: 1, 1: 1, 2: 2, 3: 4, 4: 2, 5: 2, 7: 3}  # operand bytes by a sprm's spra (6: sized)
_TDEF_TABLE = 0xD608
_VERT_MERGE = 0xD62B  # a row's cell (its index) merged down: 1 continues the merge from the row above
_HEADING_NAME = re.compile(r"heading\s*(\d)$", re.IGNORECASE)
_CODE_NAMES = frozenset({"source code", "preformatted text", "html preformatted", "macro text", "plain text", "code",
                         "code block"})
_STI_TITLE = 62
_MISSING = "\x01"  # Word's mark for an object's place: what the page reader drops


@dataclass(frozen=True)
class Fib:
    table: str  # the table stream's name
    counts: dict[str, int]  # characters per story
    pairs: tuple[int, ...]  # FibRgFcLcb: offset, length, offset, length...

    def pair(self, index: int) -> tuple[int, int]:
        if 2 * index + 1 >= len(self.pairs):
            return 0, 0
        return self.pairs[2 * index], self.pairs[2 * index + 1]


def read_fib(word: bytes, name: str) -> Fib:
    ident, = struct.unpack_from("<H", word, 0)
    flags, = struct.unpack_from("<H", word, 0x0A)
    if ident == WORD95:
        raise ConversionFailed(f"{name}: a Word 6 or Word 95 document, which is not read; save it as DOCX")
    if ident != WORD97:
        raise ConversionFailed(f"{name}: not a Word 97-2003 document")
    if flags & _ENCRYPTED:
        raise ConversionFailed(f"{name}: encrypted (password required)")
    csw, = struct.unpack_from("<H", word, 32)
    at = 34 + csw * 2
    cslw, = struct.unpack_from("<H", word, at)
    counts = dict(zip(STORIES, struct.unpack_from("<8I", word, at + 2 + 3 * 4), strict=True))
    at += 2 + cslw * 4
    count, = struct.unpack_from("<H", word, at)
    if count <= CLX:
        raise ConversionFailed(f"{name}: not a Word 97-2003 document (its FIB is too short)")
    return Fib("1Table" if flags & _TABLE_1 else "0Table", counts, struct.unpack_from(f"<{count * 2}I", word, at + 2))


@dataclass(frozen=True)
class Piece:
    cp: int  # its first character position
    end: int
    fc: int  # the byte offset of its first character in the WordDocument stream
    compressed: bool  # 8-bit text (windows-1252), else UTF-16


def pieces(clx: bytes, total: int) -> list[Piece]:
    """The piece table of CPs 0 to `total`, from the CLX (formatting entries before it skipped)."""
    at = 0
    while at < len(clx) and clx[at] == 1:
        size, = struct.unpack_from("<h", clx, at + 1)
        at += 3 + max(0, size)
    if at >= len(clx) or clx[at] != 2:
        raise ValueError("no piece table")
    size, = struct.unpack_from("<I", clx, at + 1)
    plc = clx[at + 5:at + 5 + size]
    count = (len(plc) - 4) // 12
    cps = struct.unpack_from(f"<{count + 1}I", plc)
    found: list[Piece] = []
    covered = 0  # CPs already given: a piece that goes back gives only what lies past them
    for index in range(count):
        start, end = cps[index], min(cps[index + 1], total)
        if start >= total:
            break
        skipped = max(0, covered - start)
        if end > start + skipped:
            fc, = struct.unpack_from("<I", plc, (count + 1) * 4 + index * 8 + 2)
            compressed = bool(fc & 0x40000000)
            first = ((fc & 0x3FFFFFFF) // 2 if compressed else fc) + skipped * (1 if compressed else 2)
            found.append(Piece(start + skipped, end, first, compressed))
            covered = end
    return found


def piece_text(word: bytes, table: list[Piece]) -> str:
    """The pieces' text, one character per CP: a character past U+FFFF (two CPs, a surrogate pair)
    stays two halves, so that an index into the text is a CP (`joined` makes them one)."""
    parts = []
    position = 0
    for piece in table:
        if piece.cp > position:  # CPs no piece gives (damage): held by a character the page drops
            parts.append(_MISSING * (piece.cp - position))
        length = piece.end - piece.cp
        if piece.compressed:
            text = word[piece.fc:piece.fc + length].decode("cp1252", "replace")
        else:
            raw = word[piece.fc:piece.fc + 2 * length]
            text = raw.decode("utf-16-le", "replace")
            if len(text) != len(raw) // 2:
                text = "".join(map(chr, struct.unpack(f"<{len(raw) // 2}H", raw[:len(raw) // 2 * 2])))
        parts.append(text.ljust(length, _MISSING))  # a piece past the stream's end: its CPs still counted
        position = piece.end
    return "".join(parts)


def joined(text: str) -> str:
    """`text` with its surrogate pairs made the characters they stand for (a lone half U+FFFD)."""
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")


@dataclass(frozen=True)
class Paragraph:
    """The properties of one paragraph this reader uses."""

    style: int = 0
    in_table: bool = False
    row_end: bool = False  # the paragraph is a table row's end mark
    inner_row_end: bool = False  # ... a nested table row's
    inner_cell_end: bool = False  # the paragraph ends a nested table's cell
    depth: int = 1  # the table's nesting (1: a table in the body)
    outline: int | None = None
    listed: int = 0  # the list override (ilfo) of a list item, from 1
    level: int = 0
    merged: frozenset[int] = frozenset()  # a row end's cells that continue a merge down


_PLAIN = Paragraph()


class ParagraphTable:
    """Each paragraph's properties, found by the file offset of its paragraph mark."""

    def __init__(self, word: bytes, table: bytes, fib: Fib, text_pieces: list[Piece]) -> None:
        self.pieces = text_pieces
        self.piece_starts = [piece.cp for piece in text_pieces]
        runs: list[tuple[int, int, Paragraph]] = []
        for fkp in formatted_pages(word, table, fib, PLCF_BTE_PAPX):
            runs += _fkp_runs(fkp)
        runs.sort(key=lambda run: run[0])
        self.starts = [run[0] for run in runs]
        self.runs = runs

    def at(self, cp: int) -> Paragraph:
        """The properties of the paragraph whose mark is at `cp`."""
        index = bisect.bisect_right(self.piece_starts, cp) - 1
        if index < 0:
            return _PLAIN
        piece = self.pieces[index]
        fc = piece.fc + (cp - piece.cp) * (1 if piece.compressed else 2)
        at = bisect.bisect_right(self.starts, fc) - 1
        if at < 0 or not self.runs[at][0] <= fc < self.runs[at][1]:
            return _PLAIN
        return self.runs[at][2]


def formatted_pages(word: bytes, table: bytes, fib: Fib, pair: int) -> list[bytes]:
    """The formatted disk pages (FKPs: paragraphs' or characters' properties) that the PlcfBte at
    `pair` names, each read once: a table naming one page a million times is no bomb."""
    offset, length = fib.pair(pair)
    plc = table[offset:offset + length]
    count = (len(plc) - 4) // 8
    pages: dict[int, bytes] = {}
    for index in range(max(0, count)):
        page = struct.unpack_from("<I", plc, (count + 1) * 4 + index * 4)[0] & 0x3FFFFF
        fkp = word[page * _FKP:page * _FKP + _FKP]
        if len(fkp) == _FKP and page not in pages:
            pages[page] = fkp
    return list(pages.values())


def _fkp_runs(fkp: bytes) -> list[tuple[int, int, Paragraph]]:
    runs = []
    count = fkp[_FKP - 1]
    if 4 * (count + 1) + 13 * count > _FKP - 1:
        return []
    bounds = struct.unpack_from(f"<{count + 1}I", fkp)
    for index in range(count):
        offset = fkp[4 * (count + 1) + 13 * index] * 2
        paragraph = _PLAIN
        if offset:
            size = fkp[offset] * 2 - 1 if fkp[offset] else fkp[offset + 1] * 2
            start = offset + 1 if fkp[offset] else offset + 2
            data = fkp[start:start + size]
            if len(data) >= 2:
                paragraph = _paragraph(data)
        runs.append((bounds[index], bounds[index + 1], paragraph))
    return runs


def sprms(data: bytes, at: int = 0):
    """(sprm, operand) of each property modifier in a grpprl from `at`, until one does not fit."""
    while at + 2 <= len(data):
        sprm, = struct.unpack_from("<H", data, at)
        at += 2
        spra = sprm >> 13
        if spra == 6:
            if sprm == _TDEF_TABLE:
                if at + 2 > len(data):
                    return
                size = struct.unpack_from("<H", data, at)[0] + 1
            else:
                size = data[at] + 1 if at < len(data) else 0
        else:
            size = _OPERAND[spra]
        if at + size > len(data):
            return
        yield sprm, data[at:at + size]
        at += size


def _paragraph(data: bytes) -> Paragraph:
    """A PAPX's style (its first two bytes) and the sprms read here."""
    style, = struct.unpack_from("<H", data, 0)
    values: dict[int, int] = {}
    merged: set[int] = set()
    for sprm, operand in sprms(data, 2):
        spra = sprm >> 13
        if len(operand) in (1, 2, 4) and spra != 6:
            values[sprm] = int.from_bytes(operand, "little", signed=sprm == _ILFO)
        elif sprm == _VERT_MERGE and len(operand) == 3 and operand[2] == 1:
            merged.add(operand[1])
        elif sprm == _TDEF_TABLE:
            merged |= _continued_cells(operand[2:])
    return Paragraph(style=style, in_table=bool(values.get(_IN_TABLE)), row_end=bool(values.get(_TTP)),
                     inner_row_end=bool(values.get(_INNER_TTP)),
                     inner_cell_end=bool(values.get(_INNER_CELL)), depth=max(1, values.get(_ITAP, 1)),
                     outline=values.get(_OUTLINE), listed=max(0, values.get(_ILFO, 0)), level=min(values.get(_ILVL, 0), 8),
                     merged=frozenset(merged))


def _continued_cells(definition: bytes) -> set[int]:
    """The cells a row definition (sprmTDefTable: a cell count, the cells' edges, then a TC80 of
    20 bytes each) marks as continuing a merge down: its TC80's vertMerge bits are 1."""
    if not definition:
        return set()
    cells = definition[0]
    first = 1 + 2 * (cells + 1)
    found = set()
    for index in range(cells):
        at = first + 20 * index
        if at + 2 > len(definition):
            break
        flags, = struct.unpack_from("<H", definition, at)
        if (flags >> 5) & 3 == 1:
            found.add(index)
    return found


@dataclass(frozen=True)
class Styles:
    headings: dict[int, int]  # style index -> heading level
    code: frozenset[int]  # style indexes of code
    # style index -> whether its character properties hide text, for the styles whose own or
    # inherited properties say (sprmCFVanish); a style that never says leaves it to what it is on
    vanish: dict[int, bool] = field(default_factory=dict)


VANISH = 0x083C  # sprmCFVanish: hidden text. Operand 0 off, 1 on, 0x80 the style's, 0x81 not the style's
_NO_STYLE = 0x0FFF
_CHPX_UPX = {1: 1, 2: 0, 3: 2}  # a style's character properties: which of its UPXs, by its kind (stk)


def toggled(operand: int, inherited: bool) -> bool:
    """A toggle property's value (sprmCFVanish, sprmCFBold...) given the one it would inherit."""
    return {0: False, 1: True, 0x80: inherited, 0x81: not inherited}.get(operand, bool(operand & 1))


def styles(table: bytes, fib: Fib) -> Styles:
    """The style sheet's headings (built-in headings 1-9 and Title, or a style named `heading N`),
    code styles (by name, as the DOCX reader maps them) and the styles that hide their text."""
    offset, length = fib.pair(STSHF)
    data = table[offset:offset + length]
    headings: dict[int, int] = {}
    code: set[int] = set()
    if len(data) < 6:
        return Styles(headings, frozenset(code))
    header, = struct.unpack_from("<H", data, 0)
    count, base = struct.unpack_from("<HH", data, 2)
    at = 2 + header
    own_vanish: dict[int, int] = {}
    based_on: dict[int, int] = {}
    for index in range(count):
        if at + 2 > len(data):
            break
        size, = struct.unpack_from("<H", data, at)
        std = data[at + 2:at + 2 + size]
        at += 2 + size
        if len(std) < base + 2:
            continue
        sti = struct.unpack_from("<H", std, 0)[0] & 0x0FFF
        kind, = struct.unpack_from("<H", std, 2)
        based_on[index] = kind >> 4
        chars, = struct.unpack_from("<H", std, base)
        chpx = _style_upx(std, base + 2 + 2 * chars + 2, std[4] & 0x0F, _CHPX_UPX.get(kind & 0x0F))
        if (vanish := next((operand[0] for sprm, operand in sprms(chpx) if sprm == VANISH), None)) is not None:
            own_vanish[index] = vanish
        name = std[base + 2:base + 2 + 2 * chars].decode("utf-16-le", "replace").strip().lower()
        named = _HEADING_NAME.match(name)
        if 1 <= sti <= 9:
            headings[index] = sti
        elif named:
            headings[index] = max(1, int(named.group(1)))
        elif sti == _STI_TITLE or name == "title":
            headings[index] = 1
        elif name in _CODE_NAMES:
            code.add(index)
    return Styles({index: min(level, 6) for index, level in headings.items()}, frozenset(code),
                  _inherited_vanish(own_vanish, based_on))


def _style_upx(std: bytes, at: int, count: int, wanted: int | None) -> bytes:
    """The `wanted`-th of a style's `count` property blocks (UPXs, each its size then its bytes,
    padded to an even length) from `at`; empty where it has none or it does not fit."""
    for index in range(count if wanted is not None else 0):
        if at + 2 > len(std):
            break
        size, = struct.unpack_from("<H", std, at)
        if index == wanted:
            return std[at + 2:at + 2 + size]
        at += 2 + size + (size & 1)
    return b""


def _inherited_vanish(own: dict[int, int], based_on: dict[int, int]) -> dict[int, bool]:
    """Each style's sprmCFVanish as it comes out of its chain of base styles, for the styles whose
    chain sets it. A chain that loops (damage) ends where it meets a style twice."""
    resolved: dict[int, bool | None] = {}

    def value(index: int) -> bool | None:
        chain: list[int] = []
        while index not in resolved and index != _NO_STYLE and index not in chain and len(chain) < 16:
            chain.append(index)
            index = based_on.get(index, _NO_STYLE)
        inherited = resolved.get(index)
        for style in reversed(chain):
            if style in own:
                inherited = toggled(own[style], bool(inherited))
            resolved[style] = inherited
        return resolved.get(chain[0]) if chain else inherited

    return {index: hidden for index in based_on if (hidden := value(index)) is not None}
