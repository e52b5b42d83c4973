"""AsciiDoc -> Markdown: the structure chunking needs, the text a reader of the rendered page sees.

Asciidoctor's format writes the docs of many Java, Ruby and Red Hat projects (and git's
own manual). Read as plain text, its section titles (`== Install`) are lines like any
other and its markup is words no reader sees (`[source,java]`, `:toc: left`,
`link:url[text]`). This reads what Asciidoctor would, line by line, with no dependency:

- section titles (`= Title`, `== Section`, ...) become ATX headings of their level, and so do
  two-line ones (a title over a line of `=`, `-`, `~`, `^` or `+`, levels 0 to 4, as long as the
  title give or take one character: git's manual pages) where a block may start;
- delimited blocks: listing (`----`) and literal (`....`) blocks become fenced code,
  with the language of a `[source,python]` line above them; example (`====`), sidebar
  (`****`), quote (`____`) and open (`--`) blocks are read as text; a passthrough
  (`++++`) block is HTML, converted as HTML is; a comment block (`////`) is nothing;
- tables (`|===`) become pipe tables, their first row the header when the source says
  so (a blank line after it, or `%header` / `options="header"`);
- admonitions (`NOTE: text`, or `[NOTE]` above a block) keep their text after a label
  (`Note:`); lists become Markdown lists, a description list item (`term:: text`)
  `term: text`;
- what renders as nothing goes: comments (`// ...`), attribute entries (`:name: value`,
  whose value, its own references replaced where it is set, then replaces `{name}` in the text;
  `:name!:` unsets it), block attribute and anchor lines,
  `include::`, `toc::[]`;
- conditional content is read as Asciidoctor's preprocessor keeps it: `ifdef::name[]` ...
  `endif::[]` only where the attribute is set (above, or by Asciidoctor itself), `ifndef` where it
  is not, `ifeval` always (its expression is not evaluated);
- inline markup renders as Markdown: `link:url[text]` and `https://url[text]` as links,
  `<<id,text>>` and `xref:doc.adoc[text]` as their text, `image:file[alt]` its alt text,
  `kbd:[Ctrl+C]`, `btn:[OK]` and `menu:File[Save]` as what they show.

Every pass is a walk over the lines: linear in the text. Delimited blocks nest up to
MAX_NESTING levels (past that, text).
"""

from __future__ import annotations

import re

from minirag.errors import ConversionFailed
from minirag.ingest.html_markdown import fenced, html_to_markdown
from minirag.ingest.markup_lines import labelled, next_after
from minirag.ingest.text_limit import MAX_TEXT_CHARS
from minirag.ingest.text_repair import escape_headings

MAX_NESTING = 20
_SECTION = re.compile(r"^(={1,6})[ \t]+(\S.*)$")  # the closing `=`s, if any, are cut in code
# A two-line title: at least two characters, not a block title's `.`; its underline one character repeated.
_SETEXT_TITLE = re.compile(r"(?!\.)\S(?:.*\S)?")
_SETEXT_LINE = re.compile(r"=+|-+|~+|\^+|\++")
_SETEXT_LEVELS = {"=": 1, "-": 2, "~": 3, "^": 4, "+": 5}
_ATTRIBUTE_ENTRY = re.compile(r"^:(!?[\w][\w-]*!?):(?:[ \t]+(.*))?$")  # the value's trailing blanks cut in code
_BLOCK_ATTRIBUTES = re.compile(r"^\[(?!\[)[^\]]*\][ \t]*$|^\[\[[^\]]*\]\][ \t]*$")
_BLOCK_TITLE = re.compile(r"^\.([^\s.].*)$")
_DELIMITER = re.compile(r"^(-{4,}|\.{4,}|={4,}|\*{4,}|_{4,}|\+{4,}|/{4,}|--|[|!]={3,})[ \t]*$")
_COMMENT = re.compile(r"^//(?!/)|^//$")
INCLUDE = re.compile(r"^include::", re.MULTILINE)  # a line that includes another file (never followed)
_DIRECTIVE = re.compile(r"^(?:include|ifdef|ifndef|ifeval|endif|toc|video|audio)::[^\[]*\[[^\]]*\][ \t]*$")
_IMAGE_BLOCK = re.compile(r"^image::[^\[]*\[([^\],]*)[^\]]*\][ \t]*$")
_ADMONITION = re.compile(r"^(NOTE|TIP|IMPORTANT|WARNING|CAUTION):[ \t]+(.*)$")
_LIST = re.compile(r"^[ \t]*(\*{1,5}|-|\.{1,5}|\d{1,9}\.)[ \t]+(.*)$")
_LINE_BREAK = re.compile(r"[ \t]\+$")
_BREAKS = frozenset({"<<<", "'''"})  # a page break and a thematic break: nothing a reader of text needs
_LABELS = {"NOTE": "Note", "TIP": "Tip", "IMPORTANT": "Important", "WARNING": "Warning", "CAUTION": "Caution"}

