"""HTML -> Markdown in one walk over lxml's tree: headings, paragraphs, lists, tables, code, links.

markitdown's HTML path (BeautifulSoup's pure-Python parser, then markdownify)
took a fifth of a cold sync that should be spent embedding; lxml parses in C
and this walk does the rest (the times: docs/documents.md#formats). What chunking needs is kept: ATX headings (the
section structure), fenced code (atomic blocks), pipe tables (rows repeated
with their header), list items, and links as [text](href) (links.py drops the
in-page ones). Scripts, styles and form controls are dropped, and so is a ruby's reading (`<rt>`,
and the `<rp>` parentheses a browser that shows ruby hides): its base text is what a reader reads,
whole (`東<rt>とう</rt>京<rt>きょう</rt>` is 東京), as .docx's and .odt's readings are left out.
"""

from __future__ import annotations

import html as html_module
import re
from html import parser as html_parser
from itertools import islice

from minirag.errors import ConversionFailed
from minirag.ingest.csv_table import pipe_table
from minirag.ingest.generator_markup import read_as_shown
from minirag.ingest.page_chrome import left_out_by_markup, main_content
from minirag.ingest.table_spans import spread, table_cells, title_rows

_DROP = frozenset({"script", "style", "noscript", "template", "svg", "canvas", "iframe", "object", "embed",
                   "select", "button", "head", "title", "meta", "link", "input", "textarea", "rt", "rp"})
_READINGS = frozenset({"rt", "rp"})  # a ruby's; HTML lets their end tags go before the next or the ruby's end
_HEADINGS = {"h1": 1, "h2": 2, "h3": 3, "h4": 4, "h5": 5, "h6": 6}
_BLOCKS = frozenset({"p", "div", "section", "article", "main", "header", "footer", "nav", "aside", "figure",
                     "figcaption", "address", "details", "summary", "center", "fieldset", "legend", "body",
                     "html", "form", "caption", "dt", "dd", "hr", "tbody", "thead", "tfoot", "tr"})
_WRAPPERS = frozenset({"section", "article", "div", "header", "hgroup"})  # blocks a list item's heading may sit in
_SECTION_DEPTH = 3  # how far below a list item a heading is looked for (javadoc's: 2)
_CODE = frozenset({"code", "kbd", "samp", "tt", "var"})
_LINKED_BLOCKS = ("h1", "h2", "h3", "h4", "h5", "h6", "p", "div", "ul", "ol", "table", "pre", "blockquote", "section")
_SPACE = re.compile(r"[ \t\r\n\f\v\u00a0\u2000-\u200a\u202f\u205f\u3000]+")
_XML_DECLARATION = re.compile(r"^\s*<\?xml[^>]*\?>")
# A doctype with an internal subset (XHTML's, DocBook's): the HTML parser ends it at the first `>`,
# inside the subset, and reads the rest as text. Quoted values and comments may hold `]` and `>`, a
# comment a lone quote; a comment never closed runs to the end (and no doctype is matched) rather
# than being looked for again from each `<!--`.
_DOCTYPE_WITH_SUBSET = re.compile(
    r"""\s*+<!DOCTYPE\b[^\[>]*+\[(?:<!--(?:[^-]|-(?!->))*+(?:-->|\Z)|"[^"]*+"|'[^']*+'|[^\]"'])*+\]\s*+>""",
    re.IGNORECASE)
TAG_NAME = re.compile(r"<(/?)([A-Za-z][^\s/>]*+)")  # a tag's slash, if it closes, and its name
# A browser reads what follows `</body>` or `</html>` into the body; libxml2 put it beside the body or
# dropped it, so those end tags are taken out first.
_DOCUMENT_END = re.compile(r"</(?:body|html)\s*+>", re.IGNORECASE)
# An attribute as HTML's tag grammar (and markdown-it-py's HTML_TAG_RE) spells one.
_ATTRIBUTE = re.compile(r"\s++([A-Za-z_:][\w.:-]*+)(?:\s*+=\s*+(?:\"([^\"]*+)\"|'([^']*+)'|([^\s\"'=<>`]++)))?")
# A start tag this long is cut down to this many attributes, and those a reader of the page uses.
MAX_TAG_CHARS = 16_384
MAX_QUOTE_DEPTH = 8  # quotes inside quotes are marked this deep; deeper ones are part of the eighth
MAX_DEFINITION_DEPTH = 8  # list items and definitions inside others are indented this deep; deeper ones are not
MAX_TAG_ATTRIBUTES = 256
MAX_SECTION_TITLE_WORDS = 16  # a layout table's title row this short is its heading; a longer one is text
MAX_SIGNATURE_ROWS = 64  # a signature table has a row per parameter; a longer one is read as data
MAX_QUERY_CHARS = 100  # a link's query longer than this is data (a playground's code): the text alone
_LONG_TAG = re.compile(rf"<([A-Za-z][^\s/<>\"']*+)((?:\"[^\"]*+\"|'[^']*+'|[^<>\"'])"
                       rf"{{{MAX_TAG_CHARS},}}+)>")
