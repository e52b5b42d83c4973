"""Markdown's common extensions, read as their renderers show them.

Docs written for GitHub, MkDocs or Sphinx use syntax CommonMark does not know; indexed as
written, its markers are words no reader sees, and its content may read as code.

- GitHub's alerts: a quote opening with `[!NOTE]` (`TIP`, `IMPORTANT`, `WARNING`, `CAUTION`)
  shows a box titled with the kind: the marker reads as its label, `Note:`. Obsidian's callouts
  are written the same way, with more kinds (`[!danger]`, `[!question]`, ...), a title after the
  marker and a fold mark (`[!warning]-`, `[!tip]+`): the label, then the title.
- Python-Markdown's admonitions (MkDocs, Material): `!!! warning "Title"`, collapsible
  `??? note` and `???+ note`, and Material's content tabs `=== "Linux"`, each over content
  indented four spaces: the title (or the kind's label), then the content unindented.
- MyST (Sphinx, Jupyter Book): a target line `(label)=` shows nothing; a directive written as a
  fence (```` ```{note} ```` or `:::{note}`) shows its content: an admonition after its label,
  code (`code-block`, `code-cell`) as fenced code, `eval-rst` as reStructuredText, pictures their
  alt text; tables of contents and other directives that print nothing are left out, and so are
  options (`:key: value` lines, or a `---` block). A role (`` {func}`run_mcmc` ``, `` {ref}`Title
  <label>` ``) reads as reStructuredText's same role does: a code role as code, a reference its title.
- Attribute lists (Python-Markdown's attr_list, MkDocs Material's buttons, Pandoc's heading
  attributes): `{: .lead }` under a paragraph, `## Install {#install}`, `[Download](x.md){ .md-button }`
  and `![Logo](logo.png){ width="300" }` set a class, an id or an attribute, and show nothing
  (TeX's braces, `\\sum_{n=1}^N`, stay).
- Quarto and R Markdown: a code chunk fenced as ```` ```{r} ```` or ```` ```{python} ```` (an
  engine's name in braces, which MyST would read as a directive; its label and options may
  follow, ```` ```{r setup, include=FALSE} ````) is code in that language, without the option
  lines at its top (`#| label: fig-x`), and its figure's or table's caption is text under it
  (chunk_options.py); Pandoc's ```` ```{.python} ```` is code as written. A raw HTML block (```` ```{=html} ````) reads as its HTML shows.
- Pandoc's fenced divs (Quarto's callouts, tab sets and columns, `::: {.callout-note}`;
  Docusaurus's admonitions, `:::note`): their content, after the kind's label for a callout or an
  admonition; the colon lines and attributes show nothing.
- PyMdown's generic blocks (`/// note | Title` ... `///`, MkDocs Material's docs): an admonition,
  a details block or a tab shows its title (or the kind's label), then its content; `html`,
  `caption` and `define` blocks their content. The slash lines and the options indented under the
  header (`    type: warning`) show nothing; an unclosed block is text.

Code fences are left as written. Directives nest up to MAX_NESTING levels (past that, text).
"""

from __future__ import annotations

import re

from minirag.chunking.fences import Fences, code_line_mask
from minirag.errors import ConversionFailed
from minirag.ingest.chunk_options import read_chunk
from minirag.ingest.html_markdown import fenced, html_to_markdown
from minirag.ingest.markup_lines import code_spans, labelled
from minirag.ingest.rst_text import (
    CODE_DIRECTIVES,
    PICTURE_DIRECTIVES,
    SILENT_DIRECTIVES,
    admonition_label,
    role_shown,
    rst_to_markdown,
)

MAX_NESTING = 40
# GitHub's five kinds and Obsidian's (with their other names); a kind neither knows stays as written.
_ALERTS = {kind: kind.capitalize() for kind in (
    "note", "tip", "important", "warning", "caution", "abstract", "summary", "tldr", "info", "todo", "hint",
    "success", "check", "done", "question", "help", "faq", "attention", "failure", "fail", "missing",
    "danger", "error", "bug", "example", "quote", "cite")}
