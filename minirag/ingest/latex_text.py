"""LaTeX -> Markdown: the structure chunking needs, the text a reader of the typeset paper sees.

Papers, theses, lecture notes and slides are kept as LaTeX source. Read as text, their
words are broken by markup no reader sees (`r\\'esum\\'e`, `hyphen\\-ation`,
`\\textbf{Note}`), their sections are lines like any other, and their preamble is a page of
`\\usepackage` lines. This reads what LaTeX would typeset, with no dependency:

- `\\part` ... `\\subparagraph` (and a beamer frame's title) become ATX headings, ranked
  among the levels the document uses; `\\title` is the document's title, its authors a line
  where `\\maketitle` stands; the abstract is a section;
- accents and special letters compose into the characters they print (`\\'e` é, `\\c c`
  ç, `\\ss` ß, `\\^\\i` î), so every language's words are one term, and `\\%`, `--`,
  ``` `` ''``` and `~` print as what they are;
- lists (`itemize`, `enumerate`, `description`, `thebibliography`) become Markdown lists,
  tables (`tabular`, `tabularx`, `longtable`) pipe tables, verbatim environments
  (`verbatim`, `lstlisting`, `minted`) and `\\verb` code; theorems and proofs keep
  their name as a label (`Theorem:`);
- math stays as its source between `$` (inline) or `$$` (display), which is how
  Markdown writes it;
- formatting commands keep their text (`\\emph{x}` *x*, `\\texttt{x}` `x`,
  `\\href{url}{text}` a link), a footnote its text in brackets, a citation its keys;
  a user's command (`\\newcommand{\\method}{FooNet}`, `\\newcommand{\\pkg}[1]{package #1}`) is
  expanded, its arguments in place of `#1` ... `#9`;
- a cross-reference (`\\ref{sec:install}`, `\\cref`, `\\pageref`) reads as its label in brackets,
  `\\eqref` in parentheses: the number it prints is not in the source, the label is the author's
  name for what it refers to; `\\maketitle` prints the authors and a `\\date` given in words;
- what prints nothing goes: comments, the preamble, `\\label`, `\\today`, spacing,
  `\\includegraphics`, `\\input` and `\\include` (never followed), `comment`
  environments, text commented out with `\\iffalse` ... `\\fi`, the `\\else` of `\\iftrue`, the branch
  a `\\newif` switch set by `\\drafttrue` / `\\draftfalse` does not take, `\\phantom`'s, everything
  after `\\end{document}`.

Commands the reader does not know print their arguments' text. One scan tokenizes the
source (latex_tokens.py); every delimiter is paired once, over the token list; rendering visits each token
once (a macro's text is rendered once and reused). Groups and environments nest up to
MAX_NESTING levels (past that, their text).
"""

from __future__ import annotations

import re
from itertools import pairwise

from minirag.ingest.csv_table import pipe_table
from minirag.ingest.html_markdown import fenced
from minirag.ingest.latex_tokens import Token, pairs, tokenize
from minirag.ingest.markup_lines import labelled
from minirag.ingest.text_repair import escape_headings

MAX_NESTING = 40
MAX_OPTIONAL_TOKENS = 200  # an optional argument `[...]` longer than this is text, not an argument
# A parameter in a command's body (`#1`), kept through rendering as a placeholder its argument replaces.
_PARAMETER = re.compile(r"#([1-9])")
_PLACEHOLDER = re.compile("\x02([1-9])\x03")
# TeX's conditionals, each closed by `\\fi` (`\\ifthenelse`, `\\iftoggle` are commands of arguments).
_CONDITIONALS = frozenset({"if", "ifx", "ifnum", "ifdim", "ifodd", "ifcase", "ifcat", "ifeof", "iftrue", "iffalse",
                           "ifmmode", "ifvmode", "ifhmode", "ifinner", "ifvoid", "ifhbox", "ifvbox", "ifdefined",
                           "ifcsname", "iffontchar", "ifincsname", "ifpdf", "ifxetex", "ifluatex"})
_DEFINING = frozenset({"newif", "let", "def", "gdef", "edef", "xdef", "newcommand", "renewcommand",
                       "providecommand", "DeclareRobustCommand"})  # what a name after them is made by
_LET = frozenset({"let"})
_DEF_PARAMETERS = re.compile(r"(?:#[1-9])+")  # `\def\name#1#2`: delimited parameters are not read
MAX_EXPANSION_CHARS = 1_000_000  # all expansions of user commands together, past the source's own length
_MARK = "\x01"  # opens an output line that is Markdown syntax (a heading, code), not text to escape

_LETTERS = {"ss": "ß", "SS": "SS", "o": "ø", "O": "Ø", "ae": "æ", "AE": "Æ", "oe": "œ", "OE": "Œ", "aa": "å",
            "AA": "Å", "l": "ł", "L": "Ł", "i": "ı", "j": "ȷ", "dh": "ð", "DH": "Ð", "th": "þ", "TH": "Þ",
            "ng": "ŋ", "NG": "Ŋ", "dj": "đ", "DJ": "Đ"}
