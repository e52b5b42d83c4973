"""What typesetting leaves in converted text, taken back out, so words are whole for both sides.

- A lone UTF-16 surrogate (JSON may escape half a pair, `"\\ud800"`: a notebook, ingest_data)
  is no character: it becomes U+FFFD, which the tokenizer, SQLite and JSON can carry.
- Soft hyphens (U+00AD) only say where a word may break; they are invisible. Left in,
  FTS5 splits "manip\\u00adulation" into two words and the encoder reads three pieces.
- Ligatures (U+FB00-FB06: ﬀ ﬁ ﬂ ﬃ ﬄ ﬅ ﬆ), which PDF text layers often hold, become their
  letters: "ﬁle" is "file" to a reader, but not to FTS5. So do Arabic's and Hebrew's
  presentation forms (`ﻋﻠﻮم` is `علوم`, the letters a query is typed in).
- In PDF text only, a word hyphenated across a line end ("declara-\\ntions", or with an empty
  line between, where the halves fell in two text blocks) is joined again; one across a page break
  is joined at the end of the page it starts on (R-intro's `filesys-` / `tems`), the break kept. A PDF's line breaks are layout, not the author's, and in justified text such a
  break is nearly always a word split, seldom a real hyphen (of 28 in libtasn1.pdf, two:
  "non-commercially" becomes "noncommercially", a date format's "hhmm-hh" "hhmmhh").
  A break is joined when the next line goes on in lower case, or both sides are capitals
  ("SE-\\nQUENCE"); a hyphen after a digit or before a capitalised word stays. The document
  itself settles it where it can: a word it spells with a hyphen elsewhere ("non-commercially")
  keeps its hyphen, and one it spells joined keeps none.
- In PDF text only, an accent TeX set as a glyph of its own beside its letter ("G´erard",
  "Publicac¸˜oes") is put back on it ("Gérard", "Publicações"), where Unicode has the accented
  letter as one character (TeX's dotless ı under an accent is an i); else it stays as it is.
- In PDF text only, a host name or URL broken after one of its dots
  ("ftp://ftp.security.\\nupload.debian.org") is whole again: a line that ends in a dotted name
  and a line that goes on with one (`label.label`) were one name.
- In PDF text only, a URL a line ends in, broken after `://` or after a `.`, `/`, `_`, `?`, `=`,
  `&` or `#` ("https://doi.org/10.1080/10618600.\n2000.10474895"), goes on onto the next line when
  that line's first word plainly goes on with it: it holds a URL's marks (a `/`, `=`, `_`, `~`, `#`,
  `?`, `&`, `%`, or a dot, colon or hyphen inside), or closes a parenthesis opened before the URL
  on its line (`(https://www.actualtech.com/product_access.\nphp)`), or, after a dot that follows a
  letter or digit, is a web file's extension or a generic top-level domain (`html`, `org`). A
  capitalised or plain word, a footnote's or section's number (`17`, `7.36`), another URL, or a full
  stop after a `/` or `)` is what follows the URL, not part of it: `See https://example.org.\nThe
  next` stays two sentences. One empty line between is crossed, a page break never.
- In PDF text only, a word or name broken at a line end with Doxygen's break mark (its LaTeX
  draws a small hooked arrow where it broke a word, doxygen.sty's `\\+`; pdfminer reads `←`) is
  whole again: `Post←` / `Script` is PostScript, `https://sourceforge.←` / `net/…` one URL. The
  mark goes when it touches the word before it and the next line goes on with a word; an arrow
  with a space before it (`i ←` / `i + 1`) or after a colon is text.

In plain text that is not Markdown (a .txt file, a PDF's text), a line that starts with `#`
is text, not a heading: `escape_headings` escapes it. `is_page_number` tells a page's number
(`15`, `xii`, `Page 3 of 9`) from text, for the running lines of PDF pages and DOCX footers.
"""

from __future__ import annotations

import re
import unicodedata

from minirag.typesetting import TYPESETTING