# Formatters that escape brackets write the marker `\[!NOTE]`; its author meant the alert. Obsidian
# folds a callout marked `-` (open with `+`).
_ALERT = re.compile(r"^((?: {0,3}>[ \t]?)++)\\?\[!(" + "|".join(_ALERTS) + r")\][+-]?[ \t]*+(.*)$", re.IGNORECASE)
# Material's placement words (`inline`, `end`) may follow the kind.
_ADMONITION = re.compile(
    r"^([ \t]*+)(!!!|\?\?\?\+?|===\+?)[ \t]++(?:([\w-]++)(?:[ \t]++(?:inline|end)\b)*+[ \t]*+)?"
    r"(?:\"([^\"\n]*+)\")?[ \t]*+$"
)
# Quarto's and knitr's code chunk engines (```` ```{python} ````): no MyST directive has their names.
CODE_ENGINES = frozenset({
    "r", "python", "julia", "ojs", "bash", "sh", "zsh", "sql", "mermaid", "dot", "js", "node", "stan", "cpp", "rcpp",
    "c", "fortran", "octave", "perl", "ruby", "scala", "sas", "powershell", "go", "rust", "haskell", "lua", "java",
})
_TARGET = re.compile(r"^ {0,3}\([^()\s]+\)=[ \t]*$")
_DIRECTIVE = re.compile(r"^( {0,3})(`{3,}|~{3,}|:{3,})\{([\w:.-]+)\}[ \t]*(.*)$")
_OPTION = re.compile(r"^[ \t]*:[\w-]+:(?:[ \t].*)?$")
# A file is read line by line only when something in it looks like one of these.
_ANY = re.compile(r"^(?: {0,3}>[ \t]?)++\\?\[!|^[ \t]*(?:!!!|\?\?\?|===)[ \t+]|^ {0,3}\([^()\s]+\)=[ \t]*$"
                  r"|^ {0,3}(?:`{3,}|~{3,}|:{3,})\{|^ {0,3}:{3,}[ \t]++[\w{]|^ {0,3}:{3,}[\w-]++[ \t]*+$"
                  r"|^ {0,3}/{3,}[ \t]*+[\w-]",
                  re.MULTILINE | re.IGNORECASE)
# Pandoc's fenced div (Quarto's callouts, tab sets, columns; Docusaurus's `:::note`): attributes in
# braces or one word after the colons.
# A code chunk with its label or options after the engine (```` ```{r setup, include=FALSE} ````),
# or Pandoc's code block with more attributes (```` ```{.python .numberLines} ````).
_CHUNK = re.compile(r"^ {0,3}(?:`{3,}|~{3,})\{([\w.-]++)[ \t,][^{}]*+\}[ \t]*+$")
_RAW_HTML = re.compile(r"^ {0,3}(?:`{3,}|~{3,})\{=html\}[ \t]*+$", re.IGNORECASE)  # Pandoc's raw HTML block
_DIV = re.compile(r"^ {0,3}:{3,}[ \t]*+(?:\{([^{}]*+)\}|([\w-]++))[ \t]*+:*+[ \t]*+$")
_CALLOUT = re.compile(r"(?:^|\s)\.callout-([a-z]++)(?=\s|$)")
# PyMdown's generic block: `/// name | argument` opens, a line of as many slashes closes.
_SLASH_BLOCK = re.compile(r"^ {0,3}(/{3,})[ \t]*+([\w-]++)[ \t]*+(?:\|[ \t]*+(.*?))?[ \t]*+$")
_SLASH_CLOSE = re.compile(r"^ {0,3}(/{3,})[ \t]*+$")
# Blocks whose argument is no title (a CSS selector, a caption's number): only their content shows.
_CONTENT_BLOCKS = frozenset({"html", "caption", "figure-caption", "table-caption", "define"})
# A MyST role's name, right before the code span that holds its text: `{py:func}` of {py:func}`x`.
_ROLE_NAME = re.compile(r"\{(?:[\w.+-]+:)?([\w.+-]+)\}")
_ROLE_NAME_LONGEST = 80  # characters looked back for it (a role's name is a word or two)
# An attribute list: classes, ids and key=value pairs in braces, right after a link, a picture or a
# code span, or after a space ending a line (a heading's), or a line of its own (under a block).
# TeX is none: a subscript's `_{n=1}` follows no such mark, and a macro's `{#1}` has no id (an id
# starts with a letter). The spaces before one ending a line go with it; they are taken from where
# their run starts, so a line of spaces is looked at once.
_ATTRIBUTES = re.compile(
    r"(?:(?<=[)\]`])|(?:^[ \t]*+|(?<=[^ \t])[ \t]++)(?=\{[^{}\n]*+\}[ \t]*+$))"
    r"\{:?[ \t]*+(?:(?:\.[A-Za-z_-][\w-]*+|#[A-Za-z][\w:.-]*+|[A-Za-z][\w-]*+=(?:\"[^\"\n]*+\"|'[^'\n]*+'|[^\s{}\"']++))"
    r"[ \t]*+)++\}"
)


