"""What a file's name says it is read as: its suffix, a compressed document's inner one, a manual page's section.

- `README.md.gz`, `notes.txt.bz2`, `data.csv.xz`: the document inside, read as the name without the
  compression's suffix says (`.md`). A name with nothing before the compression's suffix that
  minirag reads (`x.gz`, `x.tar.gz`, `x.md.gz.gz`) is no document: archives are not indexed, and a
  stream is unwrapped once. gzip's own record of the inner name (its FNAME header) is not asked: a
  file's format comes from its name, as every other file's does.
- `ls.1`, `printf.3`, `openssl.1ssl`, `git-commit.1.gz`: a manual page only when its head is roff
  (`is_roff_head`): `file.1` is as often a rotated log or a numbered copy. `x.man` is always one.
- `README`, `NEWS.gz`, `changelog.Debian.gz`, `copyright`, `LICENSE`: the files a project or a
  package names for what they hold, with no extension, are plain text (`.txt`); other names
  without one (`Makefile`, `notes`) are not documents.
- `README.dns`, `COPYING.LIB`, `NEWS.old.gz`, `ChangeLog.2010`, `changelog.1.gz`: such a name with a
  suffix that names no file type is a note too (`NamedAs.note`), read as text only where its head is
  text (`is_text_head`; a `.1` one's is roff: a manual page, `install.1`). So is one whose name goes
  on after a `-` or `_` (`LICENSE-MIT`, `README_MISSING_SYSCALL_OR_IOCTL.gz`). Its name must say so: in
  capitals (`README.tun`, `COPYING.LIB`) or `ChangeLog`/`Changes`, or after a dot a rotation's or a
  year's number (`changelog.1.gz`, `NEWS.0`) or a part's name with a `+`, which no type's suffix has
  (`changelog.libstdc++.gz`); `install.py`, `changelog.vim`, `Install.pm` are code, `install-sh` a script.
  A suffix a document has (`README.pdf`, `LICENSE.html`) or that Python's own table of file types
  names (`README.png`, `LICENSE.exe`, `README.sh`) is read as that type, or not at all.
"""

from __future__ import annotations

import functools
import mimetypes
import os
import re
from dataclasses import dataclass

from minirag.ingest.text_decoding import MAX_CONTROL_SHARE

COMPRESSIONS = {".gz": "gzip", ".bz2": "bzip2", ".xz": "xz"}
MANUAL = ".man"
# A manual section's suffix, lower-cased: a digit and up to twelve letters (`.1`, `.3p`, `.1ssl`, `.3pm`,
# `.3readline`, `.3ncurses`).
_SECTION = re.compile(r"\.[1-9][a-z]{0,12}")
# What a manual page begins with (blank lines and other requests before it aside): a comment, man(7)'s
# title or mdoc(7)'s date.
_ROFF_STARTS = (b'.\\"', b"'\\\"", b'\\"', b'\\#', b".TH", b".Dd", b'.\\\\"')
HEAD_BYTES = 4096  # the most of a page's head is_roff_head looks at
# Names of plain-text files a project (GNU's standards, GitHub's conventions) or a Debian package
# ships, lower-cased; each may end in `.Debian` (an architecture's after it: changelog.Debian.amd64)
# or `.source` as well (README.Debian, NEWS.Debian).
_TEXT_NAMES = frozenset({"readme", "news", "changes", "changelog", "history", "authors", "contributors", "thanks",
                         "todo", "install", "copying", "license", "licence", "notice", "copyright", "faq", "bugs",
                         "hacking", "contributing"})
# (An architecture's name holds a digit, armel and armhf aside: `.md` after `.Debian` is Markdown's.)
_PACKAGE_SUFFIX = re.compile(r"\.debian(?:\.(?:[a-z]{0,10}[0-9][a-z0-9_-]{0,10}|armel|armhf))?|\.source")
PLAIN_TEXT = ".txt"
# The suffixes of documents minirag reads by their name (images, where OCR reads them, aside).
DOCUMENT_EXTENSIONS = frozenset(
    {".md", ".markdown", ".mdx", ".txt", ".rst", ".adoc", ".asciidoc", ".org", ".tex", ".latex", ".ltx", ".pdf",
     ".doc", ".docx", ".docm", ".dotx", ".dotm", ".odt", ".ods", ".odp", ".rtf", ".ppt", ".pps", ".pptx", ".pptm",
     ".ppsx", ".ppsm", ".xls", ".xlt", ".xlsx", ".xlsm", ".xltx", ".xltm", ".html", ".htm", ".xhtml", ".xht", ".csv",
     ".mhtml", ".mht", ".tsv", ".epub", ".ipynb", ".eml", ".msg", ".mbox", ".srt", ".vtt", ".qmd", ".rmd", ".mkd",
     ".mkdn", ".mdown", ".mdwn", ".shtml", MANUAL}
)
# Formats a user may well expect read that minirag does not read, and why, as the line leaving one out says it.
BINARY_WORKBOOK = ("its sheets are binary records, which minirag does not read; saved as .xlsx (Excel's or "
                   "LibreOffice's Save As) it is read")