_SYMBOLS = {
    "ldots": "…", "dots": "…", "textellipsis": "…", "LaTeX": "LaTeX", "LaTeXe": "LaTeX2e", "TeX": "TeX",
    "BibTeX": "BibTeX", "XeLaTeX": "XeLaTeX", "LuaLaTeX": "LuaLaTeX", "S": "§", "P": "¶", "copyright": "©",
    "textcopyright": "©", "textregistered": "®", "texttrademark": "™", "pounds": "£", "textsterling": "£",
    "euro": "€", "texteuro": "€", "textdegree": "°", "textendash": "–", "textemdash": "—", "textbullet": "•",
    "textless": "<", "textgreater": ">", "textbar": "|", "textbackslash": "\\", "textasciitilde": "~",
    "textasciicircum": "^", "textunderscore": "_", "guillemotleft": "«", "guillemotright": "»", "og": "« ",
    "fg": " »", "quad": " ", "qquad": " ", "enspace": " ", "thinspace": " ", "space": " ", "xspace": " ",
    "slash": "/", "textquotedblleft": "“", "textquotedblright": "”", "textquoteleft": "‘",
    "textquoteright": "’", "newline": "\n", "linebreak": "\n", "par": "\n\n", "textperthousand": "‰",
    "dag": "†", "ddag": "‡", "textdagger": "†", "textdaggerdbl": "‡", "checkmark": "✓",
}
_SYMBOL_CHARACTERS = {"&": "&", "%": "%", "$": "$", "#": "#", "_": "_", "{": "{", "}": "}", " ": " ", "\n": " ",
                      "\t": " ", ",": " ", ";": " ", ":": " ", ">": " ", "!": "", "-": "", "/": "", "@": "",
                      "\\": "\n", "|": "‖"}
_TYPOGRAPHY = (("---", "—"), ("--", "–"), ("``", "“"), ("''", "”"), ("~", " "), ("!`", "¡"), ("?`", "¿"))

# ACM's class: the proceedings' metadata (`\\acmDOI{...}`, `\\acmYear{...}`), typeset in the margins.
_ACM_METADATA = re.compile(r"acm[A-Z][A-Za-z]*")
# Commands that print nothing, with how many braced arguments they take (optional ones are skipped).
_SILENT = {
    "label": 1, "index": 1, "glossary": 1, "vspace": 1, "vspace*": 1, "hspace": 1, "hspace*": 1,
    "includegraphics": 1, "includegraphics*": 1, "bibliographystyle": 1, "bibliography": 1, "usepackage": 1,
    "RequirePackage": 1, "documentclass": 1, "input": 1, "include": 1, "includeonly": 1, "graphicspath": 1,
    "hypersetup": 1, "definecolor": 3, "colorlet": 2, "setlength": 2, "addtolength": 2, "setcounter": 2,
    "addtocounter": 2, "stepcounter": 1, "refstepcounter": 1, "pagestyle": 1, "thispagestyle": 1,
    "pagenumbering": 1, "color": 1, "received": 1, "authornote": 1, "authornotemark": 0, "Description": 1, "fontsize": 2,
    "theoremstyle": 1,
    "DeclareMathOperator": 2, "DeclareMathOperator*": 2, "numberwithin": 2, "geometry": 1, "addbibresource": 1,
    "nocite": 1, "thanks": 1, "selectlanguage": 1, "setmainfont": 1, "setsansfont": 1,
    "setmonofont": 1, "newenvironment": 3, "renewenvironment": 3, "newcounter": 1, "settowidth": 2,
    "raisebox": 1, "rule": 2, "cline": 1, "cmidrule": 1, "affiliation": 1, "email": 1, "address": 1,
    "urladdr": 1, "keywords": 1, "subjclass": 1, "ccsdesc": 1, "setcopyright": 1, "copyrightyear": 1,
    "orcid": 1, "institute": 1, "titlerunning": 1, "authorrunning": 1, "shorttitle": 1, "shortauthors": 1,
    "markboth": 2, "markright": 1, "lstset": 1, "usetikzlibrary": 1, "pgfplotsset": 1, "tikzset": 1,
    "captionsetup": 1, "sisetup": 1, "foreignlanguage": 1, "textcolor": 1, "colorbox": 1, "fcolorbox": 2,
    "hyperref": 0, "multicolumn": 2, "multirow": 2, "makebox": 0, "parbox": 1, "resizebox": 2,
    "scalebox": 1, "rotatebox": 1, "footnotemark": 0, "phantom": 1, "hphantom": 1, "vphantom": 1,
    "MakeShortVerb": 1, "MakeShortVerb*": 1, "DeleteShortVerb": 1,
}
_DIMENSION_COMMANDS = frozenset({"hrule", "vrule", "vskip", "hskip", "kern", "mkern", "vspace", "hspace", "baselineskip",
                                 "lower",
                                 "raise", "moveleft", "moveright", "leftskip", "rightskip", "parindent", "parskip",
                                 "hsize", "vsize", "textwidth", "linewidth", "columnsep", "itemsep", "topsep"})
# Possessive throughout: a run of blanks is read one way only (the lazy form was cubic in its length).
_DIMENSION = re.compile(r"(?:\s*+(?:(?:height|depth|width|to|spread|plus|minus)\s*+)?(?:=\s*+)?[-+]?+"
                        r"(?:\d++\.?+\d*+|\.\d++)\s*+(?:pt|em|ex|cm|mm|in|bp|pc|sp|dd|cc|mu|fil+|\\\w+))++")
# \\penalty and TeX's integer parameters: the number after them (`\\penalty500`, `\\tolerance=9999`) is theirs.
_INTEGER_COMMANDS = frozenset({"penalty", "tolerance", "pretolerance", "hyphenpenalty", "exhyphenpenalty",
                               "linepenalty", "clubpenalty", "widowpenalty", "displaywidowpenalty",
                               "brokenpenalty", "interlinepenalty", "binoppenalty", "relpenalty",
                               "predisplaypenalty", "postdisplaypenalty", "floatingpenalty", "looseness",
                               "adjdemerits", "doublehyphendemerits", "finalhyphendemerits", "uchyph"})
