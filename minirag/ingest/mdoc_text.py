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
# `.St -p1003.1-2008`: the standard's title, as groff's mdoc (doc-syms, groff 1.22.4) and mandoc print it.
_STANDARDS = {
    "-ansiC-89": "ANSI X3.159-1989 (“ANSI C89”)",
    "-isoC": "ISO/IEC 9899:1990 (“ISO C90”)",
    "-isoC-2011": "ISO/IEC 9899:2011 (“ISO C11”)",
    "-isoC-99": "ISO/IEC 9899:1999 (“ISO C99”)",
    "-isoC-amd1": "ISO/IEC 9899/AMD1:1995 (“ISO C90, Amendment 1”)",
    "-isoC-tcor1": "ISO/IEC 9899/TCOR1:1994 (“ISO C90, Technical Corrigendum 1”)",
    "-isoC-tcor2": "ISO/IEC 9899/TCOR2:1995 (“ISO C90, Technical Corrigendum 2”)",
    "-p1003.1": "IEEE Std 1003.1 (“POSIX.1”)",
    "-p1003.1b": "IEEE Std 1003.1b (“POSIX.1”)",
    "-p1003.1-88": "IEEE Std 1003.1-1988 (“POSIX.1”)",
    "-p1003.1-90": "ISO/IEC 9945-1:1990 (“POSIX.1”)",
    "-p1003.1b-93": "IEEE Std 1003.1b-1993 (“POSIX.1”)",
    "-p1003.1c-95": "IEEE Std 1003.1c-1995 (“POSIX.1”)",
    "-p1003.1i-95": "IEEE Std 1003.1i-1995 (“POSIX.1”)",
    "-p1003.1-96": "ISO/IEC 9945-1:1996 (“POSIX.1”)",
    "-p1003.1g-2000": "IEEE Std 1003.1g-2000 (“POSIX.1”)",
    "-p1003.1-2001": "IEEE Std 1003.1-2001 (“POSIX.1”)",
    "-p1003.1-2004": "IEEE Std 1003.1-2004 (“POSIX.1”)",
    "-p1003.1-2008": "IEEE Std 1003.1-2008 (“POSIX.1”)",
    "-p1003.2": "IEEE Std 1003.2 (“POSIX.2”)",
    "-p1003.2-92": "IEEE Std 1003.2-1992 (“POSIX.2”)",
    "-p1003.2a-92": "IEEE Std 1003.2a-1992 (“POSIX.2”)",
    "-iso9945-2-93": "ISO/IEC 9945-2:1993 (“POSIX.2”)",
    "-susv2": "Version 2 of the Single UNIX Specification (“SUSv2”)",
    "-susv3": "Version 3 of the Single UNIX Specification (“SUSv3”)",
    "-svid4": "System V Interface Definition, Fourth Edition (“SVID4”)",
    "-xbd5": "X/Open Base Definitions Issue 5 (“XBD5”)",
    "-xcu5": "X/Open Commands and Utilities Issue 5 (“XCU5”)",
    "-xcurses4.2": "X/Open Curses Issue 4, Version 2 (“XCURSES4.2”)",
    "-xns5": "X/Open Networking Services Issue 5 (“XNS5”)",
    "-xns5.2": "X/Open Networking Services Issue 5.2 (“XNS5.2”)",
    "-xpg3": "X/Open Portability Guide Issue 3 (“XPG3”)",
    "-xpg4": "X/Open Portability Guide Issue 4 (“XPG4”)",
    "-xpg4.2": "X/Open Portability Guide Issue 4, Version 2 (“XPG4.2”)",
    "-xsh5": "X/Open System Interfaces and Headers Issue 5 (“XSH5”)",
    "-ieee754": "IEEE Std 754-1985",
    "-ieee1275-94": "IEEE Std 1275-1994 (“Open Firmware”)",
    "-iso8601": "ISO 8601",
    "-iso8802-3": "ISO/IEC 8802-3:1989",
    "-ansiC": "ANSI X3.159-1989 (“ANSI C89”)",
    "-isoC-90": "ISO/IEC 9899:1990 (“ISO C90”)",
    "-iso9945-1-90": "ISO/IEC 9945-1:1990 (“POSIX.1”)",
    "-iso9945-1-96": "ISO/IEC 9945-1:1996 (“POSIX.1”)",
}
# Words as they are.
_WORDS = frozenset({"Ar", "Cm", "Em", "Sy", "Li", "Pa", "Dv", "Ev", "Er", "Va", "Vt", "Ft", "Fa", "Ic", "Tn",
                    "Ad", "Cd", "Ms", "Mt", "Lk", "No", "Sx", "An", "St", "Nm", "Fl", "Xr", "In", "Fn", "Fo",
                    "Ns", "Pf", "Ta", "Lb", "Ot", "Hf", "Fr", "Tg", "Es", "Sm"})
CALLABLE = frozenset({*_ENCLOSING, *_OPENING, *_CLOSING, *_SYSTEMS, *_WORDS})
_CLOSING_MARKS = frozenset({".", ",", ":", ";", ")", "]", "?", "!"})
_OPENING_MARKS = frozenset({"(", "["})
_LITERAL = frozenset({"-literal", "-unfilled"})
_IGNORED = frozenset({"Dd", "Os", "Bk", "Ek", "Sm", "Rs", "Re", "Ud", "Lb", "Tg", "Ss"})


# Every macro mdoc_request reads: a page's own macro of one of these names is not expanded (roff_macros.py).
MDOC_MACROS = frozenset({*CALLABLE, *_IGNORED, "Dt", "Nd", "Bl", "El", "It", "Bd", "Ed", "Dl", "Ex", "Rv"})


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
        if pieces and space and not glued and state.spacing:
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
        elif macro == "St":
            put(_STANDARDS.get(token, token))
        elif macro == "Pf":
            put(token)
            glued, macro = True, ""
        else:
            put(token)
    return "".join(pieces)


_SYNOPSIS_LINES = frozenset({"Nm", "In", "Fd", "Ft", "Fo", "Fn", "Vt"})


def mdoc_request(name: str, args: list[str], out: Writer, state: PageState) -> str | None:
    """What the mdoc line macro `.name args` does to `out`; the words it prints, if any."""
    if name == "Dt":
        state.th = args[:2]
        return None
    if name == "Sm":
        state.spacing = args[0] != "off" if args else not state.spacing
        state.unspaced_lines = 0
        return None
    if name in _IGNORED:
        return None
    if name in _SYNOPSIS_LINES and state.synopsis:
        out.line_break()  # each name, header and function of a synopsis begins a line (mandoc, groff)
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