NOT_READ_FORMATS = {".xlsb": f"an Excel binary workbook: {BINARY_WORKBOOK}"}
# A note's name: one of _TEXT_NAMES, then what it is about after a `.`, `-` or `_` (`README.dns`, `LICENSE-MIT`,
# `README_MISSING_SYSCALL_OR_IOCTL`).
_NOTE_NAME = re.compile(r"([^._-]+)([._-].*)", re.DOTALL)
# What follows a note's name, lower-cased: up to three words (`.dns`, `.lib`, `.feature-removal-schedule`,
# `.debian.old`, `-mit`, `.libstdc++`); a rotation's or a year's number (`.0`, `.1`, `.2010`).
_NOTE_SUFFIX = re.compile(r"[._-][a-z0-9][a-z0-9_+-]{0,40}(?:\.[a-z0-9][a-z0-9_+-]{0,40}){0,2}")
_NUMBERED = re.compile(r"\.[0-9]{1,8}")
_NOTE_SPELLINGS = frozenset({"ChangeLog", "Changes"})  # the names in mixed case a note has (GNU's, Perl's)
# A name in capitals with no suffix, as a project names a note of its own (`ANNOUNCE`, `RELEASE-NOTES`,
# `00README`, `ABOUT-NLS`, `BUG-REPORT`), or one that ends in a note's name (`git-p4.README`,
# `libstemmer_c_README`, util-linux's `v2.35-ReleaseNotes`): a note, read as text where its head is text.
_CAPITALS = re.compile(r"[0-9]*[A-Z]{3,}[A-Z0-9]*(?:[-_][A-Z0-9]+)*")
_NOTE_TAIL = re.compile(r".+[._-](?:README|ReadMe|RELEASE[-_]NOTES|ReleaseNotes|NOTES|NEWS|CHANGES|ChangeLog|TODO|FAQ)")
# Names in capitals that build tools, packagers and version control give files that hold no prose.
_MACHINE_NAMES = frozenset({"BUILD", "BUCK", "TARGETS", "DEPS", "WORKSPACE", "RECORD", "WHEEL", "INSTALLER",
                            "REQUESTED", "CODEOWNERS", "OWNERS", "VERSION", "MANIFEST", "PKG-INFO", "TAGS", "GTAGS",
                            "GRTAGS", "GPATH", "HEAD", "ORIG_HEAD", "FETCH_HEAD", "MERGE_HEAD", "COMMIT_EDITMSG"})
# Code's and markup's suffixes Python's table of file types lacks (`README.pod`, `LICENSE.yaml`): typed, no note.
_CODE = frozenset({".pod", ".pm", ".vim", ".el", ".rb", ".go", ".rs", ".java", ".ts", ".lua", ".php", ".cpp", ".hpp",
                   ".cc", ".yaml", ".yml", ".toml", ".json", ".asc", ".sig", ".in", ".am", ".ac", ".cmake"})


@dataclass(frozen=True)
class NamedAs:
    suffix: str  # as named, lower-cased, compression's suffix included: ".md", ".md.gz", ".1", ".tar.gz", ""
    kind: str  # the format read: the inner suffix (".md"); MANUAL for a manual section (".1", ".3p")
    compression: str  # ".gz", ".bz2", ".xz" or ""
    sniffed: bool  # a manual section's number: a manual page only if its head is roff
    note: bool = False  # a note's name with a suffix of its own (`README.dns`): text only if its head is text

    @property
    def read_as(self) -> str:
        """The suffix convert reads the file by: `suffix`, or ".txt" (".txt.gz") for a `README` (`NEWS.gz`)."""
        return PLAIN_TEXT + self.compression if self.suffix == self.compression and self.kind == PLAIN_TEXT \
            else self.suffix


@functools.cache
def supported_extensions() -> frozenset[str]:
    """The suffixes of documents: DOCUMENT_EXTENSIONS, and the image files' where they can be read
    (the ocr extra installed, OCR not off), asked once a process on first need."""
    from minirag.ingest import ocr

    return DOCUMENT_EXTENSIONS | (ocr.IMAGE_EXTENSIONS if ocr.images_readable() else frozenset())


def _last_suffix(name: str) -> str:
    dot = name.rfind(".")
    return name[dot:].lower() if dot > 0 and dot < len(name) - 1 else ""


def named_as(name: str) -> NamedAs:
    """What the file name `name` (no folders) is read as."""
    outer = _last_suffix(name)
    compression = outer if outer in COMPRESSIONS else ""
    inner = _last_suffix(name[:-len(outer)]) if compression else outer
    bare = name[:-len(outer)] if compression else name
    if _is_text_name(bare):
        return NamedAs(compression, PLAIN_TEXT, compression, False)
    if (not inner and _CAPITALS.fullmatch(bare) and bare not in _MACHINE_NAMES) or _NOTE_TAIL.fullmatch(bare):
        return NamedAs(compression, PLAIN_TEXT, compression, False, note=True)
    if compression and (inner in COMPRESSIONS or not (inner or _is_note(bare, inner))):
        return NamedAs(outer, outer, "", False)  # `x.gz`, `x.md.gz.gz`: nothing minirag reads by its name
    sniffed = _SECTION.fullmatch(inner) is not None
    if _is_note(bare, inner):
        return NamedAs(inner + compression, MANUAL, compression, True, note=True) if sniffed \
            else NamedAs(compression, PLAIN_TEXT, compression, False, note=True)
    return NamedAs(inner + compression, MANUAL if sniffed else inner, compression, sniffed)


