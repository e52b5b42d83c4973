"""HTML written inside a Markdown file, read as the rendered page shows it.

READMEs and docs sources mix raw HTML into Markdown: a centred logo, badge and
sponsor rows (`<a href=…><img src=…></a>`), `<details>`/`<summary>`, `<br>`,
`<kbd>`, comments. A renderer shows none of the markup, only its text, links and
pictures; indexed as written, the attributes (`target="_blank"`, `width="200"`)
are words no reader sees, and a row of them is a chunk of noise that stands near
every query.

What CommonMark calls an HTML block is converted as an HTML page is
(html_markdown.py), so it reads the same in a `.md` file as in an `.html` one.
HTML inside a line of text (a paragraph, a heading, a table cell) is rendered in
place: a link becomes `[text](href)`, a picture `![alt](src)` (a picture with no
alt text, or a link holding only such pictures, nothing), `<br>` a space (a line
break would end a table row), a comment nothing, any other tag its text;
entities become their characters. Code (fenced, indented, or a code span) is
left exactly as written, and so is a `<` that starts no tag (`a < b`, an
autolink `<https://…>`). Which lines are blocks, text or code is decided by a
CommonMark parser (markdown-it-py), not guessed line by line; a tag is what its
tag grammar matches. Every scan here is linear in the text: a line of 100,000
unclosed `<!--` or `<a href=x>` costs what a line of prose does.
"""

from __future__ import annotations

import html
import re

from minirag.chunking.frontmatter import parse_frontmatter
from minirag.errors import ConversionFailed
from minirag.ingest.html_markdown import (
    TAG_NAME,
    VOID_ELEMENTS,
    html_to_markdown,
    image_markdown,
    link_markdown,
)
from minirag.ingest.html_markdown import tag_attributes as _tag_attributes
from minirag.ingest.markdown_extensions import read_extensions
from minirag.ingest.markdown_footnotes import read_footnotes
from minirag.ingest.markup_lines import code_spans
from minirag.ingest.obsidian_markup import read_obsidian
from minirag.ingest.page_chrome import hidden_by_markup
from minirag.ingest.text_repair import escape_headings

# An entity as CommonMark reads one: with its semicolon (`&copy 2024` and `?a=1&copy=2` are text).
_ENTITY = re.compile(r"&(?:#\d{1,7}|#[xX][0-9A-Fa-f]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});")
# Only a file that holds something like a tag or an entity is parsed at all.
_MAYBE_HTML = re.compile(r"<[A-Za-z/!?]|" + _ENTITY.pattern)
# A setext underline, and a link reference definition's start: either makes a file worth parsing.
_SETEXT = re.compile(r"^ {0,3}(?:=+|-+)[ \t]*$", re.MULTILINE)
_REFERENCE = re.compile(r"^ {0,3}\[[^\]\n]+\]:", re.MULTILINE)
_ESM = re.compile(r"(?:import|export)[\s{*]")
_JSX_COMMENT = re.compile(r"\{/\*.*?\*/\}", re.DOTALL)
_LINK_OPEN = re.compile(r"<a(?:\s|/?>)", re.IGNORECASE)
_LINK_CLOSE = re.compile(r"</a\s*>", re.IGNORECASE)
_IMAGE = re.compile(r"<img(?:\s|/?>)", re.IGNORECASE)
_BREAK = re.compile(r"</?br(?:\s|/?>)", re.IGNORECASE)
_NOT_SHOWN = frozenset({"script", "style", "template", "rt", "rp"})  # rt, rp: a ruby's reading, as html_markdown.py
# A JSX component's opening tag (its name capitalized, as React requires), which MDX may label.
_COMPONENT = re.compile(r"<[A-Z][\w.]*(\s[^<>]*)>")
# A reference link or picture: `[text][label]`, `[text][]`, `[label]` (none followed by `(`, `[` or `:`),
# its text plain or one inline picture (a badge). Neither part may hold a bracket, so every match attempt
# stops at the next one: linear in the line.
_REFERENCE_LINK = re.compile(
    r"(?<![\]\\])(!?)\[(!\[[^\[\]\n]*\]\([^()\s]*\)|[^\[\]\n]*)\](?:\[([^\[\]\n]*)\]|(?![\[(:]))"
)
# Each kind of markup and the text that must close it, at least this far past its `<`: where the
# closer occurs nowhere after that, no tag can start there (markdown-it-py's own guard, kept so that
# a run of unclosed openers is not scanned to its end once per opener).
_CLOSERS = (("<!--", "-->", 4), ("<![CDATA[", "]]>", 9), ("<?", "?>", 2), ("<!", ">", 3), ("<", ">", 2))


