"""RTF (.rtf: WordPad's, TextEdit's and Word's interchange format) -> Markdown, as the page reads.

One pass over rtf_tokens' tokens, with a stack of group states (font, hidden text, paragraph
style, table and list properties: RTF scopes every property to its group):

- characters: `\\'hh` bytes in the code page of the font in force (its `\\fcharset`, else the
  document's `\\ansicpg`), double-byte ones paired; `\\uN` Unicode with its `\\ucN` fallback
  skipped; the typographer's words (`\\emdash`, `\\ldblquote`, `\\~`) as their characters;
- paragraphs by `\\par`; a paragraph in a style named *heading N* (or with an outline level)
  is a heading; one with list text (`\\listtext`, `\\pntext`) a list item, nested by `\\ilvl`;
  one whose every character is in a fixed-pitch font a line of code, unless the whole document
  is in one;
- tables (`\\cell`, `\\row`) become pipe tables; a nested table's cells read inside their cell;
- a hyperlink field reads as a Markdown link; page-number and page-reference fields as nothing;
- a footnote reads as its text in parentheses where it is cited (note_text.py); page headers, footers and
  comments are placed as a DOCX's are (docx_margins.Margins);
- what a reader of the page does not see goes: the font, colour and style tables, pictures,
  hidden text (`\\v`, or a character or paragraph style whose text is `\\v`, unless the run's own
  `\\v0` shows it) and deleted text, bookmarks, index entries, and every `{\\*\\...}` destination
  this reader does not know (which the specification says to skip).

`{\\info{\\title ...}}` is the document's title. Groups nest at most MAX_DEPTH deep; text deeper
is not read.
"""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass, field

from minirag.errors import ConversionFailed
from minirag.ingest.cell_tables import Table
from minirag.ingest.docx_margins import Margins
from minirag.ingest.note_text import cited
from minirag.ingest.odf_margins import MAX_PAGE_LINE_WORDS
from minirag.ingest.paragraph_blocks import Block, blocks_markdown
from minirag.ingest.rtf_tokens import (
    CHARACTER_SETS,
    DEFAULT_CODEC,
    Token,
    code_page,
    font_charset,
    tokens,
)
from minirag.ingest.text_repair import is_page_number

MAX_DEPTH = 128  # groups; real documents nest a few dozen at most
# Of a field's code, what is read: its kind and a link's address (a code split over thousands of
# {\*\fldinst} groups was copied whole at each one).
MAX_INSTRUCTION = 8_192
_DOUBLE_BYTE = frozenset({"cp932", "cp936", "cp949", "cp950", "johab", "gb18030", "euc_jp", "euc_kr"})
# Destinations whose text is not the page's (the specification's, and Word's, common ones).
_SKIPPED = frozenset({
    "colortbl", "pict", "listtable", "listoverridetable", "revtbl", "rsidtbl", "xe", "tc", "tcn", "txe",
    "template", "filetbl", "docvar", "userprops", "ftnsep", "ftnsepc", "ftncn", "aftnsep", "aftnsepc", "aftncn",
    "nonshppict", "shprslt", "nonesttables", "objdata", "objclass", "objname", "datafield", "sp", "pn", "pntxta", "pntxtb", "bkmkstart",
    "bkmkend", "atnid", "atnref", "atndate", "atntime", "atnicn", "keywords", "comment", "doccomm", "author",
    "operator", "subject", "company", "category", "manager", "hlinkbase", "creatim", "revtim", "printim",
    "buptim", "themedata", "colorschememapping", "latentstyles", "datastore", "xmlnstbl", "generator",
    "mmathPr", "fldtype", "formfield", "ffdeftext", "ffformat", "ffhelptext", "ffstattext", "ffentrymcr",
    "ffexitmcr", "ffname", "ffl", "stylesheet_ext", "panose", "falt", "fname", "passwordhash", "password",
    "background", "pgdsctbl", "wgrffmtfilter", "defchp", "defpap",
})
# Starred destinations whose text is read (the rest are skipped, as the `\*` asks).
# (A nested table's row properties hold its \nestrow: read for that, they hold no text.)
_STARRED_READ = frozenset({"fldinst", "annotation", "atnauthor", "shpinst", "shptxt", "footnote", "nesttableprops"})
_HEADERS = {name: side for side in ("header", "footer") for name in (side, f"{side}l", f"{side}r", f"{side}f")}
_CHARACTERS = {"emdash": "\u2014", "endash": "\u2013", "emspace": " ", "enspace": " ", "qmspace": " ",
               "bullet": "\u2022", "lquote": "\u2018", "rquote": "\u2019", "ldblquote": "\u201c",
               "rdblquote": "\u201d", "tab": "\t", "line": "\n", "page": "\n", "column": "\n"}
