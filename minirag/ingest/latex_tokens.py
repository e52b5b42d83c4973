"""LaTeX source as tokens: what latex_text.py renders, with every delimiter paired once.

One scan of the source, left to right. What TeX reads verbatim is taken whole here, where its
text is still as written: comments go (with their line end, as TeX drops it), `verbatim`,
`lstlisting` and `minted` bodies and `\\verb|...|` become code tokens, math between `$`, `$$`,
`\\(`, `\\[` its source, accents (`\\'e`, `\\c c`) the characters they compose. Closers are
found by bisecting their offsets, collected once, so an unclosed opener costs no rescan.
`pairs` then matches braces and environments over the token list with one stack.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from minirag.ingest.markup_lines import next_after

MAX_VERB_CHARS = 1_000  # `\verb|...|` closes on its line, within this many characters

# An accent: a symbol (\'e, \"{o}, \^\i) or a letter command followed by a brace or a blank (\c c, \v{s}).
# Possessive: blanks are read one way only, so a brace never closed costs one pass over them.
_ACCENT = (r"\\(?P<accent>['`^\"~=.]|[Hcvukrbdt](?=[\s{]))\s*+"
           r"(?:\{\s*+(?P<braced>\\[ij](?![A-Za-z])|[^\W\d_])?+\s*+\}|(?P<bare>\\[ij](?![A-Za-z])[ \t]*+|[^\W\d_]))")

_TOKEN = re.compile(
    "(?P<comment>%[^\n]*(?:\n(?![ \t]*\n)[ \t]*)?)"  # a comment takes its line end and the next line's indent
    f"|{_ACCENT}"
    r"|\\char\s*(?:'(?P<octal>[0-7]+)|\"(?P<hex>[0-9A-Fa-f]+)|(?P<decimal>\d+)|`\\?(?P<quoted>.))"
    r"|\\(?P<raw>url|path|href)\s*\{(?P<target>[^{}\n]*)\}"  # read as written: `%` and `_` are the address's
    r"|\\(?P<begin>begin|end)\s*\{(?P<env>[^{}\n]*)\}"
    r"|\\(?P<word>[A-Za-z@]+\*?)(?P<space>[ \t]*(?:\n(?![ \t]*\n)[ \t]*)?)"  # a word command eats the blank after it
    r"|\\(?P<symbol>.|$)"
    r"|(?P<display>\$\$)|(?P<inline>\$)"
    r"|(?P<open>\{)|(?P<close>\})|(?P<optopen>\[)|(?P<optclose>\])"
    r"|(?P<par>\n[ \t]*\n\s*)"
    r"|(?P<amp>&)"
    r"|(?P<text>[^\\%${}\[\]&\n]+|\n)",
    re.DOTALL,
)

# Inline math closes on the same paragraph: `$` escaped or not, a blank line ends the attempt.
_INLINE_MATH_END = re.compile(r"(?:[^$\\\n]++|\\.|\n(?![ \t]*\n))*+\$", re.DOTALL)
_END = re.compile(r"\\end\s*\{[^{}\n]*\}")
_DISPLAY_END = {"\\[": "\\]", "\\(": "\\)"}
_COMBINING = {"'": "\u0301", "`": "\u0300", "^": "\u0302", '"': "\u0308", "~": "\u0303", "=": "\u0304",
              ".": "\u0307", "H": "\u030b", "c": "\u0327", "v": "\u030c", "u": "\u0306", "k": "\u0328",
              "r": "\u030a", "b": "\u0331", "d": "\u0323", "t": "\u0361"}
_VERB_LIKE = frozenset({"verb", "verb*", "lstinline", "url", "path"})  # `\verb|x|`: any delimiter, on one line
# Environments read verbatim, with the language of their code (None: printed as nothing).
_VERBATIM = {"verbatim": "", "verbatim*": "", "Verbatim": "", "BVerbatim": "", "lstlisting": "", "minted": "",
             "alltt": "", "spverbatim": "", "comment": None, "CCSXML": None, "filecontents": None,
             "filecontents*": None}

# `\\MakeShortVerb{\\|}` (the shortvrb package; the ltxguide class of LaTeX's own guides makes `|` so)
# makes a character delimit `\\verb` text, `|\\foo|` for `\\verb|\\foo|`, until `\\DeleteShortVerb{\\|}`.
_SHORT_VERB = re.compile(r"\\(Make|Delete)ShortVerb\*?\s*(?:\{\s*\\([^A-Za-z@\s])\s*\}|\\([^A-Za-z@\s]))")
_SHORT_VERB_CLASS = re.compile(r"\\documentclass\s*(?:\[[^\]\n]*\]\s*)?\{\s*ltxguide\s*\}")
_LANGUAGE_OPTION = re.compile(r"language\s*=\s*\{?([\w+#-]+)")
_INPUTENC = re.compile(rb"\\usepackage\s*\[([\w-]+)\]\s*\{inputenc\}")
_INPUTENC_CODECS = {"latin1": "iso-8859-1", "latin2": "iso-8859-2", "latin3": "iso-8859-3", "latin4": "iso-8859-4",
                    "latin5": "iso-8859-9", "latin9": "iso-8859-15", "latin10": "iso-8859-16", "cp1250": "cp1250",
                    "cp1252": "cp1252", "ansinew": "cp1252", "cp1257": "cp1257", "cp850": "cp850", "cp437": "cp437",
                    "applemac": "mac_roman", "macce": "mac_latin2", "koi8-r": "koi8_r", "cp1251": "cp1251",
                    "cp866": "cp866", "utf8": "utf-8"}


def inputenc_charset(data: bytes) -> str | None:
    """The codec a document's `\\usepackage[latin1]{inputenc}` declares (in its first 16 KiB), if any."""
    found = _INPUTENC.search(data[:16_384])
    return _INPUTENC_CODECS.get(found.group(1).decode("ascii").lower()) if found else None