# Inline markup. Each pattern's runs stop at the next bracket, so a match attempt never scans past
# it; a macro's name and target are read back from its `[` to the white space before (inline).
_BRACKETED = re.compile(r"\[([^\[\]\n]*)\]")
# A macro's name may follow a word's last character (`sentence.footnote:[...]`), never a letter of it.
_MACRO = re.compile(r"(?<![^\W_])(link|xref|image|kbd|btn|menu|footnote|pass|icon|anchor|https?|ftp|irc|mailto):(\S*)$")
# (The text after the comma starts at its first non-blank: blanks shared by `[ \t]*` and the text made
# `<<a,` and 40,000 spaces take 10 s.)
_CROSS_REFERENCE = re.compile(r"<<([^<>,\n]+)(?:,[ \t]*([^<>\s][^<>\n]*))?>>")
_INLINE_ANCHOR = re.compile(r"\[\[[^\[\]\n]*\]\]")
_ATTRIBUTE_REFERENCE = re.compile(r"(\\)?\{([\w][\w-]*)\}")  # `\{name}` is the reference written out
# Asciidoctor's built-in attributes that stand for characters.
_BUILT_IN = {"nbsp": " ", "sp": " ", "empty": "", "blank": "", "zwsp": "", "plus": "+", "amp": "&", "lt": "<",
             "gt": ">", "startsb": "[", "endsb": "]", "vbar": "|", "caret": "^", "asterisk": "*", "tilde": "~",
             "backslash": "\\", "backtick": "`", "two-colons": "::", "two-semicolons": ";;", "cpp": "C++",
             "deg": "°", "apos": "'", "quot": '"', "brvbar": "¦", "wj": ""}