def rendered_html(markdown: str, *, mdx: bool = False) -> str:
    """`markdown` as its rendered page reads: HTML blocks converted, inline HTML and entities rendered,
    setext headings (a line underlined with `===` or `---`) written as the ATX headings the chunker
    reads, link reference definitions (`[label]: https://…`, which render as nothing) left out, and
    footnotes read where they are cited (markdown_footnotes.py).
    A frontmatter block is left as it is, for the caller to read. `mdx`: the text is MDX (Markdown
    with JSX, as Docusaurus and Nextra write docs): its top-level `import` and `export` statements
    and its `{/* comments */}` are no text either, and its components read as tags."""
    markdown = read_extensions(read_obsidian(read_footnotes(markdown)))
    if not mdx and not (_MAYBE_HTML.search(markdown) or _SETEXT.search(markdown) or _REFERENCE.search(markdown)):
        return markdown
    from markdown_it import MarkdownIt

    text = markdown.replace("\r\n", "\n").replace("\r", "\n")
    lines = text.split("\n")
    _meta, body = parse_frontmatter(text)
    skip = text.count("\n") - body.count("\n") if body is not text else 0  # the frontmatter's lines
    replaced: dict[int, list[str]] = {}  # first line of a part -> the lines written in its place
    ends: dict[int, int] = {}  # first line of a part -> the line after it
    covered = bytearray(len(lines))  # lines some block holds; a reference definition makes none
    setext: dict[int, tuple[int, int]] = {}  # a setext heading's first line -> (level, the line after its underline)
    containers = 0  # open quotes and list items, whose markers (`> `, indentation) begin each line
    # A hidden element an HTML block opens and a later one closes (`<div hidden>`, a blank line,
    # Markdown, a blank line, `</div>`): the browser hides the Markdown between, which is no HTML
    # block of its own. Its name and depth while open, the line it hides from, and the lines hidden.
    open_hidden: tuple[str, int] | None = None
    hidden_from = 0
    hidden_lines: list[tuple[int, int]] = []
    # Only the blocks are parsed: the inline pass (tokens for every word and mark) is left out, which
    # takes a tenth of the time and memory on a long file; inline markup is read here (_rendered_markup).
    env: dict = {}
    tokens = MarkdownIt("commonmark").enable("table").disable("inline").parse("\n".join(lines[skip:]), env)
    references = {label: found["href"] for label, found in env.get("references", {}).items()}
    for token in tokens:
        if token.type in ("blockquote_open", "list_item_open"):
            containers += 1
        elif token.type in ("blockquote_close", "list_item_close"):
            containers -= 1
        if token.map is None:
            continue
        start, end = token.map[0] + skip, token.map[1] + skip
        covered[start:end] = b"\x01" * (end - start)
        if token.type == "heading_open" and token.markup in ("=", "-") and not containers:
            setext[start] = (int(token.tag[1]), end)
        if token.type not in ("html_block", "inline") or start in replaced:
            continue  # a table row's cells share the row's lines: rendered once
        source = "\n".join(lines[start:end])
        if token.type == "html_block":  # in a quote or a list item too: lines are hidden whole, markers and all
            if open_hidden is not None:
                open_hidden = _still_open(token.content, *open_hidden)
                if open_hidden is None:
                    hidden_lines.append((hidden_from, start))
            elif (open_hidden := _opens_hidden(token.content)) is not None:
                hidden_from = end
        if token.type == "html_block":
            try:
                converted, _title = html_to_markdown(token.content)
            except ConversionFailed:
                continue  # markup lxml cannot read at all stays as written
            if mdx:
                converted = "\n".join([*_captions(token.content), converted]).strip("\n")
            replaced[start] = _block_lines(lines[start], token.content, converted, nested=token.level > 0)
        elif mdx and not containers and token.level == 1 and _ESM.match(source):
            replaced[start] = []  # an import or export: code the page runs, not text it shows
        else:
            # Inside a container each line is rendered alone, so no tag reaches over the next line's
            # marker. A line of nothing but markup goes: a blank line would part its paragraph.
            if mdx:
                source = _JSX_COMMENT.sub("", source)
            if start in setext:
                level, end = setext[start]
                title = " ".join(line.strip() for line in _rendered_inline(source, references).split("\n") if line.strip())
                replaced[start] = ["#" * level + " " + title] if title else []
                ends[start] = end
                continue
            parts = lines[start:end] if containers else [source]
            replaced[start] = [line for part in parts for line in _rendered_inline(part, references).split("\n") if line.strip()]
        ends[start] = end
    out: list[str] = []
    after_nothing = False  # a part that rendered to nothing: the blank lines around it are one
    number = 0
    hidden = bytearray(len(lines))
    for first, after in hidden_lines:
        hidden[first:after] = b"\x01" * max(0, after - first)
    while number < len(lines):
        if hidden[number]:
            number += 1
            after_nothing = True
            continue
        if number in replaced:
            out.extend(replaced[number])
            after_nothing = not replaced[number]
            number = ends[number]
            continue
        line = lines[number]
        if number >= skip and not covered[number] and _REFERENCE.match(line):
            number += 1  # a link reference definition, and the title lines it runs on to
            while number < len(lines) and lines[number].strip() and not covered[number]:
                number += 1
            after_nothing = True
            continue
        number += 1
        if after_nothing and not line.strip() and (not out or not out[-1].strip()):
            continue
        after_nothing = False
        out.append(line)
    return "\n".join(out)