# (One empty line between the halves: pdfminer parts text blocks so, a paragraph a column split.)
_LINE_END_HYPHEN = re.compile(r"(\w*)([^\W\d_])-[ \t]*\n(?:[ \t]*\n)?[ \t]*(?=(([^\W\d_])\w*))")
# A word hyphenated at a page's end, its second half opening the next page (white space between).
# Found from the hyphen, the words either side read after (_joined_over_pages): a pattern opening with
# `\w*` is tried again from every letter of a long word that fails it, quadratic in the word.
_PAGE_END_HYPHEN = re.compile(r"(?<=[^\W\d_])-((?:[ \t]*\n)*[ \t]*\f[ \t\n]*)(?=[^\W\d_])")
_WORD_END = re.compile(r"\w{1,100}\Z")  # the first half, read back from the hyphen (a word, not a run)
_WORD_START = re.compile(r"\w{1,100}")
_BROKEN_HOST = re.compile(r"(?<![\w.])((?:[a-z][a-z0-9+.-]*://)?[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+\.)[ \t]*\n[ \t]*"
                          r"(?=[a-z0-9][a-z0-9-]*\.[a-z])")
# A line's end, one empty line between at most (pdfminer parts text blocks so), where a URL may
# be broken as a typesetter breaks one (TeX's url package: after `://`, a `.`, `/`...).
_LINE_BREAK = re.compile(r"[ \t]*\n(?:[ \t]*\n)?[ \t]*")
# A scheme is looked for only where a run of its characters begins, each run read once.
_URL_START = re.compile(r"(?<![A-Za-z0-9+.-])[A-Za-z][A-Za-z0-9+.-]*+://|\bwww\.")
_URL_BREAKS = "./_?=&#"
_WORD_AHEAD = re.compile(r"\S+")
_SECTION_NUMBER = re.compile(r"\d+(?:\.\d+)+\.?")
_URL_MARK = re.compile(r"[/=_~#?&%]|[.:-][A-Za-z0-9]")
_CLOSING = ")]}>,;:.!?'\"\u2019\u201d"
# What a URL broken after a dot may go on with and nothing else: a web file's extension or a generic
# top-level domain (R's manuals: `product_access.` / `php)`, `barrier.` / `html`, `R-project.` / `org)`).
_AFTER_DOT = frozenset({"html", "htm", "shtml", "php", "asp", "aspx", "pdf", "txt", "xml", "json",
                        "com", "org", "net", "edu", "gov"})
# Spacing accents and the combining marks they stand for: most come before their letter, a cedilla
# and an ogonek after it.
_ACCENT_BEFORE = {"\u00b4": "\u0301", "\u00a8": "\u0308", "\u02c6": "\u0302", "\u02dc": "\u0303",
                  "\u02c7": "\u030c", "\u02d8": "\u0306", "\u02d9": "\u0307", "\u02da": "\u030a",
                  "\u02dd": "\u030b", "\u00af": "\u0304"}
_ACCENT_AFTER = {"\u00b8": "\u0327", "\u02db": "\u0328"}
_SPLIT_ACCENT = re.compile(f"([{''.join(_ACCENT_BEFORE)}])([^\\W\\d_])|([^\\W\\d_])([{''.join(_ACCENT_AFTER)}])")
_NAME_REACH = 1000  # characters before a line end's hyphen looked at for a URL or path it ends
_NAME_GOES_ON = re.compile(r"\w+(?:\.[A-Za-z]\w*)+(?![\w-])")  # `rpm.ps.gz`, not `ple.` ending a sentence
_DOTLESS = {"\u0131": "i", "\u0237": "j"}
_ROMAN = r"(?=[ivxlcdm])m{0,3}(?:cm|cd|d?c{0,3})(?:xc|xl|l?x{0,3})(?:ix|iv|v?i{0,3})"
_PAGE_NUMBER = re.compile(rf"(?:page\s+)?(?:\d+|{_ROMAN})(?:\s*(?:/|of)\s*\d+)?", re.IGNORECASE)
# A line Markdown reads as a heading (`# x`, `###`), not `#include`, `#!/bin/sh`, `#123` or seven `#`s.
_HASH_LINE = re.compile(r"^([ \t]{0,3})(?=#{1,6}(?:[ \t]|$))", re.MULTILINE)
_TILDE_LINE = re.compile(r"^([ \t]{0,3})~(?=~~)", re.MULTILINE)
# A title alone on its line (a blank line or the text's start above it) over a line of tildes.
_TILDE_UNDERLINED = re.compile(r"(\A|\n[ \t]*\n)([^\s\\#][^\n]{0,150})\n[ \t]{0,3}(~{3,})[ \t]*(?=\n|\Z)")
# Arabic's and Hebrew's presentation forms (a letter's shape at a word's start, middle or end, a
# lam-alef ligature), which PDF text layers hold: the letters a query is typed in.
_PRESENTATION_FORM = re.compile("[\ufb1d-\ufb4f\ufb50-\ufdff\ufe70-\ufefe]+")
_BREAK_MARK = re.compile(r"(?<=[\w./])\u2190[ \t]*\n(?:[ \t]*\n)?[ \t]*(?=\w)")
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")  # json.loads joins valid pairs: what is left is alone