_READ_ATTRIBUTES = frozenset({"hidden", "style", "role", "aria-hidden", "aria-modal", "aria-haspopup", "href", "src",
                              "alt", "title", "rel", "accesskey", "colspan", "rowspan", "start", "type", "value",
                              "open", "lang", "class", "id"})
_LANGUAGE = re.compile(r"(?:^|\s)(?:highlight|language|lang)-([\w+#.-]+)")
_BREAK = "\x00"  # a <br> inside inline text, turned into a newline when the text is flushed
# The start of a line of text that the chunker would read as structure: an ATX heading
# (chunking/blocks.py) or a code fence (chunking/fences.py, where a backtick fence's info holds no
# backtick, so a code span is none). Lines are stripped first. The chunker splits at no setext
# underline or list marker, so those stay as written.
_BLOCK_MARKER = re.compile(r"#{1,6}(?:[ \t]|$)|`{3,}[^`]*$|~{3,}")


def html_to_markdown(html: str) -> tuple[str, str | None]:
    """(markdown, <title> text or None). Raises ConversionFailed on markup lxml cannot read at all."""
    import lxml.html
    from lxml import etree

    html = _XML_DECLARATION.sub("", html, count=1).replace(_BREAK, "")
    if doctype := _DOCTYPE_WITH_SUBSET.match(html):
        html = html[doctype.end():]
    html = _LONG_TAG.sub(_fewer_attributes, _DOCUMENT_END.sub("", html))
    if not html.strip():
        return "", None
    parser = lxml.html.HTMLParser(huge_tree=True)
    try:
        root = lxml.html.document_fromstring(html, parser=parser)
    except etree.ParserError:  # lxml's only complaint: no element at all ("Document is empty")
        return "", None
    except ValueError as exc:
        raise ConversionFailed(f"cannot parse HTML ({exc})") from None
    if any("Excessive depth" in entry.message for entry in parser.error_log):
        # libxml2 stops at 2,048 levels (3,000 unclosed <font> tags), huge_tree or not, and its tree
        # holds nothing from there on: the text is read from the markup itself.
        return _flat_markup(html)
    title_el = root.find(".//title")
    title = _SPACE.sub(" ", title_el.text_content()).strip() if title_el is not None else ""
    writer = _Writer()
    read_as_shown(root)
    top = main_content(root)
    try:
        writer.block(top, join_labels=False)
    except RecursionError:  # nested past Python's stack (~300 levels): keep the text, lose the structure
        return _flat_text(top), title or None
    return writer.markdown("\n\n"), title or None


def tag_attributes(markup: str) -> dict[str, str]:
    """A start tag's attributes by lowercased name (the first of a name wins, as in HTML), values
    unescaped; one without a value is ''. Each value is read whole, so a name inside one is no
    attribute."""
    attributes: dict[str, str] = {}
    name = TAG_NAME.match(markup)
    for found in _ATTRIBUTE.finditer(markup, name.end() if name else 0):
        value = next((group for group in found.groups()[1:] if group is not None), "")
        attributes.setdefault(found.group(1).lower(), html_module.unescape(value))
    return attributes


def _fewer_attributes(tag: re.Match[str]) -> str:
    """A start tag too long for libxml2, which compares each attribute with every one before it
    (40,000 in one tag took 10 s): its first MAX_TAG_ATTRIBUTES, and those the readers look at."""
    attributes = tag_attributes(tag.group())
    kept = [name for n, name in enumerate(attributes) if n < MAX_TAG_ATTRIBUTES or name in _READ_ATTRIBUTES]
    return f"<{tag.group(1)}" + "".join(f' {name}="{html_module.escape(attributes[name])}"' for name in kept) + ">"