def _captions(markup: str) -> list[str]:
    """What MDX components show of themselves: a tab's `label`, an admonition's or a card's `title`."""
    found = (_attribute(tag.group(0), "label") or _attribute(tag.group(0), "title") for tag in _COMPONENT.finditer(markup))
    return [" ".join(text.split()) for text in found if text.strip()]


def _block_lines(first_line: str, content: str, converted: str, *, nested: bool) -> list[str]:
    """What an HTML block's lines become. A top-level block keeps its converted lines; one inside a
    list item or a quote becomes one line after its container's marker (`- `, `> `), which a
    converted paragraph break would otherwise end."""
    if not nested:
        return converted.split("\n") if converted else []
    first = content.split("\n", 1)[0]
    at = first_line.find(first) if first else -1
    prefix = first_line[:at] if at > 0 else ""
    joined = " ".join(part for part in (p.strip() for p in converted.split("\n")) if part)
    return [prefix + escape_headings(joined)] if joined else []


def _rendered_inline(source: str, references: dict[str, str]) -> str:
    """Markdown text (a paragraph, a heading, a table row) with its inline HTML and entities
    rendered and its reference links written with their addresses; code spans kept as written."""
    pieces, at = [], 0
    for start, end in code_spans(source):
        pieces.append(_resolved(_rendered_markup(source[at:start]), references))
        pieces.append(source[start:end])
        at = end
    pieces.append(_resolved(_rendered_markup(source[at:]), references))
    rendered = "".join(pieces)
    # An entity may have spelled a heading's or a fence's mark at the start of a line.
    return "\n".join(line if line.lstrip()[:1] == old.lstrip()[:1] else escape_headings(line)
                     for line, old in zip(rendered.split("\n"), _padded(source, rendered), strict=True))


def _resolved(text: str, references: dict[str, str]) -> str:
    """Reference links and pictures whose label the file defines as inline ones, `[text](address)`,
    as a renderer shows them; `[text]` with no such definition is text, and stays as written."""
    if not references or "]" not in text:
        return text

    def inline(match: re.Match) -> str:
        bang, label_text, label = match.group(1), match.group(2), match.group(3)
        href = references.get(normalizeReference(label or label_text)) if (label or label_text).strip() else None
        if href is None:
            return match.group(0)
        return f"{bang}[{label_text}]({href})"

    from markdown_it.common.utils import normalizeReference

    return _REFERENCE_LINK.sub(inline, _REFERENCE_LINK.sub(inline, text))


def _padded(source: str, rendered: str) -> list[str]:
    """The source's lines, as many as the rendered text has (a tag over two lines became one)."""
    old = source.split("\n")
    count = rendered.count("\n") + 1
    return (old + [""] * count)[:count]