def asciidoc_to_markdown(text: str) -> str:
    """Markdown for an AsciiDoc document (see the module's docstring)."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    out = _Reader({}).read(_included(lines), 0)
    return re.sub(r"\n{3,}", "\n\n", "\n".join(out)).strip("\n") + "\n"


# A conditional preprocessor directive: ifdef/ifndef, the attribute names (`a,b`: any; `a+b`: all),
# and the content of its one-line form.
_CONDITIONAL = re.compile(r"^(ifdef|ifndef)::([\w,+-]+)\[(.*)\][ \t]*$")
_OPENS_UNKNOWN = re.compile(r"^ifeval::\[.*\][ \t]*$")  # an expression: read as if it holds
_ENDIF = re.compile(r"^endif::[\w,+-]*\[\][ \t]*$")
# Attributes Asciidoctor sets itself when it renders a document as HTML (not `env-github`: that is
# GitHub's renderer, so `ifndef::env-github[]` content is what Asciidoctor shows).
_SET_BY_ASCIIDOCTOR = frozenset({"asciidoctor", "asciidoctor-version", "backend", "backend-html5", "basebackend",
                                 "basebackend-html", "doctype", "doctype-article", "filetype", "filetype-html",
                                 "outfilesuffix", "embedded"})


def _included(lines: list[str]) -> list[str]:
    """The lines Asciidoctor's preprocessor keeps: between `ifdef::name[]` and `endif::[]` only where
    the attribute is set (by an attribute entry above it, or by Asciidoctor), between `ifndef`
    and `endif` only where it is not; `ifeval` content is kept (its expression is not evaluated)."""
    defined = set(_SET_BY_ASCIIDOCTOR)
    open_conditions: list[bool] = []  # whether each open conditional's content is read
    unmet = 0  # how many of them are not: content is read while none is (counted, not looked for)
    out: list[str] = []
    for line in lines:
        stripped = line.strip()
        condition = _CONDITIONAL.match(stripped)
        if condition:
            kind, names, content = condition.groups()
            parts = [name.lower() for name in re.split(r"[,+]", names) if name]
            met = (all if "+" in names else any)(name in defined for name in parts)
            holds = met if kind == "ifdef" else not met
            if content:  # the one-line form: its content, nothing to close
                if holds and not unmet:
                    out.append(content)
                continue
            open_conditions.append(holds)
            unmet += not holds
            continue
        if _OPENS_UNKNOWN.match(stripped):
            open_conditions.append(True)
            continue
        if _ENDIF.match(stripped):
            if open_conditions:
                unmet -= not open_conditions.pop()
            continue
        if unmet:
            continue
        entry = _ATTRIBUTE_ENTRY.match(line)
        if entry:
            name = entry.group(1)
            (defined.discard if name.startswith("!") or name.endswith("!") else defined.add)(name.strip("!").lower())
        out.append(line)
    return out


class _Reader:
    def __init__(self, attributes: dict[str, str]) -> None:
        self.attributes = attributes  # attribute entries met so far, for `{name}` in the text
        # What `{name}` references may still add, over the whole document: a value referring to one
        # before it twice, sixty times over, would otherwise grow past any memory.
        self.expansion_left = MAX_TEXT_CHARS

    def expanded(self, text: str) -> str:
        """`text` with each `{name}` of an attribute set so far (or a built-in one) replaced by its
        value; a reference past the expansion budget, or to no attribute, stays as written."""
        def value(reference: re.Match) -> str:
            if reference.group(1):
                return reference.group(0)[1:]
            found = self.attributes.get(reference.group(2), _BUILT_IN.get(reference.group(2)))
            if found is None or len(found) > self.expansion_left:
                return reference.group(0)
            self.expansion_left -= len(found)
            return found

        return _ATTRIBUTE_REFERENCE.sub(value, text) if "{" in text else text

    def read(self, lines: list[str], depth: int) -> list[str]:
        out: list[str] = []
        closers = _closers(lines)
        style: list[str] = []  # the block attribute line's words (`source`, `python`; `NOTE`)
        index = 0
        while index < len(lines):
            line = lines[index]
            stripped = line.strip()
            if not stripped:
                out.append("")
                style = []
                index += 1
                continue
            level = _two_line_title(line, lines[index + 1] if index + 1 < len(lines) else "")
            if level:
                out += ["", "#" * level + " " + self.inline(stripped), ""]
                style = []
                index += 2
                continue
            delimiter = _DELIMITER.match(line)
            if delimiter and depth <= MAX_NESTING:
                mark = delimiter.group(1)
                end = next_after(closers.get(line.rstrip(), []), index)
                end = len(lines) if end is None else end
                out += ["", *self._block(mark, lines[index + 1 : end], style, depth), ""]
                style = []
                index = end + 1
                continue
            if _COMMENT.match(line) or _DIRECTIVE.match(stripped) or stripped in _BREAKS:
                index += 1
                continue
            entry = _ATTRIBUTE_ENTRY.match(line)
            if entry:
                name, value = entry.group(1), (entry.group(2) or "").rstrip(" \t")
                if name.startswith("!") or name.endswith("!"):  # `:name!:` unsets it
                    self.attributes.pop(name.strip("!"), None)
                else:  # references in a value are replaced where it is set, as Asciidoctor does
                    self.attributes[name] = self.expanded(value)
                index += 1
                continue
            if _BLOCK_ATTRIBUTES.match(stripped):
                if stripped.startswith("[") and not stripped.startswith("[["):
                    style = [part.strip().strip('"') for part in stripped[1:-1].split(",")]
                index += 1
                continue
            image = _IMAGE_BLOCK.match(stripped)
            if image:
                out += ["", image.group(1).strip(), ""] if image.group(1).strip() else []
                index += 1
                continue
            section = _SECTION.match(line)
            if section:
                heading = section.group(2).rstrip(" \t")
                if heading.endswith("=") and heading.rstrip("=").endswith((" ", "\t")):
                    heading = heading.rstrip("=").rstrip(" \t")  # `== Title ==`: the closing marks
                out += ["", "#" * len(section.group(1)) + " " + self.inline(heading), ""]
                index += 1
                continue
            title = _BLOCK_TITLE.match(line)
            if title and not _LIST.match(line):
                out.append(escape_headings(self.inline(title.group(1))))
                index += 1
                continue
            # A paragraph: up to a blank line or a line that starts a block.
            end = index + 1
            while end < len(lines) and lines[end].strip() and not _starts_block(lines[end]):
                end += 1
            out += self._paragraph(lines[index:end], style)
            style = []
            index = end
        return out

    def _block(self, mark: str, content: list[str], style: list[str], depth: int) -> list[str]:
        kind = mark[0] if mark != "--" else "open"
        first = style[0].upper() if style else ""
        if kind == "/":
            return []
        if (kind in "-." and mark != "--") or first in ("SOURCE", "LISTING", "LITERAL"):
            return [fenced("\n".join(content), _language(style))]
        if kind == "+":
            try:
                converted, _title = html_to_markdown("\n".join(content))
            except ConversionFailed:
                return []
            return converted.split("\n")
        if kind in "|!":
            return _table(content, style, mark[0], self.inline)
        body = self.read(content, depth + 1)
        if first in _LABELS:
            return labelled(f"{_LABELS[first]}:", body)
        return body

    def _paragraph(self, lines: list[str], style: list[str]) -> list[str]:
        first = style[0].upper() if style else ""
        if first in ("SOURCE", "LISTING", "LITERAL"):
            return ["", fenced("\n".join(lines), _language(style)), ""]
        text = [self._line(line) for line in lines if line.strip() != "+"]
        if first in _LABELS:
            return ["", *labelled(f"{_LABELS[first]}:", text), ""]
        admonition = _ADMONITION.match(lines[0])
        if admonition:
            text[0] = f"{_LABELS[admonition.group(1)]}: {self.inline(admonition.group(2))}"
        return [escape_headings(line) for line in text]

    def _line(self, line: str) -> str:
        line = _LINE_BREAK.sub("", line)
        item = _LIST.match(line)
        if item:
            marker, body = item.groups()
            if marker[0] in ".0123456789":
                depth = len(marker) - 1 if marker[0] == "." else 0
                return "   " * depth + "1. " + self.inline(body)
            depth = len(marker) - 1 if marker[0] == "*" else 0
            return "  " * depth + "- " + self.inline(body)
        term = _description(line)
        if term is not None:
            name, definition = term
            return f"{self.inline(name)}: {self.inline(definition)}".rstrip()
        return self.inline(line)

    def inline(self, text: str) -> str:
        text = self.expanded(text)
        if "<<" in text:
            text = _CROSS_REFERENCE.sub(lambda m: (m.group(2) or m.group(1)).strip(), text)
        if "[" not in text:
            return text
        text = _INLINE_ANCHOR.sub("", text)
        out: list[str] = []
        at = 0
        for bracket in _BRACKETED.finditer(text):
            start = bracket.start()
            token = start
            while token > at and not text[token - 1].isspace() and text[token - 1] not in "[]()<>":
                token -= 1
            macro = _MACRO.search(text, token, start)
            if macro is None:
                continue
            out.append(text[at : macro.start()])
            out.append(_macro(macro.group(1), macro.group(2), bracket.group(1)))
            at = bracket.end()
        out.append(text[at:])
        return "".join(out)


def _macro(kind: str, target: str, content: str) -> str:
    """What an inline macro shows: a link, a cross reference's text, a picture's alt text, a key."""
    if kind in ("https", "http", "ftp", "irc", "mailto", "link"):
        href = target if kind == "link" else f"{kind}:{target}"
        text = content.split(",", 1)[0].strip().strip('"') if "=" in content else content.strip()
        text = text.rstrip("^")  # `^` asks for a new window
        return f"[{text}]({href})" if text else href
    if kind == "xref":
        return content.strip() or target.split("#")[-1]
    if kind == "image":
        return content.split(",", 1)[0].strip()
    if kind == "menu":
        return " > ".join(part.strip() for part in [target, *content.split(">")] if part.strip())
    if kind == "footnote":
        return f" ({content.strip()})" if content.strip() else ""
    if kind in ("icon", "anchor"):
        return ""
    return content  # kbd, btn, pass


def _description(line: str) -> tuple[str, str] | None:
    """(term, definition) of a description list item (`term:: definition`), else None."""
    for mark in ("::", ";;"):
        at = line.find(mark)
        if at <= 0:
            continue
        end = at + len(mark)
        while end < len(line) and line[end] == mark[0] and end - at < 4:
            end += 1
        term = line[:at].strip()
        if term and term[-1] != mark[0] and (end == len(line) or line[end] in " \t") and "://" not in term:
            return term, line[end:].strip()
    return None


def _language(style: list[str]) -> str:
    """A source block's language: `[source,python]`, or `[,python]` with the style left out."""
    first = style[0].upper() if style else ""
    return style[1] if first in ("SOURCE", "") and len(style) > 1 else ""