def read_extensions(markdown: str) -> str:
    """`markdown` with its alerts, admonitions and MyST markup written as the page shows them."""
    if _ANY.search(markdown):
        markdown = "\n".join(_one_blank(_read(markdown.split("\n"), 0)))
    if "}" not in markdown:
        return markdown
    lines = markdown.split("\n")
    code = code_line_mask(lines)
    out = []
    for n, line in enumerate(lines):
        shown = line if code[n] or "}" not in line else _inline(line)
        if shown.strip() or not line.strip():  # a line that held only an attribute list goes
            out.append(shown)
    return "\n".join(out)


def _inline(line: str) -> str:
    """`line` with each MyST role (a code span right after `{name}`) written as the role shows, and
    its attribute lists left out; code spans stay as written."""
    if "{" not in line:
        return line
    pieces, at = [], 0
    for start, end in code_spans(line):
        brace = line.rfind("{", max(at, start - _ROLE_NAME_LONGEST), start)
        name = _ROLE_NAME.fullmatch(line, brace, start) if brace >= 0 else None
        before = line[at : name.start() if name else start]
        pieces.append(_ATTRIBUTES.sub("", before) if "{" in before else before)
        if name is None:
            pieces.append(line[start:end])
        else:
            ticks = len(line[start:end]) - len(line[start:end].lstrip("`"))
            pieces.append(role_shown(name.group(1), line[start + ticks : end - ticks].strip()))
        at = end
    rest = line[at:]
    return "".join(pieces) + (_ATTRIBUTES.sub("", rest) if "{" in rest else rest)


def _one_blank(lines: list[str]) -> list[str]:
    """Runs of blank lines outside code as one (a directive that shows nothing leaves its own)."""
    code = code_line_mask(lines)
    return [line for n, line in enumerate(lines)
            if line.strip() or code[n] or not n or lines[n - 1].strip() or code[n - 1]]