def repair(text: str, *, pdf: bool = False) -> str:
    if not text.isascii():
        text = without_lone_surrogates(text).translate(TYPESETTING)
        text = _PRESENTATION_FORM.sub(lambda form: unicodedata.normalize("NFKC", form.group()), text)
    if pdf and "\u2190" in text:
        text = _BREAK_MARK.sub("", text)
    if pdf and "-" in text:
        words = _Vocabulary(text)
        text = _LINE_END_HYPHEN.sub(words.join, text)
        if "\f" in text:
            text = _joined_over_pages(text)
    if pdf and "." in text:
        text = _BROKEN_HOST.sub(r"\1", text)
    if pdf and ("://" in text or "www." in text):
        text = _join_broken_urls(text)
    if pdf and not text.isascii():
        text = _SPLIT_ACCENT.sub(_accented, text)
    return text


def _join_broken_urls(text: str) -> str:
    """Each URL a line ends in joined to the next line's first word where that word goes on with
    it. Each line and word is read once (a regex looking back for the URL's start from every line
    end read a long word again for each of its letters)."""
    parts, line_start = [], 0
    for gap in _LINE_BREAK.finditer(text):
        line = text[line_start:gap.start()]
        url = line[max(line.rfind(" "), line.rfind("\t")) + 1:]
        word = _WORD_AHEAD.match(text, gap.end())
        parts.append(line)
        if not (word and url and (url[-1] in _URL_BREAKS or url.endswith("://")) and _URL_START.search(url)
                and _continues(url, word[0], open_parenthesis=line.count("(") > line.count(")"))):
            parts.append(gap[0])
        line_start = gap.end()
    parts.append(text[line_start:])
    return "".join(parts)


def _continues(url: str, word: str, *, open_parenthesis: bool) -> bool:
    if not (word[0].isascii() and (word[0].isalnum() or word[0] in "~%")):
        return False
    if url.endswith(".") and not url[-2].isalnum():
        return False  # a sentence's full stop after the URL (`.../MASS4/.`, `...=haven).`)
    if _SECTION_NUMBER.fullmatch(word):
        return False  # the next section's number (`….html.` / `7.36 Why are…`)
    if not url.endswith("://") and ("://" in word or word.casefold().startswith("www.")):
        return False  # another URL
    core = word.rstrip(_CLOSING)
    if _URL_MARK.search(core):
        return True
    if core.isalnum() and word[len(core):].startswith(")") and open_parenthesis:
        return True
    return url.endswith(".") and core in _AFTER_DOT


def _accented(match: re.Match[str]) -> str:
    accent, letter = (match[1], match[2]) if match[1] else (match[4], match[3])
    mark = _ACCENT_BEFORE.get(accent) or _ACCENT_AFTER[accent]
    composed = unicodedata.normalize("NFC", _DOTLESS.get(letter, letter) + mark)
    return composed if len(composed) == 1 else match[0]


def is_page_number(line: str) -> bool:
    return _PAGE_NUMBER.fullmatch(" ".join(line.split())) is not None


def without_lone_surrogates(text: str) -> str:
    """`text` with each lone surrogate made U+FFFD."""
    return _LONE_SURROGATE.sub("\ufffd", text)


def escape_headings(text: str) -> str:
    """Plain text whose lines starting with `#` stay text when read as Markdown, and whose lines
    of tildes too: in plain text such a line underlines a title (as reST's do) or parts sections,
    where Markdown would open a code fence at one and close it at the next."""
    if "#" in text:
        text = _HASH_LINE.sub(r"\1\\", text)
    if "~~~" not in text:
        return text
    return _TILDE_LINE.sub(r"\1\\~", _TILDE_UNDERLINED.sub(_underlined_title, text))