def _is_text_name(name: str) -> bool:
    head, dot, rest = name.lower().partition(".")
    return head in _TEXT_NAMES and (not dot or _PACKAGE_SUFFIX.fullmatch(dot + rest) is not None)


def _is_note(name: str, last: str) -> bool:
    """Whether `name` (no compression's suffix) is a note's name with a suffix of its own whose last is `last`."""
    parts = _NOTE_NAME.fullmatch(name)
    if parts is None:
        return False
    head, rest = parts.groups()
    if head.lower() not in _TEXT_NAMES or _NOTE_SUFFIX.fullmatch(rest.lower()) is None:
        return False
    if last in DOCUMENT_EXTENSIONS or last in COMPRESSIONS or last in _CODE or _typed(last):
        return False
    if head.isupper() or head in _NOTE_SPELLINGS:
        return True
    # In lower case, only after a dot: a rotation's or a year's number, a Debian suffix (changelog.Debian.old),
    # or a part's name, which a `+` says no file type's suffix is (gcc's changelog.libstdc++; `changelog.lang`
    # is a syntax file, `install-sgmlcatalog.8` a manual page).
    return rest.startswith(".") and (_NUMBERED.fullmatch(last) is not None or "+" in rest
                                     or _PACKAGE_SUFFIX.match(rest.lower()) is not None)


def _typed(suffix: str) -> bool:
    """Whether Python's own table of file types (never the machine's, which differs between machines) names one
    for `suffix` (`.png`, `.exe`, `.sh`, `.py`). Nothing is kept per suffix: a tree's names are any names."""
    return bool(_types().guess_type("x" + suffix, strict=False)[0])


@functools.cache
def _types() -> mimetypes.MimeTypes:
    """Python's own table of file types, built once."""
    return mimetypes.MimeTypes()


def is_text_head(head: bytes) -> bool:
    """Whether a file that begins with `head` is text as decode_text reads it: a UTF-16 or UTF-32
    byte-order mark, or no NUL byte and few other control characters (tab, line and page breaks,
    escape aside). An empty one is none: nothing in it to read."""
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):
        return True
    head = head[:HEAD_BYTES]
    if not head or b"\x00" in head:
        return False
    controls = sum(1 for byte in head if byte < 0x20 and byte not in b"\t\n\r\f\v\x1b") + head.count(b"\x7f")
    return controls <= MAX_CONTROL_SHARE * len(head)




def split_suffix(suffix: str) -> tuple[str, str]:
    """A suffix as convert receives it (".md.gz") as its format's suffix and its compression's."""
    suffix = suffix.lower()
    for compression in COMPRESSIONS:
        if suffix.endswith(compression) and len(suffix) > len(compression):
            return suffix[:-len(compression)], compression
    return suffix, ""


def stem(name: str) -> str:
    """`name` without what it is read as: `README.md.gz` -> `README`, `ls.1` -> `ls`."""
    suffix = named_as(name).suffix
    return name[:-len(suffix)] if suffix and name.lower().endswith(suffix) else name


def title_stem(path: str) -> str:
    """What a file at `path` is titled where nothing in it names it: its stem, and for text named
    for what it holds (`README`, `copyright`) its folder's name after it, `README (openssh-client)`:
    a thousand packages' notes would otherwise share a handful of titles."""
    folder, name = os.path.split(path)
    named = named_as(name)
    if named.kind == PLAIN_TEXT and named.suffix == named.compression and os.path.basename(folder):
        return f"{stem(name)} ({os.path.basename(folder)})"
    return stem(name)


def is_manual_section(suffix: str) -> bool:
    return _SECTION.fullmatch(suffix.lower()) is not None


def is_roff_head(head: bytes) -> bool:
    """Whether a page that begins with `head` is roff: a roff comment, man(7)'s `.TH` or mdoc(7)'s
    `.Dd` comes before any line of text, other requests before it aside (`.lf 1 stdin`, a `.de`
    macro's definition, `.ds`). A page that is only `.so other.1` is none."""
    ignoring = False  # inside `.ig ... ..`, a block roff leaves out
    for line in head[:HEAD_BYTES].lstrip(b"\xef\xbb\xbf").splitlines():
        if ignoring:
            ignoring = not line.startswith(b"..")
        elif line.startswith(_ROFF_STARTS):
            return True
        elif line.startswith(b".ig"):
            ignoring = True
        elif line.strip() and not line.startswith((b".", b"'")):
            return False
    return False