def _table(content: list[str], style: list[str], separator: str, inline) -> list[str]:
    """An AsciiDoc table as a pipe table: its cells in rows of the first row's width. `separator`:
    the cell mark, `|` (or `!` in a table nested in a cell)."""
    options = " ".join(style).lower()
    first_row = next((n for n, line in enumerate(content) if line.strip()), None)
    if first_row is None:
        return []
    pieces: list[list[str]] = []  # each cell's lines of text, joined once at the end
    width = 0  # the first row's cell count
    split = re.compile(rf"(?<!\\){re.escape(separator)}")
    for line in content:
        if not line.strip():
            continue
        parts = [part.strip().replace("\\" + separator, separator) for part in split.split(line)]
        if line.lstrip().startswith(separator):
            parts = parts[1:]
        elif pieces:
            pieces[-1].append(parts[0])  # a cell's text continued on the next line
            parts = parts[1:]
        width = width or len(parts)
        pieces.extend([part] for part in parts)
    cells = [" ".join(piece for piece in cell if piece) for cell in pieces]
    width = max(1, width)
    header = ("header" in options or (first_row + 1 < len(content) and not content[first_row + 1].strip()
                                      and "noheader" not in options))
    rows = [cells[n : n + width] for n in range(0, len(cells), width)]
    lines = ["| " + " | ".join(inline(cell).replace("|", "\\|") for cell in row) + " |" for row in rows if row]
    if header and len(lines) > 1:
        lines.insert(1, "|" + "---|" * width)
    return lines