_SYMBOLS = {"~": " ", "_": "-", "-": "", "\\": "\\", "{": "{", "}": "}", "\t": "\t", ":": "", "|": ""}
_HEADING_STYLE = re.compile(r"heading\s*(\d)", re.IGNORECASE)
_VOLATILE_FIELD = re.compile(r"\s*(?:PAGE|PAGEREF|NUMPAGES|SECTIONPAGES|TOC|DATE|TIME|PRINTDATE)\b", re.IGNORECASE)
_PAGE_FIELD = re.compile(r"\s*(?:PAGE|NUMPAGES|SECTIONPAGES)\b", re.IGNORECASE)
_HYPERLINK = re.compile(r'\s*HYPERLINK\s+"?((?:https?|ftp|mailto):[^"\s]+)', re.IGNORECASE)


@dataclass
class _Font:
    codec: str | None = None
    fixed: bool = False
    name: list[str] = field(default_factory=list)


@dataclass
class _Capture:
    """Text a destination holds apart from the body: a footnote, header, comment, field code."""

    kind: str
    pieces: list[str] = field(default_factory=list)
    paged: set[int] = field(default_factory=set)  # the header's or footer's lines that hold the page's number
    _lines: int = 0  # line breaks in the pieces counted so far ...
    _counted: int = 0  # ... which are the first this many

    def page_number(self) -> None:
        self._lines += sum(piece.count("\n") for piece in self.pieces[self._counted:])
        self._counted = len(self.pieces)
        self.paged.add(self._lines)


@dataclass
class _Field:
    instruction: str = ""
    start: int | None = None  # where its result's text begins in the paragraph's pieces
    paragraph: int = -1  # which paragraph that was


@dataclass
class _State:
    """The properties one group holds; a `{` copies its parent's."""

    destination: str = ""  # "" is the body; else the table or capture being read
    first: bool = True  # nothing read yet in this group: a destination word may come
    star: bool = False  # the group began `{\*`
    capture: _Capture | None = None
    field: _Field | None = None
    font: int = 0
    hidden: bool = False  # what the group's text is now: hidden (\v, a hiding style) or a tracked deletion
    vanish: bool | None = None  # its own \v or \v0; None: as its styles say
    deleted: bool = False
    char_style: int = 0  # \csN
    uc: int = 1  # characters that follow a \uN for readers without Unicode
    style: int = 0
    outline: int | None = None
    in_table: bool = False
    nested: bool = False  # in a table inside a table's cell (\itap2 and deeper)
    level: int = 0
    list_id: int = 0  # \lsN: the list override a paragraph's item belongs to
    # {\upr{ANSI text}{\*\ud{Unicode text}}} writes a text twice: a child of such a group is read
    # only when it is the \*\ud one.
    upr_group: bool = False
    upr: bool = False
    raised: bool = False  # \super, or \upN above the line: a note's number or an exponent

    def child(self) -> _State:
        child = _State(**self.__dict__)
        child.first, child.star, child.upr, child.upr_group = True, False, self.upr_group, False
        return child


@dataclass
class _StyleEntry:
    """A stylesheet entry being read: a paragraph style (`\\sN`) or a character one (`\\*\\csN`)."""

    kind: str = "s"
    number: int = 0
    name: list[str] = field(default_factory=list)
    outline: int | None = None
    hidden: bool = False  # its text is \v: Word and LibreOffice hide what it is applied to