_INTEGER = re.compile(r"\s*+(?:=\s*+)?+[-+]?+\d++ ?+")
_SECTIONS = ("part", "chapter", "section", "subsection", "subsubsection", "paragraph", "subparagraph", "frametitle")
_STRONG = frozenset({"textbf", "mathbf", "bm", "boldsymbol"})
_EMPHASIS = frozenset({"emph", "textit", "textsl"})
_CODE = frozenset({"texttt", "code", "lstinline", "mintinline"})
# The doc and ltxguide classes' words for writing about LaTeX, in every package's manual: `\\cs{begin}`
# prints `\\begin`, `\\meta{env}` ⟨env⟩, `\\marg{env}` {⟨env⟩} (so `\\arg`), `\\oarg` [⟨…⟩], `\\parg` (⟨…⟩).
_DOC_WORDS = {"cs": ("`\\", "`"), "meta": ("⟨", "⟩"), "marg": ("{⟨", "⟩}"), "arg": ("{⟨", "⟩}"),
              "oarg": ("[⟨", "⟩]"), "parg": ("(⟨", "⟩)")}
_CITATIONS = frozenset({"cite", "citep", "citet", "citealp", "citealt", "parencite", "textcite", "autocite",
                        "footcite", "Cite", "Citep", "Citet", "citeauthor", "citeyear", "supercite"})
# Cross-references (LaTeX's, hyperref's, cleveref's, varioref's), each with the brackets its label reads in.
_REFERENCES = {**dict.fromkeys(("ref", "pageref", "autoref", "cref", "Cref", "cpageref", "Cpageref", "labelcref",
                                "nameref", "Nameref", "vref", "Vref", "vpageref", "fullref", "subref"), "[]"),
               "eqref": "()"}
_NEW_COMMANDS = frozenset({"newcommand", "renewcommand", "providecommand", "newcommand*", "renewcommand*",
                           "providecommand*", "DeclareRobustCommand", "DeclareRobustCommand*", "def", "gdef",
                           "edef", "xdef"})

# Environments.
_MATH = frozenset({"equation", "equation*", "align", "align*", "gather", "gather*", "multline", "multline*",
                   "eqnarray", "eqnarray*", "displaymath", "flalign", "flalign*", "alignat",
                   "alignat*", "dmath", "dmath*", "subequations"})
_LISTS = {"itemize": "-", "enumerate": "1.", "description": "-", "compactitem": "-", "compactenum": "1.",
          "thebibliography": "-", "inparaenum": "1.", "asparaenum": "1.", "enumerate*": "1.", "itemize*": "-"}
_TABLES = {"tabular": 1, "tabular*": 2, "tabularx": 2, "tabulary": 2, "longtable": 1, "longtable*": 1,
           "supertabular": 1, "xtabular": 1, "array": 1, "tblr": 1, "longtblr": 1, "NiceTabular": 1}
_TABLE_SILENT = frozenset({"hline", "toprule", "midrule", "bottomrule", "endhead", "endfirsthead", "endfoot",
                           "endlastfoot", "cline", "cmidrule", "hhline", "addlinespace", "specialrule",
                           "rowcolor", "cellcolor", "tabularnewline"})
_ENVIRONMENT_ARGUMENTS = {"minipage": 1, "multicols": 1, "multicols*": 1, "wrapfigure": 2, "wraptable": 2,
                          "subfigure": 1, "subtable": 1, "column": 1, "CJK": 2, "CJK*": 2, "otherlanguage": 1,
                          "otherlanguage*": 1, "adjustbox": 1, "list": 2, "spacing": 1, "letter": 1}
_THEOREMS = {"theorem": "Theorem", "lemma": "Lemma", "corollary": "Corollary", "proposition": "Proposition",
             "definition": "Definition", "remark": "Remark", "example": "Example", "proof": "Proof",
             "conjecture": "Conjecture", "claim": "Claim", "note": "Note", "exercise": "Exercise",
             "problem": "Problem", "solution": "Solution", "assumption": "Assumption", "notation": "Notation"}
# Environments typeset as a section of their own, under this heading.
_SECTION_ENVIRONMENTS = {"abstract": "Abstract", "abstract*": "Abstract", "acks": "Acknowledgments",
                         "acknowledgments": "Acknowledgments", "acknowledgements": "Acknowledgments"}
_PICTURES = frozenset({"tikzpicture", "picture", "pgfpicture", "axis", "circuitikz", "forest", "pspicture"})


# A line that includes another file (never followed).
INCLUDE = re.compile(r"^[^%\n]*\\(?:input|include|subfile|import|subimport)\b", re.MULTILINE)


def latex_to_markdown(text: str) -> tuple[str, str | None]:
    """Markdown for a LaTeX document (see the module's docstring), and its `\\title`, if any."""
    tokens = tokenize(text.replace("\r\n", "\n").replace("\r", "\n").replace(_MARK, ""))
    reader = _Reader(tokens)
    body = reader.document()
    return _finish(body), (" ".join(reader.title.split()) or None) if reader.title is not None else None