def _rendered_markup(text: str) -> str:
    """Text outside code spans: each tag rendered (links, pictures, breaks) or dropped, entities decoded."""
    if "<" not in text and "&" not in text:
        return text
    from markdown_it.common.html_re import HTML_TAG_RE

    last = {closer: text.rfind(closer) for _opener, closer, _least in _CLOSERS}
    out: list[str] = []
    links: list[tuple[int, str]] = []  # open links: where in `out` each one's text starts, its href
    unseen: tuple[int, str] | None = None  # an open unseen element: where in `out` its text starts, its name
    depth = 0  # its name's tags open inside it
    at, position = 0, text.find("<")
    while position != -1:
        closer, least = next((closer, least) for opener, closer, least in _CLOSERS if text.startswith(opener, position))
        escaped = position and text[position - 1] == "\\"
        found = None if escaped or last[closer] < position + least else HTML_TAG_RE.match(text, position)
        if found is None:
            position = text.find("<", position + 1)
            continue
        out.append(_unescaped(text[at:position]))
        markup = found.group(0)
        tag = TAG_NAME.match(markup)
        closing, name = (tag.group(1) == "/", tag.group(2).lower()) if tag else (False, "")
        if unseen is not None:
            if name == unseen[1] and not markup.endswith("/>"):
                depth += -1 if closing else 1
            if not depth:
                del out[unseen[0]:]
                while links and links[-1][0] > unseen[0]:
                    links.pop()  # opened inside it
                unseen = None
        elif tag and not closing and not markup.endswith("/>") and name not in VOID_ELEMENTS and _unseen(name, markup):
            unseen, depth = (len(out), name), 1
        elif _LINK_OPEN.match(markup):
            links.append((len(out), _attribute(markup, "href")))
        elif _LINK_CLOSE.fullmatch(markup) and links:
            start, href = links.pop()
            inner = " ".join("".join(out[start:]).split())
            del out[start:]
            out.append(link_markdown(inner, href))
        elif _IMAGE.match(markup):
            out.append(image_markdown(_attribute(markup, "alt"), _attribute(markup, "src")))
        elif _BREAK.match(markup):
            out.append(" ")
        at = found.end()
        position = text.find("<", at)
    out.append(_unescaped(text[at:]))
    return "".join(out)


# An element's tag in an HTML block: its slash if it closes, its name, its attributes, a slash if it closes itself.
_BLOCK_TAG = re.compile(r"<(/?)([A-Za-z][\w:-]*)((?:\s[^<>]*?)?)(/?)>")


def _opens_hidden(block: str) -> tuple[str, int] | None:
    """The hidden element an HTML block leaves open at its end, as (name, depth of its own name), or None."""
    name, depth = None, 0
    for tag in _BLOCK_TAG.finditer(block):
        closing, tag_name, _attributes, self_closing = tag.groups()
        tag_name = tag_name.lower()
        if name is None:
            if not closing and not self_closing and tag_name not in VOID_ELEMENTS and _unseen(tag_name, tag.group()):
                name, depth = tag_name, 1
        elif tag_name == name and not self_closing:
            depth += -1 if closing else 1
            if depth == 0:
                name = None
    return (name, depth) if name is not None else None


def _still_open(block: str, name: str, depth: int) -> tuple[str, int] | None:
    """(name, depth) after an HTML block's tags of that name; None once it closes."""
    for tag in _BLOCK_TAG.finditer(block):
        closing, tag_name, _attributes, self_closing = tag.groups()
        if tag_name.lower() == name and not self_closing:
            depth += -1 if closing else 1
            if depth == 0:
                return None
    return name, depth


def _unseen(name: str, markup: str) -> bool:
    """Whether an element's text is not shown: a script's or a style sheet's, or one its own markup
    hides (page_chrome.hidden_by_markup). An element never closed hides nothing (a renderer ends it
    at its paragraph's or table cell's end, which is not known here)."""
    return name in _NOT_SHOWN or hidden_by_markup(_tag_attributes(markup))


def _unescaped(text: str) -> str:
    """Entities as characters; a backslash-escaped `&` stays as written."""
    if "&" not in text:
        return text
    return "\\&".join(_ENTITY.sub(lambda entity: html.unescape(entity.group(0)), part)
                      for part in text.split("\\&"))


def _attribute(markup: str, name: str) -> str:
    return _tag_attributes(markup).get(name) or ""