def _two_line_title(line: str, under: str) -> int:
    """The heading level of `line` over `under` read as a two-line section title (Asciidoctor's
    rule: the underline as long as the title, give or take one character); 0 if they are not one."""
    title, under = line.rstrip(), under.rstrip()
    if not (_SETEXT_LINE.fullmatch(under) and _SETEXT_TITLE.fullmatch(title) and abs(len(title) - len(under)) < 2):
        return 0
    if len(title) < 2 or _starts_block(title) or _LIST.match(title):
        return 0
    return _SETEXT_LEVELS[under[0]]


def _starts_block(line: str) -> bool:
    stripped = line.strip()
    return bool(_DELIMITER.match(line) or _SECTION.match(line) or _BLOCK_ATTRIBUTES.match(stripped)
                or _COMMENT.match(line) or _ATTRIBUTE_ENTRY.match(line) or _DIRECTIVE.match(stripped)
                or _IMAGE_BLOCK.match(stripped))


def _closers(lines: list[str]) -> dict[str, list[int]]:
    """For each delimiter line, the indexes of the lines equal to it: a block's closing line is the next."""
    found: dict[str, list[int]] = {}
    for index, line in enumerate(lines):
        if _DELIMITER.match(line):
            found.setdefault(line.rstrip(), []).append(index)
    return found


