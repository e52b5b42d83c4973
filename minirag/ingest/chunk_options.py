"""A Quarto or R Markdown code chunk as its rendered page shows it: its code and its captions.

Quarto (and knitr since 1.35) takes a chunk's options from comment lines at its top, `#|` in most
languages (`//|` in JavaScript, Rust and C++, `--|` in SQL and Lua, `%%|` in Mermaid):

    #| label: fig-bills
    #| fig-cap: "Bill length against depth"

A page shows none of them as code (a chunk with `echo: fenced`, as docs teaching them write, shows
the others). What it shows is a figure's or a table's caption under the output: `fig-cap` and
`tbl-cap` (knitr's `fig.cap`), each panel's `fig-subcap` (a list), a listing's `lst-cap`. knitr
also reads options from the chunk's header, ```` ```{r plot, fig.cap='A scatterplot'} ````. Only a
caption given as text is read: one computed (`!expr paste(...)`, `fig.cap=paste(...)`) is not known.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_OPTION = re.compile(r"^[ \t]*(?:#|//|--|%%)\|[ \t]?(.*)$")
_KEY = re.compile(r"^([A-Za-z][\w.-]*):[ \t]*(.*)$")
# The captions a page shows: a listing's (its code's), each panel's under it, then the figure's.
_CAPTIONS = ("lst-cap", "fig-subcap", "fig-cap", "tbl-subcap", "tbl-cap")
_HEADER_CAPTION = re.compile(r"""(?:^|[\s,])((?:fig|tbl)[.-](?:sub)?cap)[ \t]*=[ \t]*(?:"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)')""")
_QUOTED = re.compile(r"""\"((?:[^"\\]|\\.)*)\"|'((?:[^']|'')*)'""")


@dataclass(frozen=True)
class CodeChunk:
    code: str
    captions: tuple[str, ...]


def read_chunk(header: str, lines: list[str]) -> CodeChunk:
    """The chunk whose header (what its braces hold) is `header` and whose lines are `lines`."""
    texts: list[str] = []
    while len(texts) < len(lines) and (option := _OPTION.match(lines[len(texts)])) is not None:
        texts.append(option.group(1))
    options = _options(texts)
    for match in _HEADER_CAPTION.finditer(header):
        value = match.group(2) if match.group(2) is not None else match.group(3)
        options.setdefault(_key(match.group(1)), [value.replace("\\\"", "\"").replace("\\'", "'")])
    code = lines[len(texts):]
    if options.get("echo") == ["fenced"]:  # the page shows the chunk with its options, this one aside
        code = [line for line, text in zip(lines, texts, strict=False) if _option_key(text) != "echo"] + code
    first = next((n for n, line in enumerate(code) if line.strip()), len(code))
    captions = tuple(caption for key in _CAPTIONS for caption in options.get(key, []) if caption.strip())
    return CodeChunk("\n".join(code[first:]), captions)


def _option_key(text: str) -> str | None:
    match = _KEY.match(text)
    return _key(match.group(1)) if match else None


def _key(name: str) -> str:
    return name.lower().replace(".", "-")


def _options(texts: list[str]) -> dict[str, list[str]]:
    """Each option's values, as YAML writes them: a scalar, a list's items, a block's lines as one."""
    options: dict[str, list[str]] = {}
    blocks: set[str] = set()
    key = None
    for text in texts:
        match = _KEY.match(text)
        if match:
            key, value = _key(match.group(1)), match.group(2).strip()
            blocks.discard(key)
            if value[:1] in ("|", ">"):
                blocks.add(key)
            options[key] = [] if key in blocks or not value else _values(value)
            continue
        item = text.strip()
        if key is None or not item:
            continue
        if item.startswith("- "):
            options[key].append(_scalar(item[2:].strip()))
        elif key in blocks:
            options[key].append(item)
    for key in blocks:  # a block's lines are one value
        options[key] = [" ".join(options[key])]
    return options


def _values(value: str) -> list[str]:
    if value.startswith("[") and value.endswith("]"):  # a list written inline
        return [_scalar(item.group(0)) for item in _QUOTED.finditer(value)]
    return [_scalar(value)]


def _scalar(value: str) -> str:
    if value.startswith("!expr"):
        return ""
    quoted = _QUOTED.fullmatch(value)
    if quoted is None:
        return value
    if quoted.group(1) is not None:
        return quoted.group(1).replace("\\\"", "\"").replace("\\\\", "\\")
    return quoted.group(2).replace("''", "'")