@dataclass(frozen=True)
class Token:
    kind: str  # word, symbol, begin, end, open, close, optopen, optclose, par, amp, text, math, code, raw
    value: str = ""
    extra: str = ""  # a code block's language, a math token's kind, a raw command's target
    source: str = ""  # as written, for math environments, which keep their source


def tokenize(text: str) -> list[Token]:
    tokens: list[Token] = []
    ends: dict[str, list[int]] = {}  # each verbatim environment's `\end{name}` offsets
    for found in re.finditer(r"\\end\s*\{([^{}\n]*)\}", text):
        if found.group(1) in _VERBATIM:
            ends.setdefault(found.group(1), []).append(found.start())
    closers = {close: [m.start() for m in re.finditer(re.escape(close), text)] for close in _DISPLAY_END.values()}
    displays = [m.start() for m in re.finditer(r"\$\$", text)]
    switches = _short_verb_switches(text)
    short: set[str] = set()  # the characters that delimit verbatim text here
    switched = 0  # the switches passed
    position = 0
    while position < len(text):
        while switched < len(switches) and switches[switched][0] <= position:
            _, character, on = switches[switched]
            (short.add if on else short.discard)(character)
            switched += 1
        match = _TOKEN.match(text, position)
        if match is None:  # a lone backslash at the end
            break
        kind = match.lastgroup
        position = match.end()
        if kind == "comment":
            continue
        source = match.group(0)
        if kind == "text" and short:
            cut = min((at for at in (source.find(character) for character in short) if at >= 0), default=-1)
            if cut > 0:  # the text before the delimiter, then the delimiter from where it stands
                tokens.append(Token("text", source[:cut], source=source[:cut]))
                position = match.start() + cut
                continue
            if cut == 0:
                start = match.start()
                line_end = text.find("\n", start + 1, start + 1 + MAX_VERB_CHARS)
                closing = text.find(source[0], start + 1, line_end if line_end >= 0 else start + 1 + MAX_VERB_CHARS)
                if closing >= 0:
                    tokens.append(Token("verb", text[start + 1 : closing], source=text[start : closing + 1]))
                    position = closing + 1
                else:  # never closed on its line: a character as any
                    tokens.append(Token("text", source[0], source=source[0]))
                    position = start + 1
                continue
        if match.group("accent") is None and kind in ("octal", "hex", "decimal", "quoted"):
            tokens.append(Token("text", _character(match), source=source))
        elif match.group("accent") is not None:
            tokens.append(Token("text", _accented(match.group("accent"), match.group("braced") or match.group("bare")),
                                 source=source))
        elif match.group("raw") is not None:
            tokens.append(Token("raw", match.group("raw"), match.group("target").strip(), source))
        elif match.group("begin") is not None:
            name = match.group("env").strip()
            if match.group("begin") == "begin" and name in _VERBATIM:
                close = next_after(ends.get(name, []), position - 1)
                if close is not None:
                    body = text[position:close]
                    language, body = _listing_language(name, body)
                    if _VERBATIM[name] is not None:
                        tokens.append(Token("code", body.removeprefix("\n"), language))
                    position = _END.match(text, close).end()  # type: ignore[union-attr]
                    continue
            tokens.append(Token(match.group("begin"), name, source=source))
        elif kind == "word" or match.group("word") is not None:
            name = match.group("word")
            if name in _VERB_LIKE and position < len(text) and text[position] not in " \t\n{[":
                delimiter = text[position]
                line_end = text.find("\n", position + 1, position + 1 + MAX_VERB_CHARS)
                close = text.find(delimiter, position + 1, line_end if line_end >= 0 else position + 1 + MAX_VERB_CHARS)
                if close >= 0:
                    kind = "text" if name in ("url", "path") else "verb"
                    tokens.append(Token(kind, text[position + 1 : close], source=text[match.start() : close + 1]))
                    position = close + 1
                    continue
            tokens.append(Token("word", name, source=source))
        elif match.group("symbol") is not None:
            symbol = match.group("symbol")
            if symbol in _DISPLAY_END:
                close = next_after(closers[_DISPLAY_END[symbol]], position - 1)
                if close is not None:
                    tokens.append(Token("math", text[position:close], "display" if symbol == "\\[" else "inline",
                                         text[position - 2 : close + 2]))
                    position = close + 2
                    continue
            tokens.append(Token("symbol", symbol, source=source))
        elif kind == "display":
            close = next_after(displays, position - 1)
            if close is not None:
                tokens.append(Token("math", text[position:close], "display", text[position - 2 : close + 2]))
                position = close + 2
            else:
                tokens.append(Token("text", "$$"))
        elif kind == "inline":
            end = _INLINE_MATH_END.match(text, position)
            if end is not None:
                tokens.append(Token("math", text[position : end.end() - 1], "inline", text[position - 1 : end.end()]))
                position = end.end()
            else:
                tokens.append(Token("text", "$"))
        else:
            tokens.append(Token(kind or "text", source, source=source))
    return tokens