# A line Markdown reads as structure, not text: a list's item (`- x`, `+ x`, `* x`), a quote (`> x`), a
# table's row (`| x`, a row to the chunker), a definition (`: x`), a heading's underline or a rule
# (`===`, `---`, `-`, `* * *`, `___`), a code fence (```` ``` ````, `~~~`); and a numbered item (`23. dec`, `1) x`).
_STRUCTURE_LINE = re.compile(r"^([ \t]*)(?=[-+*](?:[ \t]|$)|[>|]|:[ \t]|(?:[-*_][ \t]*){3,}$|```|~~~)", re.MULTILINE)
_UNDERLINE = re.compile(r"(?<=\n)([ \t]*)(?=[=-]+[ \t]*$)", re.MULTILINE)  # under a line of text, not the first
_NUMBERED_LINE = re.compile(r"^([ \t]*\d{1,9})(?=[.)](?:[ \t]|$))", re.MULTILINE)


_DASHES = re.compile(r"[ \t]*-[- \t]*")  # after a list's `- `, a rule: `- --`, `- -`


def escape_structure(text: str, *, item: bool = False) -> str:
    """Text whose every line stays text when read as Markdown (escape_headings, and a backslash before
    what would begin a list, a quote, a table, a rule, a heading's underline or a code fence): for a
    reader whose lines are text and whose structure it writes itself (roff_text.py). `item`: the text
    follows a list item's `- `, with which a line of dashes (`--`, an option's tag) is a rule."""
    if item and _DASHES.fullmatch(text.split("\n", 1)[0]):
        text = "\\" + text
    text = _UNDERLINE.sub(r"\1\\", _STRUCTURE_LINE.sub(r"\1\\", text))
    return escape_headings(_NUMBERED_LINE.sub(r"\1\\", text))


def _underlined_title(match: re.Match) -> str:
    """A one-line title underlined with tildes as long as it, as a heading: the third of reST's
    usual underlines (`=`, `-`, `~`; Markdown reads the first two as headings already)."""
    title, underline = match.group(2), match.group(3)
    if len(underline) < len(title.rstrip()) * 4 // 5:
        return match.group(0)
    return f"{match.group(1)}### {title.strip()}"


def _joined_over_pages(text: str) -> str:
    """`text` with each word a page break parts (a hyphen ends one page, a letter opens the next)
    whole at the end of the page it starts on; the page break stays, so every page keeps its number."""
    words = _Vocabulary(text)
    out: list[str] = []
    at = 0
    for match in _PAGE_END_HYPHEN.finditer(text):
        first = _WORD_END.search(text, max(at, match.start() - 100), match.start())
        second = _WORD_START.match(text, match.end())
        if first is None or second is None:
            continue
        word, tail = first.group(), second.group()
        joined = words._joined(match, word[:-1], word[-1], tail, tail[0], match.end())
        if joined is None:
            continue
        out += [text[at:first.start()], joined, tail, "\n", match.group(1).lstrip(" \t\n")]
        at = second.end()
    return "".join(out) + text[at:] if out else text


class _Vocabulary:
    """The words a document spells elsewhere, to decide a hyphen at a line end the way it does."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._words: set[str] | None = None

    def words(self) -> set[str]:
        if self._words is None:
            self._words = {w.casefold() for w in re.findall(r"\w+(?:-\w+)*", self.text)}
        return self._words

    def join(self, match: re.Match) -> str:
        head, before, tail, after = match.group(1), match.group(2), match.group(3), match.group(4)
        joined = self._joined(match, head, before, tail, after, match.end())
        return match.group(0) if joined is None else joined

    def _joined(self, match: re.Match, head: str, before: str, tail: str, after: str, tail_at: int) -> str | None:
        """The first half as it goes before the second (`tail`): with its hyphen or without; None to
        leave the break as it is."""
        first, second = (head + before).casefold(), tail.casefold()
        if self._in_a_name(match.start(), tail_at):
            return f"{head}{before}-"
        if f"{first}-{second}" in self.words():
            return f"{head}{before}-"
        if first + second in self.words():
            return head + before
        if after.islower() or (before.isupper() and after.isupper()):
            return head + before
        return None

    def _in_a_name(self, start: int, tail_at: int) -> bool:
        """Whether the hyphen is inside a URL, a path or a file name: the text before it on its line
        runs on from a `/` (`www.rpm.org/maximum-`), or the text after it goes on to a dot and a
        letter (`jezik.pl`). A hyphen there is the name's own."""
        reach = max(0, start - _NAME_REACH)  # not back to the text's start at each hyphen of a text with no space
        word_start = max(self.text.rfind(" ", reach, start), self.text.rfind("\n", reach, start), reach - 1) + 1
        if "/" in self.text[word_start:start]:
            return True
        return _NAME_GOES_ON.match(self.text, tail_at) is not None