class _Reader:
    """Renders the token list: pairs its delimiters once, then walks each range once."""

    def __init__(self, tokens: list[Token]) -> None:
        self.tokens = tokens
        self.partner = pairs(tokens)
        self.stops = _stops(tokens, self.partner)
        self.title: str | None = None
        self.authors: list[str] = []
        self.date = ""
        self.macros: dict[str, tuple[int, int]] = {}  # a user's command: its body's range
        self.arguments: dict[str, tuple[int, tuple[int, int] | None]] = {}  # its arguments, its first's default
        self.parameters = 0  # bodies with parameters being rendered: their `#n` kept as placeholders
        # Conditionals a `\\newif\\ifdraft` makes, closed by `\\fi` as TeX's own are.
        self.switches = {after.value for token, after in pairwise(tokens)
                         if token.kind == "word" and token.value == "newif" and after.kind == "word"}
        self.skips = self.branches_not_taken()
        self.expanded: dict[str, str] = {}
        self.expanding: set[str] = set()
        self.budget = MAX_EXPANSION_CHARS + sum(len(t.value) for t in tokens)
        self.theorems = dict(_THEOREMS)
        used = {t.value.rstrip("*") for t in tokens if t.kind == "word"} & set(_SECTIONS)
        if any(t.kind == "begin" and t.value == "frame" for t in tokens):
            used.add("frametitle")
        self.levels = {name: min(6, rank + 1) for rank, name in enumerate(n for n in _SECTIONS if n in used)}

    def document(self) -> str:
        start = next((i for i, t in enumerate(self.tokens) if t.kind == "begin" and t.value == "document"), None)
        if start is None:
            return self.render(0, len(self.tokens), 0)
        self.render(0, start, 0)  # the preamble: its definitions and title, nothing printed
        end = self.partner.get(start, len(self.tokens))
        return self.render(start + 1, end, 0)

    # --- walking ---------------------------------------------------------------------------

    def render(self, start: int, end: int, depth: int) -> str:
        out: list[str] = []
        index = start
        while index < end:
            token = self.tokens[index]
            index += 1
            if token.kind == "text":
                out.append(_typeset(self.parameters_kept(token.value)))
            elif token.kind == "open":
                close = self.partner.get(index - 1)
                if close is not None and close <= end and depth < MAX_NESTING:
                    out.append(self.render(index, close, depth + 1))
                    index = close + 1
            elif token.kind == "word" and index - 1 in self.skips:
                index = min(self.skips[index - 1], end)
            elif token.kind == "word":
                text, index = self.command(token.value, index, end, depth)
                if not text and index < end and self.tokens[index].kind == "optopen" and _unknown(token.value):
                    index = self.skip_optional(index, end)  # `\mycommand[options]{text}`: the options print nothing
                out.append(text)
            elif token.kind == "symbol":
                out.append(_SYMBOL_CHARACTERS.get(token.value, token.value))
            elif token.kind == "begin":
                close = self.partner.get(index - 1)
                if close is not None and close <= end and depth < MAX_NESTING:
                    out.append(self.environment(token.value, index, close, depth + 1))
                    index = close + 1
            elif token.kind == "math":
                out.append(_math(self.parameters_kept(token.value), token.extra))
            elif token.kind == "code":
                out.append(_code(token.value, token.extra))
            elif token.kind == "verb":
                ticks = "``" if "`" in token.value else "`"
                out.append(self.parameters_kept(f"{ticks}{token.value}{ticks}" if token.value.strip() else token.value))
            elif token.kind == "raw":
                out.append(self.raw(token, index, end, depth))
                if token.value == "href":
                    index = self.skip_argument(index, end)
            elif token.kind == "par":
                out.append("\n\n")
            elif token.kind in ("optopen", "optclose", "amp"):
                out.append({"optopen": "[", "optclose": "]", "amp": "&"}[token.kind])
        return "".join(out)

    def branches_not_taken(self) -> dict[int, int]:
        """Where text prints nothing, as a token index and the index text prints again at, for the
        conditionals whose value the source tells: `\\iffalse` (commenting out, as authors do) up to
        its own `\\else` or `\\fi`, `\\iftrue` from its `\\else` to its `\\fi`, and a `\\newif`
        switch as the `\\drafttrue` / `\\draftfalse` last set before it leaves it (false at first), both
        outside braces: in a command's body it is set or tested when the command runs, so a switch
        tested there, or set there before its test, prints both branches.
        Conditionals of any kind pair with their `\\else` and `\\fi` in one pass; one without a
        `\\fi` prints nothing to the end, as in TeX. Other conditionals print both branches."""
        setting = {switch[2:] + value: (switch, value == "true") for switch in self.switches
                   for value in ("true", "false")}
        state: dict[str, bool | None] = dict.fromkeys(self.switches, False)  # None: set where it cannot be told
        known: dict[int, bool] = {}
        open_ones: list[tuple[int, int | None]] = []  # an open conditional: its index, its `\\else`
        skips: dict[int, int] = {}

        def closed(opened: int, otherwise: int | None, at: int) -> None:  # text prints again at `at`
            if known.get(opened) is False and otherwise is None:
                skips[opened] = at
            elif known.get(opened) is True and otherwise is not None:
                skips[otherwise] = at

        depth = 0  # of braces: a switch inside them (a command's body) is set or tested where that runs
        for index, token in enumerate(self.tokens):
            if token.kind in ("open", "close"):
                depth = depth + 1 if token.kind == "open" else max(0, depth - 1)
            if token.kind != "word" or self.named(index):
                continue
            name = token.value
            if name in setting:
                switch, value = setting[name]
                state[switch] = None if depth else value  # in braces: when a command runs, or in a group
            elif name in _CONDITIONALS or name in self.switches:
                open_ones.append((index, None))
                if name in ("iftrue", "iffalse"):
                    known[index] = name == "iftrue"
                elif name in self.switches and not depth and state[name] is not None:
                    known[index] = bool(state[name])
            elif name == "else" and open_ones and open_ones[-1][1] is None:
                opened = open_ones[-1][0]
                open_ones[-1] = (opened, index)
                if known.get(opened) is False:
                    skips[opened] = index + 1
            elif name == "fi" and open_ones:
                closed(*open_ones.pop(), index + 1)
        for opened, otherwise in open_ones:  # never closed
            closed(opened, otherwise, len(self.tokens))
        return skips

    def past_let(self, index: int, end: int) -> int:
        """Past a `\\let`'s two names and the `=` that may stand between them."""
        names = 0
        while index < end and names < 2:
            token = self.tokens[index]
            if token.kind == "word":
                names += 1
            elif token.kind != "text" or token.value.strip(" =\t\n"):
                break
            index += 1
        return index

    def named(self, index: int) -> bool:
        """Whether the command at `index` is named, not used: `\\newif\\ifdraft`, both names of
        `\\let\\ifdraft\\iftrue`."""
        def word_before(at: int) -> int | None:  # skipping blanks and a `\\let`'s `=`, a few tokens back
            for before in range(at - 1, max(-1, at - 4), -1):
                token = self.tokens[before]
                if token.kind == "word":
                    return before
                if token.kind != "text" or token.value.strip(" =\t\n"):
                    return None
            return None

        previous = word_before(index)
        if previous is None:
            return False
        earlier = word_before(previous)
        return self.tokens[previous].value in _DEFINING or (earlier is not None and self.tokens[earlier].value in _LET)

    def argument(self, index: int, end: int, depth: int) -> tuple[str | None, int]:
        """The next braced argument's rendered text (optional ones skipped), and the index past it."""
        index = self.skip_optional(index, end)
        while index < end and self.tokens[index].kind == "text" and not self.tokens[index].value.strip():
            index += 1
        if index < end and self.tokens[index].kind == "open":
            close = self.partner.get(index)
            if close is not None and close < end:
                return (self.render(index + 1, close, depth + 1) if depth < MAX_NESTING else ""), close + 1
        return None, index

    def skip_argument(self, index: int, end: int) -> int:
        return self.argument(index, end, MAX_NESTING)[1]

    def skip_optional(self, index: int, end: int) -> int:
        while True:
            at = index
            while at < end and self.tokens[at].kind == "text" and not self.tokens[at].value.strip():
                at += 1
            if at >= end or self.tokens[at].kind != "optopen":
                return index
            close = self.optional_end(at, end)
            if close is None:
                return index
            index = close + 1

    def optional_end(self, at: int, end: int) -> int | None:
        """The `]` closing the `[` at `at`, skipping groups; None past MAX_OPTIONAL_TOKENS or a paragraph."""
        stop = self.stops[at + 1]
        if stop < min(end, at + MAX_OPTIONAL_TOKENS) and self.tokens[stop].kind == "optclose":
            return stop
        return None

    def optional(self, index: int, end: int, depth: int) -> tuple[str | None, int]:
        """The text of an optional argument right at `index`, and the index past it."""
        at = index
        while at < end and self.tokens[at].kind == "text" and not self.tokens[at].value.strip():
            at += 1
        if at < end and self.tokens[at].kind == "optopen":
            close = self.optional_end(at, end)
            if close is not None:
                return self.render(at + 1, close, depth + 1), close + 1
        return None, index

    # --- commands --------------------------------------------------------------------------

    def command(self, name: str, index: int, end: int, depth: int) -> tuple[str, int]:
        bare = name.rstrip("*")
        if name in _NEW_COMMANDS:
            return "", self.define(name, index, end)
        if name in _LET:  # `\\let\\new\\old`, `\\let\\new = \\old`: two names, printing nothing
            return "", self.past_let(index, end)
        if bare == "newtheorem":
            environment, index = self.argument(index, end, depth)
            label, index = self.argument(index, end, depth)
            if environment and label:
                self.theorems[environment.strip()] = " ".join(label.split())
            return "", self.skip_optional(index, end)
        if bare == "mintinline":
            index = self.skip_argument(index, end)
        if name in self.macros:
            return self.call(name, index, end, depth)
        if name in _LETTERS:
            return _LETTERS[name], index
        if name in _SYMBOLS:
            return _SYMBOLS[name], index
        if bare in self.levels:
            text, index = self.argument(index, end, depth)
            return _heading(self.levels[bare], text), index
        if bare == "title":
            text, index = self.argument(index, end, depth)
            if text is not None:
                self.title = text
            return "", index
        if bare == "author":
            text, index = self.argument(index, end, depth)
            if text:
                self.authors.append(", ".join(part.strip() for part in text.split("\n") if part.strip()))
            return "", index
        if bare == "and":
            return "\n", index
        if bare == "date":
            text, index = self.argument(index, end, depth)
            self.date = " ".join((text or "").split())
            return "", index
        if bare == "maketitle":
            return "".join(f"\n\n{line}\n\n" for line in ("; ".join(self.authors), self.date) if line), index
        if bare in _REFERENCES:
            return self.reference(_REFERENCES[bare], index, end, depth), self.skip_argument(index, end)
        if name in _SILENT or _ACM_METADATA.fullmatch(name):
            for _ in range(_SILENT.get(name, 1)):
                index = self.skip_argument(index, end)
            return "", self.skip_optional(index, end)
        if bare in _DIMENSION_COMMANDS:
            return "", self.skip_dimension(index, end)
        if name in _INTEGER_COMMANDS:
            return "", self.skip_integer(index, end)
        if name in ("item", "bibitem"):
            return "\n- ", self.skip_argument(index, end) if name == "bibitem" else self.skip_optional(index, end)
        if bare in _STRONG | _EMPHASIS | _CODE:
            text, index = self.argument(index, end, depth)
            if not text or not text.strip():
                return text or "", index
            mark = "**" if bare in _STRONG else "*" if bare in _EMPHASIS else "`"
            return f"{mark}{text.strip()}{mark}", index
        if name in _DOC_WORDS:
            text, index = self.argument(index, end, depth)
            words = " ".join((text or "").split())
            return (f"{_DOC_WORDS[name][0]}{words}{_DOC_WORDS[name][1]}" if words else ""), index
        if bare in _CITATIONS:
            index = self.skip_optional(index, end)
            text, index = self.argument(index, end, depth)
            keys = ", ".join(key.strip() for key in (text or "").split(",") if key.strip())
            return (f"[{keys}]" if keys else ""), index
        if bare == "texorpdfstring":  # {what the page shows}{what the PDF's outline shows}
            text, index = self.argument(index, end, depth)
            return text or "", self.skip_argument(index, end)
        if bare in ("footnote", "footnotetext", "marginpar", "todo"):
            text, index = self.argument(index, end, depth)
            return (f" ({' '.join(text.split())})" if text and text.strip() else ""), index
        if bare == "caption":
            text, index = self.argument(index, end, depth)
            return (f"\n\n{text.strip()}\n\n" if text and text.strip() else ""), index
        return "", index  # an unknown command prints nothing; its braced arguments print as groups

    def reference(self, brackets: str, index: int, end: int, depth: int) -> str:
        """A cross-reference's labels, a user's command in them expanded (`sec:\\chapterbase.intro`)."""
        text, _ = self.argument(index, end, depth)
        labels = ", ".join(label.strip() for label in (text or "").split(",") if label.strip())
        return f"{brackets[0]}{labels}{brackets[1]}" if labels else ""

    def define(self, name: str, index: int, end: int) -> int:
        """Reads `\\newcommand{\\name}[n]{body}` or `\\def\\name{body}`; a command without arguments is kept."""
        at = index
        if at < end and self.tokens[at].kind == "open":  # \newcommand{\name}
            close = self.partner.get(at)
            if close is None or close >= end:
                return index
            inner = [t for t in self.tokens[at + 1 : close] if t.kind != "text" or t.value.strip()]
            target = inner[0].value if len(inner) == 1 and inner[0].kind == "word" else None
            at = close + 1
        elif at < end and self.tokens[at].kind == "word":  # \newcommand\name, \def\name
            target = self.tokens[at].value
            at += 1
        else:
            return index
        count, default, readable = 0, None, True
        brackets = 0  # `[n]`, then `[default]`
        while at < end and self.tokens[at].kind in ("optopen", "text"):
            token = self.tokens[at]
            if token.kind == "optopen":
                close_bracket = self.optional_end(at, end)
                if close_bracket is None:
                    break
                inside = "".join(t.value for t in self.tokens[at + 1 : close_bracket])
                if brackets == 0 and inside.strip().isdigit():
                    count = min(int(inside), 9)
                elif brackets == 1:
                    default = (at + 1, close_bracket)
                else:
                    readable = False
                brackets += 1
                at = close_bracket + 1
            elif "#" in token.value:  # \def\name#1#2{...}
                count = token.value.count("#")
                readable = readable and _DEF_PARAMETERS.fullmatch(token.value.strip()) is not None
                at += 1
            elif not token.value.strip():
                at += 1
            else:
                break
        if at < end and self.tokens[at].kind == "open":
            close = self.partner.get(at)
            if close is not None and close < end:
                if target and readable and not _known(target):
                    self.macros[target] = (at + 1, close)
                    self.arguments[target] = (count, default)
                    self.expanded.pop(target, None)
                return close + 1
        return at

    def call(self, name: str, index: int, end: int, depth: int) -> tuple[str, int]:
        """A user's command where it is used: its body, each `#n` its n-th argument's text (the first
        one optional, with its default, where the definition gives one)."""
        count, default = self.arguments.get(name, (0, None))
        if not count:
            return self.expand(name, depth), index
        values: list[str] = []
        if default is not None:
            given, index = self.optional(index, end, depth)
            values.append(given if given is not None else self.render(*default, depth + 1))
        while len(values) < count:
            given, index = self.argument(index, end, depth)
            values.append(given or "")
        body = self.expand(name, depth)
        added = sum(body.count(f"\x02{number}\x03") * len(value) for number, value in enumerate(values, 1))
        if added > self.budget:  # (reckoned before the text is built: `#1#1...` of a long argument)
            return "", index
        self.budget -= added
        return _PLACEHOLDER.sub(lambda found: values[int(found.group(1)) - 1] if int(found.group(1)) <= count
                                else "", body), index

    def expand(self, name: str, depth: int) -> str:
        if name in self.expanded:
            text = self.expanded[name]
        elif name in self.expanding or depth >= MAX_NESTING:
            return ""
        else:
            self.expanding.add(name)
            start, close = self.macros[name]
            self.parameters += bool(self.arguments.get(name, (0, None))[0])
            text = self.render(start, close, depth + 1)
            self.parameters -= bool(self.arguments.get(name, (0, None))[0])
            self.expanding.discard(name)
            self.expanded[name] = text
        if len(text) > self.budget:
            return ""
        self.budget -= len(text)
        return text

    def skip_dimension(self, index: int, end: int) -> int:
        if index < end and self.tokens[index].kind == "open":
            return self.skip_argument(index, end)
        if index < end and self.tokens[index].kind == "text":
            found = _DIMENSION.match(self.tokens[index].value)
            if found:
                rest = self.tokens[index].value[found.end():]
                self.tokens[index] = Token("text", rest)
        return index

    def skip_integer(self, index: int, end: int) -> int:
        if index < end and self.tokens[index].kind == "text":
            found = _INTEGER.match(self.tokens[index].value)
            if found:
                self.tokens[index] = Token("text", self.tokens[index].value[found.end():])
        return index

    def raw(self, token: Token, index: int, end: int, depth: int) -> str:
        target = self.parameters_kept(token.extra)
        if token.value != "href":
            return target
        text, _ = self.argument(index, end, depth)
        label = " ".join((text or "").split())
        return f"[{label}]({target})" if label and target else label or target

    def parameters_kept(self, value: str) -> str:
        """A token's text with each `#n` a placeholder, inside a command's body (see `call`)."""
        return _PARAMETER.sub("\x02\\1\x03", value) if self.parameters else value

    # --- environments ----------------------------------------------------------------------

    def environment(self, name: str, start: int, close: int, depth: int) -> str:
        bare = name.rstrip("*")
        if name in _MATH or bare in _MATH or name == "math":
            return _math("".join(t.source for t in self.tokens[start:close]), "inline" if name == "math" else "display")
        if name in _TABLES:
            index = self.skip_optional(start, close)
            for _ in range(_TABLES[name]):
                index = self.skip_argument(index, close)
            return self.table(index, close, depth)
        if name in _LISTS:
            index = start
            if name == "thebibliography":
                index = self.skip_argument(index, close)
            else:
                index = self.skip_optional(index, close)
            body = self.items(name, index, close, depth)
            return f"\n\n{_heading(self.top_level(), 'References')}{body}" if name == "thebibliography" else body
        if bare in _PICTURES:
            return ""
        if bare in self.theorems or bare in _THEOREMS:
            label = self.theorems.get(bare) or _THEOREMS[bare]
            note, index = self.optional(start, close, depth)
            body = self.render(index, close, depth).strip("\n ")
            head = f"{label} ({' '.join(note.split())}):" if note else f"{label}:"
            return "\n\n" + "\n".join(labelled(head, body.split("\n"))) + "\n\n"
        index = self.skip_optional(start, close)
        for _ in range(_ENVIRONMENT_ARGUMENTS.get(name, 0)):
            index = self.skip_argument(index, close)
        if name in _SECTION_ENVIRONMENTS:
            heading = _heading(self.top_level(), _SECTION_ENVIRONMENTS[name])
            return f"\n\n{heading}\n\n{self.render(index, close, depth)}\n\n"
        if name == "frame":
            index = self.skip_optional(index, close)
            title, index = self.argument(index, close, depth) if self._braced_next(index, close) else (None, index)
            body = self.render(index, close, depth)
            return f"{_heading(self.levels.get('frametitle', 1), title) if title else ''}\n\n{body}\n\n"
        return self.render(index, close, depth)

    def _braced_next(self, index: int, end: int) -> bool:
        while index < end and self.tokens[index].kind == "text" and not self.tokens[index].value.strip():
            index += 1
        return index < end and self.tokens[index].kind == "open"

    def top_level(self) -> int:
        return min(self.levels.values(), default=1)

    def items(self, name: str, start: int, close: int, depth: int) -> str:
        marker = _LISTS[name]
        starts = [i for i in self.top_tokens(start, close) if self.tokens[i].kind == "word"
                  and self.tokens[i].value in ("item", "bibitem")]
        lines: list[str] = []
        for number, at in enumerate(starts):
            stop = starts[number + 1] if number + 1 < len(starts) else close
            index = at + 1
            label: str | None = None
            if self.tokens[at].value == "bibitem":
                index = self.skip_optional(index, stop)
                index = self.skip_argument(index, stop)
            else:
                label, index = self.optional(index, stop, depth)
            body = _collapse(self.render(index, stop, depth)).strip("\n")
            if label and label.strip():
                body = f"**{' '.join(label.split())}** {body}" if name == "description" else f"{label.strip()} {body}"
            head = f"{number + 1}." if marker == "1." else "-"
            pad = " " * (len(head) + 1)
            item = body.split("\n")
            lines.append(f"{head} {item[0]}".rstrip())
            lines += [f"{_MARK}{pad}{line}" if line.strip() else "" for line in item[1:]]
        return "\n\n" + "\n".join(lines) + "\n\n"

    def top_tokens(self, start: int, close: int):
        """The indices of the tokens in [start, close) outside any group or environment inside it."""
        index = start
        while index < close:
            yield index
            if self.tokens[index].kind in ("open", "begin"):
                partner = self.partner.get(index)
                if partner is not None and partner < close:
                    index = partner
            index += 1

    def table(self, start: int, close: int, depth: int) -> str:
        rows: list[list[str]] = []
        cell_start, cells = start, []
        for at in [*self.top_tokens(start, close), close]:
            token = self.tokens[at] if at < close else None
            row_end = token is None or (token.kind == "symbol" and token.value == "\\") or (
                token.kind == "word" and token.value in ("tabularnewline", "cr"))
            if token is not None and token.kind != "amp" and not row_end:
                continue
            cells.append(self._cell(cell_start, at, depth))
            cell_start = at + 1
            if row_end:
                if token is not None:
                    cell_start = self.skip_optional(cell_start, close)  # \\[2pt]
                if any(cells):
                    rows.append(cells)
                cells = []
        if not rows:
            return ""
        return "\n\n" + "\n".join(_MARK + line for line in pipe_table(rows).split("\n")) + "\n\n"

    def _cell(self, start: int, end: int, depth: int) -> str:
        parts = []
        index = start
        while index < end:
            token = self.tokens[index]
            if token.kind == "word" and token.value in _TABLE_SILENT:
                index += 1
                if token.value in ("cline", "cmidrule"):
                    index = self._skip_parenthesis(index, end)
                    index = self.skip_argument(index, end)
                continue
            if token.kind == "word" and token.value in ("multicolumn", "multirow"):
                index = self.skip_optional(index + 1, end)
                index = self.skip_argument(index, end)
                index = self.skip_optional(index, end)
                index = self.skip_argument(index, end)
                text, index = self.argument(index, end, depth)
                parts.append(text or "")
                continue
            stop = index + 1
            while stop < end and not (self.tokens[stop].kind == "word" and self.tokens[stop].value in
                                      (_TABLE_SILENT | {"multicolumn", "multirow"})):
                stop = self.partner.get(stop, stop) + 1 if self.tokens[stop].kind in ("open", "begin") else stop + 1
            parts.append(self.render(index, min(stop, end), depth))
            index = stop
        return " ".join("".join(parts).split()).replace("|", "\\|")

    def _skip_parenthesis(self, index: int, end: int) -> int:
        if index < end and self.tokens[index].kind == "text" and self.tokens[index].value.lstrip().startswith("("):
            value = self.tokens[index].value
            close = value.find(")")
            if close >= 0:
                self.tokens[index] = Token("text", value[close + 1 :])
        return index