def _flat_text(top) -> str:
    """The text of `top` without its structure, walked without recursion: one line per block
    element, cells apart, what _DROP names left out (text_content() ran `<p>a</p><p>b</p>`
    together as `ab` and kept scripts)."""
    from lxml import etree

    parts: list[str] = []
    walk = etree.iterwalk(top, events=("start", "end", "comment", "pi"))
    for event, element in walk:
        if event in ("comment", "pi"):
            parts.append(element.tail or "")
            continue
        tag = element.tag
        breaks = _breaks(tag)
        if event == "start":
            if tag in _DROP:
                walk.skip_subtree()  # its "end" still comes, and brings its tail
                continue
            if breaks:
                parts.append("\n")
            parts.append(element.text or "")
        else:
            if breaks:
                parts.append("\n")
            if element is not top:
                parts.append(element.tail or "")
    return _lines(parts)


def _breaks(tag: object) -> bool:
    """Whether the element's text stands on lines of its own in flat text."""
    return tag in _BLOCKS or tag in _HEADINGS or tag in ("li", "td", "th", "br", "pre", "blockquote")


def _lines(parts: list[str]) -> str:
    lines = (_SPACE.sub(" ", line).strip() for line in "".join(parts).split("\n"))
    return "\n".join(_as_text(line) for line in lines if line)


def _as_text(line: str) -> str:
    """The line, escaped where it would start a heading or a code block (`# ` is a root prompt
    or a shell comment in a listing laid out with <br>)."""
    return "\\" + line if _BLOCK_MARKER.match(line) else line


def _flat_markup(html: str) -> tuple[str, str | None]:
    """(text, title) of markup too deep for lxml's tree, as _flat_text reads a tree, from the
    markup's tags as they come (html.parser builds no tree, so it has no depth to run out of)."""
    reader = _FlatReader()
    reader.feed(html)
    reader.close()
    title = _SPACE.sub(" ", "".join(reader.title)).strip()
    return _lines(reader.parts), title or None


# Elements of _DROP without content, and <head>, which is left open so often that counting it
# would drop whole pages (its title, scripts and styles are dropped one by one).
_KEPT_OPEN = frozenset({"head", "meta", "link", "input", "embed"})
# Elements whose end tag a page may leave out: the next block, or the parent's end, ends them.
_END_TAG_OPTIONAL = frozenset({"p", "li", "dt", "dd", "td", "th", "tr", "option", "tbody", "thead", "tfoot"})
# Elements without an end tag: one marked hidden (`<input hidden>`) hides nothing after it.
VOID_ELEMENTS = frozenset({"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track",
                   "wbr"})