def _read(lines: list[str], depth: int) -> list[str]:
    if depth > MAX_NESTING:
        return lines
    fences = Fences(lines, "`~:")
    closers = _slash_closers(lines, fences)
    out: list[str] = []
    index = 0
    while index < len(lines):
        line = lines[index]
        closer = closers.get(index)
        block = _SLASH_BLOCK.match(line) if closer is not None else None
        if closer is not None and block is not None:
            _block(out, _slash_block(block, lines[index + 1 : closer], depth), lines[closer + 1 : closer + 2])
            index = closer + 1
            continue
        end = fences.end(index) if line.lstrip(" ").startswith(fences.openers) else None
        if end is not None:
            directive = _DIRECTIVE.match(line)
            chunk = _CHUNK.match(line) if not directive else None
            language = chunk.group(1).lower() if chunk else ""
            div = _DIV.match(line) if not directive else None
            if _RAW_HTML.match(line) and (shown := _html("\n".join(lines[index + 1 : end]))) is not None:
                _block(out, shown, lines[end + 1 : end + 2])
            elif language in CODE_ENGINES:
                _block(out, _code_chunk(line[line.find("{") + 1 : line.rfind("}")], lines[index + 1 : end], language),
                       lines[end + 1 : end + 2])
            elif language.startswith("."):
                _block(out, fenced("\n".join(lines[index + 1 : end]), language[1:]).split("\n"), lines[end + 1 : end + 2])
            elif directive:
                _block(out, _directive(directive, lines[index + 1 : end], depth), lines[end + 1 : end + 2])
            elif div:
                _block(out, _div(div, lines[index + 1 : end], depth), lines[end + 1 : end + 2])
            else:
                out += lines[index : end + 1]  # code, or a colon fence that is none of MyST's
            index = end + 1
            continue
        if _TARGET.match(line):
            index += 1
            continue
        alert = _ALERT.match(line)
        if alert:
            quote, kind, rest = alert.groups()
            out.append(f"{quote}{_ALERTS[kind.lower()]}: {rest}".rstrip())
            index += 1
            continue
        admonition = _ADMONITION.match(line)
        # A content tab (`===`) has a quoted title, an admonition a kind or a title.
        if admonition and (admonition.group(4) is not None or admonition.group(3) and admonition.group(2)[0] != "="):
            index = _admonition(lines, index, admonition, out, depth)
            continue
        out.append(line)
        index += 1
    return out


def _slash_closers(lines: list[str], fences: Fences) -> dict[int, int]:
    """Each PyMdown block's opening line -> its closing line: the next line of as many slashes not
    taken by a block opened inside it. One pass, code fences skipped; an opener never closed pairs
    with nothing."""
    closers: dict[int, int] = {}
    if not any(line.lstrip(" ").startswith("///") for line in lines):
        return closers
    opened: dict[int, list[int]] = {}  # slashes -> the lines of the blocks still open with as many
    index = 0
    while index < len(lines):
        line = lines[index]
        if line.lstrip(" ").startswith(fences.openers) and (end := fences.end(index)) is not None:
            index = end + 1
            continue
        if line.lstrip(" ").startswith("///"):
            if closing := _SLASH_CLOSE.match(line):
                starts = opened.get(len(closing.group(1)))
                if starts:
                    closers[starts.pop()] = index
            elif block := _SLASH_BLOCK.match(line):
                opened.setdefault(len(block.group(1)), []).append(index)
        index += 1
    return closers


def _slash_block(match: re.Match, content: list[str], depth: int) -> list[str]:
    """What a PyMdown block shows: its title or its kind's label, then its content; the options
    (YAML lines indented four spaces right under the header) show nothing."""
    name, argument = match.group(2).lower(), (match.group(3) or "").strip()
    start = 0
    while start < len(content) and content[start].strip() and content[start].startswith(("    ", "\t")):
        start += 1
    kind = next((line.split(":", 1)[1].strip().lower() for line in content[:start]
                 if line.strip().startswith("type:")), "")
    body = _read(content[start:], depth + 1)
    if name in _CONTENT_BLOCKS:
        return body
    if argument:
        return labelled(argument, body)
    kind = name if name != "admonition" else kind
    return labelled(f"{_ALERTS[kind]}:", body) if kind in _ALERTS else body


def _html(html: str) -> list[str] | None:
    """A raw HTML block's lines as the page shows them; None where the HTML cannot be read."""
    try:
        return html_to_markdown(html)[0].split("\n")
    except ConversionFailed:
        return None


def _div(match: re.Match, content: list[str], depth: int) -> list[str]:
    """A fenced div's content, after its kind's label where it is a callout or an admonition
    (`{.callout-warning}`, `note`): its colon lines and attributes are no text."""
    attributes, word = match.groups()
    callout = _CALLOUT.search(attributes) if attributes is not None else None
    kind = callout.group(1) if callout else (word or "").lower().removeprefix("callout-")
    shown = _read(content, depth + 1)
    return labelled(f"{_ALERTS[kind]}:", shown) if kind in _ALERTS else shown