def _stops(tokens: list[Token], partner: dict[int, int]) -> list[int]:
    """For each token index, the first `]` or paragraph break at or past it, each group and environment
    stepped over whole (len(tokens) where none): found in one pass from the end, so that a run of
    unclosed `[` costs a look-up each, not a walk of up to MAX_OPTIONAL_TOKENS tokens each. Tokens keep
    their kinds once read (a text token may be shortened), so the stops stay true."""
    stops = [len(tokens)] * (len(tokens) + 1)
    for index in range(len(tokens) - 1, -1, -1):
        kind = tokens[index].kind
        if kind in ("optclose", "par"):
            stops[index] = index
        elif kind in ("open", "begin") and index in partner:
            stops[index] = stops[partner[index] + 1]
        else:
            stops[index] = stops[index + 1]
    return stops


def _unknown(name: str) -> bool:
    return not _known(name) and name not in _DIMENSION_COMMANDS and name not in _INTEGER_COMMANDS \
        and name not in ("item", "\\")


def _known(name: str) -> bool:
    """A command this reader prints itself: a user's definition of it is not expanded in its place."""
    bare = name.rstrip("*")
    return (name in _LETTERS or name in _SYMBOLS or name in _SILENT or bare in _SECTIONS or bare in _STRONG
            or bare in _EMPHASIS or bare in _CODE or bare in _CITATIONS or name in _NEW_COMMANDS or name in _DOC_WORDS
            or bare in _REFERENCES or bare in ("item", "bibitem", "title", "author", "date", "and", "maketitle", "caption", "footnote", "newtheorem",
                        "texorpdfstring"))