def _short_verb_switches(text: str) -> list[tuple[int, str, bool]]:
    """Where each short-verb character (`\\MakeShortVerb{\\|}`) starts and stops delimiting verbatim
    text, in the order they come: (offset, character, on)."""
    switches = [(found.end(), found.group(2) or found.group(3), found.group(1) == "Make")
                for found in _SHORT_VERB.finditer(text)]
    document_class = _SHORT_VERB_CLASS.search(text)
    if document_class is not None:
        switches.insert(0, (document_class.end(), "|", True))
    return sorted(switches, key=lambda switch: switch[0])


def _listing_language(name: str, body: str) -> tuple[str, str]:
    """A verbatim environment's language (`[language=Python]`, minted's `{python}`) and its body without them."""
    head = re.match(r"[ \t]*(?:\[([^\]\n]*)\])?[ \t]*(?:\{([^}\n]*)\})?", body)
    if head is None or name not in ("lstlisting", "minted"):
        return "", body
    options, argument = head.group(1) or "", head.group(2) or ""
    found = _LANGUAGE_OPTION.search(options)
    language = argument if name == "minted" else (found.group(1) if found else "")
    return language.strip().lower(), body[head.end():]


def _character(match: re.Match) -> str:
    """`\\char'134`, `\\char"5C`, `\\char92`, `\\char`\\\\`: the character of that code."""
    if match.group("quoted") is not None:
        return match.group("quoted")
    for group, base in (("octal", 8), ("hex", 16), ("decimal", 10)):
        if match.group(group) is not None:
            code = int(match.group(group), base)
            return chr(code) if code < 0x110000 and unicodedata.category(chr(code)) != "Cc" else ""
    return ""


def _accented(accent: str, base: str | None) -> str:
    if base is None:
        return ""
    letter = {"\\i": "i", "\\j": "j"}.get(base.rstrip(), base)
    return unicodedata.normalize("NFC", letter + _COMBINING[accent])


def pairs(tokens: list[Token]) -> dict[int, int]:
    """Each `{` and `\\begin` with its closer, both ways: properly nested, an unmatched one left out."""
    partner: dict[int, int] = {}
    stack: list[int] = []
    open_names: dict[str, int] = {}

    def key(token: Token) -> str:
        return "{" if token.kind in ("open", "close") else token.value

    for index, token in enumerate(tokens):
        if token.kind in ("open", "begin"):
            stack.append(index)
            open_names[key(token)] = open_names.get(key(token), 0) + 1
        elif token.kind in ("close", "end") and open_names.get(key(token), 0):
            while stack:
                top = stack.pop()
                open_names[key(tokens[top])] -= 1
                if key(tokens[top]) == key(token):
                    partner[top] = index
                    partner[index] = top
                    break
    return partner
