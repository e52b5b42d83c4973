"""reStructuredText -> Markdown: the structure chunking needs, the text a reader of the built page sees.

Python projects write their docs, READMEs and changelogs in reStructuredText. Read
as plain text, its section titles are lines like any other (no breadcrumbs, no
sections), and its markup is words no reader sees (`:func:`, `.. code-block::`,
`.. _target:`). This reads the parts docutils' readers would, line by line, with no
docutils import (a pure-Python parser of its own size for what is mostly prose):

- a section title (underlined, or over- and underlined, with one punctuation
  character repeated at least as long as the title) becomes an ATX heading, its
  level the order in which its adornment style first appears, as docutils ranks them;
- a literal block (after a paragraph ending in `::`), a `code-block`/`code`/
  `sourcecode` directive and a doctest block (`>>>` lines) become fenced code;
- an admonition (`note`, `warning`, `versionadded`...) keeps its content after its
  label (`Note:`), an object's description (`function`, `class`, `py:method`...) its
  signature as code and then its content, an image or figure its `:alt:` text and
  caption; any other directive keeps its argument line and content as text;
- a substitution (`|name|`) reads as what its definition gives: a `replace`'s text, a
  `unicode`'s characters, an image's alt text;
- what renders as nothing goes: comments, hyperlink targets (`.. _name: url`, and anonymous ones,
  `__ url`),
  substitution definitions, `toctree`, `include`, `raw`, `meta`, `index`,
  `contents` and directive options;
- inline markup renders as Markdown: ``literal`` and code roles (`:func:`os.path.join``)
  as code spans, other roles and `references`_ as their text (the title of
  `Title <target>`), `text <https://…>`_ as a link.

Everything else (paragraphs, lists, field lists, tables drawn in ASCII) stays as
written, each line once. Every pass is a walk over the lines: linear in the text.
"""

from __future__ import annotations

import re

from minirag.ingest.html_markdown import fenced
from minirag.ingest.text_repair import escape_headings

_ADORNMENT = re.compile(r"^([!-/:-@\[-`{-~])\1{2,}\s*$")
_DIRECTIVE = re.compile(r"^(\s*)\.\.\s+([\w:.+-]+)::(?:\s+(.*))?$")
_EXPLICIT = re.compile(r"^(\s*)\.\.(?:\s|$)")
_ANONYMOUS_TARGET = re.compile(r"^\s*__(?:\s|$)")  # `__ url`, or `__` alone: the target below it
_FOOTNOTE = re.compile(r"^(\s*)\.\.\s+(\[[^\]]+\])\s+(.*)$")
_OPTION = re.compile(r"^\s*:[\w -]+:(?:\s|$)")
_ROLE = re.compile(r"(?<![\w`])(?::[\w.+-]+(?::[\w.+-]+)?:)?`(?!`)([^`]+?)`(?:__?)?(?::[\w.+-]+:)?(?![\w`])")
# (`(?<!\s)`: the space before the target is tried from where a run of it starts, not from each of its
# characters: a role of 40,000 spaces took 1.3 s.)
_LINK_TARGET = re.compile(r"^(.*?)(?<!\s)\s*<([^<>]+)>$", re.DOTALL)
# `.. |name| kind:: argument`, and a reference to one: `|name|` (`|name|_` a linked one) between
# blanks or punctuation. A name holds no `|` and neither starts nor ends with a blank.
_SUBSTITUTION_DEFINITION = re.compile(r"^\s*\.\.\s+\|([^|\s](?:[^|]*[^|\s])?)\|\s+([\w:-]+)::(?:\s+(.*))?$")
_SUBSTITUTION = re.compile(r"(?<![\w|])\|([^|\s](?:[^|]*[^|\s])?)\|(?:__?)?(?![\w|])")
_DOCTEST = re.compile(r"^\s*>>>( |$)")
_SPHINX_METADATA = re.compile(r"^:(?:orphan|nosearch|nocomments|tocdepth|hide-toc|hide-navigation|og:[\w:-]+):(?:\s.*)?$")
_EMPTY_FIELD = re.compile(r"^\s*:[^:\n]+:\s*$")  # a field whose body starts on the next line (`:Status:`)
_LIST_ITEM = re.compile(r"^\s*(?:[-*+•‣⁃]|\d+[.)]|#\.|\(?[a-zA-Z0-9]+\)|:[^:]+:)(?:\s|$)")

