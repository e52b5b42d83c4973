"""How strings from outside (file names, ids, document text) are shown in messages and on a terminal.

They can be huge, hold bytes that are not UTF-8, line breaks that forge lines,
or control codes a terminal acts on. Every message and every line of human
output that carries one goes through here.
"""

from __future__ import annotations

import logging
import re
import unicodedata

# Characters a terminal acts on instead of showing: C0 and C1 controls but the line breaks
# and tabs of text, and the bidirectional overrides that reorder what is shown.
_TERMINAL_CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


# Characters that show as nothing, or as a plain space, on a terminal: no-break and other spaces,
# zero-width ones, joiners, direction marks, the soft hyphen, fillers, variation selectors and tags.
# A name holding one passes for another (`pass\u200bwords.md` printed exactly as `passwords.md`).
_INVISIBLE = re.compile("[\u00a0\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u2000-\u200f"
                        "\u2028-\u202f\u205f-\u206f\u3000\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff9-\ufffb"
                        "\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0000-\U000e0fff]")
# Line breaks a line splitter finds (Python's splitlines) where a terminal shows none.
_OTHER_LINE_BREAKS = re.compile("[\x85\u2028\u2029]")


def _escape(match: re.Match) -> str:
    return match.group().encode("unicode_escape").decode("ascii")


# What a terminal or a text renderer acts on that JSON writes as it is (it escapes C0 controls only):
# DEL, C1 controls (U+009B is a terminal's one-byte CSI), line separators, direction overrides and isolates.
_RAW_IN_JSON = re.compile("[\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
_JSON_ESCAPES = {c: f"\\u{c:04x}" for c in (*range(0x7F, 0xA0), 0x2028, 0x2029, *range(0x202A, 0x202F),
                                             *range(0x2066, 0x206A))}


def escaped_json(text: str) -> str:
    """JSON text with each of those characters as its \\u escape: the same JSON to a reader. None is
    JSON's own punctuation or white space, so each lies inside a string, where the escape reads the same.
    A table, not a substitution per match: a stdout line may hold a million of them."""
    return text.translate(_JSON_ESCAPES) if _RAW_IN_JSON.search(text) else text


def shown(text: str, limit: int = 200) -> str:
    """A caller's string in a message: never echoed back whole (a 3 MB id gave a 3 MB error)."""
    return text if len(text) <= limit else text[:limit] + f"... ({len(text)} characters)"


def is_utf8(text: str) -> bool:
    """Whether `text` is valid UTF-8. Linux allows any bytes in a name (old archives, other
    locales); Python hands them over as lone surrogates, which SQLite and JSON cannot carry."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def printable(text: str) -> str:
    """`text` for a message: bytes that are not UTF-8 shown as \\x escapes."""
    return text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


def on_one_line(value) -> str:
    """A value shown on one line of a listing: a line break in a file name must not forge a line."""
    line = str(value).replace("\n", "\\n").replace("\r", "\\r").replace("\t", "\\t")
    return _OTHER_LINE_BREAKS.sub(_escape, line)


def a_name(value) -> str:
    """A file name, path or source id on one line, every character that shows as nothing or as a
    plain space escaped (`pass\\u200bwords.md`): shown, a name must not pass for another. Only
    names: in a document's text a joiner or a no-break space is the text's own."""
    return _INVISIBLE.sub(_escape, on_one_line(value))


def message_line(exc: BaseException) -> str:
    """An error as both faces show it (the CLI's `minirag: error: ...`, an MCP tool error): one line,
    its line breaks and runs of white space as one space, every control and direction override escaped."""
    return for_terminal(_INVISIBLE.sub(_escape, " ".join(str(exc).split()) or type(exc).__name__))


def for_terminal(text: str) -> str:
    """`text` with every character a terminal would act on shown as an escape (\\x1b): a document's
    title or text (or a source id) must not clear the screen or retitle the window."""
    return _TERMINAL_CONTROLS.sub(lambda m: m.group().encode("unicode_escape").decode("ascii"), text)


def duration(seconds: float) -> str:
    """`45 s`, `3 min 20 s`, `2 h 5 min`."""
    seconds = int(round(seconds))
    if seconds < 60:
        return f"{seconds} s"
    if seconds < 3600:
        return f"{seconds // 60} min {seconds % 60} s"
    return f"{seconds // 3600} h {seconds % 3600 // 60} min"


# `extra=` of a record that says what a long operation is doing (a sync job's progress, a re-tokenize):
# logged at WARNING, so it shows without -v, and written without a level: it is no problem.
NOTICE = {"notice": True}


class LogLine(logging.Formatter):
    """A log record as `minirag: LEVEL: message` (a NOTICE as `minirag: message`), on one line, with
    what a terminal would act on escaped: a record names files and folders (`ingested NAME`, an ignore
    file's bad line), and a name may hold an escape sequence or a line break that forges a line. A
    traceback attached to a record follows as Python writes it."""

    def __init__(self) -> None:
        super().__init__("minirag: %(levelname)s: %(message)s")

    def formatMessage(self, record: logging.LogRecord) -> str:  # noqa: N802 - logging's name
        line = f"minirag: {record.message}" if getattr(record, "notice", False) else super().formatMessage(record)
        return for_terminal(a_name(line))  # a message naming files: names as a_name shows them


def display_width(text: str) -> int:
    """Terminal columns `text` takes: two for a wide (CJK) character, none for a combining one."""
    return sum(0 if unicodedata.combining(ch) else 2 if unicodedata.east_asian_width(ch) in "WF" else 1
               for ch in text)


def fit_width(text: str, columns: int) -> str:
    """`text` cut to at most `columns` terminal columns, ending in `…` when cut."""
    if display_width(text) <= columns:
        return text
    return "".join(_fitting(text, columns - 1)) + "…"


def fit_width_keeping_end(text: str, columns: int) -> str:
    """`text` cut from its start to at most `columns` terminal columns, opening on `…` when cut: a
    path's end names the file."""
    if display_width(text) <= columns:
        return text
    return "…" + "".join(reversed(_fitting(text[::-1], columns - 1)))


def wrapped(text: str, columns: int, indent: str) -> str:
    """`text` (one line) as lines of at most `columns` terminal columns, each opening with `indent`,
    broken between words; a word wider than a line (a run of CJK, a long URL) is broken where the
    line ends. The words and their order are those of `text`."""
    room = max(columns - display_width(indent), 20)  # a terminal narrower than that wraps as it will
    lines: list[str] = []
    line, used = "", 0
    for word in text.split():
        width = display_width(word)
        if line and used + 1 + width <= room:
            line, used = f"{line} {word}", used + 1 + width
            continue
        if line:
            lines.append(line)
        while width > room:
            head = "".join(_fitting(word, room))
            lines.append(head)
            word = word[len(head):]
            width = display_width(word)
        line, used = word, width
    if line:
        lines.append(line)
    return "\n".join(indent + each for each in lines) or indent


def _fitting(text: str, columns: int) -> list[str]:
    kept, used = [], 0
    for ch in text:
        used += display_width(ch)
        if used > columns:
            break
        kept.append(ch)
    return kept
