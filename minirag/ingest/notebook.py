"""A Jupyter notebook as a reader sees it: its markdown, its code, and what the code printed.

markitdown's converter kept the cells' sources and dropped every output, so a notebook's
printed results, tables and error messages (often what a reader looks for) were never indexed.
Outputs are kept as text: a stream (its consecutive pieces one output, and its backspaces and
carriage returns done, as Jupyter shows it) or a plain-text result as a fenced block, an HTML result
(a DataFrame) through minirag's own HTML conversion, Markdown as it is, LaTeX (a `Math` display,
a SymPy result) as its TeX; images are left out, and so is the middle of a very long printed output.
Both nbformat 4 (`cells`) and nbformat 3 (`worksheets`) are read.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from minirag.errors import ConversionFailed
from minirag.ingest.html_markdown import fenced, html_to_markdown
from minirag.ingest.markdown_html import rendered_html

_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")  # colours in tracebacks and progress bars
_CURSOR_MOVES = re.compile(r"([\r\x08]+)")  # a carriage return, a backspace
# What a result's text/plain says when the object has no text of its own: the reader sees nothing.
_BARE_REPR = re.compile(r"\A<[\w.]+(?: object)? at 0x[0-9a-fA-F]+>\Z")
# In order of preference: the first a result has is what a reader of the rendered notebook sees.
# LaTeX (IPython's `Math`, SymPy's results) is typeset where it is given; its text/plain is then a
# repr, `<IPython.core.display.Math object>`.
_RICH = ("text/markdown", "text/html", "text/latex", "text/plain")
# What Jupyter shows rather than an output's text/plain, which is then no reader's (an image's repr,
# `<Figure size 640x480>`, or words put there for an agent beside a picture).
_SHOWN_OVER_PLAIN = ("image/svg+xml", "image/png", "image/jpeg", "image/gif", "image/webp", "application/pdf")
# A printed or plain-text output past these keeps its head and tail: a training loop's 20,000 log
# lines, or one repr of a long list, are a reader's scroll past and the index's thousands of
# near-identical chunks; what a run began and ended with is what is looked for.
MAX_OUTPUT_LINES = 200
MAX_OUTPUT_CHARS = 10_000
_TAIL_SHARE = 4  # a quarter of what is kept comes from the end


@dataclass(frozen=True)
class Notebook:
    markdown: str
    title: str | None


def notebook_to_markdown(text: str) -> Notebook:
    try:
        document = json.loads(text.lstrip("\ufeff"))
    except RecursionError:  # arrays nested past Python's stack
        raise ConversionFailed("not a Jupyter notebook: cannot read its JSON (nested too deeply)") from None
    except ValueError as exc:
        raise ConversionFailed(f"not a Jupyter notebook: cannot read its JSON ({str(exc)[:200]})") from None
    problem = shape_problem(document)  # refused saying which, rather than read in part
    if problem is not None or not isinstance(document, dict):
        raise ConversionFailed(f"not a Jupyter notebook: {problem}")
    metadata = _dict(document.get("metadata"))
    language = _language(metadata)
    cells = document.get("cells")
    if cells is None:  # nbformat 3
        cells = [cell for sheet in _list(document.get("worksheets")) if isinstance(sheet, dict)
                 for cell in _list(sheet.get("cells"))]
    blocks = []
    for cell in _list(cells):
        if isinstance(cell, dict):
            blocks.extend(_cell(cell, language))
    title = metadata.get("title")
    return Notebook(markdown="\n\n".join(block for block in blocks if block.strip()),
                    title=title.strip() if isinstance(title, str) and title.strip() else None)


def shape_problem(notebook: object) -> str | None:
    """What makes a parsed notebook's JSON no notebook, or None."""
    if not isinstance(notebook, dict):
        return "its JSON is no object"
    if not isinstance(notebook.get("metadata", {}), dict):
        return "its metadata is no object"
    cells = notebook.get("cells", [])
    if not isinstance(cells, list):
        return "its cells are no list"
    for number, cell in enumerate(cells, 1):
        if not isinstance(cell, dict):
            return f"cell {number} is no object"
        source = cell.get("source", [])
        if not isinstance(source, str) and not (isinstance(source, list) and all(isinstance(s, str) for s in source)):
            return f"cell {number}'s source is no text"
    return None


def _dict(value: object) -> dict:
    return value if isinstance(value, dict) else {}


def _list(value: object) -> list:
    return value if isinstance(value, list) else []


def _text(value: object) -> str:
    """A notebook string: one string, or a list of lines to join."""
    if isinstance(value, str):
        return value
    return "".join(part for part in _list(value) if isinstance(part, str))


def _language(metadata: dict) -> str:
    for key, field in (("kernelspec", "language"), ("language_info", "name")):
        holder = metadata.get(key)
        if isinstance(holder, dict) and isinstance(holder.get(field), str) and holder[field].strip():
            return holder[field].strip().lower()
    return "python"