def _admonition(lines: list[str], index: int, match: re.Match, out: list[str], depth: int) -> int:
    """A Python-Markdown admonition or content tab: its title, then its indented content unindented."""
    indent = len(match.group(1).expandtabs(4))
    kind, title = match.group(3), match.group(4)
    end = index + 1
    body: list[str] = []
    while end < len(lines):
        line = lines[end].expandtabs(4)
        if line.strip() and len(line) - len(line.lstrip(" ")) < indent + 4:
            break
        body.append(line[indent + 4 :])
        end += 1
    while body and not body[-1].strip():
        body.pop()
        end -= 1
    label = title.strip() if title is not None else kind.replace("-", " ").capitalize() + ":"
    out += labelled(label, _read(body, depth + 1))
    return end


def _block(out: list[str], block: list[str], after: list[str]) -> None:
    """Append a directive's lines as a block: parted by a blank line from the text around it."""
    while block and not block[-1].strip():
        block = block[:-1]
    block = block[next((n for n, line in enumerate(block) if line.strip()), len(block)) :]
    if not block:
        return
    if out and out[-1].strip():
        out.append("")
    out.extend(block)
    if after and after[0].strip():
        out.append("")


def _directive(match: re.Match, content: list[str], depth: int) -> list[str]:
    """What a MyST directive fence shows; a Quarto or R Markdown code chunk (```` ```{r} ````), or
    Pandoc's code block with a class (```` ```{.python} ````), is code."""
    name, argument = match.group(3).lower(), match.group(4).strip()
    if match.group(2)[0] != ":" and name in CODE_ENGINES:
        return _code_chunk("", content, name)
    if match.group(2)[0] != ":" and name.startswith("."):
        return fenced("\n".join(content), name[1:]).split("\n")
    short = name.rsplit(":", 1)[-1]
    options, content = _options(content)
    if name in SILENT_DIRECTIVES or short in SILENT_DIRECTIVES:
        return []
    if short in CODE_DIRECTIVES or short == "code-cell":
        language = argument.split()[0] if argument else ""
        return fenced("\n".join(content), language).split("\n")
    if short == "eval-rst":
        return rst_to_markdown("\n".join(content)).split("\n")
    if short in PICTURE_DIRECTIVES:
        words = [options.get("alt", "")] + (content if short == "figure" else [])
        return [" ".join(word.strip() for word in words if word.strip())]
    body = _read(content, depth + 1)
    admonition = admonition_label(short, argument)
    if admonition is not None:
        label, said = admonition
        return labelled(f"{label}:", [said, *body] if said.strip() else body)
    return [*([argument] if argument else []), *body]


def _code_chunk(header: str, content: list[str], language: str) -> list[str]:
    """A Quarto or R Markdown code chunk: its code without its option lines, then its captions."""
    chunk = read_chunk(header, content)
    shown = fenced(chunk.code, language).split("\n") if chunk.code.strip() else []
    for caption in chunk.captions:
        shown += ["", caption] if shown else [caption]
    return shown


def _options(content: list[str]) -> tuple[dict[str, str], list[str]]:
    """A directive's options (a `---` YAML block, or `:key: value` lines) and the content after them."""
    options: dict[str, str] = {}
    start = 0
    if content and content[0].strip() == "---":
        closing = next((n for n in range(1, len(content)) if content[n].strip() == "---"), None)
        if closing is not None:
            for line in content[1:closing]:
                key, _, value = line.partition(":")
                options[key.strip().lower()] = value.strip()
            start = closing + 1
    while start < len(content) and _OPTION.match(content[start]):
        key, _, value = content[start].strip()[1:].partition(":")
        options[key.strip().lower()] = value.strip()
        start += 1
    return options, content[start:]