class _Reader:
    def __init__(self, raw_utf8: bool) -> None:
        self.raw_utf8 = raw_utf8  # stray 8-bit bytes are UTF-8 (the file is valid UTF-8), not the code page
        self.codec = DEFAULT_CODEC
        self.default_font = 0
        self.fonts: dict[int, _Font] = {}
        self.font_entry: _Font | None = None
        self.styles: dict[int, tuple[str, int | None]] = {}  # paragraph style number -> (name, outline level)
        self.hiding_styles: set[tuple[str, int]] = set()  # ("s" or "cs", number) of a style whose text is \v
        self.style_entry: _StyleEntry | None = None
        self.title: str | None = None
        self.state = _State()
        self.stack: list[_State] = []
        self.skipping = 0  # depth inside a skipped group
        self.fallback = 0  # fallback characters of a \uN still to skip
        self.high_surrogate = ""
        self.pending = bytearray()  # \'hh bytes not yet decoded
        self.pending_codec = DEFAULT_CODEC
        self.pieces: list[str] = []  # the body paragraph being read
        self.fixed_chars = self.other_chars = 0
        self.paragraphs = 0
        self.marker = ""
        self.blocks: list[Block] = []
        self.table = Table()
        self.headers: list[str] = []
        self.footers: list[str] = []
        self.margin_lines: set[tuple[str, str]] = set()  # ("header" or "footer", a line) kept
        self.comments: list[str] = []
        self.author = ""

    # --- the token loop -------------------------------------------------------------------

    def read(self, source: str) -> None:
        for token in tokens(source):
            kind = token.kind
            if self.skipping:
                if kind == "{":
                    self.skipping += 1
                elif kind == "}":
                    self.skipping -= 1
                    if not self.skipping:
                        self._close()
                continue
            if kind != "byte" and self.pending:
                consumed = self._flush(token.text if kind == "text" else "")
                if consumed:
                    token = Token("text", token.text[consumed:])
            if kind == "{":
                self.fallback = 0
                if len(self.stack) >= MAX_DEPTH:
                    self.stack.append(self.state)
                    self.skipping = 1
                    continue
                self.stack.append(self.state)
                self.state = self.state.child()
            elif kind == "}":
                self.fallback = 0
                if not self.stack:
                    break
                self._close()
                if not self.stack:
                    break  # the document's group closed: what follows is not RTF
            elif kind == "symbol" and token.text == "*" and self.state.first:
                self.state.star = True
            elif self.state.first and self._destination(token):
                continue
            else:
                self.state.first = False
                self._token(token)
        if self.pending:
            self._flush("")
        self._end_paragraph()
        self._end_table()

    def _skip(self) -> None:
        self.skipping = 1

    def _destination(self, token: Token) -> bool:
        """Whether `token`, the first in its group, names a destination (handled here)."""
        state = self.state
        name = token.text if token.kind == "word" else ""
        parent = state.destination
        if state.upr and not (state.star and name == "ud"):
            self._skip()
            return True
        if name in ("upr", "ud"):  # the pair's group, and its Unicode half: read as their parent is
            state.upr_group = name == "upr"
            state.first = False
            return True
        if parent in ("fonttbl", "stylesheet", "info") and token.kind == "word":
            if parent == "info":
                if name == "title":
                    state.capture, state.destination = _Capture("title"), "capture"
                else:
                    self._skip()
                state.first = False
                return True
            if state.star and not (parent == "stylesheet" and name == "cs"):
                self._skip()
                return True
            if parent == "stylesheet":
                self.style_entry = _StyleEntry()
            return False
        if not name:
            if state.star:
                self._skip()
                return True
            return False
        if name in ("fonttbl", "stylesheet", "info"):
            state.destination = name
        elif name in _SKIPPED or (state.star and name not in _STARRED_READ):
            self._skip()
        elif name in _HEADERS or name in ("footnote", "annotation", "atnauthor", "listtext", "pntext", "fldinst"):
            state.capture, state.destination = _Capture(_HEADERS.get(name, name)), "capture"
        elif name == "field":
            state.field = _Field()
        elif name == "fldrslt":
            self._field_result()
        else:
            return False
        state.first = False
        return True

    def _field_result(self) -> None:
        state = self.state
        record = state.field
        if record is None:
            return
        if _VOLATILE_FIELD.match(record.instruction):
            if state.capture is not None and _PAGE_FIELD.match(record.instruction):
                state.capture.page_number()
            self._skip()
            return
        if _HYPERLINK.match(record.instruction) and state.capture is None and state.destination == "":
            record.start, record.paragraph = len(self.pieces), self.paragraphs

    def _close(self) -> None:
        closing, self.state = self.state, self.stack.pop()
        capture = closing.capture
        if capture is not None and capture is not self.state.capture:
            self._captured(capture)
        record = closing.field
        if record is not None and record is not self.state.field and record.start is not None:
            self._link(record)

    def _captured(self, capture: _Capture) -> None:
        text = "".join(capture.pieces)
        if capture.kind == "fldinst":
            record = self.state.field
            if record is not None and len(record.instruction) < MAX_INSTRUCTION:  # a link's address at most
                record.instruction += text[:MAX_INSTRUCTION - len(record.instruction)]
            return
        line = " ".join(text.split())
        if capture.kind == "title":
            self.title = line or self.title
        elif capture.kind == "atnauthor":
            self.author = line
        elif capture.kind == "annotation" and line:
            self.comments.append(f"Comment by {self.author}: {line}" if self.author else f"Comment: {line}")
        elif capture.kind in ("listtext", "pntext"):
            if self.state.capture is not None:
                self.state.capture.pieces.append(text)
            else:
                self.marker = line
        elif capture.kind == "footnote" and line:
            self._emit(cited([line]))
        elif capture.kind in ("header", "footer"):
            found = self.headers if capture.kind == "header" else self.footers
            for number, part in enumerate(text.split("\n")):
                part = " ".join(part.split())
                words = sum(1 for word in part.split() if any(ch.isalnum() for ch in word))
                if not part or is_page_number(part) or (number in capture.paged and words <= MAX_PAGE_LINE_WORDS):
                    continue
                if (capture.kind, part) not in self.margin_lines:
                    self.margin_lines.add((capture.kind, part))
                    found.append(part)

    def _link(self, record: _Field) -> None:
        if record.paragraph != self.paragraphs or record.start is None or record.start > len(self.pieces):
            return
        found = _HYPERLINK.match(record.instruction)
        label = " ".join("".join(self.pieces[record.start:]).split())
        if found and label and label != found.group(1):
            del self.pieces[record.start:]
            self.pieces.append(f"[{label}]({found.group(1)})")

    # --- one token ------------------------------------------------------------------------

    def _token(self, token: Token) -> None:
        state = self.state
        if token.kind == "text":
            self._text(token.text)
        elif token.kind == "byte":
            if self.fallback:
                self.fallback -= 1
            elif not state.hidden:
                codec = self._codec()
                if self.pending and codec != self.pending_codec:
                    self._flush("")
                self.pending_codec = codec
                self.pending.append(ord(token.text))
        elif token.kind == "symbol":
            if self.fallback:
                self.fallback -= 1
            elif token.text in ("\n", "\r"):
                self._word("par", None)
            elif token.text in _SYMBOLS and state.destination not in ("fonttbl", "stylesheet"):
                self._emit(_SYMBOLS[token.text])
        elif self.fallback:
            self.fallback -= 1
        else:
            self._word(token.text, token.param)

    def _word(self, word: str, param: int | None) -> None:
        state = self.state
        if state.destination == "fonttbl":
            self._font_word(word, param)
            return
        if state.destination == "stylesheet":
            entry = self.style_entry
            if entry is not None and word in ("s", "cs"):
                entry.kind, entry.number = word, param or 0
            elif entry is not None and word == "outlinelevel":
                entry.outline = param
            elif entry is not None and word == "v":
                entry.hidden = param != 0
            return
        if word == "u" and param is not None:
            self._unicode(param)
        elif word in _CHARACTERS:
            self._emit(_CHARACTERS[word])
        elif word in ("par", "sect"):
            if state.capture is not None:
                state.capture.pieces.append("\n")
            else:
                self._end_paragraph()
        elif word in ("cell", "row", "nestcell", "nestrow") and state.capture is not None:
            state.capture.pieces.append(" ")
        elif word in ("cell", "nestcell"):
            self.table.paragraph(self._take_paragraph()[0], nested=word == "nestcell")
            if word == "nestcell":
                self.table.nested_cell()
            else:
                self.table.end_cell()
        elif word == "row":
            self.table.end_cell(row=True)
        elif word == "nestrow":
            self.table.nested_row()
        elif word in ("trowd", "clvmrg", "cellx") and not state.nested:
            self.table.define(word)
        elif word == "pard":
            state.style, state.outline, state.in_table, state.nested, state.level = 0, None, False, False, 0
            state.list_id = 0
            self._shown_or_not()
        elif word == "plain":
            state.font, state.vanish, state.deleted, state.char_style = self.default_font, None, False, 0
            state.raised = False
            self._shown_or_not()
        elif word in ("super", "up"):
            state.raised = word == "super" or param is None or param > 0  # a bare \up raises 3 points
        elif word in ("nosupersub", "sub", "dn"):
            state.raised = False
        elif word == "f":
            state.font = param or 0
        elif word == "v":
            state.vanish = param != 0
            self._shown_or_not()
        elif word == "deleted":
            state.deleted = param != 0
            self._shown_or_not()
        elif word == "uc":
            state.uc = max(0, param or 0)
        elif word == "s":
            state.style = param or 0
            self._shown_or_not()
        elif word == "cs":
            state.char_style = param or 0
            self._shown_or_not()
        elif word == "outlinelevel":
            state.outline = param
        elif word == "intbl":
            state.in_table = True
        elif word == "itap":
            state.in_table, state.nested = (param or 0) > 0, (param or 0) > 1
        elif word == "ilvl":
            state.level = min(max(param or 0, 0), 8)
        elif word == "ls":
            state.list_id = param or 0
        elif word == "deff":
            self.default_font = state.font = param or 0
        elif word in CHARACTER_SETS:
            self.codec = CHARACTER_SETS[word]
        elif word == "ansicpg":
            self.codec = code_page(param) or self.codec
        elif word == "chpgn" and state.capture is not None:
            state.capture.page_number()

    def _font_word(self, word: str, param: int | None) -> None:
        if word == "f":
            self.font_entry = self.fonts.setdefault(param or 0, _Font())
        elif self.font_entry is None:
            return
        elif word == "fcharset":
            self.font_entry.codec = font_charset(param) or self.font_entry.codec
        elif word == "cpg":
            self.font_entry.codec = code_page(param) or self.font_entry.codec
        elif word == "fmodern" or (word == "fprq" and param == 1):
            self.font_entry.fixed = True

    def _text(self, text: str) -> None:
        text = text.replace("\r", "").replace("\n", "")
        if self.fallback:
            skipped = min(self.fallback, len(text))
            self.fallback -= skipped
            text = text[skipped:]
        if not text:
            return
        if not text.isascii():
            raw = text.encode("latin-1")
            text = raw.decode("utf-8" if self.raw_utf8 else self._codec(), errors="replace")
        destination = self.state.destination
        if destination == "fonttbl":
            self._font_name(text)
        elif destination == "stylesheet":
            self._style_name(text)
        elif not self.state.hidden:
            self._emit(text.translate(_SUPERSCRIPT) if self.state.raised and _DIGITS.fullmatch(text) else text)

    def _font_name(self, text: str) -> None:
        if self.font_entry is None:
            return
        self.font_entry.name.append(text)
        if ";" in text:
            name = "".join(self.font_entry.name).split(";")[0].strip().lower()
            if any(mark in name for mark in ("courier", "mono", "consol", "menlo", "monaco", "lucida console")):
                self.font_entry.fixed = True
            self.font_entry = None

    def _style_name(self, text: str) -> None:
        entry = self.style_entry
        if entry is None:
            return
        entry.name.append(text)
        if ";" in text:
            if entry.kind == "s":
                self.styles[entry.number] = ("".join(entry.name).split(";")[0].strip(), entry.outline)
            if entry.hidden:
                self.hiding_styles.add((entry.kind, entry.number))
            self.style_entry = None

    def _shown_or_not(self) -> None:
        """The group's text hidden or not: a tracked deletion, else its own \\v or \\v0, else what
        its character style and its paragraph's style say."""
        state = self.state
        styled = ("cs", state.char_style) in self.hiding_styles or ("s", state.style) in self.hiding_styles
        state.hidden = state.deleted or (state.vanish if state.vanish is not None else styled)

    def _unicode(self, value: int) -> None:
        self.fallback = self.state.uc
        if value < 0:
            value += 65536  # a signed 16-bit number, as Word writes those past 32767
        if not 0 < value < 0x110000:  # some writers give a code point past 65535 whole; past Unicode is none
            return
        if 0xD800 <= value < 0xDC00:
            self.high_surrogate = chr(value)
            return
        character = chr(value)
        if 0xDC00 <= value < 0xE000 and self.high_surrogate:
            character = (self.high_surrogate + character).encode("utf-16", "surrogatepass").decode("utf-16")
        self.high_surrogate = ""
        if not self.state.hidden:
            self._text_out(character)

    def _text_out(self, text: str) -> None:
        if self.state.destination == "fonttbl":
            self._font_name(text)
        elif self.state.destination == "stylesheet":
            self._style_name(text)
        else:
            self._emit(text)

    def _codec(self) -> str:
        font = self.fonts.get(self.state.font)
        return font.codec if font is not None and font.codec else self.codec

    def _flush(self, following: str) -> int:
        """Decode the pending bytes; returns how many characters of `following` text it took (the
        second byte of a double-byte character written as a plain character)."""
        data, codec = bytes(self.pending), self.pending_codec
        self.pending.clear()
        decoder = codecs.getincrementaldecoder(codec)("replace")
        text = decoder.decode(data)
        consumed = 0
        if codec in _DOUBLE_BYTE and decoder.getstate()[0] and following and ord(following[0]) < 0x100:
            text += decoder.decode(following[0].encode("latin-1"))
            consumed = 1
        text += decoder.decode(b"", final=True)
        self._text_out(text)
        return consumed

    # --- paragraphs and tables ------------------------------------------------------------

    def _emit(self, text: str) -> None:
        if not text or self.state.hidden:
            return
        state = self.state
        if state.capture is not None:
            state.capture.pieces.append(text)
            return
        if state.destination:
            return
        self.pieces.append(text)
        visible = len(text) - text.count(" ") - text.count("\t") - text.count("\n")
        if visible > 0:
            font = self.fonts.get(state.font)
            if font is not None and font.fixed:
                self.fixed_chars += visible
            else:
                self.other_chars += visible

    def _take_paragraph(self) -> tuple[str, str, bool]:
        """The paragraph read so far: its text, its list text, whether it is all in a fixed-pitch font."""
        taken = "".join(self.pieces), self.marker, self.fixed_chars > 0 and self.other_chars == 0
        self.pieces, self.marker, self.fixed_chars, self.other_chars = [], "", 0, 0
        return taken

    def _end_paragraph(self) -> None:
        state = self.state
        text, marker, code = self._take_paragraph()
        self.paragraphs += 1
        if state.in_table:
            self.table.paragraph(text, nested=state.nested)
            return
        self._end_table()
        level = self._heading_level()
        if not text.strip():
            self.blocks.append(Block("empty", ""))
        elif level:
            self.blocks.append(Block("h", " ".join(text.split()), level))
        elif marker:
            self.blocks.append(Block("item", text, state.level, marker, state.list_id))
        else:
            self.blocks.append(Block("code" if code else "p", text))

    def _heading_level(self) -> int:
        state = self.state
        style_name, style_outline = self.styles.get(state.style, ("", None))
        outline = state.outline if state.outline is not None else style_outline
        if outline is not None and 0 <= outline < 9:
            return min(outline + 1, 6)
        found = _HEADING_STYLE.match(style_name)
        if found:
            return min(max(int(found.group(1)), 1), 6)
        return 1 if style_name.lower() == "title" else 0

    def _end_table(self) -> None:
        if self.pieces and self.state.in_table:
            self.table.paragraph(self._take_paragraph()[0], nested=self.state.nested)
        if self.table.is_open():
            self.blocks += self.table.end()
            self.table = Table()


# Raised digits (a note's number, an exponent) as the superscripts they are: as plain digits they
# ran into the word before them (`Date::Parse1`). Raised letters (`3\\up6 rd`) stay letters.
_DIGITS = re.compile(r"[0-9 ]*[0-9][0-9 ]*")
_SUPERSCRIPT = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")


def rtf_to_markdown(data: bytes, name: str) -> tuple[str, str | None]:
    """The document's Markdown and its title (None where its information group names none)."""
    if not data.lstrip(b" \t\r\n\xef\xbb\xbf").startswith((b"{\\rtf", b"{\\urtf")):
        raise ConversionFailed(f"{name}: not an RTF file (it does not begin with {{\\rtf)")
    try:
        data.decode("utf-8")
        raw_utf8 = not data.isascii()
    except UnicodeDecodeError:
        raw_utf8 = False
    reader = _Reader(raw_utf8)
    reader.read(data.decode("latin-1"))
    body = blocks_markdown(reader.blocks)
    margins = Margins(headers=tuple(reader.headers), footers=tuple(reader.footers), comments=tuple(reader.comments))
    return margins.around(body), reader.title
