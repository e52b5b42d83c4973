"""mdoc(7), BSD's manual page macros, as words: a line's macros and their arguments read as the
page prints them (`.Op Fl v Ar file` -> `[-v file]`, `.Xr ls 1` -> `ls(1)`), its lists as lists.

One pass over a line's words, left to right, with no recursion: a macro that encloses what
follows it (`.Op`, `.Dq`, `.Pq`...) encloses the rest of the line, so its closing mark is written
at the line's end, before the line's trailing punctuation.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from minirag.ingest.roff_text import PageState, Writer

# Enclose the rest of the line.
_ENCLOSING = {"Op": ("[", "]"), "Dq": ("“", "”"), "Qq": ('"', '"'), "Sq": ("‘", "’"), "Pq": ("(", ")"),
              "Bq": ("[", "]"), "Brq": ("{", "}"), "Aq": ("<", ">"), "Ql": ("‘", "’"), "D1": ("", ""),
              "Eo": ("", "")}
# Open or close on their own.
_OPENING = {"Oo": "[", "Do": "“", "Qo": '"', "So": "‘", "Po": "(", "Bo": "[", "Bro": "{", "Ao": "<", "Xo": ""}
_CLOSING = {"Oc": "]", "Dc": "”", "Qc": '"', "Sc": "’", "Pc": ")", "Bc": "]", "Brc": "}", "Ac": ">", "Xc": "",
            "Fc": ")", "Ec": ""}
_SYSTEMS = {"At": "AT&T UNIX", "Bx": "BSD", "Bsx": "BSD/OS", "Fx": "FreeBSD", "Nx": "NetBSD", "Ox": "OpenBSD",
            "Dx": "DragonFly", "Ux": "UNIX"}
# Words as they are.
_WORDS = frozenset({"Ar", "Cm", "Em", "Sy", "Li", "Pa", "Dv", "Ev", "Er", "Va", "Vt", "Ft", "Fa", "Ic", "Tn",
                    "Ad", "Cd", "Ms", "Mt", "Lk", "No", "Sx", "An", "St", "Nm", "Fl", "Xr", "In", "Fn", "Fo",
                    "Ns", "Pf", "Ta", "Lb", "Ot", "Hf", "Fr", "Tg", "Es", "Sm"})
CALLABLE = frozenset({*_ENCLOSING, *_OPENING, *_CLOSING, *_SYSTEMS, *_WORDS})
_CLOSING_MARKS = frozenset({".", ",", ":", ";", ")", "]", "?", "!"})
_OPENING_MARKS = frozenset({"(", "["})
_LITERAL = frozenset({"-literal", "-unfilled"})
_IGNORED = frozenset({"Dd", "Os", "Bk", "Ek", "Sm", "Rs", "Re", "Ud", "Lb", "Tg", "Ss"})


def words_of(tokens: list[str], state: PageState) -> str:
    """What a line of mdoc macros and words prints."""
    end = len(tokens)
    while end and tokens[end - 1] in _CLOSING_MARKS:
        end -= 1
    pieces: list[str] = []
    closers: list[str] = []
    glued = True  # no space before the next piece
    macro = ""
    expect = 0  # words the current macro takes a fixed number of (`.Xr name section`)
    taken: list[str] = []

    def put(text: str, *, space: bool = True) -> None:
        nonlocal glued
        if text == "":
            return
        if pieces and space and not glued:
            pieces.append(" ")
        pieces.append(text)
        glued = False

    def default() -> None:
        """What a macro given no words prints."""
        nonlocal glued
        if macro == "Fl":
            put("-")
            glued = True  # `.Fl Fl apple`: --apple
        elif macro == "Ar":
            put("file ...")
        elif macro == "Nm" and state.name:
            put(state.name)
        elif macro == "Pa":
            put("~")

    given = False
    for token in [*tokens[:end], "\0end", *tokens[end:]]:
        if token == "\0end" or token in CALLABLE:
            if macro and not given:
                default()
            if macro == "Fn" and taken:
                put(f"{taken[0]}({', '.join(taken[1:])})")
            taken = []
            if token == "\0end":
                for closer in reversed(closers):
                    pieces.append(closer)
                closers, macro = [], ""
                glued = False
                continue
            macro, given, expect = token, False, 2 if token == "Xr" else 0
            if token in _ENCLOSING:
                opener, closer = _ENCLOSING[token]
                put(opener)
                glued = bool(opener)
                closers.append(closer)
            elif token in _OPENING:
                put(_OPENING[token])
                glued = bool(_OPENING[token])
            elif token in _CLOSING:
                if token == "Fc":
                    pieces.append(")")
                else:
                    pieces.append(_CLOSING[token])
            elif token in _SYSTEMS:
                put(_SYSTEMS[token])
                given = True
            elif token == "Ns":
                glued, given = True, True
            elif token == "Ta":
                put("|")
                given = True
            continue
        if token in _CLOSING_MARKS and pieces:
            pieces.append(token)
            continue
        if token in _OPENING_MARKS:
            put(token)
            glued = True
            continue
        if macro == "An" and token in ("-split", "-nosplit"):  # how the authors' names break
            continue
        # A word (`\\&Op` is no macro, `\\&.` no mark): its escapes as what they print.
        token = state.words(token)
        if not token:
            continue
        given = True
        if macro == "Nm" and state.name is None:
            state.name = token
        if macro == "Fl":
            put("-" + token)
        elif macro == "In":
            put(f"<{token}>")
        elif macro == "Fn":
            taken.append(token)
        elif macro == "Fo":
            put(f"{token}(")
            glued = True
            macro = ""
        elif macro == "Xr" and expect:
            if expect == 1:
                pieces.append(f"({token})")
            else:
                put(token)
            expect -= 1
        elif macro in _SYSTEMS:
            put(token)
        elif macro == "Pf":
            put(token)
            glued, macro = True, ""
        else:
            put(token)
    return "".join(pieces)


def mdoc_request(name: str, args: list[str], out: Writer, state: PageState) -> str | None:
    """What the mdoc line macro `.name args` does to `out`; the words it prints, if any."""
    if name == "Dt":
        state.th = args[:2]
        return None
    if name in _IGNORED:
        return None
    if name == "Nd":
        state.description = words_of(args, state)
        return "— " + state.description
    if name == "Bl":
        out.end()
        state.lists.append(next((arg for arg in args if arg.startswith("-") and arg != "-compact"
                                 and arg != "-offset" and arg != "-width"), "-item"))
        return None
    if name == "El":
        out.end()
        if state.lists:
            state.lists.pop()
        return None
    if name == "Xc":
        state.extending = False
        return None
    if name == "It":
        kind = state.lists[-1] if state.lists else "-tag"
        state.extending = bool(args) and args[-1] == "Xo"  # the tag goes on over the lines up to `.Xc`
        words = words_of(args, state)
        if kind == "-column":
            out.end()
            out.text(words)
            out.end()
        else:
            out.item(words if kind not in ("-bullet", "-dash", "-enum", "-item") else "")
        return None
    if name == "Bd":
        if _LITERAL.intersection(args):
            out.start_code()
        else:
            out.end()
        return None
    if name == "Ed":
        out.end_code()
        out.end()
        return None
    if name == "Dl":
        out.start_code()
        out.text(words_of(args, state))
        out.end_code()
        return None
    if name == "D1":
        out.end()
        words = words_of(args, state)
        out.text(words)
        out.end()
        return None
    if name == "Ex":
        utility = next((arg for arg in args if not arg.startswith("-")), state.name or "utility")
        return f"The {utility} utility exits 0 on success, and >0 if an error occurs."
    if name == "Rv":
        function = next((arg for arg in args if not arg.startswith("-")), state.name or "function")
        return (f"The {function}() function returns the value 0 if successful; otherwise the value -1 is "
                "returned and the global variable errno is set to indicate the error.")
    if name.startswith("%"):  # a reference's author, title, journal...
        return words_of(args, state) or None
    if name in CALLABLE:
        return words_of([name, *args], state) or None
    return None  # a roff request (.nh, .ad, .ds, .nr, .in, .RS, ...): no text of its own