class _FlatReader(html_parser.HTMLParser):
    """Text as the tags come. An element left out by its own markup (page_chrome.left_out_by_markup:
    `<nav>`, a hidden one) is left out up to the end tag that closes it, its name's opening and
    closing tags counted from there; one whose end tag HTML lets a page leave out (`<p>`, `<li>`,
    `<td>`) ends where the next block starts, or its parent does. One never closed hides nothing:
    where a browser would end it is not known here."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.title: list[str] = []
        self.in_title = False
        self.dropping = 0  # _DROP elements open around the text
        self.reading = False  # in a ruby's reading, which the next reading or the ruby's end ends
        self.left_out: str | None = None  # the name of the chrome or hidden element being left out
        self.left_out_depth = 0
        self.left_out_at = 0  # where in `parts` its text begins

    def _end_left_out(self) -> None:
        del self.parts[self.left_out_at:]
        self.parts.append("\n")
        self.left_out = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if self.left_out in _END_TAG_OPTIONAL and (tag == self.left_out or _breaks(tag)):
            self._end_left_out()
        if self.left_out is not None:
            self.left_out_depth += tag == self.left_out
        elif tag not in VOID_ELEMENTS and tag not in _DROP and left_out_by_markup(tag, dict(attrs)):
            self.left_out, self.left_out_depth, self.left_out_at = tag, 1, len(self.parts)
        if tag in _READINGS:
            self.reading = True
        elif tag == "title":
            self.in_title = True
        elif tag in _DROP and tag not in _KEPT_OPEN:
            self.dropping += 1
        elif _breaks(tag):
            self.parts.append("\n")

    def handle_endtag(self, tag: str) -> None:
        if self.left_out is not None:
            self.left_out_depth -= tag == self.left_out
            if not self.left_out_depth or (tag != self.left_out and self.left_out in _END_TAG_OPTIONAL):
                self._end_left_out()
        if tag in _READINGS or tag == "ruby":
            self.reading = False
        elif tag == "title":
            self.in_title = False
        elif tag in _DROP and tag not in _KEPT_OPEN:
            self.dropping = max(0, self.dropping - 1)
        elif _breaks(tag):
            self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        if self.in_title:
            self.title.append(data)
        elif not self.dropping and not self.reading:
            self.parts.append(data)


class _Writer:
    """Blocks of Markdown, plus the inline text of the block being built."""

    def __init__(self, escape: bool = True) -> None:
        self.blocks: list[str] = []
        self.inline: list[str] = []
        self.escape = escape  # off for text that goes inside a line (a code span, a link, a cell)

    def markdown(self, separator: str) -> str:
        self.flush()
        return separator.join(self.blocks)

    def flush(self) -> None:
        if not self.inline:
            return
        lines = (_SPACE.sub(" ", line).strip() for line in "".join(self.inline).split(_BREAK))
        text = "\n".join(_as_text(line) if self.escape else line for line in lines if line)
        self.inline = []
        if text:
            self.blocks.append(text)

    def emit(self, block: str) -> None:
        self.flush()
        if block:
            self.blocks.append(block)

    def text(self, text: str | None) -> None:
        if text:
            self.inline.append(text)

    def children(self, el) -> None:
        self.text(el.text)
        for child in el:
            self.element(child)
            self.text(child.tail)

    def block(self, el, join_labels: bool = True) -> None:
        self.flush()
        start = len(self.blocks)
        self.children(el)
        self.flush()
        if join_labels:
            self.blocks[start:] = _labels_joined(self.blocks[start:])

    def layout_table(self, table) -> None:
        """A table used for layout (a DocBook admonition: icon, title, body): its cells are blocks, and
        a title row's cell the heading of the rest (pydoc's sections: `Functions`, `class TextWrapper`)."""
        self.flush()
        start = len(self.blocks)
        rows = table.xpath("./tr | ./thead/tr | ./tbody/tr | ./tfoot/tr")
        title = _section_title(rows)
        for tr in rows:
            for cell in tr:
                if cell is title:
                    self.emit(_section_heading(cell))
                elif isinstance(cell.tag, str) and cell.tag.lower() in ("td", "th") and not _icon_only(cell):
                    self.block(cell)
        self.blocks[start:] = _labels_joined(self.blocks[start:])

    def layout_list(self, el) -> None:
        """A list that holds sections (javadoc's members): its items are blocks, their headings headings."""
        for child in el:
            if isinstance(child.tag, str) and child.tag.lower() == "li":
                self.block(child)
            else:
                self.element(child)

    def element(self, el) -> None:
        tag = el.tag
        if not isinstance(tag, str):  # a comment or processing instruction: its tail is the caller's
            return
        tag = tag.lower()
        if tag in _DROP:
            return
        if tag in _HEADINGS:
            text = inline_text(el)
            self.emit("#" * _HEADINGS[tag] + " " + text if text else "")
        elif tag == "pre":
            self.emit(_fenced(el))
        elif tag in ("ul", "ol", "menu") and _lays_out(el):
            self.layout_list(el)
        elif tag in ("ul", "ol", "menu"):
            self.emit(_list(el, ordered=tag == "ol"))
        elif tag == "dl":
            self.emit(_definition_list(el))
        elif tag == "table" and _is_signature(el):
            self.emit(_signature(el))
        elif tag == "table" and _is_layout(el):
            self.layout_table(el)
        elif tag == "table":
            self.emit(_table(el))
        elif tag == "blockquote":
            quoted = _render(el, "\n\n")
            if sum(1 for _ in islice(el.iterancestors("blockquote"), MAX_QUOTE_DEPTH)) >= MAX_QUOTE_DEPTH:
                self.emit(quoted)  # as deep as quotes are marked: each level more re-marked every line below it
            else:
                self.emit("\n".join("> " + line if line else ">" for line in quoted.split("\n")) if quoted else "")
        elif tag == "li":  # an item outside any list
            self.emit(_item(el, "- "))
        elif tag in _BLOCKS:
            self.block(el)
        elif tag == "br":
            self.inline.append(_BREAK)
        elif tag in _CODE:
            self.text(_code_span(inline_text(el)))
        elif tag == "a" and next(el.iter(*_LINKED_BLOCKS), None) is not None:
            self.block(el)  # a card: its heading and text read as blocks (as one link, `[# Title text](/x)`)
        elif tag == "a":
            self.text(_link(el))
        elif tag == "img":
            self.text(_image(el))
        else:  # span, em, strong, abbr, sup, ...: their text flows on
            self.children(el)


def _labels_joined(blocks: list[str]) -> list[str]:
    """A short label block ("Note", "See also", "Parameters:") joined to the paragraph or list after it,
    so a chunk boundary never falls between an admonition's title and its body."""
    out: list[str] = []
    for block in blocks:
        if out and _is_label(out[-1]) and not block.startswith(_NOT_PROSE):
            out[-1] = out[-1] + "\n" + block
        else:
            out.append(block)
    return out


_NOT_PROSE = ("#", "```", "~~~", "|", ">", "\\#")
MAX_LABEL_WORDS = 4
_LIST_ITEM = re.compile(r"(?:[-*+]|\d+\.) ")


def _is_label(block: str) -> bool:
    return ("\n" not in block and not block.startswith(_NOT_PROSE) and not _LIST_ITEM.match(block)
            and len(block.split()) <= MAX_LABEL_WORDS
            and not block.rstrip().endswith((".", "!", "?", ";")))


_NESTED_LAYOUT = ("table", "pre")
_BLOCK_CHILDREN = frozenset({"p", "div", "ul", "ol", "dl", "blockquote", "pre", "table"})


def _is_layout(table) -> bool:
    """A table used for layout, not data: its rows hold one cell each (icons aside, or a heading in
    one: an old site's banner, a table of one cell around its title), or a cell holds a table, code,
    or more than one block (docutils wraps every cell's text in one <p>; Doxygen puts
    a heading row in its member tables)."""
    rows = table.xpath("./tr | ./thead/tr | ./tbody/tr | ./tfoot/tr")
    cells = [[c for c in tr if isinstance(c.tag, str) and c.tag.lower() in ("td", "th")] for tr in rows]
    if rows and all(sum(1 for c in row if not _icon_only(c)) <= 1 for row in cells) and any(
            _icon_only(c) or any(True for _ in c.iter(*_HEADINGS)) for row in cells for c in row):
        return True
    for cell in (c for row in cells for c in row):
        if any(True for _ in cell.iter(*_NESTED_LAYOUT)):
            return True
        if sum(1 for child in cell if isinstance(child.tag, str) and child.tag.lower() in _BLOCK_CHILDREN) > 1:
            return True
    return False


def _section_title(rows: list):
    """The cell of a layout table's title row (one cell across every column, atop rows of more than
    one) whose text is a heading's: one short line, no heading or block inside; else None."""
    if not title_rows([table_cells(tr) for tr in rows]):
        return None
    cell = table_cells(rows[0])[0]
    if any(True for _ in cell.iter(*_HEADINGS, *_BLOCK_CHILDREN)):
        return None
    text = inline_text(cell)
    return cell if text and len(text.split()) <= MAX_SECTION_TITLE_WORDS else None


def _section_heading(cell) -> str:
    """A title row's text as a heading, a level deeper for each table around its table (pydoc puts a
    class's section inside the cell of its module's Classes section)."""
    depth = sum(1 for _ in islice(cell.iterancestors("table"), 5))
    return "#" * min(6, 1 + depth) + " " + inline_text(cell)


def _cells(tr) -> list:
    return [c for c in tr if isinstance(c.tag, str) and c.tag.lower() in ("td", "th")]


def _is_signature(table) -> bool:
    """A table that lays out a function's signature, not data: its first row opens the parameters
    with a cell of "(" after the name, its last row closes them with a cell of ")" (Doxygen's
    `memname` table: a row per parameter)."""
    rows = table.xpath("./tr | ./tbody/tr")
    if not rows or len(rows) > MAX_SIGNATURE_ROWS:
        return False
    first, last = _cells(rows[0]), _cells(rows[-1])
    return len(first) > 2 and _holds_only(first[1], "(") and any(_holds_only(cell, ")") for cell in last)


def _holds_only(cell, text: str) -> bool:
    """Whether the cell is that text and no element (looked at without reading what it nests)."""
    return len(cell) == 0 and (cell.text or "").strip() == text


def _signature(table) -> str:
    """The signature as written, a line per row: `void f ( int a,` / `int b )`."""
    lines = (" ".join(text for text in (inline_text(cell) for cell in _cells(tr)) if text)
             for tr in table.xpath("./tr | ./tbody/tr"))
    return "\n".join(_as_text(line) for line in lines if line)


def _icon_only(cell) -> bool:
    return not cell.text_content().strip() and all(
        child.tag.lower() in ("img", "a", "span") for child in cell.iter("*") if child is not cell
        and isinstance(child.tag, str))


def _render(el, separator: str, escape: bool = True) -> str:
    writer = _Writer(escape)
    writer.children(el)
    return writer.markdown(separator)


def inline_text(el) -> str:
    """The element's content on one line."""
    return _SPACE.sub(" ", _render(el, " ", escape=False)).strip()


def _code_span(text: str) -> str:
    if not text:
        return ""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def _fenced(pre) -> str:
    """A `<pre>` as a fenced block; one holding several `<code>` elements side by side (Node.js's
    docs: the same example as ES module and as CommonJS, a toggle showing one) as a block each:
    run together, one program's last line ran into the other's first."""
    codes = [child for child in pre if isinstance(child.tag, str) and child.tag.lower() == "code"]
    if len(codes) > 1 and all(_code_text(code).strip() for code in codes) and _only(pre, codes):
        return "\n\n".join(_one_fenced(code, code) for code in codes)
    return _one_fenced(pre, pre.find("code"))


def _only(pre, codes: list) -> bool:
    """Whether `pre` holds nothing but `codes` (and controls, which are dropped): text or another
    element beside them (Texinfo's `<var>` between `<code>` words, a transcript's output lines)
    makes them one listing."""
    if (pre.text or "").strip():
        return False
    for child in pre:
        if (child.tail or "").strip():
            return False
        tag = child.tag.lower() if isinstance(child.tag, str) else ""
        if child not in codes and tag and tag not in _DROP:
            return False
    return True


def _one_fenced(pre, code) -> str:
    language = ""
    if code is None:  # mdBook's <pre><pre class="playground"><code class="language-rust">
        code = next(pre.iter("code"), None)
    for holder in (pre, pre.getparent(), code):
        if holder is not None:
            found = _LANGUAGE.search(holder.get("class") or "")
            if found:
                language = found.group(1)
                break
    # rstrip: a dropped control leaves the space before it (Node.js: `</code> <button>copy</button>`).
    return fenced(_code_text(pre).replace("\r\n", "\n").rstrip(), language)


def _code_text(el) -> str:
    """The element's text, as text_content() reads it, less the elements _DROP names, and with a
    line break for each <br> (libxslt's API pages break a signature's lines with it)."""
    parts = [el.text or ""]
    for child in el:
        tag = child.tag.lower() if isinstance(child.tag, str) else ""
        if tag == "br":
            parts.append("\n")
        elif tag and tag not in _DROP:
            parts.append(_code_text(child))
        parts.append(child.tail or "")
    return "".join(parts)


def fenced(code: str, language: str) -> str:
    """`code` as a fenced block, its fence longer than any backtick run inside it; "" for no code."""
    code = code.strip("\n")
    if not code.strip():
        return ""
    longest = max((len(run) for run in re.findall(r"`{3,}", code)), default=2)
    fence = "`" * (longest + 1)
    return f"{fence}{language}\n{code}\n{fence}"


def _lays_out(list_el) -> bool:
    """Whether a list lays sections out rather than listing items: every item opens with a heading,
    itself or in the blocks it opens with, as javadoc's `<ul class="member-list"><li><section><h3>`.
    Written as a list, each heading went behind a marker, indented, where the chunker sees no
    heading. An item that holds a heading further in (a DocBook item's Note) is an item."""
    items = [child for child in list_el if isinstance(child.tag, str)]
    return bool(items) and all(child.tag.lower() == "li" and _opens_with_heading(child) for child in items)


def _opens_with_heading(item) -> bool:
    """Whether the item's first content is a heading, at most _SECTION_DEPTH wrappers down (each
    step looks at one element, so the cost is bounded however deep lists nest)."""
    el = item
    for _ in range(_SECTION_DEPTH):
        if (el.text or "").strip():
            return False
        first = next((child for child in el if isinstance(child.tag, str) and not _empty_anchor(child)), None)
        tag = first.tag.lower() if first is not None else ""
        if tag in _HEADINGS:
            return True
        if tag not in _WRAPPERS:
            return False
        el = first
    return False


def _empty_anchor(el) -> bool:
    """An `<a name>` that marks a place and shows nothing (javadoc 8's before each heading)."""
    return (el.tag.lower() == "a" and not (el.text or "").strip() and not (el.tail or "").strip()
            and all(not isinstance(child.tag, str) for child in el))


def _item(li, marker: str) -> str:
    body = _render(li, "\n")
    if not body:
        return ""
    # As deep as items are indented: each level more would indent every line below it again.
    nested = sum(1 for _ in islice(li.iterancestors("li"), MAX_DEFINITION_DEPTH))
    indent = " " * len(marker) if nested < MAX_DEFINITION_DEPTH else ""
    lines = body.split("\n")
    return "\n".join([marker + lines[0]] + [indent + line if line else "" for line in lines[1:]])


def _list(el, ordered: bool) -> str:
    try:
        number = int(el.get("start") or 1)
    except ValueError:
        number = 1
    items = []
    for child in el:
        if not isinstance(child.tag, str) or child.tag.lower() in _DROP:
            continue
        marker = f"{number}. " if ordered else "- "
        item = _item(child, marker) if child.tag.lower() == "li" else _render_as_block(child)
        if item:
            items.append(item)
            number += 1
    return "\n".join(items)


def _definition_list(dl) -> str:
    """A `<dl>` as Markdown's definition list (Pandoc, PHP Markdown Extra, MkDocs): each term on
    its own line, then `: ` and its definition's first paragraph, the definition's other blocks
    indented under it. The chunker reads a definition's extent from that indent, so a chunk that
    starts inside a long one is told its term (chunking/definitions.py). A definition that
    opens with something other than prose (a table, code) is written as it was: its term alone."""
    blocks: list[str] = []
    terms: list[str] = []
    defined = False  # a term was written before: a `<dd>` with no `<dt>` of its own continues it
    # As deep as definitions are marked: each level more would indent every line below it again.
    marked = sum(1 for _ in islice(dl.iterancestors("dl"), MAX_DEFINITION_DEPTH)) < MAX_DEFINITION_DEPTH
    for item in _definition_items(dl):
        tag = item.tag.lower() if not isinstance(item, str) else ""
        if tag == "dt":
            term = inline_text(item)
            if term:
                terms.append(_as_text(term))
            continue
        writer = _Writer()
        if tag == "dd":
            writer.block(item)
        elif tag:
            writer.element(item)  # not allowed in a list, but shown: read as the definition it stands in
        else:
            writer.text(item)
        writer.flush()
        body = writer.blocks
        if not body:
            continue
        if not marked:
            blocks.extend(["\n".join(terms), *body] if terms else body)
        elif terms and not body[0].lstrip().startswith(_NOT_PROSE):
            first, *rest = body
            lines = first.split("\n")
            blocks.append("\n".join([*terms, ": " + lines[0], *_indented(lines[1:])]))
            blocks.extend("\n".join(_indented(block.split("\n"))) for block in rest)
            defined = True
        elif not terms and defined:
            blocks.extend("\n".join(_indented(block.split("\n"))) for block in body)
        else:
            blocks.extend(["\n".join(terms)] if terms else [])
            blocks.extend(body)
            defined = False
        terms = []
    if terms:
        blocks.append("\n".join(terms))
    return "\n\n".join(blocks)


def _definition_items(dl) -> list:
    """The `<dt>` and `<dd>` of a list (those HTML lets a `<div>` group included), and whatever
    else is in it, a definition's text (a browser shows it)."""
    items: list = []

    def add(parent) -> None:
        if parent.text and parent.text.strip():
            items.append(parent.text)
        for child in parent:
            if isinstance(child.tag, str) and child.tag.lower() == "div" and parent is dl:
                add(child)
            elif isinstance(child.tag, str) and child.tag.lower() not in _DROP:
                items.append(child)
            if child.tail and child.tail.strip():
                items.append(child.tail)

    add(dl)
    return items


def _indented(lines: list[str]) -> list[str]:
    return ["  " + line if line else "" for line in lines]


def _render_as_block(el) -> str:
    writer = _Writer()
    writer.element(el)
    return writer.markdown("\n")


def _table(table) -> str:
    rows = []
    caption = table.find("caption")
    trs = table.xpath("./tr | ./thead/tr | ./tbody/tr | ./tfoot/tr")
    texts: dict[object, str] = {}

    def text(cell) -> str:
        if cell not in texts:
            texts[cell] = inline_text(cell).replace("|", "\\|")
        return texts[cell]

    grid = spread(trs, lambda cell: len(text(cell))) or [table_cells(tr) for tr in trs]
    titles = title_rows(grid)
    lead = [_title_line(row[0]) for row in grid[:titles]]
    for row in grid[titles:]:
        # The columns a merge covers at a row's end are padded as a short row is (pipe_table): a
        # cell merged across 1,000 columns in each of 5,000 rows made 5 million empty cells.
        end = len(row)
        while end and row[end - 1] is None:
            end -= 1
        cells = [text(cell) if cell is not None else "" for cell in row[:end]]
        if any(cells):
            rows.append(cells)
    title = "\n\n".join(line for line in [_as_text(inline_text(caption)) if caption is not None else "", *lead] if line)
    if not rows:
        return title
    return (title + "\n\n" if title else "") + pipe_table(rows)


def _title_line(cell) -> str:
    """A title row's text; a heading there (Doxygen's member groups: "Public Member Functions") stays one."""
    if next(cell.iter(*_HEADINGS), None) is not None:
        return _render(cell, "\n\n")
    return _as_text(inline_text(cell))


def _safe_href(href: str) -> str | None:
    href = href.strip()
    scheme = re.match(r"^([a-zA-Z][a-zA-Z0-9+.-]*):", href)
    if scheme and scheme.group(1).lower() not in ("http", "https", "file", "mailto"):
        return None  # javascript:, data:, vbscript:, ...
    return href.replace(" ", "%20").replace("(", "%28").replace(")", "%29")


def _link(a) -> str:
    """A link as Markdown; a note reference (EPUB 3's `epub:type="noteref"`, DPUB-ARIA's
    `role="doc-noteref"`, as Pandoc writes) as its mark in brackets, `[1]` (a page's notes stay where
    it shows them; DOCX and ODT notes, which no page places, read in parentheses where cited); a note's link back to it (`doc-backlink`, `backlink`) as its label (docutils links the note's
    `1` back), or as nothing where it shows only an arrow (`↩`, also unmarked, to a place in a page): a
    reader sees a mark, and `(#fn1)` or `(notes.xhtml#en1)` are no words of the text."""
    kinds = set((a.get("epub:type") or "").lower().split()) | set((a.get("role") or "").lower().split())
    text = inline_text(a)
    if kinds & _NOTE_REFERENCES and text.strip():
        text = text.strip()
        return text if text.startswith("[") and text.endswith("]") else f"[{text}]"
    if text.strip() in _BACK_MARKS and (kinds & _BACKLINKS or "#" in (a.get("href") or "")):
        return ""
    if kinds & _BACKLINKS:
        return text  # a note's own label linking back (docutils: `[1]`): the label
    return link_markdown(text, a.get("href") or "")


_NOTE_REFERENCES = frozenset({"noteref", "doc-noteref"})
_BACKLINKS = frozenset({"backlink", "doc-backlink"})
# A link back to a place in a page, marked only by an arrow (an endnote's way back to its mark,
# where the book does not say it is one): no words of the text.
_BACK_MARKS = frozenset({"↩", "↩\ufe0e", "↩\ufe0f", "↑", "⤴", "⮌"})


def _image(img) -> str:
    return image_markdown(img.get("alt") or "", img.get("src") or "")


def image_markdown(alt: str, src: str) -> str:
    """`![alt](src)`, its alt text on one line with its brackets escaped; nothing without alt text."""
    return link_markdown(re.sub(r"([\\\[\]])", r"\\\1", _SPACE.sub(" ", alt).strip()), src, image=True)


def link_markdown(text: str, href: str, *, image: bool = False) -> str:
    """`[text](href)`, or `![text](href)` for a picture; the text alone where the target is unsafe or
    missing. A link or a picture with no text is nothing: a reader of the text gets nothing from a
    spacer, an avatar or an unlabelled screenshot, and its address is noise to both search sides. An
    address whose query is over MAX_QUERY_CHARS carries data, not a place (rustdoc's "Run" link holds
    its example again, percent-escaped, for the playground): the text alone."""
    target = _safe_href(href)
    if not target or not text or len(target.partition("?")[2]) > MAX_QUERY_CHARS:
        return text
    return f"{'!' if image else ''}[{text}]({target})"