# A directive that includes another file (never followed).
INCLUDE = re.compile(r"^\s*\.\.\s+(?:include|literalinclude)::", re.MULTILINE)
# Directives whose output is no text: navigation, inclusion, raw markup, metadata.
SILENT_DIRECTIVES = frozenset({"toctree", "include", "literalinclude", "raw", "meta", "index", "contents", "sectnum",
                     "highlight", "default-role", "role", "currentmodule", "module", "py:module",
                     "py:currentmodule", "automodule", "autosummary", "tabularcolumns", "only-html-hidden",
                     "target-notes", "header", "footer", "title", "rst-class", "class", "moduleauthor",
                     "sectionauthor", "codeauthor", "tags", "spelling:word-list"})
CODE_DIRECTIVES = frozenset({"code-block", "code", "sourcecode", "doctest", "testcode", "testoutput", "ipython", "parsed-literal",
                   "prompt", "productionlist"})
PICTURE_DIRECTIVES = frozenset({"image", "figure"})
_ADMONITIONS = {"note": "Note", "warning": "Warning", "tip": "Tip", "hint": "Hint", "important": "Important",
                "caution": "Caution", "danger": "Danger", "attention": "Attention", "error": "Error",
                "seealso": "See also", "todo": "To do", "versionadded": "New in version",
                "versionchanged": "Changed in version", "deprecated": "Deprecated since version",
                "versionremoved": "Removed in version"}
# Roles whose text is code (Sphinx's Python and standard domains): written as a code span.
_CODE_ROLES = frozenset({"func", "meth", "class", "mod", "attr", "data", "exc", "obj", "const", "command",
                         "option", "envvar", "file", "program", "samp", "kbd", "code", "py", "type", "member",
                         "macro", "var", "struct", "enum", "expr", "makevar", "regexp", "dfn-code"})
# Signatures of described objects (`.. function:: name(args)`): kept as code, then their content.
_OBJECTS = frozenset({"function", "class", "method", "attribute", "data", "exception", "decorator",
                      "staticmethod", "classmethod", "property", "module-function", "cmdoption", "option",
                      "envvar", "describe", "object", "type", "member", "macro", "var", "struct", "enum",
                      "coroutinefunction", "coroutinemethod", "abstractmethod", "opcode", "pdbcommand",
                      "program", "confval", "setting"})


MAX_NESTING = 40  # directives inside directives read as markup; deeper content stays as written