def _typeset(text: str) -> str:
    if text == "\n":
        return " "
    for source, printed in _TYPOGRAPHY:
        if source in text:
            text = text.replace(source, printed)
    return text.replace("\n", " ")


def _heading(level: int, text: str | None) -> str:
    title = " ".join((text or "").replace("**", "").split())
    return f"\n\n{_MARK}{'#' * level} {title}\n\n" if title else ""


def _math(source: str, kind: str) -> str:
    source = re.sub(r"\\label\s*\{[^{}\n]*\}", "", source)
    if kind == "inline":
        return f"${' '.join(source.split())}$"
    lines = [line.rstrip() for line in source.strip("\n").split("\n") if line.strip()]
    if not lines:
        return ""
    return "\n\n" + "\n".join(_MARK + line for line in ["$$", *lines, "$$"]) + "\n\n"


def _code(code: str, language: str) -> str:
    block = fenced(code, language)
    return "\n\n" + "\n".join(_MARK + line for line in block.split("\n")) + "\n\n" if block else ""


def _collapse(text: str) -> str:
    """Runs of blank lines as one, spaces inside lines as one."""
    lines = []
    for line in text.split("\n"):
        if line.startswith(_MARK):
            lines.append(line.rstrip())
        else:
            lines.append(" ".join(line.split()))
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines))


def _finish(body: str) -> str:
    lines = []
    for line in _collapse(body).split("\n"):
        if _MARK in line:
            lines.append(line.replace(_MARK, ""))
        else:
            lines.append(escape_headings(line))
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip("\n") + "\n"