def _cell(cell: dict, language: str) -> list[str]:
    kind = cell.get("cell_type")
    source = _text(cell.get("source", cell.get("input")))
    if kind == "markdown":
        return [rendered_html(source)]
    if kind == "heading":  # nbformat 3
        level = cell.get("level")
        level = level if isinstance(level, int) else 1
        return [f"{'#' * max(1, min(6, level))} {' '.join(source.split())}"]
    if kind == "raw":
        return [fenced(source, "")]
    if kind != "code":
        return []
    return [fenced(source, language), *(_output(output) for output in _joined_streams(_list(cell.get("outputs"))))]


def _stream_name(output: dict) -> object:
    return output.get("name", output.get("stream"))  # nbformat 3 names it `stream`


def _joined_streams(outputs: list) -> list[dict]:
    """The outputs as Jupyter's output area keeps them: a stream's piece after a piece of the same
    stream is one text with it. A notebook run by nbclient (papermill, nbconvert --execute) saves
    each flush as an output of its own, and a progress bar's frames are then split across them."""
    joined: list[dict] = []
    pieces: list[str] = []
    for output in outputs:
        if not isinstance(output, dict):
            continue
        if (output.get("output_type") == "stream" and joined and joined[-1].get("output_type") == "stream"
                and _stream_name(joined[-1]) == _stream_name(output)):
            pieces.append(_text(output.get("text")))
            continue
        _close(joined, pieces)
        joined.append(output)
        pieces = [_text(output.get("text"))] if output.get("output_type") == "stream" else []
    _close(joined, pieces)
    return joined


def _close(joined: list[dict], pieces: list[str]) -> None:
    if len(pieces) > 1:
        joined[-1] = {**joined[-1], "text": "".join(pieces)}


def _output(output: dict) -> str:
    kind = output.get("output_type")
    if kind == "stream":
        return _printed(_as_a_terminal_shows(_text(output.get("text"))))
    if kind in ("error", "pyerr"):
        lines = _list(output.get("traceback")) or [f"{output.get('ename', '')}: {output.get('evalue', '')}"]
        return _printed("\n".join(line for line in lines if isinstance(line, str)))
    data = output.get("data")
    if not isinstance(data, dict):  # nbformat 3 keeps a result's types on the output itself
        data = {"text/html": output.get("html"), "text/markdown": output.get("markdown"),
                "text/plain": output.get("text"), "image/png": output.get("png"),
                "image/jpeg": output.get("jpeg"), "image/svg+xml": output.get("svg")}
    for mimetype in _RICH:
        body = _text(data.get(mimetype))
        if not body.strip():
            continue
        if mimetype == "text/markdown":
            return rendered_html(body)  # as a markdown cell is read
        if mimetype == "text/html":
            markdown, _ = html_to_markdown(body)
            if markdown.strip():
                return markdown
            continue
        if mimetype == "text/latex":
            return body.strip()  # as a markdown cell's math is read: its TeX, `$\displaystyle m = -1.007$`
        if any(data.get(shown) for shown in _SHOWN_OVER_PLAIN):
            return ""  # the picture is shown, and left out as every image is
        if not _BARE_REPR.match(body.strip()):
            return _printed(body)
    return ""


def _printed(text: str) -> str:
    """Text an output printed, without terminal colours, its middle left out past the bounds."""
    return fenced(_bounded(_ANSI.sub("", text)), "")


def _as_a_terminal_shows(text: str) -> str:
    """A stream's text as the terminal it was written for shows it, and Jupyter too: a backspace moves
    back a character and a carriage return to the line's start, and what follows is written over what
    was there. A progress bar's frames (Keras writes backspaces over the last frame, then a carriage
    return, then the next) leave its last; text no later text covers stays."""
    if "\r" not in text and "\x08" not in text:
        return text
    return "\n".join(_overwritten(line) for line in _ANSI.sub("", text).split("\n"))


def _overwritten(line: str) -> str:
    if "\r" not in line and "\x08" not in line:
        return line
    # One cell a character, written in place: a short piece over a long line costs the piece alone.
    shown: list[str] = []
    column = 0
    for number, piece in enumerate(_CURSOR_MOVES.split(line)):
        if number % 2:  # carriage returns and backspaces: to the start, then back one for each after the last
            last_return = piece.rfind("\r")
            column = max(0, (column if last_return < 0 else 0) - (len(piece) - last_return - 1))
            continue
        end = column + len(piece)
        if end <= len(shown):
            shown[column:end] = piece
        else:
            del shown[column:]
            shown.extend(piece)
        column = end
    return "".join(shown)


def _bounded(text: str) -> str:
    lines = text.split("\n")
    if len(lines) > MAX_OUTPUT_LINES:
        tail = MAX_OUTPUT_LINES // _TAIL_SHARE
        left_out = len(lines) - MAX_OUTPUT_LINES
        lines = [*lines[:MAX_OUTPUT_LINES - tail], f"[… {left_out:,} lines of this output left out …]", *lines[-tail:]]
        text = "\n".join(lines)
    if len(text) > MAX_OUTPUT_CHARS:
        tail = MAX_OUTPUT_CHARS // _TAIL_SHARE
        left_out = len(text) - MAX_OUTPUT_CHARS
        text = (f"{text[:MAX_OUTPUT_CHARS - tail]}\n[… {left_out:,} characters of this output left out …]\n"
                f"{text[-tail:]}")
    return text