def rst_to_markdown(text: str) -> str:
    """Markdown for a reStructuredText document (see the module's docstring)."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").expandtabs(8).split("\n")
    start = 0
    while start < len(lines) and (_SPHINX_METADATA.match(lines[start]) or not lines[start].strip()):
        start += 1  # Sphinx's file-wide metadata (`:orphan:`, `:tocdepth: 2`): read by the builder, never shown
    substitutions = _substitutions(lines)
    if substitutions:
        lines = _substituted(lines, substitutions)
    out = _read(lines[start:], [], 0)
    return re.sub(r"\n{3,}", "\n\n", "\n".join(out)).strip("\n") + "\n"


def _substitutions(lines: list[str]) -> dict[str, str]:
    """What each substitution (`.. |name| replace:: text`) reads as, by its name (and its name in
    lower case, as docutils falls back to): a `replace` its text, its indented lines joined; a
    `unicode` its characters; an `image` its `:alt:` text, or nothing."""
    found: dict[str, str] = {}
    for index, line in enumerate(lines):
        definition = _SUBSTITUTION_DEFINITION.match(line)
        if definition is None:
            continue
        name, kind, argument = definition.group(1), definition.group(2), definition.group(3) or ""
        more = lines[index + 1 : _block_end(lines, index + 1, _indent(line))]
        if kind == "replace":
            text = " ".join([argument, *(entry.strip() for entry in more)]).strip()
        elif kind == "unicode":
            text = "".join(_code_point(code) for code in argument.split(" .. ")[0].split())
        elif kind in PICTURE_DIRECTIVES:
            text = next((option.split(":", 2)[2].strip() for option in (m.strip() for m in more)
                         if option.startswith(":alt:")), "")
        else:
            continue
        normalized = " ".join(name.split())
        found.setdefault(normalized, text)
        found.setdefault(normalized.lower(), text)
    return found


def _substituted(lines: list[str], substitutions: dict[str, str]) -> list[str]:
    """The lines with each substitution reference replaced, but in literal text, which docutils
    leaves as written: an inline literal, and the indented block after a `::` or a code directive."""
    def replaced(found: re.Match[str]) -> str:
        return substitutions.get(found.group(1), substitutions.get(found.group(1).lower(), found.group()))

    out, literal_indent = [], None  # inside a literal block: the indentation of the line that opened it
    for line in lines:
        if literal_indent is not None and (not line.strip() or _indent(line) > literal_indent):
            out.append(line)
            continue
        directive = _DIRECTIVE.match(line)
        code = directive is not None and directive.group(2).split(":")[-1] in CODE_DIRECTIVES
        literal_indent = _indent(line) if code or (directive is None and line.rstrip().endswith("::")) else None
        if _EXPLICIT.match(line):
            out.append(line)
            continue
        pieces, at = [], 0
        for start, end in _literals(line):
            pieces += [_SUBSTITUTION.sub(replaced, line[at:start]), line[start:end]]
            at = end
        out.append("".join([*pieces, _SUBSTITUTION.sub(replaced, line[at:])]))
    return out


def _code_point(code: str) -> str:
    """A `unicode` directive's word: a character code (`0xA9`, `U+00A9`, `&#xA9;`, `169`) as its
    character, any other word as itself."""
    hexadecimal = re.fullmatch(r"(?:0x|x|\\x|U\+|u|\\u|&#x)([0-9A-Fa-f]{1,6});?", code)
    try:
        if hexadecimal:
            return chr(int(hexadecimal.group(1), 16))
        if code.isdigit():
            return chr(int(code))
    except (ValueError, OverflowError):
        return ""
    return code


def _read(lines: list[str], styles: list[tuple[str, bool]], depth: int) -> list[str]:
    """Markdown lines for `lines`: a document, or a directive's content (`depth` levels down).
    `styles`: the title adornments met so far, in order (their heading levels)."""
    out: list[str] = []
    paragraph: list[str] = []  # text lines, whose inline markup may run from one to the next

    def flush() -> None:
        if paragraph:
            out.extend(escape_headings(line) for line in _inline("\n".join(paragraph)).split("\n"))
            paragraph.clear()

    def read_nested(block: list[str]) -> list[str]:
        return _read(block, styles, depth + 1)

    index = 0
    while index < len(lines):
        line = lines[index]
        if not line.strip():
            flush()
            out.append("")
            index += 1
            continue
        if (paragraph and depth <= MAX_NESTING and _indent(line) > _indent(paragraph[0])
                and (not _LIST_ITEM.match(paragraph[0]) or _EMPTY_FIELD.match(paragraph[-1]))):
            # A block under a line of text (a definition under its term, a quote): read as a block of its own.
            term_indent = _indent(paragraph[0])
            flush()
            end = _block_end(lines, index, term_indent)
            out += read_nested(_dedented(lines[index:end]))
            index = end
            continue
        # Inside a paragraph only a `::` ending is markup; at a block's start every construct is tried.
        if (paragraph or depth > MAX_NESTING) and not line.rstrip().endswith("::"):
            paragraph.append(line)
            index += 1
            continue
        # Past MAX_NESTING no construct is read (each could open a level more): text and `::` blocks only.
        at_start = not paragraph and depth <= MAX_NESTING
        title = _title_at(lines, index) if at_start else None
        if title is not None:
            text_of_title, style, used = title
            if style not in styles:
                styles.append(style)
            out += ["", "#" * min(styles.index(style) + 1, 6) + " " + _inline(text_of_title), ""]
            index += used
            continue
        if (at_start and _ADORNMENT.match(line) and len(line.strip()) >= 4
                and _blank(lines, index - 1) and _blank(lines, index + 1)):
            index += 1  # a transition (a horizontal rule between paragraphs)
            continue
        directive = _DIRECTIVE.match(line) if at_start else None
        if directive is not None:
            index = _directive(lines, index, directive, out, styles, depth)
            continue
        footnote = _FOOTNOTE.match(line) if at_start else None
        if footnote is not None:
            out.append(footnote.group(1) + footnote.group(2) + " " + _inline(footnote.group(3)))
            index += 1
            continue
        if at_start and (_EXPLICIT.match(line) or _ANONYMOUS_TARGET.match(line)):  # a comment, a target, a substitution
            index = _block_end(lines, index + 1, _indent(line))
            continue
        if at_start and _DOCTEST.match(line):
            end = index
            while end < len(lines) and lines[end].strip():
                end += 1
            out += ["", *_fenced([entry.strip() for entry in lines[index:end]], "pycon"), ""]
            index = end
            continue
        if line.rstrip().endswith("::"):
            ending = line.rstrip()[:-2]
            if ending.strip():  # "Run this::" reads "Run this:"; "Run this ::" and "::" alone read nothing
                paragraph.append(ending.rstrip() + ("" if ending.endswith((" ", "\t")) else ":"))
            flush()
            index = _literal_block(lines, index + 1, _indent(line), out)
            continue
        paragraph.append(line)
        index += 1
    flush()
    return out


def _title_at(lines: list[str], index: int) -> tuple[str, tuple[str, bool], int] | None:
    """(title, adornment style, lines used) when a section title starts at `index`."""
    line = lines[index]
    if not _blank(lines, index - 1):
        return None
    over = _ADORNMENT.match(line)
    if over is not None and index + 2 < len(lines):
        title, under = lines[index + 1], _ADORNMENT.match(lines[index + 2])
        if (under is not None and under.group(1) == over.group(1) and title.strip()
                and not _ADORNMENT.match(title) and len(line.rstrip()) >= len(title.rstrip())):
            return title.strip(), (over.group(1), True), 3
    if (over is None and line.strip() and not line[0].isspace() and index + 1 < len(lines)
            and not _EXPLICIT.match(line)):
        under = _ADORNMENT.match(lines[index + 1])
        if under is not None and len(lines[index + 1].rstrip()) >= len(line.rstrip()):
            return line.strip(), (under.group(1), False), 2
    return None


def admonition_label(name: str, argument: str) -> tuple[str, str] | None:
    """An admonition directive's label and the text its argument adds, None for another directive.
    The text may start on the directive's line (`note:: Text`: "Note", "Text"); a version directive's
    first word is its version (`versionadded:: 3.2 Why`: "New in version 3.2", "Why"); the generic
    `admonition` takes its argument as its label."""
    if name == "admonition":
        return argument, ""
    if name not in _ADMONITIONS:
        return None
    version, _, said = argument.partition(" ") if name.startswith(("version", "deprec")) else ("", "", argument)
    return _ADMONITIONS[name] + (" " + version if version else ""), said


def _directive(lines: list[str], index: int, match: re.Match, out: list[str], styles: list[tuple[str, bool]],
               depth: int) -> int:
    indent, name, argument = len(match.group(1)), match.group(2).lower(), (match.group(3) or "").strip()
    end = _block_end(lines, index + 1, indent)
    first = index + 1
    options = {}
    while first < end and _OPTION.match(lines[first]):
        key, _, value = lines[first].strip()[1:].partition(":")
        options[key.strip().lower()] = value.strip()
        first += 1
    content = _dedented(lines[first:end])
    short = name.rsplit(":", 1)[-1]

    def read(block: list[str]) -> list[str]:
        return _read(block, styles, depth + 1)

    if name in SILENT_DIRECTIVES or short in SILENT_DIRECTIVES:
        return end
    if short in CODE_DIRECTIVES:
        language = argument.split()[0] if argument else ""
        out += ["", *_fenced(content, language), ""]
    elif short in PICTURE_DIRECTIVES:
        words = [options.get("alt", "")] + ([_inline(" ".join(content).strip())] if short == "figure" else [])
        out += ["", " ".join(w for w in words if w), ""]
    elif (admonition := admonition_label(short, argument)) is not None:
        label, said = admonition
        if said.strip():
            content = [said.strip(), *content]
        read_content = read(content)
        at = next((n for n, line in enumerate(read_content) if line.strip()), len(read_content))
        opening = read_content[at] if at < len(read_content) and not read_content[at].startswith(("#", "```")) else ""
        rest = read_content[at + 1:] if opening else read_content[at:]
        out += ["", escape_headings(f"{_inline(label)}: {opening}".rstrip()), *rest, ""]
    elif (short in _OBJECTS or (short.startswith("auto") and short not in SILENT_DIRECTIVES)) and argument:
        out += ["", _code_span(argument), *read(content), ""]
    else:
        out += ["", *([escape_headings(_inline(argument))] if argument else []), *read(content), ""]
    return end


def _literal_block(lines: list[str], index: int, indent: int, out: list[str]) -> int:
    """The indented (or quoted) block after `::`, fenced; `index` is the line after the marker."""
    start = index
    while start < len(lines) and not lines[start].strip():
        start += 1
    if start >= len(lines) or _indent(lines[start]) <= indent:
        return start  # no block follows: the `::` only ended the paragraph
    end = _block_end(lines, start, indent)
    out += ["", *_fenced(_dedented(lines[start:end]), ""), ""]
    return end


def _block_end(lines: list[str], index: int, indent: int) -> int:
    """The first line at `index` or after that is not blank and indented no deeper than `indent`."""
    while index < len(lines) and (not lines[index].strip() or _indent(lines[index]) > indent):
        index += 1
    return index


def _fenced(lines: list[str], language: str) -> list[str]:
    return fenced("\n".join(lines), language).split("\n")


def _dedented(block: list[str]) -> list[str]:
    depth = min((_indent(line) for line in block if line.strip()), default=0)
    return [line[depth:] if line.strip() else "" for line in block]


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _blank(lines: list[str], index: int) -> bool:
    return index < 0 or index >= len(lines) or not lines[index].strip()


def _inline(line: str) -> str:
    """Inline markup as Markdown: literals and code roles as code spans, references and other roles as
    their text, `text <url>`_ as a link."""
    if "`" not in line:
        return line
    pieces, at = [], 0
    for start, end in _literals(line):
        pieces.append(_ROLE.sub(_role, line[at:start]))
        pieces.append(_code_span(line[start + 2:end - 2]))
        at = end
    pieces.append(_ROLE.sub(_role, line[at:]))
    return "".join(pieces)


def _literals(text: str) -> list[tuple[int, int]]:
    """(start, end) of each ``inline literal``: from a `` before a non-space to the next `` after one.
    One pass over the `` marks (a regex per opener rescanned the rest of a line of unclosed ones)."""
    spans, opened = [], None
    for mark in re.finditer("``", text):
        at = mark.start()
        if opened is None:
            if at + 2 < len(text) and not text[at + 2].isspace():
                opened = at
        elif at > opened + 2 and not text[at - 1].isspace():
            spans.append((opened, at + 2))
            opened = None
    return spans


def _role(match: re.Match) -> str:
    whole, text = match.group(0), match.group(1)
    role = re.match(r":(?:[\w.+-]+:)?([\w.+-]+):`", whole)
    return role_shown(role.group(1) if role is not None else None, text)


def role_shown(role: str | None, text: str) -> str:
    """What an interpreted text `text` shows as Markdown: a code role's (`func`, `class`) as a code
    span, a reference's (`Title <target>`) its title, `rfc` and `pep` their number after the name;
    `role` is the name without its domain (`func` of `py:func`), None for a bare `text`."""
    target = _LINK_TARGET.match(text)
    if target is not None:
        label, address = target.group(1).strip(), target.group(2).strip()
        if re.match(r"[a-z][a-z0-9+.-]*://", address) and role is None:
            return f"[{label or address}]({address})"
        text = label or address
    text = text.lstrip("~!")
    if role in ("rfc", "pep"):
        return f"{role.upper()} {text}"
    if role in _CODE_ROLES:
        return _code_span(text)
    return text


def _code_span(text: str) -> str:
    return f"`` {text} ``" if "`" in text else f"`{text}`"
